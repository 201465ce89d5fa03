// The compiled circuits the engine proves witness-only (r1cs/compiled_circuit.hpp), one per
// parameter set (a set is one circuit shape): read from their folder (EngineConfig::compiled_dir,
// by default <param_cache_dir>/compiled) or recorded there on first use (by the first partition that needs it; others
// of the same shape wait for it), kept in host memory while the engine runs, charged to the budget and shown by the
// tracker (compiled_circuit_bytes).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "r1cs/compiled_circuit.hpp"

namespace cuzk::engine {

class MemoryBudget;
class BufferTracker;

// Bump when any circuit's constraints change: files recorded by other code are then recorded
// again (a file whose counts disagree with a synthesis is refused anyway, at its first proof).
inline constexpr int kCircuitCodeVersion = 1;

class CompiledCircuits {
 public:
  CompiledCircuits(std::filesystem::path dir, MemoryBudget& budget, BufferTracker& tracker)
      : dir_(std::move(dir)), budget_(budget), tracker_(tracker) {}

  // The compiled circuit of parameter set param_id: resident, read from its file, or recorded
  // by record (which synthesizes one partition into the given system) and written. Throws what
  // recording throws (the caller then proves by full synthesis); a circuit that cannot be compiled
  // (r1cs::CircuitTooLarge) is not recorded again, its error thrown again at once.
  std::shared_ptr<const r1cs::CompiledCircuit> get(const std::string& param_id,
                                                   const std::function<void(r1cs::ConstraintSystem&)>& record);
  // Lets param_id's circuit go (its set is proved by full synthesis): its charge back to the
  // budget; the memory goes with the last reference. A later get reads its file again.
  void release(const std::string& param_id);
  // Why param_id's circuit cannot be compiled (an earlier get found it), empty when it can or
  // nobody tried: its jobs start by full synthesis.
  std::string uncompilable(const std::string& param_id) const;
  // Host bytes of the resident circuits (charged to the budget).
  uint64_t bytes() const {
    std::lock_guard lock(mutex_);
    return bytes_;
  }
  // param_id's circuit id (with kCircuitCodeVersion) and its file in dir.
  static std::string circuit_id(const std::string& param_id);
  static std::filesystem::path file_in(const std::filesystem::path& dir, const std::string& param_id);

 private:
  struct Entry {
    std::mutex loading;  // held while it is read or recorded
    std::shared_ptr<const r1cs::CompiledCircuit> circuit;
  };
  std::filesystem::path dir_;
  MemoryBudget& budget_;
  BufferTracker& tracker_;
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<Entry>> entries_;
  std::map<std::string, std::string> uncompilable_;  // param_id -> the recorder's CircuitTooLarge
  uint64_t bytes_ = 0;                               // of the resident circuits (the tracker's compiled_circuit_bytes)
};

}  // namespace cuzk::engine

#include "engine/compiled_circuits.hpp"

#include <cctype>
#include <spdlog/spdlog.h>
#include <stdexcept>

#include "engine/budget.hpp"
#include "engine/tracker.hpp"
#include "r1cs/compiled_circuit_file.hpp"

namespace cuzk::engine {
namespace {

// One partition's synthesis as a circuit, for the recorder.
class RecordedPartition final : public r1cs::Circuit {
 public:
  explicit RecordedPartition(const std::function<void(r1cs::ConstraintSystem&)>& record) : record_(record) {}
  void synthesize(r1cs::ConstraintSystem& cs) const override { record_(cs); }

 private:
  const std::function<void(r1cs::ConstraintSystem&)>& record_;
};

}  // namespace

std::string CompiledCircuits::circuit_id(const std::string& param_id) {
  return param_id + "-c" + std::to_string(kCircuitCodeVersion);
}

std::filesystem::path CompiledCircuits::file_in(const std::filesystem::path& dir, const std::string& param_id) {
  std::string name = circuit_id(param_id);  // ids are letters, digits, '.', '_' and '-' already
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') c = '_';
  }
  return dir / (name + ".r1cs");
}

std::shared_ptr<const r1cs::CompiledCircuit> CompiledCircuits::get(
    const std::string& param_id, const std::function<void(r1cs::ConstraintSystem&)>& record) {
  std::shared_ptr<Entry> entry;
  {
    std::lock_guard lock(mutex_);
    auto& e = entries_[param_id];
    if (!e) e = std::make_shared<Entry>();
    entry = e;
  }
  std::lock_guard loading(entry->loading);
  if (entry->circuit) return entry->circuit;
  if (std::string why = uncompilable(param_id); !why.empty()) throw r1cs::CircuitTooLarge(why);
  std::shared_ptr<const r1cs::CompiledCircuit> circuit;
  try {
    circuit = r1cs::load_or_compile(
        file_in(dir_, param_id), circuit_id(param_id), [&] { return r1cs::compile_circuit(RecordedPartition(record)); },
        [](const std::string& line) { spdlog::info("{}", line); });
  } catch (const r1cs::CircuitTooLarge& e) {  // the same next time: remembered, not recorded again
    std::lock_guard lock(mutex_);
    uncompilable_[param_id] = e.what();
    throw;
  }
  const uint64_t b = circuit->bytes();
  budget_.force_reserve(b);  // resident from now on, beside the partitions
  uint64_t total;
  {
    std::lock_guard lock(mutex_);
    bytes_ += b;
    total = bytes_;
  }
  tracker_.set_compiled_circuit_bytes(int64_t(total), "compiled circuit " + param_id);
  entry->circuit = std::move(circuit);
  return entry->circuit;
}

std::string CompiledCircuits::uncompilable(const std::string& param_id) const {
  std::lock_guard lock(mutex_);
  auto it = uncompilable_.find(param_id);
  return it == uncompilable_.end() ? std::string() : it->second;
}

void CompiledCircuits::release(const std::string& param_id) {
  std::shared_ptr<Entry> entry;
  {
    std::lock_guard lock(mutex_);
    auto it = entries_.find(param_id);
    if (it == entries_.end()) return;
    entry = it->second;
  }
  std::lock_guard loading(entry->loading);
  if (!entry->circuit) return;
  const uint64_t b = entry->circuit->bytes();
  entry->circuit.reset();
  uint64_t total;
  {
    std::lock_guard lock(mutex_);
    bytes_ -= b;
    total = bytes_;
  }
  budget_.release(b);
  tracker_.set_compiled_circuit_bytes(int64_t(total), "compiled circuit " + param_id + " released");
}

}  // namespace cuzk::engine

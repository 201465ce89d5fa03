// The parameter manager: loads parameter sets on demand by id, from the sources that serve the
// id (Filecoin's published files: src/kinds/) or else the cache directory (<dir>/<id>.params,
// bellperson's layout), accounts their bytes against the budget, keeps them resident, and evicts
// the least recently used idle sets under memory pressure or on request. Synthetic parameter
// sets that are not cached are generated (random toxic waste) when allowed.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/budget.hpp"
#include "engine/job.hpp"
#include "engine/proof_input.hpp"
#include "groth16/parameters.hpp"

namespace cuzk::engine {

struct ParamSet {
  ParamSet(std::string id, groth16::Parameters params, std::string origin);
  std::string id;
  std::string origin;  // the file it was read from, or how it was made (for errors that name it)
  groth16::Parameters params;
  groth16::PreparedVerifyingKey pvk;
  int64_t host_bytes = 0;
};

struct ParamSetInfo {
  std::string id;
  int64_t host_bytes = 0;
  bool in_use = false;
};

class ParameterManager {
 public:
  // on_evict is called before a set is dropped (the GPU backends release its device copies).
  // make_parameters (optional, EngineConfig::make_parameters) is asked for a set the cache does
  // not hold before the synthetic setup.
  using MakeParameters = std::function<std::unique_ptr<groth16::Parameters>(const std::string& id)>;
  ParameterManager(std::string cache_dir, bool allow_synthetic_setup, MemoryBudget& budget,
                   std::function<void(const ParamSet&)> on_evict, std::function<void(int64_t)> on_resident_change,
                   MakeParameters make_parameters = {}, std::vector<ParameterSource> sources = {});

  // The resident set, loading it first when needed (one load per id at a time; others wait).
  // Throws std::runtime_error naming the file and the problem.
  std::shared_ptr<const ParamSet> acquire(const std::string& id);
  // Evicts an idle set; false when not resident; throws std::logic_error when in use.
  bool evict(const std::string& id);
  // Evicts idle sets, least recently used first, until `bytes` more would fit the budget or
  // none is left; returns the bytes freed. `keep` (if not empty) is never evicted: the set the
  // waiting work itself needs, which it would load again at once, over the budget.
  int64_t evict_idle_for(uint64_t bytes, const std::string& keep = {});
  // A proof made with the set failed verification (or has points off the curve): its memory or
  // its file may be corrupt. The set is dropped once no job holds it, and its next load checks
  // the file in full (our digest trailer; parameters.json's digest or every point) before use.
  // Returns that, naming the file, for the job's error ("" when the set is not resident).
  std::string suspect(const std::string& id);
  // Keeps the set out of evict_idle_for from now on (urgent work's sets: a WinningPoSt must not
  // reload its set because C2 partitions waited for the budget); evict() still drops it.
  void keep_under_pressure(const std::string& id);
  // Host bytes the set would take, from its file (or its synthetic shape); nullopt if unknown.
  std::optional<int64_t> expected_bytes(const std::string& id) const;
  bool resident(const std::string& id) const;
  int64_t resident_bytes() const;
  std::vector<ParamSetInfo> list() const;

  static std::string synthetic_id(const CircuitDescription& c);
  // The circuit a synthetic parameter id stands for (nullopt for other ids).
  static std::optional<CircuitDescription> parse_synthetic_id(const std::string& id);
  // Ids are file names: 1-200 letters, digits, '.', '_' and '-', not starting with '.' (Filecoin's
  // published stems are up to 144 characters).
  static bool valid_id(const std::string& id);

 private:
  struct Entry {
    std::shared_ptr<const ParamSet> set;
    bool loading = false;
    bool suspect = false;  // a proof made with it failed verification: reload before its next use
    std::string error;     // of the last failed load
    std::chrono::steady_clock::time_point last_used;
  };
  std::string path_of(const std::string& id) const;
  std::shared_ptr<const ParamSet> load(const std::string& id, bool recheck);
  std::shared_ptr<const ParamSet> take_locked(std::map<std::string, Entry>::iterator it);
  void finish_drop(const std::shared_ptr<const ParamSet>& set);

  std::string dir_;
  bool allow_synthetic_setup_;
  MemoryBudget& budget_;
  std::function<void(const ParamSet&)> on_evict_;
  std::function<void(int64_t)> on_resident_change_;
  MakeParameters make_parameters_;
  std::vector<ParameterSource> sources_;
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::map<std::string, Entry> entries_;
  std::set<std::string> kept_under_pressure_;
  std::set<std::string> recheck_;  // ids whose next load checks the file in full
  int64_t resident_bytes_ = 0;
};

}  // namespace cuzk::engine

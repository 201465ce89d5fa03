// The parameter manager: loads parameter sets on demand by id, from the sources that serve the
// id (Filecoin's published files: src/kinds/) or else the cache directory (<dir>/<id>.params,
// bellperson's layout), accounts their bytes against the budget, keeps them resident, and evicts
// the least recently used idle sets under memory pressure or on request. Synthetic parameter
// sets that are not cached are generated (random toxic waste) when allowed.
#pragma once

#include <atomic>
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
  // Put on the devices by the first partition that got it, or by a preload
  // (Engine::Impl::load_on_devices): from then on, what the backends did not give back of its host
  // copy stays.
  mutable std::atomic<bool> on_devices{false};
  // Engine::Impl::place_on_urgent_lane: placed there, or refused there (too large, or its load failed).
  mutable std::atomic<bool> on_urgent_lane{false}, off_urgent_lane{false};
  // Engine::Impl::place_matrices: what the devices (and the urgent lane) said, once, of
  // witness-only proofs of the set: empty when they form a/b/c on the device, else why not.
  mutable std::mutex matrices_mutex;
  mutable std::optional<std::string> matrices_on_devices, matrices_on_urgent_lane;
  // matrices_on_devices as submission reads it (without the mutex a placement holds).
  enum class Verdict : uint8_t { kUnasked, kAccepted, kRefused };
  mutable std::atomic<Verdict> devices_verdict{Verdict::kUnasked};
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
  // A load is charged what load_paid recorded for the set; when nothing was (the set was evicted
  // after its partition's admission, an urgent partition, a comparison policy), its expected
  // bytes are reserved before it loads: with within_budget only if they fit now, else nullptr
  // (nothing loaded: the caller is admitted again, carrying the set), otherwise even beyond the
  // total. Throws std::runtime_error naming the file and the problem.
  std::shared_ptr<const ParamSet> acquire(const std::string& id, bool within_budget = false);
  // Admission under the budget policy, so that a set's load never takes the budget beyond its
  // total: the bytes a partition's reservation must carry for its set besides its own. 0 when
  // the set is resident (a suspect one's charge pays its reload) or its load is paid for or
  // unknown in size; else the set's expected bytes, and the caller becomes its payer: it
  // reserves them with its own and calls load_paid, or unclaim when it gives up. While another
  // payer waits for the budget it waits too (one reservation carries a set), calling on_wait
  // first; nullopt when give_up() (checked at every change and at wake_waiters()).
  std::optional<uint64_t> claim_load(const std::string& id, const std::function<bool()>& give_up,
                                     const std::function<void()>& on_wait = {});
  // The payer's reservation holds `bytes` for the set: the next acquire loads it on them (they
  // become the set's charge), or gives them back if the set is resident by then.
  void load_paid(const std::string& id, uint64_t bytes);
  void unclaim(const std::string& id);
  // Wakes claim_load's waiters to check give_up (a cancellation, the shutdown).
  void wake_waiters();
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
  // The resident set, without loading it or counting a use (null when it is not resident).
  std::shared_ptr<const ParamSet> peek(const std::string& id) const;
  int64_t resident_bytes() const;
  // Loads that failed for a reason other than a missing file, since start: a file unreadable,
  // truncated, with a wrong digest or points off the curve (or a source's or the setup's error).
  uint64_t refused_loads() const;
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
    bool claimed = false;  // a payer waits for the budget (claim_load)
    uint64_t paid = 0;     // budget bytes reserved for the set's next load, not yet its charge
    bool suspect = false;  // a proof made with it failed verification: reload before its next use
    std::string error;     // of the last failed load
    std::chrono::steady_clock::time_point last_used;
  };
  std::string path_of(const std::string& id) const;
  std::shared_ptr<const ParamSet> load(const std::string& id, bool recheck);
  // expected_bytes of a set that is not resident (its source, its file or its synthetic shape).
  std::optional<int64_t> unloaded_bytes(const std::string& id) const;
  // keep_charge: the set's budget bytes stay, as the payment of its reload (a suspect set).
  std::shared_ptr<const ParamSet> take_locked(std::map<std::string, Entry>::iterator it, bool keep_charge = false);
  void finish_drop(const std::shared_ptr<const ParamSet>& set, bool keep_charge = false);
  void erase_if_unused(std::map<std::string, Entry>::iterator it);

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
  uint64_t refused_loads_ = 0;
};

}  // namespace cuzk::engine

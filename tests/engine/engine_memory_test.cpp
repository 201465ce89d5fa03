// The engine and memory, on the CPU backend: parameter sets evicted on request and under
// pressure, sets that do not fit together, the budget held while a set loads, parameters from
// the embedder, preloads within the budget; freed buffers leave the process; memory a backend
// keeps between partitions is charged, reused and freed. Part of engine_test.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include <gtest/gtest.h>

#include "circuits/synthetic.hpp"
#include "engine/budget.hpp"
#include "engine/engine.hpp"
#include "engine/engine_impl.hpp"
#include "engine/host_memory.hpp"
#include "engine/param_manager.hpp"
#include "engine/partition_queue.hpp"
#include "engine/synthetic_input.hpp"
#include "engine_test_jobs.hpp"
#include "groth16/param_file.hpp"
#include "groth16/prover.hpp"
#include "groth16/setup.hpp"
#include "groth16/verifier.hpp"
#include "r1cs/shape.hpp"
#include "releasing_backend.hpp"
#include "test_support.hpp"

namespace cuzk::engine {
namespace {

using namespace std::chrono_literals;
using ff::Fr;

TEST(EngineTest, EvictsIdleParametersOnRequestAndUnderPressure) {
  test::TempDir dir("cuzk-engine-test");
  auto cfg = cpu_test_config(dir.path);
  cfg.budget_bytes = uint64_t(3) << 20;
  Engine engine(cfg);
  engine.preload_params("synthetic-4096-4-seed11");  // ~1.4 MiB
  EXPECT_EQ(engine.snapshot().params.size(), 1u);
  EXPECT_TRUE(engine.evict_params("synthetic-4096-4-seed11"));
  EXPECT_FALSE(engine.evict_params("synthetic-4096-4-seed11"));
  engine.preload_params("synthetic-4096-4-seed11");
  engine.preload_params("synthetic-4096-4-seed12");  // both resident: the budget is nearly full
  // A job for a third set must evict the least recently used idle set to run.
  const auto id = engine.submit(synthetic_job(1 << 12, 1, 0, 13));
  EXPECT_EQ(await_end(engine, id).state, JobState::kSucceeded);
  const auto s = engine.snapshot();
  EXPECT_LT(s.params.size(), 3u);
  EXPECT_LE(s.buffers.budget_used, s.buffers.budget_total);
  EXPECT_THROW(engine.preload_params("no-such-set"), EngineError);
}

// A partition waiting for the budget must not evict the set it needs itself: it would load it
// again at once, beyond the budget (seen as an intermittent overshoot of the concurrent test).
TEST(EngineTest, PressureKeepsTheSetTheWaiterNeeds) {
  test::TempDir dir("cuzk-engine-test");
  MemoryBudget budget(uint64_t(3) << 20);
  ParameterManager params(dir.path, /*allow_synthetic_setup=*/true, budget, {}, {});
  const std::string needed = "synthetic-1024-4-seed31", other = "synthetic-1024-4-seed32";
  params.acquire(needed);  // resident and idle: the manager holds the only reference
  params.acquire(other);
  const uint64_t more_than_fits = budget.total();
  EXPECT_GT(params.evict_idle_for(more_than_fits, needed), 0);
  EXPECT_TRUE(params.resident(needed));
  EXPECT_FALSE(params.resident(other));
  EXPECT_GT(params.evict_idle_for(more_than_fits), 0);  // without a set to keep, it goes too
  EXPECT_FALSE(params.resident(needed));
  EXPECT_EQ(budget.used(), 0u);
}

TEST(EngineTest, TwoParameterSetsThatDoNotFitTogetherStillFinish) {
  test::TempDir dir("cuzk-engine-test");
  auto cfg = cpu_test_config(dir.path);
  // A partition (~1.3 MiB while synthesizing) fits beside one set (~1.4 MiB) but not beside
  // two: the waiting partition must evict the other job's idle set, not wait forever.
  cfg.budget_bytes = uint64_t(3584) << 10;
  cfg.synthesis_workers = 2;
  Engine engine(cfg);
  const auto a = engine.submit(synthetic_job(1 << 12, 3, 0, 21));
  const auto b = engine.submit(synthetic_job(1 << 12, 3, 5, 22));
  EXPECT_EQ(await_end(engine, a).state, JobState::kSucceeded);
  EXPECT_EQ(await_end(engine, b).state, JobState::kSucceeded);
  const auto s = engine.snapshot();
  EXPECT_LE(s.buffers.peak_tracked_bytes, s.buffers.budget_total);
  expect_idle(engine);
}

// Issue 39, item 3: the budget holds when partitions are admitted while their parameter set is not
// resident. The budget holds the set and one partition and a half; several jobs on that set
// arrive at once, and the set takes a while to load (the other workers could admit partitions
// meanwhile). At every budget change the budget's bytes stay within its total (peak), and at every
// tracker event (the timeline's counters) so do the buffers and parameters counted there. No work
// is urgent here: only urgent partitions may go beyond the total (UrgentAdmission::kBeside).
TEST(EngineTest, BudgetHoldsWhileTheSetLoadsBesideAdmittedPartitions) {
  test::TempDir dir("cuzk-engine-test");
  const CircuitDescription c{.constraints = 1 << 12, .public_inputs = 4, .seed = 51};
  const std::string param_id = ParameterManager::synthetic_id(c);
  auto made = std::make_shared<const groth16::Parameters>(groth16::generate_parameters(
      circuits::SyntheticCircuit(c.constraints, c.public_inputs, {}, c.seed), groth16::ToxicWaste::random()));
  const uint64_t set_bytes = made->base_bytes() + made->vk.ic.size() * sizeof(groth16::G1Affine);
  const uint64_t need = partition_shape(synthetic_shape(c)).total();
  ASSERT_GE(set_bytes, need / 2) << "two partitions must fit where the set goes";
  auto cfg = cpu_test_config(dir.path);
  cfg.budget_bytes = set_bytes + need + need / 2;
  cfg.synthesis_workers = 4;
  cfg.timeline_path = dir.path + "/timeline.json";
  auto loads = std::make_shared<std::atomic<int>>(0);
  cfg.parameter_sources.push_back(
      {.serves = [param_id](const std::string& id) { return id == param_id; },
       .expected_bytes = [set_bytes](const std::string&) { return std::optional<int64_t>(int64_t(set_bytes)); },
       .load =
           [made, loads](const std::string&, bool) {
             (*loads)++;
             std::this_thread::sleep_for(100ms);  // a large set's read: the other workers go on meanwhile
             return LoadedParameters{std::make_unique<groth16::Parameters>(*made), "the test's source"};
           }});
  auto engine = std::make_unique<Engine>(cfg);
  std::vector<std::string> ids;
  for (int j = 0; j < 3; j++) ids.push_back(engine->submit(synthetic_job(c.constraints, 2, 0, c.seed)));
  for (const auto& id : ids) {
    const JobResult r = await_end(*engine, id);
    EXPECT_EQ(r.state, JobState::kSucceeded) << r.error;
    EXPECT_TRUE(r.verified);
  }
  EXPECT_EQ(loads->load(), 1) << "one load for every partition";
  const auto s = engine->snapshot();
  EXPECT_EQ(s.buffers.budget_total, int64_t(cfg.budget_bytes));
  EXPECT_LE(s.buffers.peak_budget_used, s.buffers.budget_total) << "the budget was exceeded";
  EXPECT_GE(s.buffers.peak_budget_used, int64_t(set_bytes + need)) << "the set and a partition at once";
  expect_idle(*engine);
  engine.reset();  // closes the timeline

  // Every tracker event writes its counters in one run, "backend host bytes" last: the state there
  // is the event's. The partitions' buffers, the inputs and the resident parameters are within the
  // budget's total, and so are the budget's own bytes.
  std::ifstream f(cfg.timeline_path);
  const auto trace = nlohmann::json::parse(f);
  std::map<std::string, double> last;  // counter "name/series" -> value
  size_t events = 0;
  for (const auto& e : trace) {
    if (e["ph"] != "C") continue;
    const std::string name = e["name"];
    for (const auto& [series, v] : e["args"].items()) last[name + "/" + series] = v.get<double>();
    if (name != "backend host bytes") continue;
    events++;
    double tracked = last["input bytes/input"] + last["parameters bytes/host"];
    for (size_t k = 0; k < kBufferClassCount; k++) {
      for (size_t st = 0; st < kTrackedStageCount; st++)
        tracked += last[std::string(buffer_class_name(BufferClass(k))) + " bytes/" + stage_name(Stage(st))];
    }
    const double total = last["budget bytes/total"];
    ASSERT_EQ(total, double(cfg.budget_bytes));
    ASSERT_LE(last["budget bytes/used"], total) << "event " << events;
    ASSERT_LE(tracked, total) << "event " << events << ": buffers and parameters beyond the budget";
  }
  EXPECT_GT(events, 6u * 4u);  // each partition enters, moves and leaves
}

TEST(EngineTest, ParametersFromTheEmbedderAreUsedAndNotCached) {
  test::TempDir dir("cuzk-engine-test");
  auto cfg = cpu_test_config(dir.path);
  cfg.allow_synthetic_setup = false;
  const std::string id = "synthetic-1024-4-seed3";
  auto made = std::make_shared<std::optional<groth16::Parameters>>();
  auto asked = std::make_shared<std::atomic<int>>(0);
  cfg.make_parameters = [made, asked, id](const std::string& want) -> std::unique_ptr<groth16::Parameters> {
    (*asked)++;
    if (want != id) return nullptr;  // falls through to the cache's error
    *made = groth16::generate_parameters(circuits::SyntheticCircuit(1 << 10, 4, {}, 3), groth16::ToxicWaste::random());
    return std::make_unique<groth16::Parameters>(**made);
  };
  Engine engine(cfg);
  const JobResult r = await_end(engine, engine.submit(synthetic_job(1 << 10, 2, 0, 3)));
  ASSERT_EQ(r.state, JobState::kSucceeded) << r.error;
  EXPECT_TRUE(r.verified);
  EXPECT_EQ(asked->load(), 1);                       // once for both partitions
  EXPECT_TRUE(std::filesystem::is_empty(dir.path));  // kept in memory only
  ASSERT_TRUE(made->has_value());
  const groth16::PreparedVerifyingKey pvk((*made)->vk);
  const auto proofs = groth16::decode_proofs(r.proof);
  ASSERT_EQ(proofs.size(), 2u);
  for (uint32_t i = 0; i < 2; i++) {
    circuits::SyntheticCircuit c(1 << 10, 4, {}, 3);
    c.set_witness_seed(3 + i);
    const auto pa = groth16::synthesize(c);
    std::vector<Fr> inputs(pa.inputs().begin() + 1, pa.inputs().end());
    EXPECT_TRUE(groth16::verify_proof(pvk, proofs[i], inputs)) << "partition " << i;
    inputs[0] += Fr::one();
    EXPECT_FALSE(groth16::verify_proof(pvk, proofs[i], inputs)) << "partition " << i;
  }
  // Another id: the hook says nullptr, and with the setup disabled the error names the file.
  const JobResult other = await_end(engine, engine.submit(synthetic_job(1 << 10, 1, 0, 4)));
  EXPECT_EQ(other.state, JobState::kFailed);
  EXPECT_NE(other.error.find("no parameter file"), std::string::npos) << other.error;
  EXPECT_EQ(asked->load(), 2);
  expect_idle(engine);
}

TEST(EngineTest, PreloadCannotGoAroundTheBudget) {
  test::TempDir dir("cuzk-engine-test");
  auto cfg = cpu_test_config(dir.path);
  cfg.budget_bytes = uint64_t(8) << 20;
  Engine engine(cfg);
  auto code_of = [&](const std::string& id) {
    try {
      engine.preload_params(id);
    } catch (const EngineError& e) {
      return e.code();
    }
    return EngineError::Code::kUnavailable;  // loaded
  };
  // 2^28 constraints would be a setup of hours and ~90 GB: refused before any work.
  EXPECT_EQ(code_of("synthetic-268435456-0-seed9"), EngineError::Code::kFailedPrecondition);
  EXPECT_EQ(code_of("synthetic-5-8-seed1"), EngineError::Code::kInvalidArgument);  // too few constraints
  EXPECT_EQ(code_of("synthetic-1024-4-seed1"), EngineError::Code::kUnavailable);   // fits: loaded
  EXPECT_TRUE(engine.snapshot().params.size() == 1);
}

TEST(HostMemoryTest, FreedLargeBuffersLeaveTheProcess) {
  use_mmap_for_large_buffers();
  const int64_t before = process_rss_bytes();
  std::vector<std::vector<Fr>> buffers;
  for (int i = 0; i < 8; i++) {
    std::vector<Fr> v;
    v.reserve(size_t(1) << 20);  // 32 MiB each, written so the pages are resident
    v.resize(size_t(1) << 20, Fr::one());
    buffers.push_back(std::move(v));
  }
  const int64_t held = process_rss_bytes();
  EXPECT_GT(held - before, int64_t(200) << 20);
  buffers.clear();
  const int64_t after = process_rss_bytes();
  EXPECT_LT(after - before, int64_t(16) << 20) << "RSS before " << before << ", held " << held << ", after " << after;
}

// The deallocation thread's free of a/b/c (r1cs::free_gradually): the preparation goes while
// the vectors still hold their data (it may lock that memory), then every page comes back.
TEST(HostMemoryTest, FreeGraduallyDropsThePreparationFirstAndReturnsThePages) {
  use_mmap_for_large_buffers();
  const int64_t before = process_rss_bytes();
  r1cs::ReleasedAbc abc;
  const size_t n = (size_t(3) << 20) + 7;  // 96 MiB and a little: 64 MiB pieces and a tail
  for (auto* v : {&abc.a, &abc.b, &abc.c}) {
    v->reserve(n);
    v->resize(n, Fr::one());
  }
  const int64_t held = process_rss_bytes();
  EXPECT_GT(held - before, int64_t(250) << 20);
  // Reads a's buffer (which moves with the vector) when the preparation is dropped.
  struct Probe final : r1cs::AbcPreparation {
    const Fr* a;
    size_t n;
    bool* data_there;
    Probe(const Fr* p, size_t size, bool* seen) : a(p), n(size), data_there(seen) {}
    ~Probe() override { *data_there = a[0] == Fr::one() && a[n / 2] == Fr::one() && a[n - 1] == Fr::one(); }
  };
  bool data_there = false;
  abc.preparation = std::make_shared<const Probe>(abc.a.data(), n, &data_there);
  r1cs::free_gradually(std::move(abc));
  EXPECT_TRUE(data_there) << "the preparation must go before the memory";
  EXPECT_TRUE(abc.a.empty() && abc.b.empty() && abc.c.empty() && !abc.preparation);
  const int64_t after = process_rss_bytes();
  EXPECT_LT(after - before, int64_t(16) << 20) << "RSS before " << before << ", held " << held << ", after " << after;
}

// A CPU backend that keeps host memory between assignments, as the CUDA backend keeps its
// compact a/b/c copies: a preparation takes what is idle (or makes `copy_bytes` anew), reports it
// as its host bytes, and gives it back when the assignment lets go of it; trim frees it. With
// wait_for_idle, a preparation that finds none idle while one is in use waits for it up to 2 s
// (so that a test sees reuse however the threads are scheduled).
struct KeptMemory {
  std::mutex mutex;
  std::condition_variable given_back;
  bool wait_for_idle = false;
  uint64_t copy_bytes = 0, idle = 0;
  unsigned made = 0, reused = 0, given_back_count = 0, trims = 0;
};
class KeepingBackend final : public groth16::ProverBackend {
 public:
  explicit KeepingBackend(std::shared_ptr<KeptMemory> kept) : kept_(std::move(kept)) {}
  std::string name() const override { return "keeping-cpu"; }
  groth16::PendingProof prove_start(const groth16::Parameters& params, r1cs::ProvingAssignment& pa, const Fr& r,
                                    const Fr& s, groth16::ProveTimings* t,
                                    const r1cs::ProvingAssignment* /*next*/) override {
    return cpu_->prove_start(params, pa, r, s, t);
  }
  void prepare_assignment(r1cs::ProvingAssignment& pa) override {
    {
      std::unique_lock lock(kept_->mutex);
      if (kept_->wait_for_idle && kept_->made + kept_->reused > kept_->given_back_count) {  // one in use
        kept_->given_back.wait_for(lock, std::chrono::seconds(2), [&] { return kept_->idle >= kept_->copy_bytes; });
      }
      if (kept_->idle >= kept_->copy_bytes) {
        kept_->idle -= kept_->copy_bytes;
        kept_->reused++;
      } else {
        kept_->made++;
      }
    }
    pa.set_abc_preparation(std::make_shared<Copy>(kept_));
  }
  size_t idle_host_bytes() const override {
    std::lock_guard lock(kept_->mutex);
    return kept_->idle;
  }
  void trim_host_memory() override {
    std::lock_guard lock(kept_->mutex);
    kept_->idle = 0;
    kept_->trims++;
  }

 private:
  struct Copy final : r1cs::AbcPreparation {
    explicit Copy(std::shared_ptr<KeptMemory> k) : kept(std::move(k)) {}
    ~Copy() override {
      std::lock_guard lock(kept->mutex);
      kept->idle += kept->copy_bytes;
      kept->given_back_count++;
      kept->given_back.notify_all();
    }
    size_t host_bytes() const override { return kept->copy_bytes; }
    std::shared_ptr<KeptMemory> kept;
  };
  std::shared_ptr<KeptMemory> kept_;
  std::unique_ptr<groth16::ProverBackend> cpu_ = groth16::make_cpu_backend();
};

EngineConfig keeping_config(const std::string& cache, std::shared_ptr<KeptMemory> kept) {
  auto cfg = cpu_test_config(cache);
  cfg.make_backend = [kept] { return std::make_unique<KeepingBackend>(kept); };
  return cfg;
}

// What the backend keeps between partitions is charged to the budget (which never holds more
// than its total), reused by later partitions, and freed when the last job ends: the idle
// engine holds nothing but its parameters.
TEST(EngineTest, MemoryTheBackendKeepsIsChargedAndFreedWhenIdle) {
  test::TempDir dir("cuzk-engine-test");
  auto kept = std::make_shared<KeptMemory>();
  kept->copy_bytes = uint64_t(8) << 20;
  kept->wait_for_idle = true;
  Engine engine(keeping_config(dir.path, kept));
  std::vector<std::string> ids;
  for (uint64_t j = 0; j < 3; j++) ids.push_back(engine.submit(synthetic_job(1 << 12, 4, 0, 1)));
  for (const auto& id : ids) EXPECT_EQ(await_end(engine, id).state, JobState::kSucceeded);
  const auto s = engine.snapshot();
  EXPECT_LE(s.buffers.peak_budget_used, s.buffers.budget_total);
  {
    std::lock_guard lock(kept->mutex);  // released before snapshots, which ask the backend
    EXPECT_EQ(kept->made + kept->reused, 12u);
    EXPECT_GT(kept->reused, 0u) << "later partitions take what earlier ones gave back";
    EXPECT_GE(kept->trims, 1u);
    EXPECT_EQ(kept->idle, 0u);
  }
  expect_idle(engine);
}

// When a waiting partition does not fit only because of what the backend keeps, that memory is
// freed to let it in (else this job would wait forever: the kept copy fills the budget).
TEST(EngineTest, MemoryTheBackendKeepsGoesWhenAPartitionNeedsTheRoom) {
  test::TempDir dir("cuzk-engine-test");
  auto kept = std::make_shared<KeptMemory>();
  auto cfg = keeping_config(dir.path, kept);
  cfg.synthesis_workers = 1;
  kept->copy_bytes = cfg.budget_bytes - (uint64_t(1) << 20);  // with a partition: beyond the total
  Engine engine(cfg);
  const auto id = engine.submit(synthetic_job(1 << 12, 2, 0, 2));
  const auto r = engine.await(id, 60s);
  ASSERT_TRUE(r.has_value()) << "the second partition never got in";
  EXPECT_EQ(r->state, JobState::kSucceeded);
  {
    std::lock_guard lock(kept->mutex);
    EXPECT_EQ(kept->made, 2u) << "trimmed for the second partition, which made its own";
    EXPECT_GE(kept->trims, 2u) << "under pressure, then when the job ended";
  }
  // A copy that does not fit is not kept beyond the budget (the partition proves without it).
  EXPECT_LE(engine.snapshot().buffers.peak_budget_used, int64_t(cfg.budget_bytes));
  expect_idle(engine);
}

// The partition that loads a set puts it on the device before its synthesis (so that its host
// copy may go first). A set's host copy given back leaves the budget and the tracker's host bytes
// (the status and metrics say so), and its charge returns before the set is evicted, so that the
// eviction gives back no more than was charged.
TEST(EngineTest, HostCopiesGivenBackLeaveTheBudgetUntilEviction) {
  test::TempDir dir("cuzk-engine-test");
  auto cfg = cpu_test_config(dir.path);
  auto loads = std::make_shared<std::atomic<int>>(0);
  ReleasingBackend* backend = nullptr;
  cfg.make_backend = releasing_backend_maker(loads, &backend);
  Engine engine(cfg);
  const auto before = engine.submit(synthetic_job(1 << 12, 2, 0, 21));
  EXPECT_EQ(await_end(engine, before).state, JobState::kSucceeded);
  EXPECT_EQ(loads->load(), 1) << "the set went to the device once, before the first synthesis";
  EXPECT_EQ(backend->unplaced_proofs(), 0) << "no proof found the set not yet on the device";
  auto s = engine.snapshot();
  ASSERT_EQ(s.params.size(), 1u);
  const int64_t set_bytes = s.params[0].host_bytes;
  EXPECT_GT(s.buffers.parameters_released_bytes, set_bytes / 2) << "the bases are most of a set";
  EXPECT_LT(s.buffers.parameters_released_bytes, set_bytes);
  EXPECT_EQ(nlohmann::json::parse(snapshot_to_json(s))["buffers"]["parameters_released_bytes"],
            s.buffers.parameters_released_bytes);
  expect_idle(engine);  // the budget holds the set less what was given back
  // A second job with the set proves as before and changes nothing.
  const auto again = engine.submit(synthetic_job(1 << 12, 2, 0, 21));
  EXPECT_EQ(await_end(engine, again).state, JobState::kSucceeded);
  EXPECT_EQ(engine.snapshot().buffers.parameters_released_bytes, s.buffers.parameters_released_bytes);
  EXPECT_EQ(loads->load(), 1) << "resident: not loaded again";
  expect_idle(engine);
  EXPECT_TRUE(engine.evict_params(s.params[0].param_id));
  s = engine.snapshot();
  EXPECT_EQ(s.buffers.parameters_released_bytes, 0);
  EXPECT_EQ(s.buffers.parameters_host_bytes, 0);
  EXPECT_EQ(s.buffers.budget_used, s.buffers.compiled_circuit_bytes) << "no more and no less than was charged";
  expect_idle(engine);
}

// A set whose host copy leaves once its device holds it loads before its partition's own bytes
// are reserved: a budget that holds the set, or a partition beside what stays of it, but not both
// together, proves the job (a host of 64 GiB and a 44 GiB PoRep set). A backend that keeps the copy
// after all fails the job by name rather than waiting forever for room that never comes.
TEST(EngineTest, ASetThatLeavesTheHostLoadsBeforeItsPartitionsBytes) {
  const JobRequest job = synthetic_job(1 << 12, 2, 0, 22);
  const uint64_t partition = partition_shape(make_synthetic_input(job.partitions)->shape()).total();
  auto loads = std::make_shared<std::atomic<int>>(0);
  int64_t set = 0, stays = 0;
  {
    test::TempDir dir("cuzk-engine-test");
    auto cfg = cpu_test_config(dir.path);
    cfg.make_backend = [loads] { return std::make_unique<ReleasingBackend>(loads); };
    Engine engine(cfg);
    engine.preload_params(make_synthetic_input(job.partitions)->param_id());
    const auto s = engine.snapshot();
    ASSERT_EQ(s.params.size(), 1u);
    set = s.params[0].host_bytes;
    stays = set - s.buffers.parameters_released_bytes;
  }
  // Submission judges an unloaded set by its expected bytes (for a synthetic set, an estimate).
  int64_t expected = 0;
  {
    test::TempDir dir("cuzk-engine-test");
    MemoryBudget unused(uint64_t(1) << 30);
    ParameterManager params(dir.path, /*allow_synthetic_setup=*/true, unused, {}, {});
    expected = params.expected_bytes(make_synthetic_input(job.partitions)->param_id()).value_or(0);
  }
  const uint64_t budget = std::max({uint64_t(set), uint64_t(expected), partition + uint64_t(stays)}) + (64 << 10);
  ASSERT_LT(budget, uint64_t(set) + partition) << "the budget must not hold a partition beside the whole set: set "
                                               << set << ", expected " << expected << ", partition " << partition;
  auto config = [&](const std::string& dir, bool keeps) {
    auto cfg = cpu_test_config(dir);
    cfg.budget_bytes = budget;
    cfg.make_backend = [loads, keeps] { return std::make_unique<ReleasingBackend>(loads, keeps); };
    return cfg;
  };
  {
    test::TempDir dir("cuzk-engine-test");
    Engine engine(config(dir.path, false));
    const auto id = engine.submit(job);
    EXPECT_EQ(await_end(engine, id).state, JobState::kSucceeded);
    const auto s = engine.snapshot();
    EXPECT_LE(s.buffers.peak_budget_used, s.buffers.budget_total);
    EXPECT_EQ(s.buffers.parameters_released_bytes, set - stays);
    expect_idle(engine);
  }
  {
    test::TempDir dir("cuzk-engine-test");
    Engine engine(config(dir.path, true));
    const auto id = engine.submit(job);
    const auto r = await_end(engine, id);
    EXPECT_EQ(r.state, JobState::kFailed);
    EXPECT_NE(r.error.find("stay in host memory"), std::string::npos) << r.error;
    // The set stays resident with its copy: the next job's partitions, which do not load it,
    // find out in the budget's line too rather than wait for ever.
    const auto next = engine.submit(job);
    const auto again = await_end(engine, next);
    EXPECT_EQ(again.state, JobState::kFailed);
    EXPECT_NE(again.error.find("stay in host memory"), std::string::npos) << again.error;
    expect_idle(engine);
  }
  {  // A backend that keeps its host copies: the set and a partition must fit together, as before.
    test::TempDir dir("cuzk-engine-test");
    auto cfg = config(dir.path, false);
    cfg.release_host_parameters = false;
    Engine engine(cfg);
    EXPECT_THROW(engine.submit(job), EngineError);
  }
}

}  // namespace
}  // namespace cuzk::engine

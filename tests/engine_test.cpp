// The pipelined engine on the CPU backend: jobs prove and verify; every counter and
// reservation returns to zero after mixed runs with failures and cancellations; the budget
// is never exceeded; ordering by priority and age; oversized jobs are rejected; freed buffers
// leave the process; memory a backend keeps between partitions is charged, reused and freed.
#include "engine/engine.hpp"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "circuits/synthetic.hpp"
#include "engine/budget.hpp"
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
#include "test_support.hpp"

namespace cuzk::engine {
namespace {

using namespace std::chrono_literals;
using ff::Fr;

EngineConfig small_config(const std::string& cache) {
  EngineConfig c;
  c.budget_bytes = uint64_t(256) << 20;
  c.backend = BackendKind::kCpu;
  c.synthesis_workers = 2;
  c.param_cache_dir = cache;
  c.log_events = false;
  return c;
}

TEST(MemoryBudgetTest, ReservesInArrivalOrderAndGivesUp) {
  MemoryBudget b(100);
  EXPECT_TRUE(b.try_reserve(60));
  EXPECT_FALSE(b.try_reserve(50));
  std::atomic<int> order{0};
  int first = -1, second = -1;
  std::thread big([&] {
    ASSERT_TRUE(b.reserve(90, nullptr));
    first = order++;
    b.release(90);
  });
  while (b.waiters() < 1) std::this_thread::yield();  // the 90-byte waiter is first in line
  std::thread small([&] {
    // Fits now, but must wait behind the first waiter, and then for it (90 + 20 > 100).
    ASSERT_TRUE(b.reserve(20, nullptr));
    second = order++;
    b.release(20);
  });
  while (b.waiters() < 2) std::this_thread::yield();
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(order.load(), 0);
  b.release(60);
  big.join();
  small.join();
  EXPECT_EQ(first, 0);
  EXPECT_EQ(second, 1);
  EXPECT_EQ(b.used(), 0u);

  std::atomic<bool> give_up{false};
  EXPECT_TRUE(b.try_reserve(100));
  std::thread waiter([&] { EXPECT_FALSE(b.reserve(1, [&] { return give_up.load(); })); });
  while (b.waiters() < 1) std::this_thread::yield();
  give_up = true;
  b.wake_all();
  waiter.join();
  b.release(100);
  EXPECT_EQ(b.used(), 0u);
  EXPECT_THROW(b.release(1), std::logic_error);
}

TEST(BufferTrackerTest, ReportsTheBackendsPinnedBytes) {
  BufferTracker tracker(false, nullptr);
  EXPECT_EQ(tracker.snapshot().pinned_pool_bytes, 0);
  EXPECT_EQ(tracker.snapshot().abc_pinned_bytes, 0);
  std::atomic<int64_t> abc{0};
  tracker.set_pinned_probe([&] { return BufferTracker::PinnedBytes{int64_t(3) << 26, abc.load(), 678}; });
  abc = 12345;
  auto s = tracker.snapshot();
  EXPECT_EQ(s.pinned_pool_bytes, int64_t(3) << 26);
  EXPECT_EQ(s.abc_pinned_bytes, 12345);
  EXPECT_EQ(s.abc_kept_bytes, 678);
  abc = 0;
  EXPECT_EQ(tracker.snapshot().abc_pinned_bytes, 0) << "read at every snapshot, not cached";
  tracker.set_pinned_probe(nullptr);  // as ~Engine does: events and snapshots go on without it
  BufferBytes bytes{};
  bytes[size_t(BufferClass::kAbc)] = 100;
  tracker.enter(Stage::kSynthRunning, bytes, "enter");
  tracker.leave(Stage::kSynthRunning, bytes, "leave", false);
  EXPECT_TRUE(tracker.snapshot().idle());
}

// One name per stage; the tracker counts the first six and refuses the others.
TEST(StagesTest, OneNamePerStageAndTheTrackerCountsTheTrackedOnes) {
  std::set<std::string> names;
  for (size_t i = 0; i < kStageCount; i++) names.insert(stage_name(Stage(i)));
  EXPECT_EQ(names.size(), kStageCount);
  EXPECT_EQ(kTrackedStageCount, 6u);
  EXPECT_TRUE(tracked(Stage::kDeallocPending));
  EXPECT_FALSE(tracked(Stage::kVerifying));
  EXPECT_STREQ(stage_name(Stage::kLoadingParameters), "loading_parameters");
  EXPECT_STREQ(phase_name(Phase::kTotal), "total");
  EXPECT_STREQ(worker_name(Worker::kFinalizer), "finalizer");
  BufferTracker tracker(false, nullptr);
  EXPECT_THROW(tracker.enter(Stage::kQueued, BufferBytes{}, "queued"), std::logic_error);
  EXPECT_TRUE(tracker.snapshot().idle());
}

TEST(PartitionQueueTest, OrdersByPriorityThenAgeThenIndex) {
  PartitionQueue q;
  // (priority, job sequence, partition index), pushed out of order.
  const std::vector<QueueKey> keys = {{0, 2, 0}, {0, 1, 1}, {5, 3, 1}, {0, 1, 0}, {5, 3, 0}, {-1, 0, 0}};
  for (const auto& k : keys) {
    auto p = std::make_shared<Partition>();
    p->key = k;
    q.push_unbounded(k, p);
  }
  const std::vector<QueueKey> expected = {{5, 3, 0}, {5, 3, 1}, {0, 1, 0}, {0, 1, 1}, {0, 2, 0}, {-1, 0, 0}};
  EXPECT_EQ(q.size(), keys.size());
  for (const auto& e : expected) {
    auto p = q.pop();
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(std::tuple(p->key.priority, p->key.job_seq, p->key.partition),
              std::tuple(e.priority, e.job_seq, e.partition));
  }
  // A bounded queue makes the producer wait; close() releases it.
  PartitionQueue bounded(1);
  EXPECT_TRUE(bounded.push({}, std::make_shared<Partition>()));
  std::thread producer([&] { EXPECT_FALSE(bounded.push({}, std::make_shared<Partition>())); });
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(bounded.size(), 1u);
  bounded.close();
  producer.join();
  EXPECT_EQ(bounded.pop(), nullptr);
}

TEST(EngineTest, ProvesAndVerifiesMultiPartitionJob) {
  test::TempDir dir("cuzk-engine-test");
  Engine engine(small_config(dir.path));
  const std::string id = engine.submit(synthetic_job(1 << 10, 3, 0, 7, "porep-1"));
  EXPECT_EQ(id, "porep-1");
  const JobResult r = await_end(engine, id);
  ASSERT_EQ(r.state, JobState::kSucceeded) << r.error;
  EXPECT_TRUE(r.verified);
  ASSERT_EQ(r.proof.size(), 3 * groth16::kProofBytes);
  EXPECT_GT(r.timings.total, 0);
  EXPECT_GT(r.timings.synthesis, 0);
  EXPECT_GT(r.timings.gpu, 0);

  // The proofs verify with the cached parameters' key, and each partition has its own witness.
  const auto proofs = groth16::decode_proofs(r.proof);
  ASSERT_EQ(proofs.size(), 3u);
  EXPECT_NE(proofs[0], proofs[1]);
  const auto vk = groth16::ParameterFile::open(dir.path + "/synthetic-1024-4-seed7.params")
                      .decode_verifying_key(groth16::ReadMode::kChecked);
  const groth16::PreparedVerifyingKey pvk(vk);
  for (uint32_t i = 0; i < 3; i++) {
    circuits::SyntheticCircuit c(1 << 10, 4, {}, 7);
    c.set_witness_seed(7 + i);
    const auto pa = groth16::synthesize(c);
    std::vector<Fr> inputs(pa.inputs().begin() + 1, pa.inputs().end());
    EXPECT_TRUE(groth16::verify_proof(pvk, proofs[i], inputs)) << "partition " << i;
    if (!inputs.empty()) inputs[0] += Fr::one();
    EXPECT_FALSE(groth16::verify_proof(pvk, proofs[i], inputs)) << "partition " << i;
  }
  expect_idle(engine);
  EXPECT_EQ(engine.snapshot().partitions_proved, 3u);
  EXPECT_THROW(engine.submit(synthetic_job(1 << 10, 1, 0, 7, "porep-1")), EngineError);  // id in use
  engine.forget(id);
  EXPECT_THROW(engine.peek(id), EngineError);
}

TEST(EngineTest, RejectsBadRequestsWithClearErrors) {
  test::TempDir dir("cuzk-engine-test");
  auto cfg = small_config(dir.path);
  cfg.budget_bytes = uint64_t(4) << 20;
  cfg.max_partitions_per_job = 4;
  Engine engine(cfg);
  auto code_of = [&](JobRequest r) {
    try {
      engine.submit(std::move(r));
    } catch (const EngineError& e) {
      EXPECT_GT(std::string(e.what()).size(), 10u);
      return e.code();
    }
    ADD_FAILURE() << "accepted";
    return EngineError::Code::kUnavailable;
  };
  using Code = EngineError::Code;
  // 2^16 constraints need ~8 MiB of a/b/c alone: more than the whole 4 MiB budget.
  try {
    engine.submit(synthetic_job(1 << 16, 1));
    ADD_FAILURE() << "accepted";
  } catch (const EngineError& e) {
    EXPECT_EQ(e.code(), Code::kFailedPrecondition);
    EXPECT_NE(std::string(e.what()).find("more than the whole host-memory budget"), std::string::npos) << e.what();
  }
  EXPECT_EQ(code_of(synthetic_job(1 << 10, 0)), Code::kInvalidArgument);
  EXPECT_EQ(code_of(synthetic_job(1 << 10, 5)), Code::kInvalidArgument);
  EXPECT_EQ(code_of(synthetic_job(5, 1)), Code::kInvalidArgument);
  auto unknown = synthetic_job(1 << 10, 1);
  unknown.partitions[0].kind = "porep-32g";
  EXPECT_EQ(code_of(unknown), Code::kInvalidArgument);
  auto mixed = synthetic_job(1 << 10, 2);
  mixed.partitions[1].constraints = 1 << 11;
  EXPECT_EQ(code_of(mixed), Code::kInvalidArgument);
  auto wrong_params = synthetic_job(1 << 10, 1);
  wrong_params.param_id = "synthetic-2048-4-seed1";
  EXPECT_EQ(code_of(wrong_params), Code::kInvalidArgument);
  auto bad_id = synthetic_job(1 << 10, 1);
  bad_id.request_id = "../etc/passwd";
  EXPECT_EQ(code_of(bad_id), Code::kInvalidArgument);
  EXPECT_THROW(engine.await("nope", 1ms), EngineError);
  EXPECT_THROW(engine.cancel("nope"), EngineError);
  EXPECT_THROW(engine.preload_params("../x"), EngineError);
  expect_idle(engine);
}

TEST(EngineTest, MixedRunReturnsEveryCounterToZero) {
  test::TempDir dir("cuzk-engine-test");
  // A corrupt parameter file makes the jobs that need it fail (with the file's error).
  {
    std::ofstream f(dir.path + "/synthetic-1024-4-seed99.params", std::ios::binary);
    f << "not a parameter file";
  }
  Engine engine(small_config(dir.path));
  std::vector<std::string> ok, failing, cancelled;
  for (int i = 0; i < 3; i++) ok.push_back(engine.submit(synthetic_job(1 << 10, 2, 0, 3)));
  failing.push_back(engine.submit(synthetic_job(1 << 10, 2, 0, 99)));
  for (int i = 0; i < 2; i++) cancelled.push_back(engine.submit(synthetic_job(1 << 12, 4, 0, 5)));
  for (const auto& id : cancelled) engine.cancel(id);
  ok.push_back(engine.submit(synthetic_job(1 << 10, 1, 0, 3)));

  for (const auto& id : ok) {
    auto r = await_end(engine, id);
    EXPECT_EQ(r.state, JobState::kSucceeded) << id << ": " << r.error;
  }
  for (const auto& id : failing) {
    auto r = await_end(engine, id);
    EXPECT_EQ(r.state, JobState::kFailed);
    EXPECT_NE(r.error.find("synthetic-1024-4-seed99"), std::string::npos) << r.error;
    EXPECT_TRUE(r.proof.empty());
  }
  for (const auto& id : cancelled) {
    auto r = await_end(engine, id);
    EXPECT_TRUE(r.state == JobState::kCancelled || r.state == JobState::kSucceeded) << job_state_name(r.state);
    EXPECT_FALSE(engine.cancel(id));  // already ended
  }
  expect_idle(engine);
  const auto s = engine.snapshot();
  EXPECT_EQ(s.jobs_completed + s.jobs_failed + s.jobs_cancelled, ok.size() + failing.size() + cancelled.size());
  EXPECT_EQ(s.jobs_failed, 1u);
}

// A proof kind of the test's own (engine/proof_input.hpp): the synthetic circuit behind another
// kind's name, with an input that holds memory, public inputs computed apart from the
// assignment, and failures on request.
class TestInput final : public ProofInput {
 public:
  enum class Fault { kNone, kSynthesis, kWrongPublicInput };
  TestInput(uint32_t partitions, Fault fault) : partitions_(partitions), fault_(fault) {
    c_.constraints = 1 << 10;
    c_.public_inputs = 4;
    c_.seed = 11;
  }
  std::string kind() const override { return "test"; }
  std::string describe() const override { return "the test kind"; }
  uint32_t partitions() const override { return partitions_; }
  CircuitShape shape() const override { return synthetic_shape(c_); }
  std::string param_id() const override { return ParameterManager::synthetic_id(c_); }
  void synthesize(uint32_t k, r1cs::ProvingAssignment& pa) const override {
    if (fault_ == Fault::kSynthesis && k == partitions_ - 1) throw std::runtime_error("a witness that cannot be built");
    circuit(k).synthesize(pa);
  }
  std::optional<std::vector<Fr>> public_inputs(uint32_t k) const override {
    r1cs::TestChecker checker;
    circuit(k).synthesize(checker);
    std::vector<Fr> in(checker.inputs().begin() + 1, checker.inputs().end());
    if (fault_ == Fault::kWrongPublicInput) in[0] += Fr::one();
    return in;
  }
  uint64_t input_bytes() const override { return uint64_t(3) << 20; }

 private:
  circuits::SyntheticCircuit circuit(uint32_t k) const {
    circuits::SyntheticCircuit c(c_.constraints, c_.public_inputs, {}, c_.seed);
    c.set_witness_seed(c_.seed + k);
    return c;
  }
  uint32_t partitions_;
  Fault fault_;
  CircuitDescription c_;
};

JobRequest test_kind_job(uint32_t partitions, TestInput::Fault fault) {
  JobRequest r;
  r.input = std::make_shared<TestInput>(partitions, fault);
  return r;
}

// Other kinds go through the same pipeline: their inputs are charged (the tracker's input class)
// while the job lives, their own public inputs check the proof, their failures fail the job, and
// everything returns to zero.
TEST(EngineTest, ProofKindsThroughTheInterface) {
  test::TempDir dir("cuzk-engine-test");
  Engine engine(small_config(dir.path));
  const std::string good = engine.submit(test_kind_job(2, TestInput::Fault::kNone));
  const std::string bad_witness = engine.submit(test_kind_job(2, TestInput::Fault::kSynthesis));
  const std::string bad_inputs = engine.submit(test_kind_job(1, TestInput::Fault::kWrongPublicInput));
  const std::string synthetic = engine.submit(synthetic_job(1 << 10, 1, 0, 11));
  {
    const auto s = engine.snapshot();
    EXPECT_GE(s.buffers.input_bytes, 0);
    size_t test_jobs = 0;
    for (const auto& k : s.kinds) {
      if (k.kind == "test") test_jobs += k.pending + k.in_progress;
    }
    EXPECT_LE(test_jobs, 3u);
    EXPECT_FALSE(s.devices.empty());
    EXPECT_EQ(s.devices[0].name, "cpu");
  }
  const JobResult r = await_end(engine, good);
  ASSERT_EQ(r.state, JobState::kSucceeded) << r.error;
  EXPECT_TRUE(r.verified);
  EXPECT_EQ(r.proof.size(), 2 * groth16::kProofBytes);
  const JobResult w = await_end(engine, bad_witness);
  EXPECT_EQ(w.state, JobState::kFailed);
  EXPECT_NE(w.error.find("a witness that cannot be built"), std::string::npos) << w.error;
  const JobResult i = await_end(engine, bad_inputs);
  EXPECT_EQ(i.state, JobState::kFailed);
  EXPECT_NE(i.error.find("did not verify against the public inputs of the test kind"), std::string::npos) << i.error;
  EXPECT_EQ(await_end(engine, synthetic).state, JobState::kSucceeded);
  expect_idle(engine);
  const auto s = engine.snapshot();
  EXPECT_EQ(s.buffers.input_jobs, 0);
  EXPECT_EQ(s.buffers.input_bytes, 0);
  EXPECT_TRUE(s.kinds.empty());
}

TEST(EngineTest, CancelsAtEveryStage) {
  test::TempDir dir("cuzk-engine-test");
  auto cfg = small_config(dir.path);
  cfg.synthesis_workers = 2;
  Engine engine(cfg);
  engine.preload_params("synthetic-8192-4-seed2");
  // Cancel after increasing delays so that jobs are caught queued, synthesizing, proving and
  // finalizing.
  for (int delay_ms : {0, 5, 20, 60, 150}) {
    const auto id = engine.submit(synthetic_job(1 << 13, 3, 0, 2));
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    engine.cancel(id);
    const auto r = await_end(engine, id);
    EXPECT_TRUE(r.state == JobState::kCancelled || r.state == JobState::kSucceeded);
    if (r.state == JobState::kCancelled) {
      EXPECT_EQ(r.error, "cancelled by request");
    }
  }
  expect_idle(engine);
}

TEST(EngineTest, BudgetIsNeverExceededUnderConcurrentSubmissions) {
  test::TempDir dir("cuzk-engine-test");
  auto cfg = small_config(dir.path);
  // 2^12 constraints: a/b/c 384 KiB, ~0.52 MiB a partition after synthesis, ~1.3 MiB while the
  // circuit's scratch is alive; the budget admits 2-3 at a time next to the parameters (~1.4 MiB).
  cfg.budget_bytes = uint64_t(5) << 20;
  cfg.synthesis_workers = 4;
  cfg.timeline_path = dir.path + "/timeline.json";
  auto engine = std::make_unique<Engine>(cfg);
  engine->preload_params("synthetic-4096-4-seed4");
  std::vector<std::thread> clients;
  std::mutex ids_mutex;
  std::vector<std::string> ids;
  for (int t = 0; t < 4; t++) {
    clients.emplace_back([&, t] {
      for (int j = 0; j < 3; j++) {
        auto id = engine->submit(synthetic_job(1 << 12, 2, t % 2, 4));
        std::lock_guard lock(ids_mutex);
        ids.push_back(id);
      }
    });
  }
  for (auto& c : clients) c.join();
  for (const auto& id : ids) EXPECT_EQ(await_end(*engine, id).state, JobState::kSucceeded);
  const auto s = engine->snapshot();
  EXPECT_LE(s.buffers.peak_budget_used, s.buffers.budget_total);
  EXPECT_LE(s.buffers.peak_tracked_bytes, s.buffers.budget_total);
  EXPECT_GT(s.buffers.peak_tracked_bytes, 0);
  expect_idle(*engine);
  engine.reset();  // closes the timeline

  // The timeline is valid Chrome trace JSON with spans on worker tracks and counter tracks.
  std::ifstream f(cfg.timeline_path);
  const auto trace = nlohmann::json::parse(f);
  size_t spans = 0, counters = 0;
  for (const auto& e : trace) {
    spans += e["ph"] == "X";
    counters += e["ph"] == "C";
  }
  EXPECT_GE(spans, 3u * 24u);  // synthesize, prove_start, prove_finish (+ verify) per partition
  EXPECT_GT(counters, 0u);
}

TEST(EngineTest, HigherPriorityOvertakesAndOldestJobGoesFirst) {
  test::TempDir dir("cuzk-engine-test");
  auto cfg = small_config(dir.path);
  cfg.synthesis_workers = 1;
  cfg.timeline_path = dir.path + "/timeline.json";
  auto engine = std::make_unique<Engine>(cfg);
  engine->preload_params("synthetic-32768-4-seed6");
  engine->preload_params("synthetic-1024-4-seed6");
  // The blocker keeps the only synthesis worker busy while the others are queued.
  engine->submit(synthetic_job(1 << 15, 1, 0, 6, "blocker"));
  while (engine->peek("blocker").state == JobState::kQueued) std::this_thread::yield();  // admitted
  engine->submit(synthetic_job(1 << 10, 2, 0, 6, "a"));
  engine->submit(synthetic_job(1 << 10, 2, 0, 6, "b"));
  engine->submit(synthetic_job(1 << 10, 1, 9, 6, "c"));
  for (const char* id : {"blocker", "a", "b", "c"}) EXPECT_EQ(await_end(*engine, id).state, JobState::kSucceeded);
  engine.reset();
  std::ifstream f(cfg.timeline_path);
  std::vector<std::string> order;
  for (const auto& e : nlohmann::json::parse(f)) {
    const std::string name = e.value("name", "");
    if (e["ph"] == "X" && name.rfind("synthesize ", 0) == 0) order.push_back(name.substr(11));
  }
  const std::vector<std::string> expected = {"blocker/0", "c/0", "a/0", "a/1", "b/0", "b/1"};
  EXPECT_EQ(order, expected);
}

// The synthetic circuit whose partition 0 synthesizes only once the test opens the gate: it holds
// its budget reservation and a synthesis worker until then.
class GatedInput final : public ProofInput {
 public:
  GatedInput(CircuitDescription c, uint32_t partitions, std::shared_future<void> gate)
      : c_(c), partitions_(partitions), gate_(std::move(gate)) {}
  std::string kind() const override { return "gated"; }
  std::string describe() const override { return "the gated test kind"; }
  uint32_t partitions() const override { return partitions_; }
  CircuitShape shape() const override { return synthetic_shape(c_); }
  std::string param_id() const override { return ParameterManager::synthetic_id(c_); }
  void synthesize(uint32_t k, r1cs::ProvingAssignment& pa) const override {
    if (k == 0) gate_.wait();
    circuit(k).synthesize(pa);
  }
  std::optional<std::vector<Fr>> public_inputs(uint32_t k) const override {
    r1cs::TestChecker checker;
    circuit(k).synthesize(checker);
    return std::vector<Fr>(checker.inputs().begin() + 1, checker.inputs().end());
  }
  uint64_t input_bytes() const override { return 0; }

 private:
  circuits::SyntheticCircuit circuit(uint32_t k) const {
    circuits::SyntheticCircuit c(c_.constraints, c_.public_inputs, {}, c_.seed);
    c.set_witness_seed(c_.seed + k);
    return c;
  }
  CircuitDescription c_;
  uint32_t partitions_;
  std::shared_future<void> gate_;
};

// An urgent job (WinningPoSt) must not wait behind work waiting for the budget: while a blocker's
// partition 0 holds the budget and a worker, and its partition 1 waits for the budget, the urgent
// job is admitted by its own worker and proved. Reserve keeps room for it inside the budget;
// beside charges it beyond the full budget.
TEST(EngineTest, UrgentJobsPassWorkWaitingForTheBudget) {
  test::TempDir dir("cuzk-engine-test");
  const CircuitDescription big{.constraints = 1 << 14, .public_inputs = 4, .seed = 41};
  const CircuitDescription urgent{.constraints = 1 << 10, .public_inputs = 4, .seed = 42};
  int64_t params_bytes = 0;
  {
    Engine e(small_config(dir.path));
    e.preload_params(ParameterManager::synthetic_id(big));
    e.preload_params(ParameterManager::synthetic_id(urgent));
    for (const auto& p : e.snapshot().params) params_bytes += p.host_bytes;
  }
  const uint64_t big_partition = partition_shape(synthetic_shape(big)).total();
  const uint64_t urgent_partition = partition_shape(synthetic_shape(urgent)).total();
  for (UrgentAdmission mode : {UrgentAdmission::kBeside, UrgentAdmission::kReserve}) {
    SCOPED_TRACE(std::string(urgent_admission_name(mode)));
    EXPECT_EQ(parse_urgent_admission(urgent_admission_name(mode)), mode);
    auto cfg = small_config(dir.path);
    cfg.synthesis_workers = 2;
    cfg.urgent_admission = mode;
    cfg.urgent_reserve_bytes = urgent_partition;
    // Both sets and one big partition fit, two big partitions never.
    cfg.budget_bytes =
        uint64_t(params_bytes) + big_partition * 3 / 2 + (mode == UrgentAdmission::kReserve ? urgent_partition : 0);
    Engine engine(cfg);
    engine.preload_params(ParameterManager::synthetic_id(big));
    engine.preload_params(ParameterManager::synthetic_id(urgent));
    std::promise<void> open;
    JobRequest blocker;
    blocker.request_id = "blocker";
    blocker.input = std::make_shared<GatedInput>(big, 3, open.get_future().share());
    engine.submit(blocker);
    auto stage_seen = [&](const char* stage) {
      const auto deadline = std::chrono::steady_clock::now() + 60s;
      for (;;) {
        const auto s = engine.snapshot();
        if (std::any_of(s.partitions.begin(), s.partitions.end(),
                        [&](const PartitionStatus& p) { return p.stage == stage; }))
          return true;
        if (std::chrono::steady_clock::now() > deadline) return false;
        std::this_thread::sleep_for(1ms);
      }
    };
    ASSERT_TRUE(stage_seen("waiting_budget"));
    JobRequest winning;
    winning.request_id = "winning";
    winning.priority = 4000;
    winning.partitions.assign(1, urgent);
    engine.submit(winning);
    const auto r = engine.await("winning", 60s);  // before the gate opens
    ASSERT_TRUE(r.has_value()) << "the urgent job waited behind the blocker";
    EXPECT_EQ(r->state, JobState::kSucceeded);
    EXPECT_TRUE(r->verified);
    EXPECT_EQ(engine.peek("blocker").state, JobState::kRunning);
    // Urgent work is the budget's exception: beside charges the urgent partition beyond the total (one at a
    // time here: its set is resident); reserve keeps it within.
    const uint64_t beside = mode == UrgentAdmission::kBeside ? urgent_partition : 0;
    EXPECT_LE(engine.snapshot().buffers.peak_budget_used, cfg.budget_bytes + beside);
    open.set_value();
    EXPECT_EQ(await_end(engine, "blocker").state, JobState::kSucceeded);
    expect_idle(engine);
  }
  EXPECT_THROW(parse_urgent_admission("first"), std::invalid_argument);
}

TEST(EngineTest, EveryPolicyProves) {
  test::TempDir dir("cuzk-engine-test");
  for (Policy p : {Policy::kBudget, Policy::kSemaphoreReleaseAfterSynth, Policy::kSemaphoreHoldUntilDelivered,
                   Policy::kChannelCapacityWorkers}) {
    SCOPED_TRACE(std::string(policy_name(p)));
    EXPECT_EQ(parse_policy(policy_name(p)), p);
    auto cfg = small_config(dir.path);
    cfg.policy = p;
    Engine engine(cfg);
    std::vector<std::string> ids;
    for (int j = 0; j < 2; j++) ids.push_back(engine.submit(synthetic_job(1 << 10, 3, 0, 8)));
    for (const auto& id : ids) EXPECT_EQ(await_end(engine, id).state, JobState::kSucceeded);
    expect_idle(engine);
    EXPECT_EQ(engine.snapshot().policy, policy_name(p));
  }
  EXPECT_THROW(parse_policy("fifo"), std::invalid_argument);
}

TEST(EngineTest, EvictsIdleParametersOnRequestAndUnderPressure) {
  test::TempDir dir("cuzk-engine-test");
  auto cfg = small_config(dir.path);
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
  auto cfg = small_config(dir.path);
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
  auto cfg = small_config(dir.path);
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

TEST(EngineTest, ConcurrentShutdownsAreSafe) {
  test::TempDir dir("cuzk-engine-test");
  Engine engine(small_config(dir.path));
  const auto id = engine.submit(synthetic_job(1 << 13, 4, 0, 23));
  std::thread patient([&] { engine.shutdown(false); });
  std::this_thread::sleep_for(5ms);
  engine.shutdown(true);  // escalates: the patient call's wait ends early
  patient.join();
  const auto state = engine.peek(id).state;
  EXPECT_TRUE(state == JobState::kCancelled || state == JobState::kSucceeded);
  EXPECT_TRUE(engine.snapshot().buffers.idle());
}

TEST(EngineTest, ParametersFromTheEmbedderAreUsedAndNotCached) {
  test::TempDir dir("cuzk-engine-test");
  auto cfg = small_config(dir.path);
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
  auto cfg = small_config(dir.path);
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
// as its host bytes, and gives it back when the assignment lets go of it; trim frees it.
struct KeptMemory {
  std::mutex mutex;
  uint64_t copy_bytes = 0, idle = 0;
  unsigned made = 0, reused = 0, trims = 0;
};
class KeepingBackend final : public groth16::ProverBackend {
 public:
  explicit KeepingBackend(std::shared_ptr<KeptMemory> kept) : kept_(std::move(kept)) {}
  std::string name() const override { return "keeping-cpu"; }
  groth16::PendingProof prove_start(const groth16::Parameters& params, r1cs::ProvingAssignment& pa, const Fr& r,
                                    const Fr& s, groth16::ProveTimings* t) override {
    return cpu_->prove_start(params, pa, r, s, t);
  }
  void prepare_assignment(r1cs::ProvingAssignment& pa) override {
    {
      std::lock_guard lock(kept_->mutex);
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
    }
    size_t host_bytes() const override { return kept->copy_bytes; }
    std::shared_ptr<KeptMemory> kept;
  };
  std::shared_ptr<KeptMemory> kept_;
  std::unique_ptr<groth16::ProverBackend> cpu_ = groth16::make_cpu_backend();
};

EngineConfig keeping_config(const std::string& cache, std::shared_ptr<KeptMemory> kept) {
  auto cfg = small_config(cache);
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

TEST(EngineTest, ShutdownWaitsOrCancels) {
  test::TempDir dir("cuzk-engine-test");
  {
    Engine engine(small_config(dir.path));
    const auto id = engine.submit(synthetic_job(1 << 10, 2, 0, 9));
    engine.shutdown(false);  // waits for the job
    EXPECT_EQ(engine.peek(id).state, JobState::kSucceeded);
    EXPECT_THROW(engine.submit(synthetic_job(1 << 10, 1, 0, 9)), EngineError);
  }
  {
    Engine engine(small_config(dir.path));
    const auto id = engine.submit(synthetic_job(1 << 13, 4, 0, 9));
    engine.shutdown(true);
    const auto state = engine.peek(id).state;
    EXPECT_TRUE(state == JobState::kCancelled || state == JobState::kSucceeded);
    EXPECT_TRUE(engine.snapshot().buffers.idle());
  }
}

}  // namespace
}  // namespace cuzk::engine

// The pipelined engine on the CPU backend: jobs prove and verify; every counter and
// reservation returns to zero after mixed runs with failures and cancellations; ordering by
// priority and age; oversized jobs are rejected; shutdowns. Parameter sets, the budget and host
// memory: engine_memory_test.cpp (the same program).
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

  // An on_pressure that throws withdraws its reservation: it holds up no later one.
  EXPECT_TRUE(b.try_reserve(100));
  EXPECT_THROW(b.reserve(1, nullptr, []() -> uint64_t { throw std::runtime_error("pressure"); }), std::runtime_error);
  EXPECT_EQ(b.waiters(), 0u);
  b.release(100);
  EXPECT_TRUE(b.try_reserve(1)) << "nobody waits";
  b.release(1);

  // Bytes on_pressure hands over (charged already: a kept buffer the caller takes) count towards
  // the reservation: 80 used, of them 30 handed over, so 40 more need only 10.
  EXPECT_TRUE(b.try_reserve(80));
  int pressured = 0;
  EXPECT_TRUE(b.reserve(40, nullptr, [&]() -> uint64_t { return pressured++ ? 0 : 30; }));
  EXPECT_EQ(pressured, 1);
  EXPECT_EQ(b.used(), 90u);
  b.release(90);
  // Given up after a hand-over, the bytes handed over stay charged: the caller's.
  EXPECT_TRUE(b.try_reserve(80));
  bool handed = false;
  EXPECT_FALSE(b.reserve(
      50, [&] { return handed; },
      [&]() -> uint64_t {
        handed = true;
        return 20;
      }));
  EXPECT_EQ(b.used(), 80u) << "nothing reserved, nothing released";
  EXPECT_EQ(b.waiters(), 0u);
  b.release(80);
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

// The GPU worker's look at what comes next: taken only when it qualifies, or when it goes first.
TEST(PartitionQueueTest, TakesTheFirstItemOnlyWhenAsked) {
  PartitionQueue q(1);
  auto p = std::make_shared<Partition>();
  p->key = {0, 4, 2};
  q.push_unbounded(p->key, p);
  EXPECT_EQ(q.try_pop_if([](const Partition& x) { return x.key.partition == 3; }), nullptr);
  EXPECT_EQ(q.try_pop_before({0, 4, 2}), nullptr) << "not before itself";
  EXPECT_EQ(q.try_pop_before({0, 4, 1}), nullptr);
  EXPECT_EQ(q.size(), 1u);
  EXPECT_EQ(q.try_pop_before({0, 4, 3}), p);
  q.push_unbounded(p->key, p);
  EXPECT_EQ(q.try_pop_if([](const Partition& x) { return x.key.partition == 2; }), p);
  EXPECT_EQ(q.try_pop_if([](const Partition&) { return true; }), nullptr) << "empty";
  // A taken item frees its place in a bounded queue (a producer waiting for it goes on).
  EXPECT_TRUE(q.push({}, p));
  auto producer = std::async(std::launch::async, [&] { return q.push({}, p); });
  EXPECT_EQ(producer.wait_for(20ms), std::future_status::timeout) << "the queue is full";
  EXPECT_EQ(q.try_pop_before({-1, 0, 0}), p);
  if (producer.wait_for(10s) != std::future_status::ready) {
    ADD_FAILURE() << "the producer was not woken";
    q.close();
  }
  EXPECT_TRUE(producer.get());
  EXPECT_EQ(q.size(), 1u);
  q.close();
  EXPECT_EQ(q.try_pop_if([](const Partition&) { return true; }), nullptr) << "closed";
}

TEST(EngineTest, ProvesAndVerifiesMultiPartitionJob) {
  test::TempDir dir("cuzk-engine-test");
  Engine engine(cpu_test_config(dir.path));
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
  auto cfg = cpu_test_config(dir.path);
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
  Engine engine(cpu_test_config(dir.path));
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
  // The same per kind (one here), and the succeeded jobs' durations.
  ASSERT_EQ(s.kind_totals.size(), 1u);
  EXPECT_EQ(s.kind_totals[0].kind, "synthetic");
  EXPECT_EQ(s.kind_totals[0].completed, s.jobs_completed);
  EXPECT_EQ(s.kind_totals[0].failed, 1u);
  EXPECT_EQ(s.kind_totals[0].seconds.count, s.jobs_completed);
  EXPECT_GT(s.kind_totals[0].seconds.sum, 0);
  EXPECT_GE(s.param_files_refused, 1u);  // the corrupt file
  // The device was busy while it proved, and never longer than the engine ran.
  ASSERT_EQ(s.devices.size(), 1u);
  EXPECT_GT(s.devices[0].busy_seconds, 0);
  EXPECT_LE(s.devices[0].busy_seconds, s.uptime_seconds);
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
  void synthesize(uint32_t k, r1cs::ConstraintSystem& pa) const override {
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
  Engine engine(cpu_test_config(dir.path));
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
  // The job list (the status page and `cuzk status --watch`): the ended jobs latest first, each
  // with its kind, partitions (all ended), time and error; still listed once forgotten.
  ASSERT_EQ(s.job_list.size(), 4u);
  const std::vector<std::string> ids = {good, bad_witness, bad_inputs, synthetic};
  const std::vector<uint32_t> partitions = {2, 2, 1, 1};
  for (size_t k = 0; k < ids.size(); k++) {
    auto it =
        std::find_if(s.job_list.begin(), s.job_list.end(), [&](const JobStatus& j) { return j.request_id == ids[k]; });
    ASSERT_NE(it, s.job_list.end()) << ids[k];
    const JobStatus& j = *it;
    EXPECT_EQ(j.kind, k == 3 ? "synthetic" : "test");
    EXPECT_EQ(j.partitions, partitions[k]);
    EXPECT_EQ(j.partitions_ended, partitions[k]);
    EXPECT_EQ(j.state, k == 1 || k == 2 ? JobState::kFailed : JobState::kSucceeded);
    EXPECT_EQ(j.error.empty(), k != 1 && k != 2) << j.error;
    if (k == 1) {
      EXPECT_NE(j.error.find("a witness that cannot be built"), std::string::npos) << j.error;
    }
    EXPECT_GT(j.elapsed_seconds, 0);
  }
  for (size_t k = 1; k < s.job_list.size(); k++) {  // latest ended first (ms and float rounding aside)
    const auto end_ms = [&](size_t i) {
      return double(s.job_list[i].submitted_unix_ms) + 1000 * s.job_list[i].elapsed_seconds;
    };
    EXPECT_GE(end_ms(k - 1) + 2, end_ms(k)) << k;
  }
  engine.forget(bad_witness);
  EXPECT_EQ(engine.snapshot().job_list.size(), 4u) << "an ended job stays listed once delivered";
}

TEST(EngineTest, CancelsAtEveryStage) {
  test::TempDir dir("cuzk-engine-test");
  auto cfg = cpu_test_config(dir.path);
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
  auto cfg = cpu_test_config(dir.path);
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
  size_t spans = 0, counters = 0, timed = 0;
  for (const auto& e : trace) {
    spans += e["ph"] == "X";
    counters += e["ph"] == "C";
    // prove_start's spans carry the backend's steps.
    if (e["ph"] == "X" && e["name"].get<std::string>().rfind("prove_start ", 0) == 0) {
      ASSERT_TRUE(e.contains("args")) << e.dump();
      EXPECT_GT(e["args"]["msm_h_s"].get<double>() + e["args"]["h_ntt_s"].get<double>(), 0.0) << e.dump();
      timed++;
    }
  }
  EXPECT_EQ(timed, 24u) << "one prove_start a partition";
  EXPECT_GE(spans, 3u * 24u);  // synthesize, prove_start, prove_finish (+ verify) per partition
  EXPECT_GT(counters, 0u);
}

TEST(EngineTest, HigherPriorityOvertakesAndOldestJobGoesFirst) {
  test::TempDir dir("cuzk-engine-test");
  auto cfg = cpu_test_config(dir.path);
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
  void synthesize(uint32_t k, r1cs::ConstraintSystem& pa) const override {
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
    Engine e(cpu_test_config(dir.path));
    e.preload_params(ParameterManager::synthetic_id(big));
    e.preload_params(ParameterManager::synthetic_id(urgent));
    for (const auto& p : e.snapshot().params) params_bytes += p.host_bytes;
  }
  const uint64_t big_partition = partition_shape(synthetic_shape(big)).total();
  const uint64_t urgent_partition = partition_shape(synthetic_shape(urgent)).total();
  for (UrgentAdmission mode : {UrgentAdmission::kBeside, UrgentAdmission::kReserve}) {
    SCOPED_TRACE(std::string(urgent_admission_name(mode)));
    EXPECT_EQ(parse_urgent_admission(urgent_admission_name(mode)), mode);
    auto cfg = cpu_test_config(dir.path);
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
    auto cfg = cpu_test_config(dir.path);
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
TEST(EngineTest, ConcurrentShutdownsAreSafe) {
  test::TempDir dir("cuzk-engine-test");
  Engine engine(cpu_test_config(dir.path));
  const auto id = engine.submit(synthetic_job(1 << 13, 4, 0, 23));
  std::thread patient([&] { engine.shutdown(false); });
  std::this_thread::sleep_for(5ms);
  engine.shutdown(true);  // escalates: the patient call's wait ends early
  patient.join();
  const auto state = engine.peek(id).state;
  EXPECT_TRUE(state == JobState::kCancelled || state == JobState::kSucceeded);
  EXPECT_TRUE(engine.snapshot().buffers.idle());
}

TEST(EngineTest, ShutdownWaitsOrCancels) {
  test::TempDir dir("cuzk-engine-test");
  {
    Engine engine(cpu_test_config(dir.path));
    const auto id = engine.submit(synthetic_job(1 << 10, 2, 0, 9));
    engine.shutdown(false);  // waits for the job
    EXPECT_EQ(engine.peek(id).state, JobState::kSucceeded);
    EXPECT_THROW(engine.submit(synthetic_job(1 << 10, 1, 0, 9)), EngineError);
  }
  {
    Engine engine(cpu_test_config(dir.path));
    const auto id = engine.submit(synthetic_job(1 << 13, 4, 0, 9));
    engine.shutdown(true);
    const auto state = engine.peek(id).state;
    EXPECT_TRUE(state == JobState::kCancelled || state == JobState::kSucceeded);
    EXPECT_TRUE(engine.snapshot().buffers.idle());
  }
}

}  // namespace
}  // namespace cuzk::engine
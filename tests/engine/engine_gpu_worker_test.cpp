// The GPU worker's lookahead (gpu_worker.cpp): for a backend that uploads the next witness while a
// proof runs (ProverBackend::uploads_ahead), the queue's sole worker holds the next witness-only
// partition of the same set back and names it to prove_start; it proves that one next, unless work
// that goes before it came meanwhile. Runs on the CPU backend, which records what it is given.
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "engine/engine.hpp"
#include "engine_test_jobs.hpp"
#include "groth16/backend.hpp"
#include "r1cs/proving_assignment.hpp"

namespace cuzk::engine {
namespace {

using namespace std::chrono_literals;

struct Calls {
  struct Call {
    const r1cs::ProvingAssignment* pa;
    const r1cs::ProvingAssignment* next;
  };
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<Call> calls;
  // The first proof waits until the test opens first_gate (the job's other partitions queued
  // meanwhile); with hold_gate, the first proof that names a next waits for held_gate too.
  bool first_gate = false, hold_gate = false, held = false;
  size_t held_at = 0;  // the calls made when it held (that one's included)

  // Opens a gate once the engine's GPU queue holds `depth` partitions (or 60 s passed).
  void open_at_depth(Engine& engine, size_t depth, bool Calls::*gate) {
    const auto until = std::chrono::steady_clock::now() + 60s;
    while (engine.snapshot().gpu_queue_depth < depth && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(5ms);
    }
    EXPECT_GE(engine.snapshot().gpu_queue_depth, depth);
    std::lock_guard lock(mutex);
    this->*gate = true;
    changed.notify_all();
  }
  bool first_open = false, hold_open = false;

  // Whether the first proof named a next, once it began (at most 60 s).
  bool first_named_next() {
    std::unique_lock lock(mutex);
    EXPECT_TRUE(changed.wait_for(lock, 60s, [&] { return !calls.empty(); })) << "no proof began";
    return !calls.empty() && calls[0].next;
  }
};

class AheadBackend final : public groth16::ProverBackend {
 public:
  explicit AheadBackend(std::shared_ptr<Calls> calls) : calls_(std::move(calls)) {}
  std::string name() const override { return "ahead-cpu"; }
  bool uploads_ahead() const override { return true; }
  groth16::PendingProof prove_start(const groth16::Parameters& params, r1cs::ProvingAssignment& pa, const ff::Fr& r,
                                    const ff::Fr& s, groth16::ProveTimings* t,
                                    const r1cs::ProvingAssignment* next) override {
    if (next) {
      EXPECT_NE(next, &pa);
      EXPECT_TRUE(next->abc_pending()) << "a witness-only partition, not yet proved";
      EXPECT_EQ(next->num_constraints(), pa.num_constraints()) << "of the same set";
    }
    {
      std::unique_lock lock(calls_->mutex);
      calls_->calls.push_back({&pa, next});
      calls_->changed.notify_all();
      if (calls_->first_gate && calls_->calls.size() == 1) {
        EXPECT_TRUE(calls_->changed.wait_for(lock, 60s, [&] { return calls_->first_open; })) << "first gate";
      }
      if (next && calls_->hold_gate && !calls_->held) {
        calls_->held = true;
        calls_->held_at = calls_->calls.size();
        calls_->changed.notify_all();
        EXPECT_TRUE(calls_->changed.wait_for(lock, 60s, [&] { return calls_->hold_open; })) << "hold gate";
      }
    }
    std::this_thread::sleep_for(20ms);  // the queue fills meanwhile
    return cpu_->prove_start(params, pa, r, s, t);
  }

 private:
  std::shared_ptr<Calls> calls_;
  std::unique_ptr<groth16::ProverBackend> cpu_ = groth16::make_cpu_backend();
};

EngineConfig ahead_config(const std::string& dir, const std::shared_ptr<Calls>& calls) {
  auto cfg = cpu_test_config(dir);
  cfg.witness_synthesis = WitnessSynthesis::kOn;
  // One synthesis at a time: a job's partitions reach the GPU queue in their order, so that none
  // comes after the held one and goes before it (that case is the second test's).
  cfg.synthesis_workers = 1;
  cfg.make_backend = [calls] { return std::make_unique<AheadBackend>(calls); };
  return cfg;
}

// Every partition named as the next is the one proved next; the proofs verify, nothing is left.
// (Addresses compare soundly: a named partition lives until it is proved, so no other assignment
// can have its address by then.)
TEST(GpuWorkerTest, TheNamedNextPartitionIsProvedNext) {
  test::TempDir dir("cuzk-gpu-worker-test");
  auto calls = std::make_shared<Calls>();
  calls->first_gate = true;
  Engine engine(ahead_config(dir.path, calls));
  const std::string id = engine.submit(synthetic_job(1 << 12, 6, 0, 71));
  // The first partition proving, the second perhaps held: the others wait in the queue.
  const bool first_named = calls->first_named_next();
  calls->open_at_depth(engine, first_named ? 4 : 5, &Calls::first_open);
  const JobResult r = await_end(engine, id);
  ASSERT_EQ(r.state, JobState::kSucceeded) << r.error;
  EXPECT_TRUE(r.verified);
  std::lock_guard lock(calls->mutex);
  ASSERT_EQ(calls->calls.size(), 6u);
  size_t named = 0;
  for (size_t i = 0; i + 1 < calls->calls.size(); i++) {
    if (!calls->calls[i].next) continue;
    named++;
    EXPECT_EQ(calls->calls[i + 1].pa, calls->calls[i].next) << "call " << i;
  }
  EXPECT_FALSE(calls->calls.back().next) << "nothing left to name";
  EXPECT_GE(named, 4u) << "every proof after the first names the next (all were queued)";
  expect_idle(engine);
}

// A held partition gives way to a job of a higher priority that came while the proof ran, and is
// proved right after it.
TEST(GpuWorkerTest, AHeldPartitionGivesWayToWorkThatGoesFirst) {
  test::TempDir dir("cuzk-gpu-worker-test");
  auto calls = std::make_shared<Calls>();
  calls->first_gate = calls->hold_gate = true;
  Engine engine(ahead_config(dir.path, calls));
  constexpr size_t kLow = 3;
  const std::string low = engine.submit(synthetic_job(1 << 12, kLow, 0, 73));
  // The first proof waits until the others are queued, so that a later one holds the next.
  const bool first_named = calls->first_named_next();
  // It holds the second (it goes on to the hold gate), or the others get queued behind it.
  calls->open_at_depth(engine, first_named ? 0 : kLow - 1, &Calls::first_open);
  size_t proved = 0;
  {
    std::unique_lock lock(calls->mutex);
    ASSERT_TRUE(calls->changed.wait_for(lock, 60s, [&] { return calls->held; })) << "no partition was held";
    proved = calls->held_at;  // the one on the GPU included
  }
  const std::string high = engine.submit(synthetic_job(1 << 12, 1, 5, 73));  // the same set, before it
  // The low job's partitions left (neither proved nor held) and the high one's wait in the GPU queue.
  calls->open_at_depth(engine, kLow - proved - 1 + 1, &Calls::hold_open);
  for (const auto& id : {low, high}) {
    const JobResult r = await_end(engine, id);
    EXPECT_EQ(r.state, JobState::kSucceeded) << r.error;
    EXPECT_TRUE(r.verified);
  }
  std::lock_guard lock(calls->mutex);
  ASSERT_EQ(calls->calls.size(), kLow + 1);
  size_t i = 0;
  while (i < calls->calls.size() && !calls->calls[i].next) i++;
  ASSERT_LT(i + 2, calls->calls.size());
  // Partitions that came later go after the held one, unless they go before it: the one proved in
  // its place is the high-priority job's.
  EXPECT_NE(calls->calls[i + 1].pa, calls->calls[i].next) << "the held partition did not give way";
  EXPECT_EQ(calls->calls[i + 2].pa, calls->calls[i].next) << "the held partition right after it";
  expect_idle(engine);
}

}  // namespace
}  // namespace cuzk::engine

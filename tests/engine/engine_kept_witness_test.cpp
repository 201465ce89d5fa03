// The engine keeps a proved witness-only partition's aux memory, with the backend's hold on it,
// for the next synthesis of its shape (engine/kept_witnesses.hpp): under a budget with room for
// one partition at a time, every partition after the first is synthesized into kept memory whose
// hold (a CUDA backend's page-lock) is made once; the kept memory goes when the last job ends, and
// the budget ends as it began. With kept_witnesses 0 each partition makes its own. Under a tight
// budget shared by two shapes, kept witnesses never keep the head of the line waiting. Part of
// engine_test.
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/engine.hpp"
#include "engine/synthetic_input.hpp"
#include "engine_test_jobs.hpp"
#include "groth16/backend.hpp"
#include "test_support.hpp"

namespace cuzk::engine {
namespace {

using ff::Fr;

struct HoldCounts {
  std::atomic<int> made{0}, reused{0}, gone{0};
};

struct CountedHold final : r1cs::WitnessHold {
  explicit CountedHold(std::shared_ptr<HoldCounts> counts) : counts(std::move(counts)) {}
  ~CountedHold() override { counts->gone++; }
  std::shared_ptr<HoldCounts> counts;
};

// The CPU backend with a preparation that holds a witness-only assignment's aux as the CUDA
// backend's page-lock does: made once per memory, found again on memory the engine kept.
class HoldingBackend final : public groth16::ProverBackend {
 public:
  explicit HoldingBackend(std::shared_ptr<HoldCounts> counts) : counts_(std::move(counts)) {}
  std::string name() const override { return "holding-cpu"; }
  void prepare_assignment(r1cs::ProvingAssignment& pa) override {
    if (!pa.abc_pending()) return;
    if (pa.aux_hold()) {
      counts_->reused++;
      return;
    }
    pa.set_aux_hold(std::make_shared<CountedHold>(counts_));
    counts_->made++;
  }
  groth16::PendingProof prove_start(const groth16::Parameters& params, r1cs::ProvingAssignment& pa, const Fr& r,
                                    const Fr& s, groth16::ProveTimings* t, const r1cs::ProvingAssignment*) override {
    return cpu_->prove_start(params, pa, r, s, t);
  }

 private:
  std::shared_ptr<HoldCounts> counts_;
  std::unique_ptr<groth16::ProverBackend> cpu_ = groth16::make_cpu_backend();
};

TEST(EngineTest, APartitionIsSynthesizedIntoTheWitnessMemoryOfTheOneBefore) {
  constexpr uint64_t kConstraints = 1 << 12;
  const JobRequest job = synthetic_job(kConstraints, 4, 0, 71);
  const auto input = make_synthetic_input(job.partitions);
  const PartitionShape shape = partition_shape(input->shape(), /*witness_only=*/true);
  test::TempDir dir("cuzk-engine-test");
  auto cfg = cpu_test_config(dir.path);
  cfg.witness_synthesis = WitnessSynthesis::kOn;
  uint64_t set = 0, compiled = 0;
  {
    Engine probe(cfg);  // records the compiled circuit into the cache, and says what the set holds
    const JobResult r = await_end(probe, probe.submit(synthetic_job(kConstraints, 1, 0, 71)));
    ASSERT_EQ(r.state, JobState::kSucceeded) << r.error;
    const auto s = probe.snapshot();
    set = uint64_t(s.params.at(0).host_bytes);
    compiled = uint64_t(s.buffers.compiled_circuit_bytes);
  }
  const uint64_t witness = uint64_t(shape.bytes[size_t(BufferClass::kWitness)]);
  ASSERT_GT(witness, 0u);
  // A partition synthesizing and one done beside it would need its witness more.
  cfg.budget_bytes = set + compiled + shape.total() + witness / 2;
  for (const unsigned kept : {2u, 0u}) {
    SCOPED_TRACE("kept_witnesses " + std::to_string(kept));
    auto counts = std::make_shared<HoldCounts>();
    cfg.kept_witnesses = kept;
    cfg.make_backend = [counts] { return std::make_unique<HoldingBackend>(counts); };
    Engine engine(cfg);
    std::vector<std::string> ids;
    for (int j = 0; j < 2; j++) ids.push_back(engine.submit(job));
    for (const auto& id : ids) {
      const JobResult r = await_end(engine, id);
      EXPECT_EQ(r.state, JobState::kSucceeded) << r.error;
      EXPECT_TRUE(r.verified);
    }
    EXPECT_EQ(counts->made + counts->reused, 8);
    if (kept) {
      EXPECT_EQ(counts->made, 1) << "one hold, made for the first partition's memory";
      EXPECT_EQ(counts->reused, 7);
    } else {
      EXPECT_EQ(counts->made, 8);
    }
    EXPECT_EQ(counts->gone, counts->made) << "every hold went (the last with the last job)";
    const auto s = engine.snapshot();
    EXPECT_EQ(s.buffers.witness_kept_bytes, 0);
    EXPECT_LE(s.buffers.peak_budget_used, s.buffers.budget_total);
    expect_idle(engine);
  }
}

// Jobs of two shapes, submitted together under a budget with room for about one partition at a
// time: kept witnesses of one shape never hold the room a partition of the other at the head of
// the line needs (they are dropped, or taken only by a partition that then fits at once), so every
// job ends, within the budget, and the engine ends idle with every hold gone.
TEST(EngineTest, KeptWitnessesNeverKeepThePartitionAtTheHeadOfTheLineWaiting) {
  const JobRequest large = synthetic_job(1 << 12, 3, 0, 72), small = synthetic_job(1 << 11, 3, 0, 73);
  test::TempDir dir("cuzk-engine-test");
  auto cfg = cpu_test_config(dir.path);
  cfg.witness_synthesis = WitnessSynthesis::kOn;
  cfg.synthesis_workers = 3;
  uint64_t fixed = 0, compiled = 0;
  {
    Engine probe(cfg);  // both sets and compiled circuits, as they stay resident
    for (const auto& job : {large, small}) {
      const JobResult r = await_end(probe, probe.submit(job));
      ASSERT_EQ(r.state, JobState::kSucceeded) << r.error;
    }
    const auto s = probe.snapshot();
    for (const auto& set : s.params) fixed += uint64_t(set.host_bytes);
    compiled = uint64_t(s.buffers.compiled_circuit_bytes);
    fixed += compiled;
  }
  const auto input = make_synthetic_input(large.partitions);
  const PartitionShape witness_only = partition_shape(input->shape(), /*witness_only=*/true);
  cfg.budget_bytes = fixed + witness_only.total() + witness_only.total() / 2;
  auto counts = std::make_shared<HoldCounts>();
  cfg.make_backend = [counts] { return std::make_unique<HoldingBackend>(counts); };
  Engine engine(cfg);
  std::vector<std::string> ids;
  for (int round = 0; round < 3; round++) {
    ids.push_back(engine.submit(large));
    ids.push_back(engine.submit(small));
  }
  for (const auto& id : ids) {
    ASSERT_TRUE(engine.await(id, std::chrono::seconds(120))) << "a partition waits for room a kept witness holds";
    const JobResult r = await_end(engine, id);
    EXPECT_EQ(r.state, JobState::kSucceeded) << r.error;
  }
  EXPECT_EQ(counts->made + counts->reused, 18);
  EXPECT_EQ(counts->gone, counts->made);
  const auto s = engine.snapshot();
  // A compiled circuit read while the budget is full is charged beyond it (force_reserve), with
  // kept witnesses or without.
  EXPECT_LE(uint64_t(s.buffers.peak_budget_used), uint64_t(s.buffers.budget_total) + compiled);
  EXPECT_EQ(s.buffers.witness_kept_bytes, 0);
  expect_idle(engine);
}

}  // namespace
}  // namespace cuzk::engine

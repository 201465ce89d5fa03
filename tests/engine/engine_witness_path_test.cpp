// The engine's witness path, on the CPU backend: witness-only synthesis carries the witness alone;
// where a device cannot form a/b/c (its memory plan overlays the witness on them) the jobs go by
// full synthesis, within the budget, and a device that took the matrices lets them go; a plan
// that overlays only until the matrices are placed keeps the witness path. Part of engine_test.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/engine.hpp"
#include "engine/synthetic_input.hpp"
#include "engine_test_jobs.hpp"
#include "groth16/backend.hpp"
#include "r1cs/compiled_circuit.hpp"
#include "test_support.hpp"

namespace cuzk::engine {
namespace {

using namespace std::chrono_literals;
using ff::Fr;

// The largest value of each tracked counter (every series of it) in a timeline file.
std::map<std::string, double> timeline_peaks(const std::string& path) {
  std::ifstream f(path);
  const auto trace = nlohmann::json::parse(f);
  std::map<std::string, double> peaks;
  for (const auto& e : trace) {
    if (e["ph"] != "C") continue;
    double& peak = peaks[e["name"].get<std::string>()];
    for (const auto& [series, v] : e["args"].items()) peak = std::max(peak, v.get<double>());
  }
  return peaks;
}

// Witness-only synthesis through the engine (on: the CPU backend makes a/b/c in its prover): the
// compiled circuit is recorded once into param_cache_dir/compiled and charged to the budget; the
// partitions carry the witness class alone (no a/b/c, aux, inputs or densities) and their proofs
// verify; a second engine reads the file instead of recording it.
TEST(EngineTest, WitnessOnlySynthesisCarriesTheWitnessAlone) {
  test::TempDir dir("cuzk-engine-test");
  auto cfg = cpu_test_config(dir.path);
  cfg.witness_synthesis = WitnessSynthesis::kOn;
  cfg.timeline_path = dir.path + "/timeline.json";
  const CircuitDescription c{.constraints = 1 << 12, .public_inputs = 4, .seed = 61};
  const auto file =
      CompiledCircuits::file_in(std::filesystem::path(dir.path) / "compiled", ParameterManager::synthetic_id(c));
  for (int run = 0; run < 2; run++) {
    SCOPED_TRACE(run == 0 ? "recorded" : "read from its file");
    auto engine = std::make_unique<Engine>(cfg);
    const auto id = engine->submit(synthetic_job(c.constraints, 3, 0, c.seed));
    const JobResult r = await_end(*engine, id);
    ASSERT_EQ(r.state, JobState::kSucceeded) << r.error;
    EXPECT_TRUE(r.verified);
    EXPECT_TRUE(std::filesystem::exists(file));
    const auto s = engine->snapshot();
    EXPECT_GT(s.buffers.compiled_circuit_bytes, 0);
    expect_idle(*engine);
    engine.reset();  // closes the timeline
    auto peaks = timeline_peaks(cfg.timeline_path);
    EXPECT_GE(peaks["witness bytes"], double(sizeof(Fr) << 12)) << "a partition's witness is tracked";
    EXPECT_EQ(peaks["abc bytes"] + peaks["aux bytes"] + peaks["densities bytes"], 0.0)
        << "no a/b/c, aux or densities on the host";
  }
  // A full-synthesis engine beside it proves the same job with a/b/c on the host.
  cfg.witness_synthesis = WitnessSynthesis::kOff;
  Engine full(cfg);
  const JobResult r = await_end(full, full.submit(synthetic_job(c.constraints, 1, 0, c.seed)));
  EXPECT_EQ(r.state, JobState::kSucceeded) << r.error;
  EXPECT_EQ(full.snapshot().buffers.compiled_circuit_bytes, 0);
}

// A CPU backend that says, as a card whose memory plan overlays the witness on a/b/c does, that
// it cannot form a witness-only proof's a/b/c on its device: when the matrices are placed
// (kAtPlacement), or only for the plan in force afterwards (kLater: another set's placement made
// it again). kUntilPlaced: its plan overlays only until the matrices are placed, as a set that
// fits whole on a card with overlaid scratch, whose plan made around the matrices is separate.
// kNever: a card with room for them. It counts the placements, and the matrices let go.
class OverlayingBackend final : public groth16::ProverBackend {
 public:
  enum class When { kAtPlacement, kLater, kUntilPlaced, kNever };
  OverlayingBackend(std::shared_ptr<std::atomic<int>> asked, When when,
                    std::shared_ptr<std::atomic<int>> let_go = std::make_shared<std::atomic<int>>(0))
      : asked_(std::move(asked)), let_go_(std::move(let_go)), when_(when) {}
  std::string name() const override { return "overlaying-cpu"; }
  groth16::PendingProof prove_start(const groth16::Parameters& params, r1cs::ProvingAssignment& pa, const Fr& r,
                                    const Fr& s, groth16::ProveTimings* t,
                                    const r1cs::ProvingAssignment* /*next*/) override {
    EXPECT_FALSE(pa.abc_pending() && !abc_off_device().empty())
        << "a witness-only partition reached a backend that cannot form its a/b/c";
    EXPECT_FALSE(pa.abc_pending() && let_go_->load()) << "a witness-only partition reached a backend without matrices";
    return cpu_->prove_start(params, pa, r, s, t);
  }
  void let_matrices_go(const groth16::Parameters&,
                       const std::shared_ptr<const r1cs::CompiledCircuit>& compiled) override {
    EXPECT_TRUE(compiled);
    EXPECT_TRUE(placed_) << "let go of matrices it never took";
    (*let_go_)++;
  }
  std::string place_matrices(const groth16::Parameters&,
                             const std::shared_ptr<const r1cs::CompiledCircuit>& compiled) override {
    EXPECT_TRUE(compiled);
    (*asked_)++;
    placed_ = true;
    return when_ == When::kAtPlacement ? kWhy : "";
  }
  std::string abc_off_device() const override {
    if (when_ == When::kNever) return "";
    if (when_ == When::kUntilPlaced) return placed_ ? "" : kWhy;
    return when_ == When::kLater || placed_ ? kWhy : "";  // kAtPlacement: its plan overlays, once asked
  }
  static constexpr const char* kWhy = "its memory plan overlays the witness on a/b/c (test)";

 private:
  std::shared_ptr<std::atomic<int>> asked_, let_go_;
  When when_;
  std::atomic<bool> placed_{false};
  std::unique_ptr<groth16::ProverBackend> cpu_ = groth16::make_cpu_backend();
};

// Witness-only synthesis where the backend cannot form a/b/c on its device: the jobs are proved by
// full synthesis instead, every partition admitted for a full synthesis' bytes (a/b/c tracked and
// charged, no witness alone), under every policy (a partition admitted again gives its permit
// back), the backend asked once for the set, the compiled circuit let go (its charge back);
// the budget ends as it began. Also when the plan is overlaid only after the matrices were placed.
TEST(EngineTest, WitnessOnlyJobsAreProvedInFullWhereTheDeviceCannotFormABC) {
  constexpr uint64_t kConstraints = 1 << 12;
  using When = OverlayingBackend::When;
  for (const bool later : {false, true}) {
    for (const Policy policy :
         {Policy::kBudget, Policy::kSemaphoreHoldUntilDelivered, Policy::kSemaphoreReleaseAfterSynth}) {
      SCOPED_TRACE(std::string(policy_name(policy)) + (later ? ", overlaid after the placement" : ""));
      test::TempDir dir("cuzk-engine-test");
      auto cfg = cpu_test_config(dir.path);
      cfg.witness_synthesis = WitnessSynthesis::kOn;
      cfg.policy = policy;
      cfg.synthesis_workers = 1;  // a second permit taken by the same partition would hang here
      cfg.timeline_path = dir.path + "/timeline.json";
      auto asked = std::make_shared<std::atomic<int>>(0);
      const When when = later ? When::kLater : When::kAtPlacement;
      cfg.make_backend = [asked, when] { return std::make_unique<OverlayingBackend>(asked, when); };
      auto engine = std::make_unique<Engine>(cfg);
      for (int job = 0; job < 2; job++) {
        const auto id = engine->submit(synthetic_job(kConstraints, 3, 0, 62));
        ASSERT_TRUE(engine->await(id, std::chrono::seconds(60))) << "job " << job << " hung";
        const JobResult r = await_end(*engine, id);
        ASSERT_EQ(r.state, JobState::kSucceeded) << r.error;
        EXPECT_TRUE(r.verified);
      }
      EXPECT_EQ(asked->load(), 1) << "asked once for the set";
      if (!later) {
        EXPECT_EQ(engine->snapshot().buffers.compiled_circuit_bytes, 0) << "a refused set keeps no compiled circuit";
      }
      expect_idle(*engine);
      engine.reset();  // closes the timeline
      auto peaks = timeline_peaks(cfg.timeline_path);
      EXPECT_EQ(peaks["witness bytes"], 0.0) << "no partition carried its witness alone";
      EXPECT_GE(peaks["abc bytes"], double(3 * sizeof(Fr) * kConstraints)) << "a/b/c were synthesized and tracked";
    }
  }
}

// Two devices, the first with room for the matrices and the second without: the set is proved by
// full synthesis on both, and the first lets its matrices go (its plan made again for full
// synthesis), once; the compiled circuit goes back to the budget.
TEST(EngineTest, ADeviceThatTookTheMatricesLetsThemGoWhenAnotherRefuses) {
  using When = OverlayingBackend::When;
  test::TempDir dir("cuzk-engine-test");
  auto cfg = cpu_test_config(dir.path);
  cfg.witness_synthesis = WitnessSynthesis::kOn;
  auto asked = std::make_shared<std::atomic<int>>(0), let_go = std::make_shared<std::atomic<int>>(0);
  auto made = std::make_shared<int>(0);
  cfg.make_backend_devices = 2;
  cfg.make_backend = [asked, let_go, made] {
    return std::make_unique<OverlayingBackend>(asked, (*made)++ == 0 ? When::kNever : When::kAtPlacement, let_go);
  };
  Engine engine(cfg);
  ASSERT_EQ(engine.snapshot().devices.size(), 2u);
  for (int job = 0; job < 2; job++) {
    const auto id = engine.submit(synthetic_job(1 << 12, 3, 0, 64));
    ASSERT_TRUE(engine.await(id, std::chrono::seconds(60))) << "job " << job << " hung";
    const JobResult r = await_end(engine, id);
    ASSERT_EQ(r.state, JobState::kSucceeded) << r.error;
    EXPECT_TRUE(r.verified);
  }
  EXPECT_EQ(asked->load(), 2) << "each device asked once for the set";
  EXPECT_EQ(let_go->load(), 1) << "the device that took the matrices let them go";
  EXPECT_EQ(engine.snapshot().buffers.compiled_circuit_bytes, 0);
  expect_idle(engine);
}

// The same under a budget that holds a full partition beside the set and nothing more: the
// compiled circuit, charged while the witness path was tried, goes back, so the partitions fit.
TEST(EngineTest, WitnessOnlyJobsRefusedByTheDeviceFitABudgetForFullSynthesis) {
  const JobRequest job = synthetic_job(1 << 12, 2, 0, 63);
  const auto input = make_synthetic_input(job.partitions);
  const uint64_t full = partition_shape(input->shape()).total();
  test::TempDir dir("cuzk-engine-test");
  auto cfg = cpu_test_config(dir.path);
  cfg.witness_synthesis = WitnessSynthesis::kOn;
  auto asked = std::make_shared<std::atomic<int>>(0);
  cfg.make_backend = [asked] {
    return std::make_unique<OverlayingBackend>(asked, OverlayingBackend::When::kAtPlacement);
  };
  uint64_t set = 0;
  {
    Engine probe(cfg);
    probe.preload_params(input->param_id());
    set = uint64_t(probe.snapshot().params.at(0).host_bytes);
  }
  cfg.budget_bytes = set + full + (256 << 10);  // less than the compiled circuit (~0.4 MB)
  Engine engine(cfg);
  std::vector<std::string> ids;
  for (int j = 0; j < 3; j++) ids.push_back(engine.submit(job));
  for (const auto& id : ids) {
    ASSERT_TRUE(engine.await(id, std::chrono::seconds(60))) << "hung beside the compiled circuit's charge";
    const JobResult r = await_end(engine, id);
    EXPECT_EQ(r.state, JobState::kSucceeded) << r.error;
  }
  const auto s = engine.snapshot();
  EXPECT_LE(s.buffers.peak_budget_used, s.buffers.budget_total);
  expect_idle(engine);
}

// A set placed before its jobs come (a preload) whose plan overlays until the matrices are
// placed, and not after: jobs submitted then keep the witness path (submission does not take the
// set's first plan for the device's verdict), asked once, a/b/c never on the host.
TEST(EngineTest, APlanThatOverlaysOnlyUntilTheMatricesArePlacedKeepsTheWitnessPath) {
  constexpr uint64_t kConstraints = 1 << 12;
  test::TempDir dir("cuzk-engine-test");
  auto cfg = cpu_test_config(dir.path);
  cfg.witness_synthesis = WitnessSynthesis::kOn;
  cfg.timeline_path = dir.path + "/timeline.json";
  auto asked = std::make_shared<std::atomic<int>>(0);
  cfg.make_backend = [asked] {
    return std::make_unique<OverlayingBackend>(asked, OverlayingBackend::When::kUntilPlaced);
  };
  auto engine = std::make_unique<Engine>(cfg);
  const JobRequest job = synthetic_job(kConstraints, 2, 0, 64);
  engine->preload_params(make_synthetic_input(job.partitions)->param_id());
  for (int j = 0; j < 2; j++) {
    const JobResult r = await_end(*engine, engine->submit(job));
    ASSERT_EQ(r.state, JobState::kSucceeded) << r.error;
    EXPECT_TRUE(r.verified);
  }
  EXPECT_EQ(asked->load(), 1) << "asked once for the set";
  EXPECT_GT(engine->snapshot().buffers.compiled_circuit_bytes, 0) << "the compiled circuit stays for the set's jobs";
  expect_idle(*engine);
  engine.reset();  // closes the timeline
  auto peaks = timeline_peaks(cfg.timeline_path);
  // A partition's witness: its aux and inputs, a little under one element a constraint.
  EXPECT_GE(peaks["witness bytes"], double(sizeof(Fr) * kConstraints) / 2) << "the partitions carried their witness";
  EXPECT_EQ(peaks["abc bytes"], 0.0) << "no a/b/c on the host";
}

}  // namespace
}  // namespace cuzk::engine

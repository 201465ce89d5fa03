// Device faults in the middle of a proof (issues 29 and 39): device memory exhausted and a kernel
// launch failing, injected (groth16/fault_injection.hpp) at every device-memory request and
// launch of the CUDA backend's prove_start in turn (the compiled circuit's matrices, uploaded by
// place_matrices before the warm-up's synthesis, are passed once, so the loop's jobs do not reach
// that site again: as before, when the first proof uploaded them). Device memory running out fails no job: the
// backend makes room (copies of H, the MSM workspace, then resident bases, which it streams) and
// tries the step again (issue 39). A launch failure fails the partition's job with an error
// naming the partition and the CUDA error (no retry on the CPU backend: a device that failed
// once would make every retry slower without making the proof more likely), its other
// partitions are dropped, other jobs go on, the GPU worker serves the next job, and the tracker,
// the budget and the device's free memory return to their idle values.
//
// The CUDA cases skip cleanly without a GPU; the same engine path is also driven on every machine
// by a CPU backend that fails where armed, and the injection's arming rules are unit-tested.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

#include <gtest/gtest.h>

#include "engine/engine.hpp"
#include "engine_test_jobs.hpp"
#include "groth16/backend.hpp"
#include "groth16/fault_injection.hpp"
#include "test_support.hpp"

namespace cuzk::engine {
namespace {

using namespace std::chrono_literals;
using groth16::fault_injection::Fault;
namespace fi = groth16::fault_injection;

// Leaves nothing armed for the next test, whatever happens in this one.
struct Disarm {
  ~Disarm() { fi::disarm(); }
};

EngineConfig small_config(const std::string& cache) {
  EngineConfig c;
  c.budget_bytes = uint64_t(512) << 20;
  c.synthesis_workers = 2;
  c.param_cache_dir = cache;
  c.log_events = false;
  c.gpu_h_copies = 1;  // plain H bases: no precomputation to wait for in a test
  return c;
}

// Two jobs in flight when the armed fault fires: exactly one fails, naming a partition, the
// stage and `cause`; the other succeeds; then a job on the same worker succeeds and the engine
// is idle.
void expect_one_job_fails_and_the_engine_goes_on(Engine& engine, const std::string& cause, uint64_t constraints) {
  const std::string hit_or_spared_a = engine.submit(synthetic_job(constraints, 2));
  const std::string hit_or_spared_b = engine.submit(synthetic_job(constraints, 1));
  const JobResult a = await_end(engine, hit_or_spared_a), b = await_end(engine, hit_or_spared_b);
  const bool a_failed = a.state == JobState::kFailed, b_failed = b.state == JobState::kFailed;
  EXPECT_NE(a_failed, b_failed) << "exactly one job takes the fault: " << a.error << " / " << b.error;
  const JobResult& failed = a_failed ? a : b;
  const JobResult& spared = a_failed ? b : a;
  EXPECT_EQ(failed.state, JobState::kFailed);
  EXPECT_NE(failed.error.find("partition "), std::string::npos) << failed.error;
  EXPECT_NE(failed.error.find("prove_start failed"), std::string::npos) << failed.error;
  EXPECT_NE(failed.error.find(cause), std::string::npos) << failed.error;
  EXPECT_NE(failed.error.find("[injected]"), std::string::npos) << failed.error;
  EXPECT_TRUE(failed.proof.empty());
  EXPECT_EQ(spared.state, JobState::kSucceeded) << spared.error;
  EXPECT_TRUE(spared.verified);
  fi::disarm();
  const JobResult next = await_end(engine, engine.submit(synthetic_job(constraints, 1)));
  EXPECT_EQ(next.state, JobState::kSucceeded) << next.error;
  expect_idle(engine);
}

// Two jobs in flight when the armed device-memory fault fires: both succeed (the backend made
// room and ran the step again), and the engine is idle after.
void expect_both_jobs_succeed(Engine& engine, uint64_t constraints) {
  const std::string a = engine.submit(synthetic_job(constraints, 2));
  const std::string b = engine.submit(synthetic_job(constraints, 1));
  for (const std::string& id : {a, b}) {
    const JobResult r = await_end(engine, id);
    EXPECT_EQ(r.state, JobState::kSucceeded) << r.error;
    EXPECT_TRUE(r.verified);
  }
  fi::disarm();
  expect_idle(engine);
}

TEST(FaultInjectionTest, FiresOnceAtTheArmedSiteAndCountsSites) {
  Disarm disarm;
  EXPECT_FALSE(fi::fires(Fault::kDeviceOom)) << "off by default";
  fi::arm(Fault::kDeviceOom, 3);
  std::vector<bool> fired;
  for (int i = 0; i < 5; i++) fired.push_back(fi::fires(Fault::kDeviceOom));
  EXPECT_EQ(fired, (std::vector<bool>{false, false, true, false, false}));
  EXPECT_FALSE(fi::fires(Fault::kLaunchError)) << "the other fault stays off";
  fi::arm(Fault::kLaunchError, UINT64_MAX);  // counts without failing
  for (int i = 0; i < 4; i++) EXPECT_FALSE(fi::fires(Fault::kLaunchError));
  EXPECT_EQ(fi::passed(Fault::kLaunchError), 4u);
  fi::disarm();
  EXPECT_FALSE(fi::fires(Fault::kLaunchError));
}

TEST(FaultInjectionTest, EnvironmentSpecsAreParsedOrRefusedWithTheirText) {
  Disarm disarm;
  fi::arm_from_spec("launch-error:2,device-oom:1");
  EXPECT_TRUE(fi::fires(Fault::kDeviceOom));
  EXPECT_FALSE(fi::fires(Fault::kLaunchError));
  EXPECT_TRUE(fi::fires(Fault::kLaunchError));
  for (const char* bad : {"device-oom", "device-oom:0", "device-oom:x", "disk-full:1", "launch-error:1,"}) {
    try {
      fi::arm_from_spec(bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("CUZK_FAULT_INJECT"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("device-oom:N or launch-error:N"), std::string::npos) << e.what();
    }
  }
}

// The CPU backend, failing where armed as the CUDA backend does: a device-memory fault before
// anything ran, a launch fault after a/b/c were released to the deallocation thread (the MSMs'
// place), so both of the engine's paths out of prove_start run on every machine.
class FailingCpuBackend final : public groth16::ProverBackend {
 public:
  std::string name() const override { return "failing-cpu"; }
  groth16::PendingProof prove_start(const groth16::Parameters& params, r1cs::ProvingAssignment& pa, const ff::Fr& r,
                                    const ff::Fr& s, groth16::ProveTimings* t,
                                    const r1cs::ProvingAssignment* /*next*/) override {
    if (fi::fires(Fault::kDeviceOom)) {
      throw std::runtime_error("CUDA: cudaMalloc of the proof's scratch buffer [injected]: cudaErrorMemoryAllocation");
    }
    groth16::PendingProof out = cpu_->prove_start(params, pa, r, s, t);
    if (fi::fires(Fault::kLaunchError)) {
      throw std::runtime_error("CUDA: MSM kernels of L [injected]: cudaErrorLaunchOutOfResources");
    }
    return out;
  }

 private:
  std::unique_ptr<groth16::ProverBackend> cpu_ = groth16::make_cpu_backend();
};

TEST(EngineDeviceFaultTest, APartitionFailingInProveStartFailsOnlyItsJob) {
  Disarm disarm;
  test::TempDir dir("cuzk-gpu-faults");
  EngineConfig cfg = small_config(dir.path);
  cfg.make_backend = [] { return std::make_unique<FailingCpuBackend>(); };
  Engine engine(cfg);
  for (const auto& [fault, cause] : {std::pair{Fault::kDeviceOom, "cudaErrorMemoryAllocation"},
                                     std::pair{Fault::kLaunchError, "cudaErrorLaunchOutOfResources"}}) {
    for (uint64_t nth : {1, 2, 3}) {
      SCOPED_TRACE(std::string(fi::fault_name(fault)) + ":" + std::to_string(nth));
      fi::arm(fault, nth);
      expect_one_job_fails_and_the_engine_goes_on(engine, cause, 1 << 10);
    }
  }
  const auto s = engine.snapshot();
  EXPECT_EQ(s.jobs_failed, 6u);
}

// The CUDA backend: a warm-up job sizes every device buffer (they are kept across proofs) and
// counts the sites a partition passes; then the fault is injected at each site in turn.
// cause: the CUDA error the failed job names; empty: no job fails (device memory).
void fault_at_every_site(Fault fault, const std::string& cause) {
  if (groth16::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device (or a build without CUDA)";
  Disarm disarm;
  test::TempDir dir("cuzk-gpu-faults");
  EngineConfig cfg = small_config(dir.path);
  cfg.backend = BackendKind::kCuda;
  Engine engine(cfg);
  constexpr uint64_t kConstraints = 1 << 14;
  fi::arm(fault, UINT64_MAX);
  const JobResult warm = await_end(engine, engine.submit(synthetic_job(kConstraints, 1)));
  ASSERT_EQ(warm.state, JobState::kSucceeded) << warm.error;
  const uint64_t sites = fi::passed(fault);
  fi::disarm();
  ASSERT_GT(sites, 0u) << "prove_start passed no " << fi::fault_name(fault) << " site";
  expect_idle(engine);
  const auto device_free = [&] { return int64_t(engine.snapshot().devices.at(0).memory_free); };
  const int64_t free_before = device_free();
  ASSERT_GT(free_before, 0);
  for (uint64_t nth = 1; nth <= sites; nth++) {
    SCOPED_TRACE(std::string(fi::fault_name(fault)) + " at site " + std::to_string(nth) + " of " +
                 std::to_string(sites));
    fi::arm(fault, nth);
    if (cause.empty()) {
      expect_both_jobs_succeed(engine, kConstraints);
    } else {
      expect_one_job_fails_and_the_engine_goes_on(engine, cause, kConstraints);
    }
    // The buffers kept across proofs were sized by the warm-up, so every fault's partial
    // allocations must have gone back: a leak per fault would show here. The MSM workspace may
    // grow a little with another witness's bucket counts (a few MiB at this size), or be freed
    // and grown again by a retry.
    const int64_t drift = free_before - device_free();
    EXPECT_LT(std::abs(drift), int64_t(32) << 20)
        << "device memory free before the faults " << free_before << ", now " << device_free();
  }
}

TEST(EngineGpuFaultTest, DeviceMemoryExhaustedAtEachRequestFailsNoJob) { fault_at_every_site(Fault::kDeviceOom, ""); }

TEST(EngineGpuFaultTest, KernelLaunchFailingAtEachLaunchFailsOneJobAndTheWorkerGoesOn) {
  fault_at_every_site(Fault::kLaunchError, "cudaErrorLaunchOutOfResources");
}

}  // namespace
}  // namespace cuzk::engine

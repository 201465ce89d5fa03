// Shared by the engine's tests (engine_test, engine_gpu_faults_test): a small CPU engine's
// configuration, a synthetic job, waiting for a job's end, and the check that an idle engine holds
// nothing beyond its resident parameters.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include <gtest/gtest.h>

#include "engine/engine.hpp"

namespace cuzk::engine {

// The CPU backend, a 256 MiB budget, two synthesis workers, parameters cached in `cache`.
inline EngineConfig cpu_test_config(const std::string& cache) {
  EngineConfig c;
  c.budget_bytes = uint64_t(256) << 20;
  c.backend = BackendKind::kCpu;
  c.synthesis_workers = 2;
  c.param_cache_dir = cache;
  c.log_events = false;
  return c;
}

inline JobRequest synthetic_job(uint64_t constraints, size_t partitions, int priority = 0, uint64_t seed = 1,
                                std::string id = {}) {
  JobRequest r;
  r.request_id = std::move(id);
  r.priority = priority;
  CircuitDescription c;
  c.constraints = constraints;
  c.public_inputs = 4;
  c.seed = seed;
  r.partitions.assign(partitions, c);
  return r;
}

inline JobResult await_end(Engine& e, const std::string& id) {
  auto r = e.await(id, std::chrono::seconds(120));
  EXPECT_TRUE(r.has_value()) << "job " << id << " did not end in time";
  return r.value_or(JobResult{});
}

// Every buffer counter back to zero, no queue, no job, and only resident parameters in the budget.
inline void expect_idle(Engine& e) {
  const auto s = e.snapshot();
  EXPECT_TRUE(s.buffers.idle()) << snapshot_to_json(s);
  EXPECT_EQ(s.buffers.abc_pinned_bytes, 0) << "no a/b/c left page-locked";
  EXPECT_EQ(s.buffers.abc_kept_bytes, 0) << "nothing kept for later partitions";
  EXPECT_EQ(s.queued_partitions, 0u);
  EXPECT_EQ(s.gpu_queue_depth, 0u);
  EXPECT_EQ(s.jobs_active, 0u);
  int64_t params = 0;
  for (const auto& p : s.params) params += p.host_bytes;
  // The resident parameter sets (less the host copies given back to the OS while a device holds
  // them) and compiled circuits are all the budget holds.
  EXPECT_EQ(s.buffers.budget_used, params - s.buffers.parameters_released_bytes + s.buffers.compiled_circuit_bytes)
      << snapshot_to_json(s);
  EXPECT_EQ(s.buffers.parameters_host_bytes, params - s.buffers.parameters_released_bytes);
}

}  // namespace cuzk::engine

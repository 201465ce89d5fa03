// The card's urgent lane (EngineConfig::urgent_lane_memory, make_urgent_backend), on CPU backends
// that act out the CUDA backend's host copies: urgent partitions are proved on the lane and only
// there, ordinary ones on the device; a set an urgent job uses keeps its host copy on the device
// (the lane uploads from it); the status shows the lane. Part of engine_test.
#include <atomic>
#include <memory>
#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include "engine/engine.hpp"
#include "engine_test_jobs.hpp"
#include "releasing_backend.hpp"
#include "test_support.hpp"

namespace cuzk::engine {
namespace {

// The device's backend and the lane's, both acting out the CUDA backend's host copies.
struct LaneBackends {
  std::shared_ptr<std::atomic<int>> device_loads = std::make_shared<std::atomic<int>>(0);
  std::shared_ptr<std::atomic<int>> lane_loads = std::make_shared<std::atomic<int>>(0);
  ReleasingBackend *device = nullptr, *lane = nullptr;
  // with_lane false: the device's backend alone.
  void install(EngineConfig& cfg, bool with_lane = true) {
    cfg.make_backend = releasing_backend_maker(device_loads, &device);
    if (with_lane) cfg.make_urgent_backend = releasing_backend_maker(lane_loads, &lane, /*keeps=*/true, "lane-cpu");
  }
};

TEST(EngineTest, UrgentPartitionsAreProvedOnTheUrgentLane) {
  test::TempDir dir("cuzk-engine-test");
  auto cfg = cpu_test_config(dir.path);
  cfg.urgent_lane_memory = uint64_t(1) << 30;
  LaneBackends b;
  b.install(cfg);
  Engine engine(cfg);
  ASSERT_TRUE(b.device && b.lane);
  ReleasingBackend *device = b.device, *lane = b.lane;
  auto &device_loads = b.device_loads, &lane_loads = b.lane_loads;
  int lane_loads_seen = 0;
  lane->on_load = [&](const groth16::Parameters& p) {
    lane_loads_seen++;
    EXPECT_EQ(device->released_host_bytes_of(p), 0u) << "the lane uploads a host copy the device gave back";
  };
  // An ordinary job first: its set goes to the device, which gives its host copy back.
  const auto ordinary = engine.submit(synthetic_job(1 << 11, 3, 0, 51));
  EXPECT_EQ(await_end(engine, ordinary).state, JobState::kSucceeded);
  EXPECT_GT(engine.snapshot().buffers.parameters_released_bytes, 0);
  // Urgent jobs: one on the same set (the device must keep its host copy from now on), one on a
  // set of its own (never on the device).
  const auto same = engine.submit(synthetic_job(1 << 11, 2, 4000, 51));
  const auto own = engine.submit(synthetic_job(1 << 10, 1, 4000, 52));
  EXPECT_EQ(await_end(engine, same).state, JobState::kSucceeded);
  EXPECT_EQ(await_end(engine, own).state, JobState::kSucceeded);
  EXPECT_EQ(device->proofs(), 3) << "ordinary partitions on the device";
  EXPECT_EQ(lane->proofs(), 3) << "urgent partitions on the lane";
  EXPECT_EQ(device_loads->load(), 1) << "the urgent set of its own never went to the device";
  EXPECT_EQ(lane_loads->load(), 2) << "each urgent set loaded on the lane once";
  EXPECT_EQ(device->kept_sets(), 2u) << "the device keeps the host copy of every set the lane uses";
  auto s = engine.snapshot();
  EXPECT_EQ(s.buffers.parameters_released_bytes, 0) << "the shared set's host copy is back in the budget";
  // An ordinary job on the shared set after: proved on the device, whose copy stays.
  const auto after = engine.submit(synthetic_job(1 << 11, 1, 0, 51));
  EXPECT_EQ(await_end(engine, after).state, JobState::kSucceeded);
  EXPECT_EQ(device->proofs(), 4);
  EXPECT_EQ(engine.snapshot().buffers.parameters_released_bytes, 0);
  s = engine.snapshot();
  ASSERT_EQ(s.devices.size(), 1u) << "the lane is part of its card, not a device of its own";
  ASSERT_TRUE(s.devices[0].urgent_lane.has_value());
  EXPECT_GT(s.devices[0].urgent_lane->busy_seconds, 0);
  EXPECT_TRUE(s.devices[0].urgent_lane->current_job.empty());
  const auto doc = nlohmann::json::parse(snapshot_to_json(s));
  EXPECT_GT(doc["devices"][0]["urgent_lane"]["busy_seconds"].get<double>(), 0);
  expect_idle(engine);
  // Evicting a set releases it on the lane too; loaded there again by the next urgent job.
  for (const auto& p : s.params) EXPECT_TRUE(engine.evict_params(p.param_id));
  const auto again = engine.submit(synthetic_job(1 << 10, 1, 4000, 52));
  EXPECT_EQ(await_end(engine, again).state, JobState::kSucceeded);
  EXPECT_EQ(lane_loads->load(), 3);
  EXPECT_EQ(lane_loads_seen, 3);
  expect_idle(engine);
}

// Without a lane, urgent partitions go to the device (first in its queue), as before.
TEST(EngineTest, WithoutAnUrgentLaneUrgentWorkGoesToTheDevice) {
  test::TempDir dir("cuzk-engine-test");
  auto cfg = cpu_test_config(dir.path);
  LaneBackends b;
  b.install(cfg, /*with_lane=*/false);
  Engine engine(cfg);
  ReleasingBackend* device = b.device;
  const auto id = engine.submit(synthetic_job(1 << 10, 2, 4000, 53));
  EXPECT_EQ(await_end(engine, id).state, JobState::kSucceeded);
  EXPECT_EQ(device->proofs(), 2);
  EXPECT_EQ(device->kept_sets(), 0u);
  EXPECT_FALSE(engine.snapshot().devices[0].urgent_lane.has_value());
  expect_idle(engine);
}

// A set too large for the lane (more than half its memory), or one the lane fails to load, is
// proved on the device, first in line, and the device keeps no host copy for the lane.
TEST(EngineTest, UrgentSetsTheLaneCannotTakeAreProvedOnTheDevice) {
  for (const bool too_large : {true, false}) {
    SCOPED_TRACE(too_large ? "too large" : "load failed");
    test::TempDir dir("cuzk-engine-test");
    auto cfg = cpu_test_config(dir.path);
    cfg.urgent_lane_memory = too_large ? 64 << 10 : uint64_t(1) << 30;  // a 2^10 set holds more than 32 KiB
    LaneBackends b;
    b.install(cfg);
    Engine engine(cfg);
    if (!too_large) b.lane->on_load = [](const groth16::Parameters&) { throw std::runtime_error("no room"); };
    const auto id = engine.submit(synthetic_job(1 << 10, 2, 4000, 54));
    EXPECT_EQ(await_end(engine, id).state, JobState::kSucceeded);
    EXPECT_EQ(b.device->proofs(), 2);
    EXPECT_EQ(b.lane->proofs(), 0);
    EXPECT_EQ(b.lane_loads->load(), 0);
    EXPECT_EQ(b.device->kept_sets(), 0u) << "nothing kept for a lane that does not hold the set";
    EXPECT_GT(engine.snapshot().buffers.parameters_released_bytes, 0) << "the device gave the copy back";
    expect_idle(engine);
  }
}

// A lane's backend needs the lane's memory, which bounds the sets it takes.
TEST(EngineTest, AnUrgentBackendWithoutLaneMemoryIsRefused) {
  test::TempDir dir("cuzk-engine-test");
  auto cfg = cpu_test_config(dir.path);
  LaneBackends b;
  b.install(cfg);
  EXPECT_THROW(Engine{cfg}, EngineError);
}

}  // namespace
}  // namespace cuzk::engine

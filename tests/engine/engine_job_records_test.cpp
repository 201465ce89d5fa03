// What the engine keeps of its recent jobs for the status page (engine/job_records.hpp): the
// job list of the status document with stages, errors and expected times; ended jobs kept after
// the daemon forgets them, within a bound; a job's Chrome trace; the on_job_ended observer; the
// devices' busy time.
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "engine/engine.hpp"
#include "engine/job_records.hpp"
#include "engine_test_jobs.hpp"
#include "test_support.hpp"

namespace cuzk::engine {
namespace {

using namespace std::chrono_literals;

TEST(JobRecordsTest, KeepsRunningJobsAndTheLastEndedOnes) {
  JobRecords r;
  const auto t0 = JobRecords::Clock::now();
  for (uint64_t seq = 1; seq <= JobRecords::kKeptEnded + 3; seq++) {
    r.submitted(seq, "job-" + std::to_string(seq), "synthetic", "2 partitions", int(seq), 2, t0);
    const auto ended =
        r.ended(seq, seq == 2 ? JobState::kFailed : JobState::kSucceeded, seq == 2 ? "partition 1: boom" : "", t0 + 2s);
    ASSERT_TRUE(ended) << seq;
    EXPECT_EQ(ended->request_id, "job-" + std::to_string(seq));
    EXPECT_DOUBLE_EQ(ended->elapsed_seconds, 2.0);
    EXPECT_EQ(ended->expected_seconds.has_value(), seq > 1) << "expected before this job counted";
  }
  EXPECT_FALSE(r.ended(999, JobState::kSucceeded, "", t0)) << "never submitted";
  r.submitted(100, "running", "porep", "sector 7", 5, 2, t0);
  r.running(100);
  r.partition_ended(100);
  const auto list = r.list();
  ASSERT_EQ(list.size(), JobRecords::kKeptEnded + 1) << "ended jobs are bounded";
  EXPECT_EQ(list[0].request_id, "running");
  EXPECT_EQ(list[0].state, JobState::kRunning);
  EXPECT_EQ(list[0].what, "sector 7");
  EXPECT_EQ(list[0].priority, 5);
  EXPECT_EQ(list[0].partitions, 2u);
  EXPECT_EQ(list[0].partitions_ended, 1u);
  EXPECT_FALSE(list[0].expected_seconds) << "no porep job of 2 partitions has succeeded";
  EXPECT_GT(list[0].elapsed_seconds, 0);
  EXPECT_EQ(list[1].request_id, "job-" + std::to_string(JobRecords::kKeptEnded + 3)) << "latest ended first";
  EXPECT_DOUBLE_EQ(list[1].elapsed_seconds, 2.0);
  ASSERT_TRUE(list[1].expected_seconds);
  EXPECT_NEAR(*list[1].expected_seconds, 2.0, 1e-9);
  std::set<std::string> ids;
  for (const auto& j : list) ids.insert(j.request_id);
  EXPECT_FALSE(ids.count("job-1")) << "the oldest ended jobs are dropped";
  EXPECT_FALSE(r.chrome_trace("job-1"));
}

TEST(JobRecordsTest, TraceHasAPartitionTrackPerPartitionAndTheQueuesBetween) {
  JobRecords r;
  const auto t0 = JobRecords::Clock::now();
  r.submitted(7, "job-7", "synthetic", "two", 0, 2, t0);
  r.span(7, 0, Stage::kQueued, "synthesis-0", t0, t0 + 1ms);
  r.span(7, 0, Stage::kSynthRunning, "synthesis-0", t0 + 1ms, t0 + 10ms);
  r.span(7, 0, Stage::kOnGpu, "gpu-cpu-0", t0 + 15ms, t0 + 20ms);  // 5 ms in the GPU queue
  r.span(7, 1, Stage::kSynthRunning, "synthesis-1", t0 + 2ms, t0 + 12ms);
  r.ended(7, JobState::kFailed, "partition 1: prove_start failed: boom", t0 + 30ms);
  const auto doc = nlohmann::json::parse(r.chrome_trace("job-7").value());
  EXPECT_EQ(doc["otherData"]["state"], "failed");
  EXPECT_EQ(doc["otherData"]["error"], "partition 1: prove_start failed: boom");
  std::set<std::string> tracks;
  std::vector<std::string> partition0;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "thread_name") tracks.insert(e["args"]["name"]);
    if (e["ph"] == "X" && e["tid"] == 2) partition0.push_back(e["name"]);
    if (e["ph"] == "X" && e["name"] == "synth_done_waiting_gpu") {
      EXPECT_NEAR(e["ts"].get<double>(), 10'000, 1);
      EXPECT_NEAR(e["dur"].get<double>(), 5'000, 1);
    }
  }
  EXPECT_EQ(tracks, (std::set<std::string>{"job", "partition 0", "partition 1"}));
  EXPECT_EQ(partition0, (std::vector<std::string>{"queued", "synthesize", "synth_done_waiting_gpu", "prove_start"}));
}

TEST(JobRecordsTest, EngineListsJobsAndTracesThemAndTellsTheirEnd) {
  test::TempDir cache;
  EngineConfig c = cpu_test_config(cache.path);
  std::mutex m;
  std::condition_variable told;
  std::vector<JobStatus> ended;
  c.on_job_ended = [&](const JobStatus& j) {
    std::lock_guard lock(m);
    ended.push_back(j);
    told.notify_all();
  };
  Engine e(c);
  const std::string ok = e.submit(synthetic_job(1 << 10, 2, 3, 1, "ok-job"));
  await_end(e, ok);
  const std::string gone = e.submit(synthetic_job(1 << 14, 4, 0, 2, "cancelled-job"));
  e.cancel(gone);
  await_end(e, gone);
  e.forget(ok);  // as the daemon does once delivered: still listed, as ended

  const auto s = e.snapshot();
  ASSERT_EQ(s.job_list.size(), 2u) << snapshot_to_json(s);
  EXPECT_EQ(s.job_list[0].request_id, "cancelled-job");
  EXPECT_EQ(s.job_list[0].state, JobState::kCancelled);
  EXPECT_EQ(s.job_list[0].error, "cancelled by request");
  EXPECT_EQ(s.job_list[1].request_id, "ok-job");
  EXPECT_EQ(s.job_list[1].state, JobState::kSucceeded);
  EXPECT_EQ(s.job_list[1].priority, 3);
  EXPECT_EQ(s.job_list[1].partitions, 2u);
  EXPECT_EQ(s.job_list[1].kind, "synthetic");
  ASSERT_TRUE(s.job_list[1].expected_seconds);
  const auto doc = nlohmann::json::parse(snapshot_to_json(s));
  ASSERT_EQ(doc["job_list"].size(), 2u);
  EXPECT_EQ(doc["job_list"][1]["state"], "succeeded");
  EXPECT_EQ(doc["job_list"][0]["error"], "cancelled by request");
  ASSERT_EQ(doc["devices"].size(), 1u);
  EXPECT_GT(doc["devices"][0]["busy_seconds"].get<double>(), 0) << "prove_start ran on the one device";
  EXPECT_LE(doc["devices"][0]["busy_seconds"].get<double>(), s.uptime_seconds) << "overlapping calls count once";
  ASSERT_FALSE(doc["params"].empty());
  for (const auto& p : doc["params"]) EXPECT_EQ(p["jobs"], 0) << "no job left that proves with " << p.dump();

  const auto trace = nlohmann::json::parse(e.job_trace("ok-job").value());
  std::map<int, std::set<std::string>> stages;  // by track
  for (const auto& ev : trace["traceEvents"]) {
    if (ev["ph"] == "X") stages[ev["tid"].get<int>()].insert(ev["name"].get<std::string>());
  }
  for (int tid : {2, 3}) {
    for (const char* stage : {"queued", "loading_parameters", "synthesize", "prove_start", "prove_finish", "verify"}) {
      EXPECT_TRUE(stages[tid].count(stage)) << "partition " << tid - 2 << " has no " << stage << " span";
    }
  }
  EXPECT_FALSE(e.job_trace("never"));

  // Told after the job's end is published (no engine lock held), so possibly after await returned.
  std::unique_lock lock(m);
  told.wait_for(lock, std::chrono::seconds(10), [&] { return ended.size() >= 2; });
  ASSERT_EQ(ended.size(), 2u);
  EXPECT_EQ(ended[0].request_id, "ok-job");
  EXPECT_EQ(ended[0].kind, "synthetic");
  EXPECT_EQ(ended[0].partitions_ended, 2u);
  EXPECT_GT(ended[0].elapsed_seconds, 0);
  EXPECT_EQ(ended[1].state, JobState::kCancelled);
}

}  // namespace
}  // namespace cuzk::engine

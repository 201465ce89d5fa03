// `cuzk status --watch`'s renderer (src/cli/status_watch.cpp) on fixed status documents: the
// jobs' rows and bars, the budget, devices, parameters and buffers, widths, and that neither
// the lines nor a plain snapshot carry an escape code; the engine's own document renders too.
#include "cli/status_watch.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/engine.hpp"

namespace {

using cuzk::cli::fit;
using cuzk::cli::human_bytes;
using cuzk::cli::human_duration;
using cuzk::cli::plain_frame;
using cuzk::cli::priority_text;
using cuzk::cli::progress_bar;
using cuzk::cli::render_status;
using cuzk::cli::terminal_frame;
using nlohmann::json;

constexpr double kGiB = 1024.0 * 1024 * 1024;

// A busy daemon's document, as engine/status_json.cpp and server/status_document.cpp write it:
// an 8-partition job mid-way, a queued one, a failed one whose error has a newline and an escape.
json busy_document() {
  json parts = json::array();
  auto part = [&](const char* id, const char* kind, int n, const char* stage, const char* worker) {
    parts.push_back({{"request_id", id}, {"kind", kind}, {"partition", n}, {"stage", stage}, {"worker", worker}});
  };
  part("sector-1498", "porep-c2", 2, "on_gpu", "gpu-cuda:0-0");
  part("sector-1498", "porep-c2", 3, "finalizing_b_g2", "finalizer-0");
  part("sector-1498", "porep-c2", 4, "synth_running", "synthesis-0");
  part("sector-1498", "porep-c2", 5, "queued", "");
  part("sector-1498", "porep-c2", 6, "queued", "");
  part("sector-1498", "porep-c2", 7, "queued", "");
  part("wpost-7", "window-post", 0, "queued", "");
  json stage_bytes = {{"abc", 0}, {"aux", 0}, {"inputs", 0}, {"densities", 0}, {"synth_scratch", 0}, {"witness", 0}};
  json stages = json::object();
  for (const char* s :
       {"synth_running", "synth_done_waiting_gpu", "on_gpu", "abc_freed", "finalizing_b_g2", "dealloc_pending"}) {
    stages[s] = {{"partitions", 0}, {"bytes", stage_bytes}, {"total_bytes", 0}};
  }
  stages["synth_running"]["partitions"] = 1;
  stages["synth_running"]["bytes"]["abc"] = 3 * kGiB;
  stages["synth_running"]["bytes"]["synth_scratch"] = 512 << 20;
  stages["synth_running"]["total_bytes"] = 3.5 * kGiB;
  stages["on_gpu"]["partitions"] = 1;
  stages["on_gpu"]["bytes"]["abc"] = 3 * kGiB;
  stages["on_gpu"]["bytes"]["aux"] = 1 * kGiB;
  stages["on_gpu"]["total_bytes"] = 4 * kGiB;
  return {
      {"backend", "cuda:0"},
      {"policy", "budget"},
      {"uptime_seconds", 3725.0},
      {"workers", {{"synthesis", 2}, {"gpu", 1}, {"finalizer", 1}}},
      {"budget",
       {{"total_bytes", 64 * kGiB},
        {"used_bytes", 16 * kGiB},
        {"free_bytes", 48 * kGiB},
        {"peak_used_bytes", 20 * kGiB}}},
      {"queue", {{"queued_partitions", 4}, {"gpu_queue_depth", 0}}},
      {"jobs", {{"active", 2}, {"completed", 5}, {"failed", 1}, {"cancelled", 0}, {"partitions_proved", 42}}},
      {"buffers",
       {{"stages", stages},
        {"done_partitions", 42},
        {"input_jobs", 2},
        {"input_bytes", 50 << 20},
        {"tracked_bytes", 7.5 * kGiB},
        {"peak_tracked_bytes", 9 * kGiB},
        {"parameters_host_bytes", 4 * kGiB},
        {"compiled_circuit_bytes", 0},
        {"parameters_device_bytes", 2 * kGiB},
        {"pinned_pool_bytes", 0},
        {"abc_pinned_bytes", 0},
        {"abc_kept_bytes", 0},
        {"rss_bytes", 30 * kGiB},
        {"peak_rss_bytes", 31 * kGiB},
        {"idle", false}}},
      {"partitions", parts},
      {"job_list",
       {{{"request_id", "sector-1498"},
         {"kind", "porep-c2"},
         {"what", "StackedDrg32GiBV1_1, miner t01000, sector 1498"},
         {"priority", 2000},
         {"state", "running"},
         {"partitions", 8},
         {"partitions_ended", 2},
         {"stages", {{"queued", 3}, {"synth_running", 1}, {"on_gpu", 1}, {"finalizing_b_g2", 1}}},
         {"submitted_unix_ms", 1735732734600},
         {"elapsed_seconds", 65.4},
         {"expected_seconds", 70.0},
         {"error", ""}},
        {{"request_id", "wpost-7"},
         {"kind", "window-post"},
         {"what", "StackedDrgWindow32GiBV1_2, miner t01000, partition 0"},
         {"priority", 3005},
         {"state", "queued"},
         {"partitions", 1},
         {"partitions_ended", 0},
         {"stages", {{"queued", 1}}},
         {"submitted_unix_ms", 1735732798690},
         {"elapsed_seconds", 1.31},
         {"expected_seconds", nullptr},
         {"error", ""}},
        {{"request_id", "broken"},
         {"kind", "snap"},
         {"what", "StackedDrg32GiBV1_1 update, miner t01000, sector 3"},
         {"priority", 1990},
         {"state", "failed"},
         {"partitions", 2},
         {"partitions_ended", 2},
         {"stages", json::object()},
         {"submitted_unix_ms", 1735732790000},
         {"elapsed_seconds", 3.0},
         {"expected_seconds", nullptr},
         {"error", "vanilla proof 1: bad root\n\x1b[31mred"}}}},
      {"kinds", json::array()},
      {"devices",
       {{{"ordinal", 0},
         {"name", "NVIDIA H100 80GB HBM3"},
         {"memory_total_bytes", 80 * kGiB},
         {"memory_free_bytes", 60 * kGiB},
         {"current_job", "sector-1498"},
         {"current_kind", "porep-c2"},
         {"memory_plan", ""},
         {"memory_plan_bytes", json::object()}},
        {{"ordinal", 1},
         {"name", "NVIDIA H100 80GB HBM3"},
         {"memory_total_bytes", 80 * kGiB},
         {"memory_free_bytes", 79 * kGiB},
         {"current_job", ""},
         {"current_kind", ""},
         {"memory_plan", ""},
         {"memory_plan_bytes", json::object()}}}},
      {"params",
       {{{"param_id", "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-82a357d2f2"},
         {"host_bytes", 4 * kGiB},
         {"device_bytes", 2 * kGiB},
         {"in_use", true}}}},
      {"phases", json::object()},
      {"gpu_busy_seconds", 100.0},
      {"daemon", {{"draining", false}, {"jobs_tracked", 3}}},
  };
}

std::string joined(const std::vector<std::string>& lines) {
  std::string all;
  for (const std::string& l : lines) all += l + "\n";
  return all;
}

// The first line containing `needle` ("" when none).
std::string line_with(const std::vector<std::string>& lines, const std::string& needle) {
  for (const std::string& l : lines)
    if (l.find(needle) != std::string::npos) return l;
  return {};
}

bool has_control_bytes(const std::string& s) {
  return std::any_of(s.begin(), s.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return (u < 0x20 && c != '\n') || u == 0x7f;
  });
}

TEST(StatusWatchRender, JobsWithTheirPartitionsByStage) {
  const std::vector<std::string> lines = render_status(busy_document(), 120);
  const std::string all = joined(lines);
  EXPECT_NE(line_with(lines, "JOBS (3)"), "") << all;
  // 8 partitions, 30 cells: 2 proved, 2 on a GPU or finalizing, 1 synthesizing, 3 queued.
  const std::string job = line_with(lines, "sector-1498  ");
  EXPECT_NE(job.find("porep-c2"), std::string::npos) << all;
  EXPECT_NE(job.find("normal "), std::string::npos) << all;
  EXPECT_NE(job.find("running"), std::string::npos) << all;
  EXPECT_NE(job.find(" 2/8 "), std::string::npos) << all;
  EXPECT_NE(job.find("1m05s"), std::string::npos) << all;
  const size_t open = job.find('['), close = job.find(']');
  ASSERT_NE(open, std::string::npos) << job;
  const std::string bar = job.substr(open + 1, close - open - 1);
  const size_t cells = bar.size();
  ASSERT_GE(cells, 10u) << job;
  EXPECT_EQ(bar, progress_bar({{'#', 2}, {'=', 2}, {'+', 0}, {'-', 1}, {'.', 3}}, 8, cells).substr(1, cells));
  EXPECT_EQ(std::count(bar.begin(), bar.end(), ' '), 0) << "every partition is somewhere: " << bar;
  EXPECT_NE(line_with(lines, "queued 3, synth_running 1, on_gpu 1, finalizing_b_g2 1"), "") << all;
  // The WindowPoSt job: high level plus its offset, queued, nothing proved.
  const std::string wpost = line_with(lines, "wpost-7  ");
  EXPECT_NE(wpost.find("high+5"), std::string::npos) << all;
  EXPECT_NE(wpost.find("0/1"), std::string::npos) << all;
  EXPECT_NE(wpost.find("1.3s"), std::string::npos) << all;
  // The failed job: its error on a line of its own, control characters made harmless.
  EXPECT_NE(line_with(lines, "broken  ").find("normal-10"), std::string::npos) << all;
  EXPECT_NE(line_with(lines, "error: vanilla proof 1: bad root ?[31mred"), "") << all;
  EXPECT_FALSE(has_control_bytes(all)) << all;
}

TEST(StatusWatchRender, BudgetDevicesParametersAndBuffers) {
  const std::vector<std::string> lines = render_status(busy_document(), 160);
  const std::string all = joined(lines);
  const std::string budget = line_with(lines, "budget ");
  EXPECT_NE(budget.find("16.00 GiB of 64.00 GiB used (25%), peak 20.00 GiB"), std::string::npos) << all;
  EXPECT_NE(budget.find("[##########" + std::string(30, ' ') + "]"), std::string::npos) << budget;  // 40 cells
  EXPECT_NE(line_with(lines, "daemon ").find("serving, backend cuda:0, policy budget, up 1h02m"), std::string::npos)
      << all;
  EXPECT_NE(line_with(lines, "jobs ").find("2 active; 5 completed, 1 failed, 0 cancelled; 42 partitions proved"),
            std::string::npos)
      << all;
  const std::string gpu0 = line_with(lines, "  0  NVIDIA");
  EXPECT_NE(gpu0.find("busy: sector-1498 (porep-c2)"), std::string::npos) << all;
  EXPECT_NE(gpu0.find("20.00 GiB of 80.00 GiB used"), std::string::npos) << all;
  EXPECT_NE(line_with(lines, "  1  NVIDIA").find("idle"), std::string::npos) << all;
  EXPECT_NE(line_with(lines, "PARAMETERS (1 resident)"), "") << all;
  const std::string params = line_with(lines, "v28-stacked");
  EXPECT_NE(params.find("host   4.00 GiB"), std::string::npos) << params;
  EXPECT_NE(params.find("in use"), std::string::npos) << params;
  EXPECT_NE(line_with(lines, "BUFFERS  tracked 7.50 GiB (peak 9.00 GiB); inputs 50.0 MiB in 2 jobs"), "") << all;
  EXPECT_NE(line_with(lines, "parameters 4.00 GiB host, 2.00 GiB device; process RSS 30.00 GiB (peak 31.00 GiB)"), "")
      << all;
  EXPECT_NE(line_with(lines, "by class: abc 6.00 GiB, aux 1.00 GiB, synth_scratch 512.0 MiB"), "") << all;
  const std::string synth = line_with(lines, "  synth_running ");
  EXPECT_NE(synth.find("1 partition "), std::string::npos) << all;
  EXPECT_NE(synth.find("3.50 GiB  abc 3.00 GiB, synth_scratch 512.0 MiB"), std::string::npos) << synth;
  EXPECT_NE(line_with(lines, "  on_gpu ").find("abc 3.00 GiB, aux 1.00 GiB"), std::string::npos) << all;
  EXPECT_EQ(line_with(lines, "  abc_freed "), "") << "stages holding nothing are left out:\n" << all;
}

TEST(StatusWatchRender, EveryLineFitsTheWidth) {
  for (size_t width : {30, 60, 80, 100, 120, 200}) {
    const std::vector<std::string> lines = render_status(busy_document(), width);
    for (const std::string& line : lines) {
      EXPECT_LE(line.size(), width) << "width " << width << ": " << line;  // ASCII document: bytes are columns
      EXPECT_FALSE(line.ends_with(' ')) << "no trailing blanks: " << line;
    }
    EXPECT_NE(line_with(lines, "sector-1498"), "") << "width " << width;
  }
  // No limit: nothing is cut, the long error included.
  const std::vector<std::string> whole = render_status(busy_document(), 0);
  EXPECT_NE(line_with(whole, "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-82a"),
            "");
  EXPECT_NE(line_with(whole, "NVIDIA H100 80GB HBM3 busy"), "");
  EXPECT_NE(line_with(whole, "error: vanilla proof 1: bad root ?[31mred"), "");
}

TEST(StatusWatchRender, PlainSnapshotHasNoEscapeCodes) {
  const std::string frame =
      plain_frame("=== 2025-01-01 12:00:00 unix:/run/cuzk.sock ===", render_status(busy_document(), 0));
  EXPECT_EQ(frame.find('\x1b'), std::string::npos);
  EXPECT_FALSE(has_control_bytes(frame));
  EXPECT_EQ(frame.rfind("=== 2025-01-01 12:00:00 unix:/run/cuzk.sock ===\n", 0), 0u) << frame;
  EXPECT_TRUE(frame.ends_with("\n\n")) << "snapshots are separated by a blank line";
}

TEST(StatusWatchRender, TerminalFrameRedrawsInPlaceWithinTheRows) {
  const std::vector<std::string> lines = {"one", "two", "three", "four"};
  EXPECT_EQ(terminal_frame(lines, 10), "\x1b[Hone\x1b[K\ntwo\x1b[K\nthree\x1b[K\nfour\x1b[K\x1b[J");
  const std::string cut = terminal_frame(lines, 3);
  EXPECT_EQ(cut, "\x1b[Hone\x1b[K\ntwo\x1b[K\n... 2 more line(s): a taller terminal shows them\x1b[K\x1b[J");
}

// The daemon keeps the last 32 ended jobs, latest first after those not ended: the watch draws
// every job not ended and the 5 latest ended, and says how many it left out. A request id used
// again (an ended job and a new one) keeps each row's own stages.
TEST(StatusWatchRender, EveryActiveJobAndTheLatestEndedOnes) {
  json doc = busy_document();
  json ended = doc["job_list"][2];
  for (int k = 0; k < 8; k++) {
    ended["request_id"] = "old-" + std::to_string(k);
    ended["state"] = k == 0 ? "cancelled" : "succeeded";
    ended["error"] = k == 0 ? "cancelled by request" : "";
    doc["job_list"].push_back(ended);
  }
  ended["request_id"] = "sector-1498";  // its earlier run, ended
  doc["job_list"].push_back(ended);
  const std::vector<std::string> lines = render_status(doc, 120);
  const std::string all = joined(lines);
  EXPECT_NE(line_with(lines, "JOBS (12)"), "") << all;
  EXPECT_NE(line_with(lines, "wpost-7  "), "") << all;
  EXPECT_NE(line_with(lines, "broken  "), "") << all;
  for (int k = 0; k < 4; k++) EXPECT_NE(line_with(lines, "old-" + std::to_string(k) + "  "), "") << k << all;
  for (int k = 4; k < 8; k++) EXPECT_EQ(line_with(lines, "old-" + std::to_string(k) + "  "), "") << k << all;
  EXPECT_NE(line_with(lines, "error: cancelled by request"), "") << all;
  EXPECT_NE(line_with(lines, "... 5 earlier ended jobs (cuzk status --json lists them)"), "") << all;
  EXPECT_NE(line_with(lines, "sector-1498  ").find(" 2/8 "), std::string::npos) << all;
  EXPECT_NE(line_with(lines, "queued 3, synth_running 1, on_gpu 1, finalizing_b_g2 1"), "") << all;
}

TEST(StatusWatchRender, DocumentWithoutJobListTakesJobsFromPartitions) {
  json doc = busy_document();
  doc.erase("job_list");
  const std::vector<std::string> lines = render_status(doc, 120);
  EXPECT_NE(line_with(lines, "JOBS (2)"), "") << joined(lines);
  EXPECT_NE(line_with(lines, "sector-1498  ").find("0/6"), std::string::npos) << joined(lines);
  EXPECT_NE(line_with(lines, "wpost-7  ").find("active"), std::string::npos) << joined(lines);
}

TEST(StatusWatchRender, IdleAndMalformedDocumentsStillDraw) {
  const std::vector<std::string> idle = render_status(json::object(), 80);
  EXPECT_NE(line_with(idle, "JOBS (0)"), "");
  EXPECT_NE(line_with(idle, "no partition holds buffers"), "");
  for (const json& odd : {json(nullptr), json::array({1, 2}), json{{"jobs", "many"}, {"devices", 3}}}) {
    EXPECT_NE(line_with(render_status(odd, 80), "JOBS (0)"), "") << odd.dump();
  }
  json draining = busy_document();
  draining["daemon"]["draining"] = true;
  EXPECT_NE(line_with(render_status(draining, 120), "SHUTTING DOWN"), "");
}

TEST(StatusWatchRender, Pieces) {
  EXPECT_EQ(progress_bar({{'#', 1}, {'.', 1}}, 2, 4), "[##..]");
  EXPECT_EQ(progress_bar({{'#', 1}}, 3, 6), "[##    ]");
  EXPECT_EQ(progress_bar({{'#', 5}}, 0, 3), "[   ]");
  EXPECT_EQ(progress_bar({{'#', 9}}, 4, 4), "[####]") << "more than the total fills the bar, no further";
  EXPECT_EQ(human_bytes(512), "512 B");
  EXPECT_EQ(human_bytes(1536), "1.5 KiB");
  EXPECT_EQ(human_bytes(12.0 * 1024 * 1024), "12.0 MiB");
  EXPECT_EQ(human_bytes(1.25 * kGiB), "1.25 GiB");
  EXPECT_EQ(human_duration(4.24), "4.2s");
  EXPECT_EQ(human_duration(307), "5m07s");
  EXPECT_EQ(human_duration(7380), "2h03m");
  EXPECT_EQ(human_duration(273600), "3d04h");
  EXPECT_EQ(priority_text(2000), "normal");
  EXPECT_EQ(priority_text(4000), "critical");
  EXPECT_EQ(priority_text(3005), "high+5");
  EXPECT_EQ(priority_text(999), "low-1");
  EXPECT_EQ(priority_text(5), "5") << "an engine's own priority";
  EXPECT_EQ(fit("abcdefghij", 8), "abcde...");
  EXPECT_EQ(fit("abc", 8), "abc");
  EXPECT_EQ(fit("h\xc3\xa9h\xc3\xa9h\xc3\xa9h\xc3\xa9", 6), "h\xc3\xa9h...") << "cut at a character, not a byte";
  EXPECT_EQ(fit("a\tb\x1b", 0), "a b?");
}

// The engine's own document (engine/status_json.cpp) has the fields the renderer reads.
TEST(StatusWatchRender, TheEnginesDocumentRenders) {
  cuzk::engine::EngineSnapshot s;
  s.backend = "cpu";
  s.policy = "budget";
  s.jobs_active = 1;
  s.buffers.budget_total = int64_t(4 * kGiB);
  s.buffers.budget_used = int64_t(1 * kGiB);
  s.partitions.push_back({"job-9", "synthetic", 1, "synth_running", "synthesis-0"});
  s.partitions.push_back({"job-9", "synthetic", 2, "queued", ""});
  cuzk::engine::JobStatus running;
  running.request_id = "job-9";
  running.kind = "synthetic";
  running.what = "3 partitions";
  running.priority = 3001;
  running.state = cuzk::engine::JobState::kRunning;
  running.partitions = 3;
  running.partitions_ended = 1;
  running.elapsed_seconds = 12.5;
  cuzk::engine::JobStatus failed = running;
  failed.request_id = "job-1";
  failed.priority = 2000;
  failed.state = cuzk::engine::JobState::kFailed;
  failed.partitions = failed.partitions_ended = 1;
  failed.elapsed_seconds = 2;
  failed.error = "partition 0: boom";
  s.job_list = {running, failed};
  s.devices.push_back({0, "cpu", 0, 0, "job-9", "synthetic", "", {}});
  s.params.push_back({"synthetic-1024-4-seed7", 400 << 10, 0, true, 1});
  const std::vector<std::string> lines = render_status(json::parse(cuzk::engine::snapshot_to_json(s)), 120);
  const std::string all = joined(lines);
  const std::string job = line_with(lines, "job-9  ");
  EXPECT_NE(job.find("synthetic"), std::string::npos) << all;
  EXPECT_NE(job.find("high+1"), std::string::npos) << all;
  EXPECT_NE(job.find("running"), std::string::npos) << all;
  EXPECT_NE(job.find("1/3"), std::string::npos) << all;
  EXPECT_NE(job.find("12.5s"), std::string::npos) << all;
  EXPECT_NE(line_with(lines, "queued 1, synth_running 1"), "") << all;  // the job's stages, from its partitions
  EXPECT_NE(line_with(lines, "job-1  ").find("failed"), std::string::npos) << all;
  EXPECT_NE(line_with(lines, "error: partition 0: boom"), "") << all;
  EXPECT_NE(line_with(lines, "budget ").find("1.00 GiB of 4.00 GiB used (25%)"), std::string::npos) << all;
  EXPECT_NE(line_with(lines, "  0  cpu").find("busy: job-9 (synthetic)"), std::string::npos) << all;
  EXPECT_NE(line_with(lines, "synthetic-1024-4-seed7").find("400.0 KiB"), std::string::npos) << all;
}

}  // namespace

// The status page (GET / on the status port) against a real cuzk-daemon: its routes with real
// jobs (the job list in /status, the history's samples, a job's Chrome trace as a download), and a
// real browser: Debian's chromium, headless, loads the page while a job is proving and must show
// that job, a cancelled job's error and non-zero tracked bytes, with no console message at all (the
// page logs nothing when all is well); it writes a screenshot into the build tree. The browser
// test skips without chromium (scripts/install-deps.sh installs it).
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <grpcpp/grpcpp.h>
#include <httplib.h>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <unistd.h>

#include <gtest/gtest.h>

#include "daemon_harness.hpp"

namespace {

namespace v1 = cuzk::v1;
using cuzk::test::DaemonProcess;
using cuzk::test::eventually;
using cuzk::test::synthetic_request;
using namespace std::chrono_literals;

std::unique_ptr<grpc::ClientContext> deadline_in(std::chrono::seconds s = 120s) {
  auto c = std::make_unique<grpc::ClientContext>();
  c->set_deadline(std::chrono::system_clock::now() + s);
  return c;
}

void prove(const DaemonProcess& d, const v1::SubmitProofRequest& req) {
  v1::ProveResponse pr;
  auto ctx = deadline_in();
  const grpc::Status s = d.stub()->Prove(ctx.get(), cuzk::test::prove_request(req), &pr);
  ASSERT_TRUE(s.ok()) << s.error_message();
  ASSERT_EQ(pr.result().state(), v1::JOB_STATE_SUCCEEDED) << pr.result().error_message();
}

void submit(const DaemonProcess& d, const v1::SubmitProofRequest& req) {
  v1::SubmitProofResponse resp;
  auto ctx = deadline_in();
  const grpc::Status s = d.stub()->SubmitProof(ctx.get(), req, &resp);
  ASSERT_TRUE(s.ok()) << s.error_message();
}

void cancel(const DaemonProcess& d, const std::string& id) {
  v1::CancelProofRequest req;
  req.set_job_id(id);
  v1::CancelProofResponse resp;
  auto ctx = deadline_in();
  EXPECT_TRUE(d.stub()->CancelProof(ctx.get(), req, &resp).ok());
}

// The job_list entry of a request id in /status; null when absent.
nlohmann::json listed_job(const nlohmann::json& status, const std::string& id) {
  for (const auto& j : status["job_list"]) {
    if (j["request_id"] == id) return j;
  }
  return nullptr;
}

TEST(DaemonStatusPageTest, RoutesShowARealJobAndItsTrace) {
  DaemonProcess d;
  ASSERT_FALSE(testing::Test::HasFailure());
  prove(d, synthetic_request(1024, 2, "page-job"));

  httplib::Client http("127.0.0.1", d.http_port());
  http.set_read_timeout(30, 0);
  auto page = http.Get("/");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_EQ(page->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_NE(page->body.find("<title>cuzk status</title>"), std::string::npos);
  for (const char* asset : {"/ui/page.js", "/ui/charts.js", "/ui/page.css"}) {
    auto r = http.Get(asset);
    ASSERT_TRUE(r) << asset;
    EXPECT_EQ(r->status, 200) << asset;
    EXPECT_NE(page->body.find(asset), std::string::npos) << "the page loads " << asset;
  }

  // The delivered job is still listed, ended, with what the page shows of it.
  const auto status = nlohmann::json::parse(d.http_get("/status"));
  const auto job = listed_job(status, "page-job");
  ASSERT_FALSE(job.is_null()) << status["job_list"].dump(2);
  EXPECT_EQ(job["state"], "succeeded");
  EXPECT_EQ(job["kind"], "synthetic");
  EXPECT_EQ(job["partitions"], 2);
  EXPECT_EQ(job["partitions_ended"], 2);
  EXPECT_GT(job["elapsed_seconds"].get<double>(), 0);
  EXPECT_TRUE(job["expected_seconds"].is_number());
  EXPECT_EQ(job["error"], "");
  ASSERT_FALSE(status["devices"].empty());
  EXPECT_GT(status["devices"][0]["busy_seconds"].get<double>(), 0);

  // The history samples once a second from the start.
  nlohmann::json history;
  ASSERT_TRUE(eventually([&] {
    history = nlohmann::json::parse(d.http_get("/status/history"));
    return history["samples"].size() >= 2;
  })) << history.dump();
  EXPECT_LT(history["samples"][0]["t"].get<int64_t>(), history["samples"][1]["t"].get<int64_t>());
  EXPECT_EQ(history["samples"][0]["class"].size(), history["classes"].size());
  EXPECT_EQ(history["samples"][0]["stage"].size(), history["stages"].size());
  EXPECT_GT(history["samples"].back()["budget_total"].get<int64_t>(), 0);
  EXPECT_TRUE(history["winning_post"].is_array());

  // The job's trace: a download, a track per partition, every stage's span on each.
  auto trace = http.Get("/timeline?job=page-job");
  ASSERT_TRUE(trace);
  EXPECT_EQ(trace->status, 200);
  EXPECT_EQ(trace->get_header_value("Content-Disposition"), "attachment; filename=\"cuzk-job-page-job.trace.json\"");
  const auto doc = nlohmann::json::parse(trace->body);
  std::map<int, std::set<std::string>> spans;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] == "X") spans[e["tid"].get<int>()].insert(e["name"].get<std::string>());
  }
  for (int tid : {2, 3}) {
    for (const char* stage : {"queued", "synthesize", "prove_start", "prove_finish", "verify"}) {
      EXPECT_TRUE(spans[tid].count(stage)) << "partition " << tid - 2 << " has no " << stage << ": " << doc.dump();
    }
  }
  auto unknown = http.Get("/timeline?job=no-such-job");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 404);
}

// chromium's path, or empty when it is not installed.
std::string find_chromium() {
  for (const char* name : {"chromium", "chromium-browser"}) {
    const char* path = std::getenv("PATH");
    std::string dirs = path ? path : "/usr/bin:/bin";
    size_t from = 0;
    while (from <= dirs.size()) {
      const size_t to = std::min(dirs.find(':', from), dirs.size());
      const std::filesystem::path candidate = std::filesystem::path(dirs.substr(from, to - from)) / name;
      if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
      from = to + 1;
    }
  }
  return {};
}

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

// The value of a numeric attribute on the element with this id in the DOM dump, -1 if absent.
int64_t data_bytes(const std::string& dom, const std::string& id) {
  const std::string key = "id=\"" + id + "\" data-bytes=\"";
  const size_t at = dom.find(key);
  if (at == std::string::npos) return -1;
  return std::stoll(dom.substr(at + key.size(), 20));
}

TEST(DaemonStatusPageTest, BrowserShowsTheJobInFlight) {
  const std::string chromium = find_chromium();
  if (chromium.empty()) GTEST_SKIP() << "chromium is not installed (scripts/install-deps.sh installs it)";
  DaemonProcess d;
  ASSERT_FALSE(testing::Test::HasFailure());
  // The parameters first, so that the long job's partitions are synthesized at once (their
  // buffers tracked) while the browser looks; 64 partitions keep it proving well past that.
  prove(d, synthetic_request(4096, 1, "warm-up"));
  submit(d, synthetic_request(4096, 64, "page-running"));
  submit(d, synthetic_request(4096, 2, "page-cancelled"));
  cancel(d, "page-cancelled");
  nlohmann::json status;
  ASSERT_TRUE(eventually([&] {
    status = nlohmann::json::parse(d.http_get("/status"));
    const auto job = listed_job(status, "page-running");
    return !job.is_null() && job["state"] == "running" && status["buffers"]["tracked_bytes"].get<int64_t>() > 0 &&
           listed_job(status, "page-cancelled")["state"] == "cancelled";
  })) << status.dump(2);

  // One run: the DOM once the page's scripts have run a few polls (virtual time), and a screenshot.
  const std::string dom_file = d.dir() + "/dom.html", err_file = d.dir() + "/chromium.err";
  const std::string screenshot = std::string(CUZK_TEST_OUTPUT_DIR) + "/status-page.png";
  std::filesystem::remove(screenshot);
  const std::string url = "http://127.0.0.1:" + std::to_string(d.http_port()) + "/";
  const std::string command =
      "exec '" + chromium +
      "' --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --hide-scrollbars --no-first-run "
      "--user-data-dir='" +
      d.dir() +
      "/chromium-profile' "
      "--enable-logging=stderr --v=0 --virtual-time-budget=3000 --window-size=1280,1300 "
      "--screenshot='" +
      screenshot + "' --dump-dom '" + url + "' >'" + dom_file + "' 2>'" + err_file + "'";
  const auto started = std::chrono::steady_clock::now();
  const int rc = cuzk::test::run_program({"/bin/sh", "-c", command}, nullptr, 90s);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const std::string dom = slurp(dom_file), err = slurp(err_file);
  ASSERT_EQ(rc, 0) << "chromium failed:\n" << err;
  std::cout << "chromium: " << took << " s\n";

  // The running job with its progress bar, and the cancelled one with its error.
  EXPECT_NE(dom.find("<tr data-job=\"page-running\" data-state=\"running\">"), std::string::npos) << dom;
  EXPECT_NE(dom.find("class=\"bar\" data-job=\"page-running\""), std::string::npos);
  EXPECT_NE(dom.find("<tr data-job=\"page-cancelled\" data-state=\"cancelled\">"), std::string::npos);
  EXPECT_NE(dom.find("cancelled by request"), std::string::npos) << "the ended job's error is shown";
  EXPECT_NE(dom.find("href=\"/timeline?job=page-running\""), std::string::npos);
  // Tracked bytes: the chart's peak over its window, drawn from the history and the polls.
  EXPECT_GT(data_bytes(dom, "tracked-peak"), 0) << dom;
  EXPECT_NE(dom.find("data-state=\"live\""), std::string::npos) << "the page's polls answered";
  EXPECT_NE(dom.find("<path d=\"M"), std::string::npos) << "the memory chart has areas";
  // No script error reached the page's own handler, and nothing at all on the console.
  EXPECT_EQ(dom.find("data-errors="), std::string::npos) << dom;
  std::istringstream lines(err);
  for (std::string line; std::getline(lines, line);) {
    EXPECT_EQ(line.find(":CONSOLE"), std::string::npos) << line;
    EXPECT_EQ(line.find("Uncaught"), std::string::npos) << line;
  }
  // The screenshot, into the build tree.
  const std::string png = slurp(screenshot);
  EXPECT_GT(png.size(), 10'000u) << screenshot;
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8)) << screenshot;

  cancel(d, "page-running");
}

}  // namespace

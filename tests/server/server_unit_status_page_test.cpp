// The status port's page routes without a daemon: an HttpStatusServer with handlers of the
// test's own, asked over a socket: / and its files under /ui/ (the sources' bytes, built in),
// /status/history, /timeline?job=ID (a download), HEAD, 400/404/500; and the history's rings
// (server/status_history.hpp).
#include <arpa/inet.h>
#include <fstream>
#include <iterator>
#include <netinet/in.h>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "server/http_status.hpp"
#include "server/status_history.hpp"

namespace {

using cuzk::server::HttpStatusServer;
using cuzk::server::StatusHistory;

struct Reply {
  int status = -1;
  std::string head, body;
  std::string header(const std::string& name) const {
    const size_t at = head.find("\r\n" + name + ": ");
    if (at == std::string::npos) return {};
    const size_t from = at + name.size() + 4;
    return head.substr(from, head.find("\r\n", from) - from);
  }
};

// One request on a fresh connection, read to the close (the server answers Connection: close).
Reply request(uint16_t port, const std::string& method, const std::string& target) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
  Reply r;
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    close(fd);
    return r;
  }
  const std::string req = method + " " + target + " HTTP/1.1\r\nHost: localhost\r\n\r\n";
  send(fd, req.data(), req.size(), MSG_NOSIGNAL);
  std::string all;
  char buf[8192];
  for (ssize_t got; (got = recv(fd, buf, sizeof buf, 0)) > 0;) all.append(buf, size_t(got));
  close(fd);
  const size_t end = all.find("\r\n\r\n");
  if (end == std::string::npos) return r;
  r.head = all.substr(0, end + 2);
  r.body = all.substr(end + 4);
  r.status = std::stoi(all.substr(9, 3));
  return r;
}

std::string source_file(const std::string& name) {
  std::ifstream f(std::string(CUZK_SOURCE_DIR) + "/src/server/status_page/" + name, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

struct PageServer {
  std::string asked_job;
  HttpStatusServer server{"127.0.0.1", 0,
                          HttpStatusServer::Handlers{
                              [] { return std::string("{\"status\": 1}\n"); },
                              [] { return std::string("# metrics\n"); },
                              [] { return false; },
                              [] { return std::string("{\"samples\": []}\n"); },
                              [this](const std::string& id) -> std::optional<std::string> {
                                asked_job = id;
                                if (id == "boom") throw std::runtime_error("trace failed");
                                if (id != "job-1.a") return std::nullopt;
                                return std::string("{\"traceEvents\": []}\n");
                              },
                          }};
};

TEST(StatusPageTest, ServesThePageAndItsFilesAsBuilt) {
  PageServer s;
  const Reply index = request(s.server.port(), "GET", "/");
  EXPECT_EQ(index.status, 200);
  EXPECT_EQ(index.header("Content-Type"), "text/html; charset=utf-8");
  EXPECT_EQ(index.body, source_file("index.html"));
  EXPECT_NE(index.body.find("/ui/page.js"), std::string::npos);
  for (const auto& [file, type] :
       {std::pair{"page.js", "text/javascript; charset=utf-8"},
        std::pair{"charts.js", "text/javascript; charset=utf-8"}, std::pair{"page.css", "text/css; charset=utf-8"}}) {
    const Reply r = request(s.server.port(), "GET", std::string("/ui/") + file);
    EXPECT_EQ(r.status, 200) << file;
    EXPECT_EQ(r.header("Content-Type"), type) << file;
    EXPECT_EQ(r.header("X-Content-Type-Options"), "nosniff") << file;
    EXPECT_FALSE(r.body.empty()) << file;
    EXPECT_EQ(r.body, source_file(file)) << file << ": the built-in copy differs from the source";
  }
  // HEAD: the same head (length included), no body.
  const Reply head = request(s.server.port(), "HEAD", "/ui/page.js");
  EXPECT_EQ(head.status, 200);
  EXPECT_EQ(head.header("Content-Length"), std::to_string(source_file("page.js").size()));
  EXPECT_TRUE(head.body.empty());
  // Nothing else under /ui/, and no page file is reachable by another name.
  EXPECT_EQ(request(s.server.port(), "GET", "/ui/missing.js").status, 404);
  EXPECT_EQ(request(s.server.port(), "GET", "/index.html").status, 404);
  EXPECT_EQ(request(s.server.port(), "GET", "/ui/../ui/page.js").status, 404);
  // The page's query string is the page's: / still answers.
  EXPECT_EQ(request(s.server.port(), "GET", "/?refresh=1").status, 200);
  // Read-only: no method but GET and HEAD.
  EXPECT_EQ(request(s.server.port(), "POST", "/").status, 405);
}

TEST(StatusPageTest, HistoryAndTimelineRoutes) {
  PageServer s;
  const Reply h = request(s.server.port(), "GET", "/status/history");
  EXPECT_EQ(h.status, 200);
  EXPECT_EQ(h.header("Content-Type"), "application/json");
  EXPECT_EQ(h.header("Cache-Control"), "no-store");
  EXPECT_EQ(h.body, "{\"samples\": []}\n");

  // The id is decoded (%XX) and the trace comes as a download named after it.
  const Reply t = request(s.server.port(), "GET", "/timeline?x=1&job=job%2D1.a");
  EXPECT_EQ(s.asked_job, "job-1.a");
  EXPECT_EQ(t.status, 200);
  EXPECT_EQ(t.header("Content-Type"), "application/json");
  EXPECT_EQ(t.header("Content-Disposition"), "attachment; filename=\"cuzk-job-job-1.a.trace.json\"");
  EXPECT_EQ(t.body, "{\"traceEvents\": []}\n");
  const Reply head = request(s.server.port(), "HEAD", "/timeline?job=job-1.a");
  EXPECT_EQ(head.status, 200);
  EXPECT_TRUE(head.body.empty());

  const Reply unknown = request(s.server.port(), "GET", "/timeline?job=other");
  EXPECT_EQ(unknown.status, 404);
  EXPECT_NE(unknown.body.find("no job 'other'"), std::string::npos) << unknown.body;
  EXPECT_EQ(request(s.server.port(), "GET", "/timeline").status, 400);
  EXPECT_EQ(request(s.server.port(), "GET", "/timeline?job=").status, 400);
  // A handler that throws answers 500, and the server goes on.
  const Reply boom = request(s.server.port(), "GET", "/timeline?job=boom");
  EXPECT_EQ(boom.status, 500);
  EXPECT_NE(boom.body.find("trace failed"), std::string::npos);
  EXPECT_EQ(request(s.server.port(), "GET", "/status").status, 200);
  // The old routes are as they were.
  EXPECT_EQ(request(s.server.port(), "GET", "/status").body, "{\"status\": 1}\n");
  EXPECT_EQ(request(s.server.port(), "GET", "/healthz").body, "ok\n");
  const Reply missing = request(s.server.port(), "GET", "/nothing");
  EXPECT_EQ(missing.status, 404);
  EXPECT_NE(missing.body.find("try /status"), std::string::npos);
}

TEST(StatusPageTest, WithoutPageHandlersTheirRoutesAreNotFound) {
  HttpStatusServer server("127.0.0.1", 0,
                          HttpStatusServer::Handlers{[] { return std::string("{}"); }, [] { return std::string(); },
                                                     [] { return false; }, nullptr, nullptr});
  EXPECT_EQ(request(server.port(), "GET", "/status/history").status, 404);
  EXPECT_EQ(request(server.port(), "GET", "/timeline?job=a").status, 404);
  EXPECT_EQ(request(server.port(), "GET", "/").status, 200);  // the page itself is built in
}

// A large answer (a long job's trace) goes out whole through the non-blocking loop.
TEST(StatusPageTest, LargeAnswersArriveWhole) {
  const std::string big(3 << 20, 'x');
  HttpStatusServer server("127.0.0.1", 0,
                          HttpStatusServer::Handlers{[] { return std::string("{}"); }, [] { return std::string(); },
                                                     [] { return false; }, [&big] { return big; }, nullptr});
  const Reply r = request(server.port(), "GET", "/status/history");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body.size(), big.size());
  EXPECT_EQ(r.body, big);
}

cuzk::engine::EngineSnapshot snapshot_with(int64_t abc_bytes, double busy) {
  cuzk::engine::EngineSnapshot s;
  s.buffers.stages[size_t(cuzk::engine::Stage::kOnGpu)].bytes[size_t(cuzk::engine::BufferClass::kAbc)] = abc_bytes;
  s.buffers.stages[size_t(cuzk::engine::Stage::kSynthRunning)].bytes[size_t(cuzk::engine::BufferClass::kAux)] = 5;
  s.buffers.input_bytes = 7;
  s.buffers.budget_total = 1000;
  s.buffers.budget_used = 300;
  cuzk::engine::DeviceStatus d;
  d.busy_seconds = busy;
  s.devices.push_back(d);
  return s;
}

TEST(StatusPageTest, HistoryKeepsTenMinutesOfSamplesAndAnHourOfWinningPoSt) {
  StatusHistory h;
  const int64_t t0 = 1'700'000'000'000;
  for (size_t i = 0; i < StatusHistory::kSamples + 5; i++)
    h.add_sample(snapshot_with(int64_t(i), 0.5 * double(i)), t0 + int64_t(i) * 1000);
  cuzk::engine::JobStatus winning;
  winning.kind = "winning-post";
  winning.request_id = "w-old";
  winning.elapsed_seconds = 1.5;
  winning.state = cuzk::engine::JobState::kSucceeded;
  h.job_ended(winning, t0 - 2 * 3600 * 1000);  // beyond the hour when asked below
  winning.request_id = "w-1";
  h.job_ended(winning, t0);
  winning.request_id = "w-2";
  winning.state = cuzk::engine::JobState::kFailed;
  h.job_ended(winning, t0 + 1000);
  cuzk::engine::JobStatus porep = winning;
  porep.kind = "porep";
  porep.request_id = "p";
  h.job_ended(porep, t0 + 2000);

  const auto doc = nlohmann::json::parse(h.json(t0 + 10'000));
  EXPECT_EQ(doc["now_unix_ms"], t0 + 10'000);
  EXPECT_EQ(doc["window_seconds"], 600);
  ASSERT_EQ(doc["samples"].size(), StatusHistory::kSamples) << "the ring is bounded";
  const auto& first = doc["samples"][0];
  EXPECT_EQ(first["t"], t0 + 5000) << "the oldest samples left first";
  const auto& classes = doc["classes"];
  const auto& stages = doc["stages"];
  ASSERT_EQ(classes.size(), first["class"].size());
  ASSERT_EQ(stages.size(), first["stage"].size());
  auto index_of = [](const nlohmann::json& names, const std::string& name) {
    for (size_t i = 0; i < names.size(); i++) {
      if (names[i] == name) return i;
    }
    return names.size();
  };
  EXPECT_EQ(first["class"][index_of(classes, "abc")], 5);
  EXPECT_EQ(first["class"][index_of(classes, "aux")], 5);
  EXPECT_EQ(first["stage"][index_of(stages, "on_gpu")], 5);
  EXPECT_EQ(first["stage"][index_of(stages, "synth_running")], 5);
  EXPECT_EQ(first["input"], 7);
  EXPECT_EQ(first["budget_total"], 1000);
  EXPECT_EQ(first["budget_used"], 300);
  EXPECT_EQ(first["gpu_busy"][0], 2.5);

  const auto& w = doc["winning_post"];
  ASSERT_EQ(w.size(), 2u) << w.dump() << ": WinningPoSt jobs of the last hour only";
  EXPECT_EQ(w[0]["request_id"], "w-1");
  EXPECT_EQ(w[0]["seconds"], 1.5);
  EXPECT_EQ(w[0]["state"], "succeeded");
  EXPECT_EQ(w[1]["state"], "failed");
}

}  // namespace

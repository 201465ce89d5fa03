// Faults injected into a real cuzk-daemon (issue 29) and the defects they found: address
// spellings that reached another socket than the daemon's, a status port that idle connections
// could stall; a parameter cache that cannot be written or is full, clients killed in the middle
// of Prove and AwaitProof, a cancel storm, a parameter file changed on disk under a loaded set.
// After each, every buffer counter and the budget are back to their idle values and the daemon
// still proves.
#include <arpa/inet.h>
#include <atomic>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <grpcpp/grpcpp.h>
#include <iterator>
#include <mutex>
#include <netinet/in.h>
#include <random>
#include <signal.h>
#include <sstream>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include <gtest/gtest.h>

#include "daemon_fault_support.hpp"
#include "daemon_harness.hpp"
#include "daemon_metrics_text.hpp"
#include "test_support.hpp"

namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// cuzk-daemon with argv, its stderr and stdout in log; killed at the end.
struct Daemon {
  pid_t pid = -1;
  Daemon(std::vector<std::string> argv, const std::string& log) {
    argv.insert(argv.begin(), CUZK_DAEMON_BIN);
    std::vector<char*> args;
    for (std::string& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    pid = fork();
    if (pid == 0) {
      int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      dup2(fd, 1);
      dup2(fd, 2);
      execv(args[0], args.data());
      _exit(127);
    }
  }
  // The exit code once it exited, or -1 while it runs.
  int exited(std::chrono::milliseconds wait = 0ms) {
    auto deadline = std::chrono::steady_clock::now() + wait;
    do {
      int status = 0;
      if (pid > 0 && waitpid(pid, &status, WNOHANG) == pid) {
        pid = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      std::this_thread::sleep_for(20ms);
    } while (std::chrono::steady_clock::now() < deadline);
    return -1;
  }
  ~Daemon() {
    if (pid > 0) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
  }
};

std::vector<std::string> small_daemon(const std::string& dir) {
  return {"--status-listen",   "127.0.0.1:0",
          "--param-cache-dir", dir + "/params",
          "--budget",          "1GiB",
          "--backend",         "cpu",
          "--cpu-threads",     "2"};
}

// The grpc address in a ready file, once it is written.
std::string wait_ready(const std::string& ready, Daemon& d, const std::string& log) {
  auto deadline = std::chrono::steady_clock::now() + 120s;
  while (std::chrono::steady_clock::now() < deadline) {
    std::ifstream f(ready);
    std::string key, addr;
    if (f >> key >> addr && key == "grpc") return addr;
    if (d.exited() >= 0) {
      ADD_FAILURE() << "cuzk-daemon exited at start:\n" << slurp(log);
      return "";
    }
    std::this_thread::sleep_for(20ms);
  }
  ADD_FAILURE() << "cuzk-daemon did not write its ready file:\n" << slurp(log);
  return "";
}

// unix:////path used to be listened on as "//path" and reported as "unix://path", which gRPC's
// client reads as a host: neither the reported address nor the same string reached the daemon.
TEST(DaemonFaultsTest, EverySpellingOfTheSocketReachesTheDaemon) {
  cuzk::test::TempDir t("cuzk-faults");
  const std::string log = t.path + "/daemon.log", ready = t.path + "/ready";
  const std::string given = "unix:///" + t.path + "//cuzk.sock";  // four slashes, and two inside
  std::vector<std::string> argv = small_daemon(t.path);
  argv.insert(argv.end(), {"--listen", given, "--ready-file", ready});
  Daemon d(argv, log);
  std::string reported = wait_ready(ready, d, log);
  ASSERT_FALSE(reported.empty());
  EXPECT_EQ(reported, "unix:" + t.path + "/cuzk.sock");
  EXPECT_TRUE(fs::is_socket(t.path + "/cuzk.sock"));
  for (const std::string& addr : {given, reported, "unix://" + t.path + "/cuzk.sock"}) {
    std::string out;
    EXPECT_EQ(cuzk::test::run_program({CUZK_CLIENT_BIN, "--addr", addr, "status"}, &out, 60s), 0) << addr << ":\n"
                                                                                                  << out << slurp(log);
  }
}

// A NUL in a socket path (a TOML string can hold one) used to make a lock file at the cut-off
// path and print a cut-off message.
TEST(DaemonFaultsTest, ANulInTheSocketPathIsRefusedWithoutLeavingFiles) {
  cuzk::test::TempDir t("cuzk-faults");
  const std::string log = t.path + "/daemon.log", config = t.path + "/c.toml";
  std::ofstream(config) << "[daemon]\nlisten = \"unix:" << t.path << "/a\\u0000b.sock\"\n";
  std::vector<std::string> argv = small_daemon(t.path);
  argv.insert(argv.end(), {"--config", config});
  Daemon d(argv, log);
  int rc = d.exited(60s);
  EXPECT_GT(rc, 0) << slurp(log);
  std::string text = slurp(log);
  EXPECT_NE(text.find("NUL"), std::string::npos) << text;
  EXPECT_NE(text.find("a\\x00b.sock"), std::string::npos) << text;
  EXPECT_FALSE(fs::exists(t.path + "/a")) << "a stray file at the cut-off path";
  EXPECT_FALSE(fs::exists(t.path + "/a.lock"));
}

// The status port used to serve with 2 threads and a 5 s read timeout: 4 idle connections
// delayed /healthz by ~10 s, 16 made it time out.
TEST(DaemonFaultsTest, StatusPortAnswersWithIdleConnectionsOpen) {
  cuzk::test::DaemonProcess d;
  ASSERT_GT(d.http_port(), 0);
  std::vector<int> idle;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(d.http_port());
  inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
  for (int i = 0; i < 256; i++) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0) << i;
    // Some send half a request and stop there.
    if (i % 4 == 0) {
      ASSERT_GT(send(fd, "GET /status HTTP/1.1\r\n", 22, MSG_NOSIGNAL), 0);
    }
    idle.push_back(fd);
  }
  std::this_thread::sleep_for(200ms);  // all accepted and waiting
  for (const char* path : {"/healthz", "/metrics", "/status"}) {
    auto start = std::chrono::steady_clock::now();
    int code = -1;
    std::string body = d.http_get(path, &code);
    double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(code, 200) << path;
    EXPECT_LT(took, 1.0) << path << " took " << took << " s with 256 idle connections open";
    if (std::string(path) == "/healthz") {
      EXPECT_EQ(body, "ok\n");
    }
    if (std::string(path) == "/metrics") {
      EXPECT_NE(body.find("# TYPE"), std::string::npos) << body;
    }
  }
  int code = -1;
  EXPECT_NE(d.http_get("/nothing", &code).find("try /status"), std::string::npos);
  EXPECT_EQ(code, 404);
  for (int fd : idle) close(fd);
}

// --- Faults of issue 29 ---------------------------------------------------------------------

namespace v1 = cuzk::v1;
using cuzk::test::DaemonProcess;
using cuzk::test::synthetic_request;

std::unique_ptr<grpc::ClientContext> deadline_in(std::chrono::seconds s = 120s) {
  auto c = std::make_unique<grpc::ClientContext>();
  c->set_deadline(std::chrono::system_clock::now() + s);
  return c;
}

v1::AwaitProofResponse prove(const DaemonProcess& d, const v1::SubmitProofRequest& req) {
  v1::ProveResponse pr;
  auto ctx = deadline_in(300s);
  grpc::Status s = d.stub()->Prove(ctx.get(), cuzk::test::prove_request(req), &pr);
  EXPECT_TRUE(s.ok()) << s.error_message();
  return pr.result();
}

void expect_proof_works(const DaemonProcess& d) {
  const v1::AwaitProofResponse r = prove(d, synthetic_request());
  EXPECT_EQ(r.state(), v1::JOB_STATE_SUCCEEDED) << r.error_message();
  EXPECT_EQ(r.proof().size(), 192u);
  EXPECT_TRUE(r.verified());
}

bool evict(const DaemonProcess& d, const std::string& param_id) {
  v1::EvictParamsRequest req;
  req.set_param_id(param_id);
  v1::EvictParamsResponse resp;
  auto ctx = deadline_in();
  grpc::Status s = d.stub()->EvictParams(ctx.get(), req, &resp);
  EXPECT_TRUE(s.ok()) << s.error_message();
  return resp.evicted();
}

// Calls of a method the daemon answered with a code (its /status "rpc_requests").
int rpc_calls(const nlohmann::json& st, const char* method, const char* code) {
  const auto& rpc = st["daemon"]["rpc_requests"];
  return rpc.contains(method) && rpc[method].contains(code) ? rpc[method][code].get<int>() : 0;
}

// Polls /status until pred(document) holds (true) or `patience` passes (false).
template <class Pred>
bool status_becomes(const DaemonProcess& d, Pred pred, std::chrono::seconds patience = 60s) {
  const auto deadline = std::chrono::steady_clock::now() + patience;
  while (std::chrono::steady_clock::now() < deadline) {
    const nlohmann::json st = cuzk::test::daemon_status(d);
    if (st.is_object() && pred(st)) return true;
    std::this_thread::sleep_for(50ms);
  }
  return false;
}

// True once GetStatus knows the job (within 60 s).
bool job_known(const DaemonProcess& d, const std::string& id) {
  auto stub = d.stub();
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (std::chrono::steady_clock::now() < deadline) {
    v1::GetStatusRequest req;
    req.set_job_id(id);
    v1::GetStatusResponse resp;
    auto ctx = deadline_in();
    if (stub->GetStatus(ctx.get(), req, &resp).ok()) return true;
    std::this_thread::sleep_for(10ms);
  }
  return false;
}

// The default request's parameter set.
constexpr const char* kParamId = "synthetic-1024-4-seed7";

// A cache directory that cannot be written (a file stands in its place: this works as root, where
// permissions would not, and the directories beside it, e.g. the journal's, stay usable): the
// setup's parameters are used from memory, a warning says the cache was not written, and after an
// eviction they are set up again.
TEST(DaemonFaultsTest, AParameterCacheThatCannotBeWrittenOnlyCostsTheCache) {
  cuzk::test::TempDir t("cuzk-faults");
  const std::string blocker = t.path + "/params";
  std::ofstream(blocker) << "a file where the cache directory should be";
  DaemonProcess d({"--param-cache-dir", blocker});
  ASSERT_FALSE(testing::Test::HasFailure());
  expect_proof_works(d);
  EXPECT_NE(d.log().find("could not cache"), std::string::npos) << d.log();
  EXPECT_TRUE(evict(d, kParamId));
  expect_proof_works(d);  // set up again: nothing was cached
  EXPECT_TRUE(fs::is_regular_file(blocker));
  cuzk::test::expect_daemon_idle(d);
}

// A full disk without root (a small tmpfs needs it): RLIMIT_FSIZE on the daemon stops its cache
// file at 128 KiB (the set is ~390 KB). Writing past the limit raises SIGXFSZ, which used to kill
// the daemon (its default action); now the write fails with EFBIG, the proof is made from memory
// and the partial file is removed.
TEST(DaemonFaultsTest, AFullParameterCacheOnlyCostsTheCache) {
  DaemonProcess d({"--log-level", "warn"});  // the log file is under the same limit: keep it short
  ASSERT_FALSE(testing::Test::HasFailure());
  const rlimit limit{128 << 10, 128 << 10};
  ASSERT_EQ(prlimit(d.pid(), RLIMIT_FSIZE, &limit, nullptr), 0) << std::strerror(errno);
  expect_proof_works(d);
  ASSERT_TRUE(d.running()) << "the daemon died writing past the file size limit:\n" << d.log();
  const std::string log = d.log();
  EXPECT_NE(log.find("could not cache"), std::string::npos) << log;
  EXPECT_NE(log.find("File too large"), std::string::npos) << log;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(d.dir() + "/params", ec)) {
    ADD_FAILURE() << "left in the cache: " << entry.path();
  }
  expect_proof_works(d);  // the set stays resident
  cuzk::test::expect_daemon_idle(d);
}

// Prove's caller vanishing while its job runs (its connection cut, as when a client host dies):
// the daemon sees the connection drop and cancels the job (nobody can receive its proof), frees
// everything, and serves the next client. (`cuzk prove` is SubmitProof + AwaitProof, so the
// connection is cut by a relay rather than by killing a client process.)
TEST(DaemonFaultsTest, AClientVanishingInTheMiddleOfProveCancelsItsJob) {
  DaemonProcess d({"--synthesis-workers", "1"});
  ASSERT_FALSE(testing::Test::HasFailure());
  cuzk::test::SocketRelay relay(d.socket_path(), d.dir() + "/relay.sock");
  grpc::Status status;
  std::thread caller([&] {
    auto stub = v1::ProvingEngine::NewStub(grpc::CreateChannel(relay.addr(), grpc::InsecureChannelCredentials()));
    v1::ProveResponse pr;
    auto ctx = deadline_in(300s);
    status = stub->Prove(ctx.get(), cuzk::test::prove_request(synthetic_request(16384, 32, "cut-prove")), &pr);
  });
  const bool known = job_known(d, "cut-prove");
  relay.cut();
  caller.join();
  ASSERT_TRUE(known);
  EXPECT_FALSE(status.ok()) << "the caller's Prove cannot have succeeded";
  EXPECT_TRUE(status_becomes(d, [](const nlohmann::json& st) {
    return rpc_calls(st, "Prove", "CANCELLED") == 1 && st["jobs"]["cancelled"] == 1;
  })) << cuzk::test::daemon_status(d).dump(1);
  const nlohmann::json st = cuzk::test::expect_daemon_idle(d);
  EXPECT_EQ(st["jobs"]["completed"], 0);
  expect_proof_works(d);
}

// AwaitProof's caller killed: the job is kept (AwaitProof only waits; a later call collects it),
// the daemon ends the abandoned call and frees its thread, and the result is delivered later.
TEST(DaemonFaultsTest, AClientKilledInTheMiddleOfAwaitLeavesItsJobToFinish) {
  DaemonProcess d({"--synthesis-workers", "1"});
  ASSERT_FALSE(testing::Test::HasFailure());
  v1::SubmitProofResponse sub;
  auto c1 = deadline_in();
  ASSERT_TRUE(d.stub()->SubmitProof(c1.get(), synthetic_request(16384, 8, "kept"), &sub).ok());
  {
    cuzk::test::ClientProcess client({"--addr", d.addr(), "await", "kept"});
    // The client's AwaitProof reaches the daemon within this (it starts and connects in ~0.1 s).
    std::this_thread::sleep_for(1500ms);
    client.kill_now();
  }
  EXPECT_TRUE(status_becomes(
      d, [](const nlohmann::json& st) { return rpc_calls(st, "AwaitProof", "CANCELLED") == 1; }, 30s))
      << "the abandoned AwaitProof did not end: " << cuzk::test::daemon_status(d).dump(1);
  v1::AwaitProofRequest aw;
  aw.set_job_id("kept");
  v1::AwaitProofResponse r;
  auto c2 = deadline_in(300s);
  ASSERT_TRUE(d.stub()->AwaitProof(c2.get(), aw, &r).ok());
  EXPECT_EQ(r.state(), v1::JOB_STATE_SUCCEEDED) << r.error_message();
  EXPECT_EQ(r.proof().size(), 8 * 192u);
  cuzk::test::expect_daemon_idle(d);
  expect_proof_works(d);
}

// 40 jobs from 4 clients, each cancelled at a random moment (seeded: CUZK_TEST_SEED repeats a
// run): every job ends cancelled or succeeded within its deadline, none fails, nothing is held
// afterwards, and the daemon still proves.
TEST(DaemonFaultsTest, ACancelStormLeavesNoJobStuckAndNothingHeld) {
  DaemonProcess d({"--budget", "256MiB"});
  ASSERT_FALSE(testing::Test::HasFailure());
  constexpr int kClients = 4, kEach = 10;
  std::atomic<int> cancelled{0}, succeeded{0}, stuck{0};
  std::mutex wrong_mutex;
  std::vector<std::string> wrong;
  const uint64_t seed = cuzk::test::make_rng()();
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&, c] {
      std::mt19937_64 rng(seed + uint64_t(c));
      auto stub = d.stub();
      std::vector<std::pair<std::string, uint32_t>> jobs;
      for (int i = 0; i < kEach; ++i) {
        const std::string id = "storm-" + std::to_string(c) + "-" + std::to_string(i);
        const uint32_t parts = 1 + uint32_t(rng() % 3);
        v1::SubmitProofResponse sub;
        auto ctx = deadline_in();
        grpc::Status s = stub->SubmitProof(ctx.get(), synthetic_request(4096, parts, id), &sub);
        if (!s.ok()) {
          std::lock_guard lock(wrong_mutex);
          wrong.push_back(id + ": submit " + s.error_message());
          continue;
        }
        jobs.emplace_back(id, parts);
      }
      std::shuffle(jobs.begin(), jobs.end(), rng);
      for (const auto& [id, parts] : jobs) {
        std::this_thread::sleep_for(std::chrono::milliseconds(rng() % 150));
        v1::CancelProofRequest cr;
        cr.set_job_id(id);
        v1::CancelProofResponse cresp;
        auto ctx = deadline_in();
        grpc::Status s = stub->CancelProof(ctx.get(), cr, &cresp);
        if (!s.ok()) {
          std::lock_guard lock(wrong_mutex);
          wrong.push_back(id + ": cancel " + s.error_message());
        }
      }
      for (const auto& [id, parts] : jobs) {
        v1::AwaitProofRequest aw;
        aw.set_job_id(id);
        aw.set_timeout_ms(60000);  // an engine stuck on a cancelled job shows as TIMEOUT
        v1::AwaitProofResponse r;
        auto ctx = deadline_in(90s);
        grpc::Status s = stub->AwaitProof(ctx.get(), aw, &r);
        if (!s.ok() || r.status() == v1::AwaitProofResponse::TIMEOUT) {
          ++stuck;
        } else if (r.state() == v1::JOB_STATE_CANCELLED) {
          ++cancelled;
        } else if (r.state() == v1::JOB_STATE_SUCCEEDED && r.proof().size() == 192u * parts && r.verified()) {
          ++succeeded;
        } else {
          std::lock_guard lock(wrong_mutex);
          wrong.push_back(id + ": ended " + v1::JobState_Name(r.state()) + " " + r.error_message());
        }
      }
    });
  }
  for (auto& t : clients) t.join();
  EXPECT_EQ(stuck, 0);
  EXPECT_TRUE(wrong.empty()) << wrong.front();
  EXPECT_EQ(cancelled + succeeded, kClients * kEach);
  EXPECT_GT(cancelled, 0) << "no cancel landed before its job ended: the storm tested nothing";
  const nlohmann::json st = cuzk::test::expect_daemon_idle(d);
  EXPECT_EQ(st["jobs"]["failed"], 0);
  EXPECT_EQ(st["jobs"]["cancelled"], cancelled.load());
  EXPECT_EQ(st["jobs"]["completed"], succeeded.load());
  expect_proof_works(d);
}

// The cached file of a resident set truncated, then corrupted, then restored on disk. The set in
// memory keeps proving (it was read once, never mapped, so no SIGBUS); once evicted, loading the
// changed file fails the job with an error naming the file; the restored file proves again.
TEST(DaemonFaultsTest, AParameterFileChangedUnderALoadedSetIsUsedOrRefusedNeverACrash) {
  DaemonProcess d;
  ASSERT_FALSE(testing::Test::HasFailure());
  expect_proof_works(d);
  const std::string file = d.dir() + "/params/" + kParamId + ".params";
  ASSERT_TRUE(fs::is_regular_file(file));
  const std::string original = cuzk::test::read_text(file);

  cuzk::test::write_file(file, original.substr(0, original.size() / 2));
  expect_proof_works(d);
  EXPECT_TRUE(evict(d, kParamId));
  v1::AwaitProofResponse r = prove(d, synthetic_request());
  EXPECT_EQ(r.state(), v1::JOB_STATE_FAILED);
  EXPECT_NE(r.error_message().find(file), std::string::npos) << r.error_message();

  std::string flipped = original;
  flipped[flipped.size() / 2] ^= 0x01;
  cuzk::test::write_file(file, flipped);
  r = prove(d, synthetic_request());
  EXPECT_EQ(r.state(), v1::JOB_STATE_FAILED);
  EXPECT_NE(r.error_message().find(file), std::string::npos) << r.error_message();

  cuzk::test::write_file(file, original);
  expect_proof_works(d);
  EXPECT_TRUE(d.running());
  const nlohmann::json st = cuzk::test::expect_daemon_idle(d);
  EXPECT_EQ(st["jobs"]["failed"], 2);
}

}  // namespace

// Defects found by the fault campaign (issue 29), each reproduced against a real cuzk-daemon:
// address spellings that reached another socket than the daemon's, and a status port that idle
// connections could stall.
#include <arpa/inet.h>
#include <chrono>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <netinet/in.h>
#include <signal.h>
#include <sstream>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include <gtest/gtest.h>

#include "daemon_harness.hpp"

namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// A temporary directory removed at the end of the test.
struct TempDir {
  std::string path;
  TempDir() {
    char tmpl[] = "/tmp/cuzk-faults-XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

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
  TempDir t;
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
  TempDir t;
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

}  // namespace

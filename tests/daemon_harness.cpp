#include "daemon_harness.hpp"

#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <grpcpp/grpcpp.h>
#include <httplib.h>
#include <netinet/in.h>
#include <signal.h>
#include <sstream>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include <gtest/gtest.h>

namespace cuzk::test {

namespace {

uint16_t free_tcp_port() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  close(fd);
  return ntohs(a.sin_port);
}

bool unix_connectable(const std::string& path) {
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::strncpy(a.sun_path, path.c_str(), sizeof a.sun_path - 1);
  bool ok = connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  close(fd);
  return ok;
}

pid_t spawn(const std::vector<std::string>& argv, const std::string& log_path, int stdout_fd) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    if (!log_path.empty()) {
      int fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      dup2(fd, 2);
      if (stdout_fd < 0) dup2(fd, 1);
    }
    if (stdout_fd >= 0) dup2(stdout_fd, 1);
    // The test process may block signals in its threads; the child starts clean.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  return pid;
}

int decode_status(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status); }

}  // namespace

static bool tcp_connectable(uint16_t port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(port);
  bool ok = connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  close(fd);
  return ok;
}

DaemonProcess::DaemonProcess(std::vector<std::string> extra_args, bool tcp) {
  char tmpl[] = "/tmp/cuzk-daemon-test-XXXXXX";
  dir_ = mkdtemp(tmpl);
  socket_ = dir_ + "/cuzk.sock";
  http_port_ = free_tcp_port();
  if (tcp) tcp_port_ = free_tcp_port();
  std::vector<std::string> argv = {CUZK_DAEMON_BIN,
                                   "--listen",
                                   addr(),
                                   "--status-listen",
                                   "127.0.0.1:" + std::to_string(http_port_),
                                   "--param-cache-dir",
                                   dir_ + "/params",
                                   "--budget",
                                   "1GiB",
                                   "--backend",
                                   "cpu",
                                   "--cpu-threads",
                                   "2",
                                   "--log-level",
                                   "debug"};
  argv.insert(argv.end(), extra_args.begin(), extra_args.end());
  pid_ = spawn(argv, dir_ + "/daemon.log", -1);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    if (!running()) {
      ADD_FAILURE() << "cuzk-daemon exited with " << exit_code_ << " at start:\n" << log();
      return;
    }
    if (tcp ? tcp_connectable(tcp_port_) : unix_connectable(socket_)) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ADD_FAILURE() << "cuzk-daemon did not listen on " << addr() << " within 60 s:\n" << log();
}

DaemonProcess::~DaemonProcess() {
  if (running()) stop(SIGKILL, std::chrono::seconds(10));
  if (::testing::Test::HasFailure()) std::cerr << "--- daemon log (" << dir_ << ") ---\n" << log() << "---\n";
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

bool DaemonProcess::running() {
  if (pid_ <= 0) return false;
  int status = 0;
  if (waitpid(pid_, &status, WNOHANG) == pid_) {
    exit_code_ = decode_status(status);
    pid_ = -1;
    return false;
  }
  return true;
}

int DaemonProcess::stop(int sig, std::chrono::seconds timeout) {
  if (!running()) return exit_code_;
  kill(pid_, sig);
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (!running()) return exit_code_;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return -1;
}

std::string DaemonProcess::log() const {
  std::ifstream f(dir_ + "/daemon.log");
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

std::unique_ptr<cuzk::v1::ProvingEngine::Stub> DaemonProcess::stub() const {
  return cuzk::v1::ProvingEngine::NewStub(grpc::CreateChannel(addr(), grpc::InsecureChannelCredentials()));
}

std::string DaemonProcess::http_get(const std::string& path, int* status) const {
  httplib::Client client("127.0.0.1", http_port_);
  client.set_read_timeout(30, 0);
  auto res = client.Get(path.c_str());
  if (status) *status = res ? res->status : -1;
  return res ? res->body : std::string();
}

cuzk::v1::ProofRequest synthetic_request(uint64_t constraints, uint32_t partitions, const std::string& request_id) {
  cuzk::v1::ProofRequest r;
  r.set_request_id(request_id);
  r.set_kind(cuzk::v1::PROOF_KIND_SYNTHETIC);
  r.mutable_synthetic()->set_constraints(constraints);
  r.mutable_synthetic()->set_public_inputs(4);
  r.mutable_synthetic()->set_seed(7);
  r.mutable_synthetic()->set_partitions(partitions);
  return r;
}

int run_program(const std::vector<std::string>& argv, std::string* out) {
  char tmpl[] = "/tmp/cuzk-cli-out-XXXXXX";
  int fd = mkstemp(tmpl);
  pid_t pid = spawn(argv, "", fd);
  int status = 0;
  waitpid(pid, &status, 0);
  if (out) {
    std::ifstream f(tmpl);
    std::stringstream s;
    s << f.rdbuf();
    *out = s.str();
  }
  close(fd);
  unlink(tmpl);
  return decode_status(status);
}

}  // namespace cuzk::test

#include "daemon_harness.hpp"

#include <algorithm>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <grpcpp/grpcpp.h>
#include <httplib.h>
#include <iterator>
#include <netinet/in.h>
#include <signal.h>
#include <sstream>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace cuzk::test {

namespace {

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

DaemonProcess::DaemonProcess(std::vector<std::string> extra_args, bool tcp) {
  char tmpl[] = "/tmp/cuzk-daemon-test-XXXXXX";
  dir_ = mkdtemp(tmpl);
  socket_ = dir_ + "/cuzk.sock";
  // Port 0 everywhere: the daemon binds free ports itself and reports them in the ready file,
  // which it writes only once both listeners serve (no port races between parallel tests).
  std::string ready = dir_ + "/ready";
  std::vector<std::string> argv = {CUZK_DAEMON_BIN,
                                   "--listen",
                                   tcp ? "127.0.0.1:0" : "unix:" + socket_,
                                   "--status-listen",
                                   "127.0.0.1:0",
                                   "--ready-file",
                                   ready,
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
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (std::chrono::steady_clock::now() < deadline) {
    if (!running()) {
      ADD_FAILURE() << "cuzk-daemon exited with " << exit_code_ << " at start:\n" << log();
      return;
    }
    std::ifstream f(ready);
    std::string key, grpc_addr, http_key;
    int http = 0;
    if (f >> key >> grpc_addr >> http_key >> http && key == "grpc" && http_key == "http" && http > 0) {
      http_port_ = uint16_t(http);
      if (tcp) {
        size_t colon = grpc_addr.rfind(':');
        tcp_port_ = uint16_t(std::stoi(grpc_addr.substr(colon + 1)));
      }
      // Both listeners were bound before the file was written; check they answer.
      int code = -1;
      http_get("/healthz", &code);
      if (code == 200 && (tcp || unix_connectable(socket_))) return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ADD_FAILURE() << "cuzk-daemon did not serve within 120 s:\n" << log();
}

DaemonProcess::~DaemonProcess() {
  // A daemon that ended by itself (a sanitizer's report, a crash) is named ahead of its whole log,
  // whose tail a CI summary may cut off.
  if (!stopped_ && !running() && exit_code_ != -1) {
    ADD_FAILURE() << "cuzk-daemon exited by itself during the test, with " << exit_code_ << "\n" << sanitizer_report();
  }
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
  stopped_ = true;
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

std::string DaemonProcess::sanitizer_report() const {
  const std::string text = log();
  size_t at = std::string::npos;
  for (const char* mark :
       {"WARNING: ThreadSanitizer", "ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:"}) {
    at = std::min(at, text.find(mark));
  }
  if (at == std::string::npos) return {};
  at = text.rfind('\n', at) == std::string::npos ? 0 : text.rfind('\n', at) + 1;
  size_t end = at;
  for (int lines = 0; lines < 40 && end != std::string::npos; ++lines) end = text.find('\n', end + 1);
  return text.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

bool DaemonProcess::link_parameters(const std::filesystem::path& cached) const {
  if (!std::filesystem::exists(cached)) return false;
  const std::filesystem::path params = dir_ + "/params";
  std::filesystem::create_directories(params);
  const auto link = params / cached.filename();
  if (!std::filesystem::exists(link)) std::filesystem::create_symlink(std::filesystem::absolute(cached), link);
  return true;
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

cuzk::v1::SubmitProofRequest synthetic_request(uint64_t constraints, uint32_t partitions,
                                               const std::string& request_id) {
  cuzk::v1::SubmitProofRequest r;
  r.set_request_id(request_id);
  r.set_proof_kind(cuzk::v1::SYNTHETIC);
  r.mutable_synthetic()->set_constraints(constraints);
  r.mutable_synthetic()->set_public_inputs(4);
  r.mutable_synthetic()->set_seed(7);
  r.mutable_synthetic()->set_partitions(partitions);
  return r;
}

std::optional<cuzk::v1::SubmitProofRequest> real_8mib_porep_request(const std::string& request_id, std::string* path) {
  const std::string file = cuzk::test::testdata_dir() + "/filecoin/porep/c1-8MiB-StackedDrg8MiBV1_1.json";
  if (path) *path = file;
  std::ifstream f(file, std::ios::binary);
  if (!f) return std::nullopt;
  cuzk::v1::SubmitProofRequest r;
  r.set_request_id(request_id);
  r.set_proof_kind(cuzk::v1::POREP_SEAL_COMMIT);
  r.set_registered_proof(6);  // StackedDrg8MiBV1_1
  r.set_sector_size(8 << 20);
  r.set_miner_id(1006);
  r.set_sector_number(1498);
  r.set_vanilla_proof(std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>()));
  return r;
}

cuzk::v1::ProveRequest prove_request(const cuzk::v1::SubmitProofRequest& submit) {
  cuzk::v1::ProveRequest r;
  *r.mutable_submit() = submit;
  return r;
}

int run_program(const std::vector<std::string>& argv, std::string* out, std::chrono::seconds timeout) {
  char tmpl[] = "/tmp/cuzk-cli-out-XXXXXX";
  int fd = mkstemp(tmpl);
  pid_t pid = spawn(argv, "", fd);
  int status = 0;
  bool done = false;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!(done = waitpid(pid, &status, WNOHANG) == pid) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (!done) {
    ADD_FAILURE() << argv[0] << " did not exit within " << timeout.count() << " s; killed";
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
  }
  if (out) {
    std::ifstream f(tmpl);
    std::stringstream s;
    s << f.rdbuf();
    *out = s.str();
  }
  close(fd);
  unlink(tmpl);
  return done ? decode_status(status) : -1;
}

}  // namespace cuzk::test

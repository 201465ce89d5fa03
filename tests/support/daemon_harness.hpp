// A real cuzk-daemon for the tests: a subprocess on a unix socket in a fresh temporary
// directory (which also holds its parameter cache and its log), with the HTTP status port on
// a localhost port the daemon picks (port 0, reported through --ready-file).
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <sys/types.h>
#include <thread>
#include <vector>

#include "cuzk/v1/proving.grpc.pb.h"

namespace cuzk::test {

class DaemonProcess {
 public:
  // Starts the daemon with small-machine settings plus extra_args, and waits until it serves.
  // tcp: listen on a free localhost TCP port (picked by the daemon) instead of the unix socket.
  explicit DaemonProcess(std::vector<std::string> extra_args = {}, bool tcp = false);
  ~DaemonProcess();  // SIGKILL if still running; removes the directory
  DaemonProcess(const DaemonProcess&) = delete;
  DaemonProcess& operator=(const DaemonProcess&) = delete;

  const std::string& dir() const { return dir_; }
  const std::string& socket_path() const { return socket_; }
  std::string addr() const { return tcp_port_ ? "127.0.0.1:" + std::to_string(tcp_port_) : "unix:" + socket_; }
  uint16_t http_port() const { return http_port_; }
  pid_t pid() const { return pid_; }

  std::unique_ptr<cuzk::v1::ProvingEngine::Stub> stub() const;
  // GET on the status port; returns the body and sets *status to the HTTP status (-1: no answer).
  std::string http_get(const std::string& path, int* status = nullptr) const;
  // Sends sig and waits for the exit; returns the exit code (or 128 + signal), -1 on timeout.
  int stop(int sig, std::chrono::seconds timeout = std::chrono::seconds(120));
  bool running();
  std::string log() const;
  // The first sanitizer report in the log (its first 40 lines), or "" when there is none.
  std::string sanitizer_report() const;
  // Puts a cached parameter file into the daemon's parameter cache as a symbolic link: the 2 KiB
  // update circuit's file is 625 MiB, and copies of it filled a shared disk. Returns false when the
  // cached file is absent.
  bool link_parameters(const std::filesystem::path& cached) const;

 private:
  std::string dir_, socket_;
  uint16_t http_port_ = 0, tcp_port_ = 0;
  pid_t pid_ = -1;
  int exit_code_ = -1;
  bool stopped_ = false;  // stop() was called: an exit is the test's doing
};

// A synthetic proof request (2^10 constraints, one partition unless told otherwise).
cuzk::v1::SubmitProofRequest synthetic_request(uint64_t constraints = 1024, uint32_t partitions = 1,
                                               const std::string& request_id = "");
// A PoRep C2 request of the real 8 MiB Commit1 output in ../shared/testdata (StackedDrg8MiBV1_1,
// miner 1006, sector 1498: the output's own), its JSON as the vanilla proof; nullopt when the test
// data is absent (the caller skips). *path, when given, gets the file's path for the skip message.
std::optional<cuzk::v1::SubmitProofRequest> real_8mib_porep_request(const std::string& request_id,
                                                                    std::string* path = nullptr);
// The same for Prove (Curio's ProveRequest wraps a SubmitProofRequest).
cuzk::v1::ProveRequest prove_request(const cuzk::v1::SubmitProofRequest& submit);

// Runs a program, waits for it (up to timeout: then it is killed, the test fails and -1 is
// returned) and returns its exit code; its stdout goes to *out when given.
int run_program(const std::vector<std::string>& argv, std::string* out = nullptr,
                std::chrono::seconds timeout = std::chrono::seconds(300));

// Polls until ready() holds or `patience` passes (then asks once more): a slow CI machine gets
// time, a fast one no sleep.
template <class Ready>
bool eventually(Ready ready, std::chrono::seconds patience = std::chrono::seconds(60)) {
  const auto deadline = std::chrono::steady_clock::now() + patience;
  while (std::chrono::steady_clock::now() < deadline) {
    if (ready()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return ready();
}

}  // namespace cuzk::test

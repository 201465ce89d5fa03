// Shared by issue 29's fault, flood and soak tests against a real cuzk-daemon: what "back to
// idle" means (no job active, every buffer counter of every stage 0, no a/b/c locked or kept,
// the budget holding only the resident parameter sets; read from the daemon's /status), the
// daemon's memory from /proc, a client process the test can kill in the middle of a call, and a
// relay whose connections the test can cut.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <poll.h>
#include <signal.h>
#include <string>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

#include <gtest/gtest.h>

#include "daemon_harness.hpp"

namespace cuzk::test {

inline nlohmann::json daemon_status(const DaemonProcess& d) {
  const std::string body = d.http_get("/status");
  return body.empty() ? nlohmann::json() : nlohmann::json::parse(body, nullptr, false);
}

// Waits (up to `patience`) until the engine has no active job and no buffer left in any stage,
// then checks every counter; returns the last document read.
inline nlohmann::json expect_daemon_idle(const DaemonProcess& d,
                                         std::chrono::seconds patience = std::chrono::seconds(60)) {
  nlohmann::json st;
  const auto deadline = std::chrono::steady_clock::now() + patience;
  do {
    st = daemon_status(d);
    if (st.is_object() && st["jobs"]["active"] == 0 && st["buffers"]["idle"] == true) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  } while (std::chrono::steady_clock::now() < deadline);
  if (!st.is_object()) {
    ADD_FAILURE() << "no /status document from the daemon";
    return st;
  }
  EXPECT_EQ(st["jobs"]["active"], 0) << st.dump(1);
  EXPECT_EQ(st["buffers"]["idle"], true) << st.dump(1);
  EXPECT_EQ(st["buffers"]["tracked_bytes"], 0);
  EXPECT_EQ(st["buffers"]["input_bytes"], 0);
  EXPECT_EQ(st["buffers"]["abc_pinned_bytes"], 0);
  EXPECT_EQ(st["buffers"]["abc_kept_bytes"], 0);
  for (auto& [stage, counters] : st["buffers"]["stages"].items()) {
    EXPECT_EQ(counters["partitions"], 0) << stage;
    EXPECT_EQ(counters["total_bytes"], 0) << stage;
  }
  EXPECT_EQ(st["queue"]["queued_partitions"], 0);
  EXPECT_EQ(st["queue"]["gpu_queue_depth"], 0);
  int64_t resident = 0;
  for (const auto& p : st["params"]) resident += p["host_bytes"].get<int64_t>();
  EXPECT_EQ(st["budget"]["used_bytes"].get<int64_t>(), resident) << "only resident parameters hold budget once idle";
  return st;
}

// A value from /proc/PID/status in bytes ("VmRSS", "VmHWM"); -1 when the process is gone.
inline int64_t proc_status_bytes(pid_t pid, const std::string& key) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/status");
  std::string k;
  int64_t kib = 0;
  std::string unit;
  while (f >> k) {
    if (k == key + ":") {
      f >> kib >> unit;
      return kib * 1024;
    }
    f.ignore(1 << 16, '\n');
  }
  return -1;
}

// The cuzk client (CUZK_CLIENT_BIN) as a process of its own, so that a test can kill it in the
// middle of a call: the daemon then sees its connection drop, as with a crashed Curio.
class ClientProcess {
 public:
  explicit ClientProcess(std::vector<std::string> argv) {
    argv.insert(argv.begin(), CUZK_CLIENT_BIN);
    std::vector<char*> args;
    for (std::string& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    pid_ = fork();
    if (pid_ == 0) {
      const int fd = open("/dev/null", O_WRONLY);
      dup2(fd, 1);
      dup2(fd, 2);
      execv(args[0], args.data());
      _exit(127);
    }
  }
  ClientProcess(const ClientProcess&) = delete;
  ClientProcess& operator=(const ClientProcess&) = delete;
  ~ClientProcess() { kill_now(); }
  void kill_now() {
    if (pid_ <= 0) return;
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

 private:
  pid_t pid_ = -1;
};

// A unix-socket relay in front of the daemon: a client connects to addr(), the relay passes the
// bytes on, and cut() closes every relayed connection at once, so the daemon sees its peer
// vanish in the middle of a call (a client host that died) while the test process lives on.
class SocketRelay {
 public:
  SocketRelay(const std::string& daemon_socket, const std::string& path) : target_(daemon_socket), path_(path) {
    listener_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const sockaddr_un a = address(path_);
    if (bind(listener_, reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0 || listen(listener_, 16) != 0) {
      ADD_FAILURE() << "relay: cannot listen on " << path_ << ": " << std::strerror(errno);
      return;
    }
    acceptor_ = std::thread([this] { accept_loop(); });
  }
  SocketRelay(const SocketRelay&) = delete;
  SocketRelay& operator=(const SocketRelay&) = delete;
  ~SocketRelay() {
    stop_ = true;
    cut();
    if (acceptor_.joinable()) acceptor_.join();
    for (auto& t : pumps_) t.join();
    close(listener_);
    unlink(path_.c_str());
  }
  std::string addr() const { return "unix:" + path_; }
  // Every connection relayed so far is shut down both ways (later ones are relayed again).
  void cut() {
    std::lock_guard lock(mutex_);
    for (int fd : open_) shutdown(fd, SHUT_RDWR);
  }

 private:
  static sockaddr_un address(const std::string& path) {
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::strncpy(a.sun_path, path.c_str(), sizeof a.sun_path - 1);
    return a;
  }
  void accept_loop() {
    while (!stop_) {
      pollfd p{listener_, POLLIN, 0};
      if (poll(&p, 1, 50) <= 0) continue;
      const int client = accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
      if (client < 0) continue;
      const int daemon = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
      const sockaddr_un a = address(target_);
      if (connect(daemon, reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0) {
        close(client);
        close(daemon);
        continue;
      }
      std::lock_guard lock(mutex_);
      open_.insert(open_.end(), {client, daemon});
      pumps_.emplace_back([this, client, daemon] { pump(client, daemon); });
    }
  }
  // Copies both ways until either side closes or the relay is cut.
  void pump(int client, int daemon) {
    char buf[1 << 16];
    for (bool open = true; open;) {
      pollfd p[2] = {{client, POLLIN, 0}, {daemon, POLLIN, 0}};
      if (poll(p, 2, 100) < 0) break;
      for (int i = 0; i < 2 && open; i++) {
        if (!p[i].revents) continue;
        const ssize_t n = read(p[i].fd, buf, sizeof buf);
        open = n > 0 && send(p[1 - i].fd, buf, size_t(n), MSG_NOSIGNAL) == n;
      }
    }
    std::lock_guard lock(mutex_);
    std::erase(open_, client);
    std::erase(open_, daemon);
    close(client);
    close(daemon);
  }

  std::string target_, path_;
  int listener_ = -1;
  std::atomic<bool> stop_{false};
  std::mutex mutex_;
  std::vector<int> open_;
  std::thread acceptor_;
  std::vector<std::thread> pumps_;
};

}  // namespace cuzk::test

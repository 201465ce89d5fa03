// cuzk-daemon's life: start the engine, the gRPC server and the HTTP status port; wait for a
// stop request; then stop accepting proofs, finish or cancel the ones in flight (shutdown mode),
// close the listeners and remove the socket.
#pragma once

#include <condition_variable>
#include <mutex>
#include <stdexcept>

#include "server/daemon_config.hpp"

namespace cuzk::engine {
class Engine;
}

namespace cuzk::server {

// The daemon could not start (engine configuration, listen address); what() says what to fix.
class StartupError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Daemon {
 public:
  explicit Daemon(DaemonConfig config);
  ~Daemon();
  Daemon(const Daemon&) = delete;
  Daemon& operator=(const Daemon&) = delete;

  // Serves until request_stop(), then shuts down in order. Throws StartupError.
  void run();
  // Thread-safe. force: cancel the proofs in flight whatever the shutdown mode says.
  void request_stop(bool force);

 private:
  // Makes the unix socket's directory (0700 for the default one, which must be ours and not
  // writable by others), takes the lock <path>.lock for the daemon's life and removes a stale
  // socket (one whose connect is refused); refuses a live or undecidable one.
  void prepare_socket_path(const std::string& path);

  // Removes <socket>.lock while still holding it, when the file there is still ours.
  void release_socket_lock();

  // In finish mode waits for the proofs in flight (up to shutdown_timeout_seconds, or until a
  // second signal); then shuts the engine down, cancelling what is left.
  void finish_or_cancel(engine::Engine& engine);

  DaemonConfig config_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool stop_ = false, force_ = false;
  int lock_fd_ = -1;  // flock on <socket>.lock, held while the daemon runs
  std::string lock_path_;
};

}  // namespace cuzk::server

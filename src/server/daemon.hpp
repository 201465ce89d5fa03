// cuzk-daemon's life: start the engine, the gRPC server and the HTTP status port; wait for a
// stop request; then stop accepting proofs, finish or cancel the ones in flight (shutdown mode),
// close the listeners and remove the socket.
#pragma once

#include <condition_variable>
#include <mutex>
#include <stdexcept>

#include "server/daemon_config.hpp"

namespace cuzk::server {

// The daemon could not start (engine configuration, listen address); what() says what to fix.
class StartupError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Daemon {
 public:
  explicit Daemon(DaemonConfig config);

  // Serves until request_stop(), then shuts down in order. Throws StartupError.
  void run();
  // Thread-safe. force: cancel the proofs in flight whatever the shutdown mode says.
  void request_stop(bool force);

 private:
  // Makes the unix socket's directory and refuses to take over a live daemon's socket.
  static void prepare_socket_path(const std::string& path);

  DaemonConfig config_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool stop_ = false, force_ = false;
};

}  // namespace cuzk::server

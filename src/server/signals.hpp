// SIGTERM and SIGINT for a multi-threaded daemon: they are blocked in every thread (the mask is
// inherited, so block them first thing in main) and taken by one waiting thread instead of an
// async handler, which could not safely lock or log.
#pragma once

#include <atomic>
#include <functional>
#include <thread>

namespace cuzk::server {

// Blocks SIGTERM and SIGINT in the calling thread and ignores SIGPIPE (writes to clients that
// went away must fail with EPIPE, not kill the daemon).
void block_shutdown_signals();

class ShutdownSignals {
 public:
  // on_signal(signal number, how many shutdown signals so far) runs on the waiting thread.
  explicit ShutdownSignals(std::function<void(int, int)> on_signal);
  ~ShutdownSignals();
  ShutdownSignals(const ShutdownSignals&) = delete;
  ShutdownSignals& operator=(const ShutdownSignals&) = delete;

 private:
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace cuzk::server

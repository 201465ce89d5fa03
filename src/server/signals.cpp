#include "server/signals.hpp"

#include <cerrno>
#include <ctime>
#include <signal.h>

namespace cuzk::server {

namespace {

sigset_t shutdown_set() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  return set;
}

}  // namespace

void block_shutdown_signals() {
  sigset_t set = shutdown_set();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  signal(SIGPIPE, SIG_IGN);
  // A write past RLIMIT_FSIZE (a file size limit set by the service manager) must fail that write
  // with EFBIG, which the parameter cache handles; SIGXFSZ's default action killed the daemon.
  signal(SIGXFSZ, SIG_IGN);
}

ShutdownSignals::ShutdownSignals(std::function<void(int, int)> on_signal) {
  thread_ = std::thread([this, on_signal = std::move(on_signal)] {
    sigset_t set = shutdown_set();
    int count = 0;
    while (!stop_) {
      // A timeout, so that the destructor can end the thread without sending it a signal.
      timespec timeout{0, 100'000'000};
      int sig = sigtimedwait(&set, nullptr, &timeout);
      if (sig > 0) on_signal(sig, ++count);
    }
  });
}

ShutdownSignals::~ShutdownSignals() {
  stop_ = true;
  thread_.join();
}

}  // namespace cuzk::server

#include "server/daemon_listeners.hpp"

#include <chrono>
#include <spdlog/spdlog.h>
#include <unistd.h>
#include <utility>

namespace cuzk::server {

DaemonListeners::DaemonListeners(std::unique_ptr<grpc::Server> server, ListenAddress address)
    : server_(std::move(server)), address_(std::move(address)) {}

void DaemonListeners::close() {
  if (!server_) return;
  server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  server_->Wait();
  spdlog::debug("gRPC server stopped");
  if (http_) http_->stop();
  spdlog::debug("HTTP status port stopped");
  if (address_.is_unix) {
    struct stat st {};
    if (lstat(address_.path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode) && st.st_dev == bound_.st_dev &&
        st.st_ino == bound_.st_ino) {
      unlink(address_.path.c_str());
    }
  }
  server_.reset();
}

}  // namespace cuzk::server

// What Daemon::run() serves on once the gRPC server has started: the server, the HTTP status port
// and the unix socket's file. close() stops them in one order, whichever way run() ends (a stop
// request, or a startup step that fails after the server started): the gRPC server first, so that
// waiting calls see their jobs ended and return within a wait slice (after 2 s the rest are cut
// off; this also bounds the wait for idle client connections to acknowledge the close); then the
// HTTP status port; then the socket file, when it is still the one bound.
#pragma once

#include <grpcpp/server.h>
#include <memory>
#include <sys/stat.h>

#include "server/address.hpp"
#include "server/http_status.hpp"

namespace cuzk::server {

class DaemonListeners {
 public:
  DaemonListeners(std::unique_ptr<grpc::Server> server, ListenAddress address);
  ~DaemonListeners() { close(); }
  DaemonListeners(const DaemonListeners&) = delete;
  DaemonListeners& operator=(const DaemonListeners&) = delete;

  // The socket file as bound (lstat): close() removes that file only, since another daemon may
  // have replaced it after this one lost it.
  void remember_socket(const struct stat& bound) { bound_ = bound; }
  void set_http(std::unique_ptr<HttpStatusServer> http) { http_ = std::move(http); }
  HttpStatusServer* http() const { return http_.get(); }

  // Stops everything in the order above; later calls do nothing.
  void close();

 private:
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<HttpStatusServer> http_;
  ListenAddress address_;
  struct stat bound_ {};
};

}  // namespace cuzk::server

// The HTTP status port (cpp-httplib): GET /status (JSON), GET /metrics (Prometheus text),
// GET /healthz (200 while serving, 503 while draining). Read-only; bind it to localhost or a
// trusted network.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>

namespace httplib {
class Server;
}

namespace cuzk::server {

class HttpStatusServer {
 public:
  struct Handlers {
    std::function<std::string()> status_json, metrics_text;
    std::function<bool()> draining;
  };
  // Binds host:port (port 0: any free port) and serves on a thread of its own. Throws
  // std::runtime_error when the address cannot be bound.
  HttpStatusServer(const std::string& host, uint16_t port, Handlers handlers);
  ~HttpStatusServer();  // stops and joins
  HttpStatusServer(const HttpStatusServer&) = delete;
  HttpStatusServer& operator=(const HttpStatusServer&) = delete;

  uint16_t port() const { return port_; }
  void stop();

 private:
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  uint16_t port_ = 0;
};

}  // namespace cuzk::server

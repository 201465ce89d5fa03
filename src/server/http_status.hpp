// The HTTP status port: GET /status (JSON), GET /metrics (Prometheus text), GET /healthz (200
// while serving, 503 while draining); the status page at / (its files under /ui/, built into the
// binary: status_page_assets.hpp) and what it reads beside /status: GET /status/history (its
// charts' last minutes) and GET /timeline?job=ID (a job's Chrome trace, as a download).
// Read-only; bind it to localhost or a trusted network.
//
// One thread runs a poll() loop over non-blocking sockets, so no client can hold it: a connection
// that sends nothing is closed at its deadline, and beyond the connection cap the oldest one is
// closed to make room (monitoring must answer with hundreds of idle connections open).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <thread>

namespace cuzk::server {

class HttpStatusServer {
 public:
  struct Handlers {
    std::function<std::string()> status_json, metrics_text;
    std::function<bool()> draining;
    // The page's data; either may be left empty (then 404). job_trace: nullopt for an unknown job.
    std::function<std::string()> history_json;
    std::function<std::optional<std::string>(const std::string& request_id)> job_trace;
  };
  struct Limits {
    // A connection must send its request, and take its answer, within this time of its last progress.
    std::chrono::milliseconds idle_timeout{5000};
    // Open connections at most; a new one beyond it closes the oldest.
    size_t max_connections = 1024;
    // Request line plus headers at most (GET only: no bodies).
    size_t max_request_bytes = 16 << 10;
  };
  // Binds host:port (port 0: any free port) and serves on a thread of its own. Throws
  // std::runtime_error when the address cannot be bound.
  HttpStatusServer(const std::string& host, uint16_t port, Handlers handlers);
  HttpStatusServer(const std::string& host, uint16_t port, Handlers handlers, Limits limits);
  ~HttpStatusServer();  // stops and joins
  HttpStatusServer(const HttpStatusServer&) = delete;
  HttpStatusServer& operator=(const HttpStatusServer&) = delete;

  uint16_t port() const { return port_; }
  void stop();

 private:
  void run();
  // The whole response (status line, headers, body) to one request's head.
  std::string respond(const std::string& head);

  Handlers handlers_;
  Limits limits_;
  int listen_fd_ = -1;
  int wake_fd_ = -1;  // eventfd: stop() wakes the loop
  std::atomic<bool> stopping_{false};
  std::thread thread_;
  uint16_t port_ = 0;
};

}  // namespace cuzk::server

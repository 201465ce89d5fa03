#include "server/http_status.hpp"

#include <chrono>
#include <httplib.h>
#include <spdlog/spdlog.h>
#include <stdexcept>

#include "server/metrics.hpp"

namespace cuzk::server {

HttpStatusServer::HttpStatusServer(const std::string& host, uint16_t port, Handlers h)
    : server_(std::make_unique<httplib::Server>()) {
  // Two threads are plenty for scrapes and status reads; the default pool is one per core.
  server_->new_task_queue = [] { return new httplib::ThreadPool(2); };
  server_->set_read_timeout(5, 0);
  server_->set_write_timeout(5, 0);
  server_->set_payload_max_length(64 << 10);  // GET only: no large bodies
  // A handler that throws must answer 500, not take the daemon down.
  auto guarded = [](std::function<void(httplib::Response&)> body) {
    return [body = std::move(body)](const httplib::Request&, httplib::Response& res) {
      try {
        body(res);
      } catch (const std::exception& e) {
        spdlog::error("http status: {}", e.what());
        res.status = 500;
        res.set_content(std::string("internal error: ") + e.what() + "\n", "text/plain");
      }
    };
  };
  server_->Get("/status",
               guarded([f = h.status_json](httplib::Response& res) { res.set_content(f(), "application/json"); }));
  server_->Get("/metrics", guarded([f = h.metrics_text](httplib::Response& res) {
                 res.set_content(f(), std::string(kPrometheusContentType));
               }));
  server_->Get("/healthz", guarded([f = h.draining](httplib::Response& res) {
                 bool draining = f();
                 res.status = draining ? 503 : 200;
                 res.set_content(draining ? "draining\n" : "ok\n", "text/plain");
               }));
  server_->set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (res.status == 404) res.set_content("not found; try /status, /metrics or /healthz\n", "text/plain");
  });
  int bound = port == 0 ? server_->bind_to_any_port(host) : (server_->bind_to_port(host, port) ? port : -1);
  if (bound <= 0) {
    throw std::runtime_error("cannot listen for HTTP status on " + host + ":" + std::to_string(port) +
                             " (address in use, or not an address of this machine?)");
  }
  port_ = uint16_t(bound);
  thread_ = std::thread([this] { server_->listen_after_bind(); });
  // stop() is a no-op until the server runs; wait so that an early stop() cannot be lost.
  while (!server_->is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

void HttpStatusServer::stop() {
  if (server_) server_->stop();
  if (thread_.joinable()) thread_.join();
}

HttpStatusServer::~HttpStatusServer() { stop(); }

}  // namespace cuzk::server

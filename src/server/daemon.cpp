#include "server/daemon.hpp"

#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>
#include <grpcpp/grpcpp.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <thread>
#include <unistd.h>

#include "engine/engine.hpp"
#include "server/address.hpp"
#include "server/http_status.hpp"
#include "server/service.hpp"
#include "server/size.hpp"

namespace cuzk::server {

using Clock = std::chrono::steady_clock;

Daemon::Daemon(DaemonConfig config) : config_(std::move(config)) {}

void Daemon::request_stop(bool force) {
  std::lock_guard lock(mutex_);
  stop_ = true;
  force_ = force_ || force;
  cv_.notify_all();
}

void Daemon::prepare_socket_path(const std::string& path) {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(path).parent_path();
  if (!dir.empty()) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) {
      throw StartupError("cannot create the socket directory " + dir.string() + ": " + ec.message() +
                         " (choose another with --listen unix:/writable/dir/cuzk.sock)");
    }
  }
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) return;  // nothing there
  if (!S_ISSOCK(st.st_mode)) {
    throw StartupError(path + " exists and is not a socket; remove it or choose another --listen path");
  }
  // A socket file: in use if something accepts connections on it, else left by a dead daemon.
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  bool live = fd >= 0 && connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  if (fd >= 0) close(fd);
  if (live) throw StartupError("another daemon is already listening on " + path);
  if (unlink(path.c_str()) != 0) {
    throw StartupError("cannot remove the stale socket " + path + ": " + std::strerror(errno));
  }
}

void Daemon::run() {
  ListenAddress addr;
  std::optional<ListenAddress> status_addr;
  try {
    addr = parse_address(config_.listen.empty() ? default_address() : config_.listen);
    if (!config_.status_listen.empty()) {
      status_addr = parse_address(config_.status_listen);
      if (status_addr->is_unix) throw std::invalid_argument("--status-listen takes host:port, not a unix socket");
    }
  } catch (const std::invalid_argument& e) {
    throw StartupError(e.what());
  }

  std::unique_ptr<engine::Engine> engine;
  try {
    engine = std::make_unique<engine::Engine>(config_.engine);
  } catch (const std::exception& e) {
    throw StartupError(std::string("cannot start the engine: ") + e.what());
  }
  if (addr.is_unix) prepare_socket_path(addr.path);

  ProvingService service(*engine, config_);
  grpc::ServerBuilder builder;
  int tcp_port = 0;
  builder.AddListeningPort(addr.grpc_target(), grpc::InsecureServerCredentials(), &tcp_port);
  builder.SetMaxReceiveMessageSize(int(std::min<uint64_t>(config_.max_request_bytes, INT_MAX)));
  grpc::ResourceQuota quota("cuzk-daemon");
  quota.SetMaxThreads(int(std::max(config_.max_rpc_threads, 4u)));
  builder.SetResourceQuota(quota);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || (!addr.is_unix && tcp_port == 0)) {
    throw StartupError("cannot listen on " + addr.to_string() + " (gRPC's reason is logged above)");
  }

  if (addr.is_unix && chmod(addr.path.c_str(), config_.socket_mode) != 0) {
    spdlog::warn("cannot set mode {} on {}: {}", format_socket_mode(config_.socket_mode), addr.path,
                 std::strerror(errno));
  }
  if (!addr.is_unix && addr.host != "127.0.0.1" && addr.host != "::1" && addr.host != "localhost") {
    spdlog::warn("listening on TCP {} without authentication or TLS: anyone who can reach it can submit proofs",
                 addr.to_string());
  }

  std::unique_ptr<HttpStatusServer> http;
  if (status_addr) {
    try {
      http = std::make_unique<HttpStatusServer>(
          status_addr->host, status_addr->port,
          HttpStatusServer::Handlers{[&] { return service.status_json(); }, [&] { return service.metrics_text(); },
                                     [&] { return service.draining(); }});
    } catch (const std::exception& e) {
      server->Shutdown();
      throw StartupError(e.what());
    }
  }
  spdlog::info("cuzk-daemon listening on {} (max request {}){}", addr.to_string(),
               format_size(config_.max_request_bytes),
               http ? fmt::format(", status on http://{}:{}/status and /metrics", status_addr->host, http->port())
                    : std::string());

  // Results nobody collects are dropped after result_ttl_seconds.
  std::thread janitor([&] {
    std::unique_lock lock(mutex_);
    while (!stop_) {
      cv_.wait_for(lock, std::chrono::seconds(5));
      lock.unlock();
      service.collect_expired();
      lock.lock();
    }
  });

  std::unique_lock lock(mutex_);
  cv_.wait(lock, [&] { return stop_; });
  lock.unlock();
  janitor.join();

  // 1. No new proofs from here on (calls get UNAVAILABLE); status calls keep working.
  service.begin_drain();
  // 2. Finish or cancel what was accepted.
  bool cancel = config_.shutdown_mode == ShutdownMode::kCancel;
  if (!cancel) {
    auto start = Clock::now();
    auto timeout = std::chrono::duration<double>(config_.shutdown_timeout_seconds);
    size_t active = engine->snapshot().jobs_active;
    if (active > 0) {
      spdlog::info("shutting down: finishing {} proof(s) in flight (up to {} s; signal again to cancel them)", active,
                   config_.shutdown_timeout_seconds);
    }
    lock.lock();
    while ((active = engine->snapshot().jobs_active) > 0 && !force_ &&
           (config_.shutdown_timeout_seconds == 0 || Clock::now() - start < timeout)) {
      cv_.wait_for(lock, std::chrono::milliseconds(200));
    }
    cancel = active > 0;
    lock.unlock();
  }
  if (cancel) spdlog::info("shutting down: cancelling {} proof(s) in flight", engine->snapshot().jobs_active);
  engine->shutdown(cancel);
  // 3. Waiting calls see their jobs ended and return within a wait slice; after 2 s the rest are
  // cut off (this also bounds the wait for idle client connections to acknowledge the close).
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  server->Wait();
  spdlog::debug("gRPC server stopped");
  if (http) http->stop();
  spdlog::debug("HTTP status port stopped");
  if (addr.is_unix) {
    struct stat st {};
    if (lstat(addr.path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode)) unlink(addr.path.c_str());
  }
  server.reset();
  engine.reset();
  spdlog::info("cuzk-daemon stopped");
}

}  // namespace cuzk::server

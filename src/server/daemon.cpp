#include "server/daemon.hpp"

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <grpcpp/grpcpp.h>
#include <spdlog/spdlog.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <thread>
#include <unistd.h>

#include "engine/engine.hpp"
#include "filecoin/parameter_files.hpp"
#include "kinds/filecoin_kinds.hpp"
#include "server/address.hpp"
#include "server/http_status.hpp"
#include "server/service.hpp"
#include "server/size.hpp"

namespace cuzk::server {

using Clock = std::chrono::steady_clock;

Daemon::Daemon(DaemonConfig config) : config_(std::move(config)) {}

Daemon::~Daemon() {
  if (lock_fd_ >= 0) ::close(lock_fd_);
}

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
    bool is_default = path == default_socket_path();
    // The default directory is private to the daemon's user; others are the operator's choice.
    if (is_default) {
      fs::create_directories(dir.parent_path(), ec);
      if (!ec && ::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
        ec = std::error_code(errno, std::generic_category());
      }
    } else {
      fs::create_directories(dir, ec);
    }
    if (ec) {
      throw StartupError("cannot create the socket directory " + dir.string() + ": " + ec.message() +
                         " (choose another with --listen unix:/writable/dir/cuzk.sock)");
    }
    if (is_default) {
      struct stat ds {};
      if (lstat(dir.c_str(), &ds) != 0 || !S_ISDIR(ds.st_mode)) {
        throw StartupError("the socket directory " + dir.string() + " is not a directory");
      }
      if (ds.st_uid != geteuid() || (ds.st_mode & 022) != 0) {
        throw StartupError("the socket directory " + dir.string() +
                           " is not owned by this user or is writable by others; remove it or choose another "
                           "--listen path");
      }
    }
  }
  // One daemon per socket path: the lock is held for the daemon's life, so two daemons
  // starting together cannot both decide that the socket is stale.
  std::string lock_path = path + ".lock";
  lock_fd_ = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (lock_fd_ < 0) throw StartupError("cannot open the lock file " + lock_path + ": " + std::strerror(errno));
  if (flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    int err = errno;
    if (err == EWOULDBLOCK) throw StartupError("another daemon is already serving (or starting on) " + path);
    throw StartupError("cannot lock " + lock_path + ": " + std::strerror(err));
  }
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) return;  // nothing there
  if (!S_ISSOCK(st.st_mode)) {
    throw StartupError(path + " exists and is not a socket; remove it or choose another --listen path");
  }
  // A socket file: in use if something accepts connections on it; stale only if the connection
  // is refused (nobody listens). Any other failure (EACCES, ...) means we cannot tell: refuse.
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw StartupError(std::string("cannot create a unix socket: ") + std::strerror(errno));
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  int rc = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  int err = errno;
  close(fd);
  if (rc == 0) throw StartupError("another daemon is already listening on " + path);
  if (err != ECONNREFUSED) {
    throw StartupError("cannot tell whether " + path + " is in use (" + std::strerror(err) +
                       "); remove it or choose another --listen path");
  }
  if (unlink(path.c_str()) != 0) {
    throw StartupError("cannot remove the stale socket " + path + ": " + std::strerror(errno));
  }
}

namespace {

// Writes the bound addresses to path atomically (a temporary file renamed over it).
void write_ready_file(const std::string& path, const std::string& grpc_target, int http_port) {
  std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::trunc);
    f << "grpc " << grpc_target << "\nhttp " << http_port << "\n";
    f.flush();
    if (!f) throw StartupError("cannot write the ready file " + tmp);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    throw StartupError("cannot rename " + tmp + " to " + path + ": " + std::strerror(errno));
  }
}

// The engine's settings plus where Filecoin's parameter sets come from ([srs]).
engine::EngineConfig engine_config(const DaemonConfig& c) {
  engine::EngineConfig e = c.engine;
  kinds::FilecoinParameterOptions files;
  files.param_cache = c.srs.param_cache;
  files.verify_digest = c.srs.verify_digest;
  files.allow_test_parameters = c.srs.allow_test_parameters;
  files.test_dir = c.engine.param_cache_dir;
  files.log = [](const std::string& line) { spdlog::warn("{}", line); };
  e.parameter_sources.push_back(kinds::filecoin_parameter_source(files));

  std::string dirs = c.srs.param_cache.empty() ? "" : c.srs.param_cache + ", then ";
  if (const char* env = std::getenv(std::string(filecoin::kParameterCacheEnv).c_str()); env && *env) {
    dirs += std::string(env) + " ($" + std::string(filecoin::kParameterCacheEnv) + "), then ";
  }
  dirs += std::string(filecoin::kDefaultParameterCacheDir);
  spdlog::info("Filecoin parameter files are looked for in {} (digests {})", dirs,
               c.srs.verify_digest ? "checked on first load" : "NOT checked: srs.verify_digest = false");
  if (c.srs.allow_test_parameters) {
    spdlog::warn(
        "srs.allow_test_parameters is on: a Filecoin circuit whose published parameters are absent is proved with "
        "TEST parameters of our own setup (cached in {}); such proofs verify against their own key only, NEVER on "
        "chain",
        c.engine.param_cache_dir);
  }
  return e;
}

}  // namespace

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
    engine = std::make_unique<engine::Engine>(engine_config(config_));
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
  // The socket is created private (umask 077) and opened up to socket_mode only by chmod, so it is
  // never reachable with wider permissions than asked for.
  mode_t old_umask = ::umask(077);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  ::umask(old_umask);
  if (!server || (!addr.is_unix && tcp_port == 0)) {
    throw StartupError("cannot listen on " + addr.to_string() + " (gRPC's reason is logged above)");
  }
  struct stat bound {};
  if (addr.is_unix) {
    if (lstat(addr.path.c_str(), &bound) != 0 || chmod(addr.path.c_str(), config_.socket_mode) != 0) {
      std::string why = std::strerror(errno);
      server->Shutdown();
      throw StartupError("cannot set mode " + format_socket_mode(config_.socket_mode) + " on " + addr.path + ": " +
                         why);
    }
  }
  ListenAddress bound_addr = addr;
  if (!addr.is_unix) bound_addr.port = uint16_t(tcp_port);
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
  if (!config_.ready_file.empty()) {
    try {
      write_ready_file(config_.ready_file, bound_addr.grpc_target(), http ? http->port() : 0);
    } catch (const StartupError&) {
      if (http) http->stop();
      server->Shutdown();
      throw;
    }
  }
  spdlog::info("cuzk-daemon listening on {} (max request {}){}", bound_addr.to_string(),
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
    // Only our own socket: another daemon may have replaced it since (after we lost it).
    if (lstat(addr.path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode) && st.st_dev == bound.st_dev &&
        st.st_ino == bound.st_ino) {
      unlink(addr.path.c_str());
    }
  }
  server.reset();
  engine.reset();
  if (lock_fd_ >= 0) {
    ::close(lock_fd_);  // releases the lock
    lock_fd_ = -1;
  }
  spdlog::info("cuzk-daemon stopped");
}

}  // namespace cuzk::server

#include "server/daemon.hpp"

#include <arpa/inet.h>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <grpcpp/grpcpp.h>
#include <grpcpp/security/server_credentials.h>
#include <malloc.h>
#include <memory>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <optional>
#include <spdlog/spdlog.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <thread>
#include <unistd.h>
#include <vector>

#include "engine/engine.hpp"
#include "filecoin/parameter_files.hpp"
#include "kinds/filecoin_kinds.hpp"
#include "server/address.hpp"
#include "server/daemon_listeners.hpp"
#include "server/http_status.hpp"
#include "server/journal.hpp"
#include "server/platform_dirs.hpp"
#include "server/service.hpp"
#include "server/size.hpp"
#include "server/status_history.hpp"
#include "server/unix_time.hpp"

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
  // starting together cannot both decide that the socket is stale. A clean shutdown removes the
  // file while holding it; a daemon that locked a file someone removed meanwhile tries again, so
  // that it never holds a lock no other daemon can see.
  const std::string lock_path = path + ".lock";
  for (int attempt = 0;; attempt++) {
    lock_fd_ = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (lock_fd_ < 0) throw StartupError("cannot open the lock file " + lock_path + ": " + std::strerror(errno));
    if (flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
      int err = errno;
      ::close(lock_fd_);
      lock_fd_ = -1;
      if (err == EWOULDBLOCK) throw StartupError("another daemon is already serving (or starting on) " + path);
      throw StartupError("cannot lock " + lock_path + ": " + std::strerror(err));
    }
    struct stat held {
    }, named{};
    if (fstat(lock_fd_, &held) == 0 && stat(lock_path.c_str(), &named) == 0 && held.st_dev == named.st_dev &&
        held.st_ino == named.st_ino) {
      break;
    }
    ::close(lock_fd_);
    lock_fd_ = -1;
    if (attempt == 3)
      throw StartupError("the lock file " + lock_path + " keeps being replaced; is another daemon starting?");
  }
  lock_path_ = lock_path;
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
  spdlog::info("Filecoin parameter files are looked for in {} (digests {})", kinds::parameter_search(files).describe(),
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

// 127.0.0.0/8, ::1 (also as ::ffff:127.x.y.z) and the name localhost: reachable from this machine only.
bool is_loopback_host(const std::string& host) {
  std::string lower;
  for (char c : host) lower += char(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "localhost" || lower == "localhost.") return true;
  in_addr v4{};
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  if (inet_pton(AF_INET6, host.c_str(), &v6) == 1) {
    if (IN6_IS_ADDR_LOOPBACK(&v6)) return true;
    return IN6_IS_ADDR_V4MAPPED(&v6) && v6.s6_addr[12] == 127;
  }
  return false;
}

// OpenSSL's reason for the last failure, or "" (and clears its error queue).
std::string openssl_reason() {
  std::string why;
  while (unsigned long e = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    why = buf;  // the last one is the most specific
  }
  return why.empty() ? "" : " (" + why + ")";
}

// The whole of a PEM file named by a setting; throws StartupError naming the setting and the file.
std::string read_tls_file(std::string_view setting, const std::string& path) {
  std::string where = std::string(setting) + " " + path;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw StartupError("cannot read " + where + ": " + std::strerror(errno));
  std::string text;
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw StartupError("cannot read " + where + ": not a regular file");
  }
  char buf[8192];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      std::string why = std::strerror(errno);
      ::close(fd);
      throw StartupError("cannot read " + where + ": " + why);
    }
    if (n == 0) break;
    text.append(buf, size_t(n));
    if (text.size() > (size_t(16) << 20)) {
      ::close(fd);
      throw StartupError(where + " is larger than 16 MiB: not a PEM file");
    }
  }
  ::close(fd);
  return text;
}

struct Bio {
  BIO* b;
  explicit Bio(const std::string& text) : b(BIO_new_mem_buf(text.data(), int(text.size()))) {}
  ~Bio() { BIO_free(b); }
  Bio(const Bio&) = delete;
  Bio& operator=(const Bio&) = delete;
};

// The certificates of a PEM text, in order; none if it holds no PEM certificate.
std::vector<X509*> pem_certificates(const std::string& text) {
  std::vector<X509*> certs;
  Bio bio(text);
  while (X509* c = PEM_read_bio_X509(bio.b, nullptr, nullptr, nullptr)) certs.push_back(c);
  ERR_clear_error();  // the end of the text reads as an error
  return certs;
}

void free_certificates(std::vector<X509*>& certs) {
  for (X509* c : certs) X509_free(c);
  certs.clear();
}

// gRPC's TLS credentials from daemon.tls_cert, tls_key and tls_client_ca, checked first so that a
// wrong file is named at start rather than found at the first handshake.
std::shared_ptr<grpc::ServerCredentials> tls_credentials(const DaemonConfig& c) {
  const std::string cert_pem = read_tls_file("daemon.tls_cert (--tls-cert)", c.tls_cert);
  const std::string key_pem = read_tls_file("daemon.tls_key (--tls-key)", c.tls_key);
  std::vector<X509*> certs = pem_certificates(cert_pem);
  if (certs.empty()) {
    throw StartupError("daemon.tls_cert (--tls-cert) " + c.tls_cert +
                       " holds no PEM certificate (expected -----BEGIN CERTIFICATE-----)");
  }
  EVP_PKEY* key = nullptr;
  {
    Bio bio(key_pem);
    // No passphrase callback: gRPC takes unencrypted keys only.
    key = PEM_read_bio_PrivateKey(
        bio.b, nullptr, [](char*, int, int, void*) { return 0; }, nullptr);
  }
  if (!key) {
    std::string why = openssl_reason();
    free_certificates(certs);
    throw StartupError("daemon.tls_key (--tls-key) " + c.tls_key +
                       " is not an unencrypted PEM private key (expected -----BEGIN PRIVATE KEY----- or "
                       "-----BEGIN RSA/EC PRIVATE KEY-----)" +
                       why);
  }
  bool matches = X509_check_private_key(certs[0], key) == 1;
  std::string why = openssl_reason();
  bool expired = X509_cmp_current_time(X509_get0_notAfter(certs[0])) < 0;
  bool not_yet = X509_cmp_current_time(X509_get0_notBefore(certs[0])) > 0;
  EVP_PKEY_free(key);
  free_certificates(certs);
  if (!matches) {
    throw StartupError("daemon.tls_key (--tls-key) " + c.tls_key +
                       " is not the private key of the certificate in daemon.tls_cert (--tls-cert) " + c.tls_cert +
                       why);
  }
  if (expired || not_yet) {
    spdlog::warn("the certificate in daemon.tls_cert {} is {}: clients will refuse it", c.tls_cert,
                 expired ? "expired" : "not valid yet");
  }
  struct stat st {};
  if (stat(c.tls_key.c_str(), &st) == 0 && (st.st_mode & 004) != 0) {
    spdlog::warn("the private key daemon.tls_key {} is readable by every user; chmod 600 it", c.tls_key);
  }

  grpc::SslServerCredentialsOptions options(GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
  options.pem_key_cert_pairs.push_back({key_pem, cert_pem});
  if (!c.tls_client_ca.empty()) {
    std::string ca_pem = read_tls_file("daemon.tls_client_ca (--tls-client-ca)", c.tls_client_ca);
    std::vector<X509*> cas = pem_certificates(ca_pem);
    bool any = !cas.empty();
    free_certificates(cas);
    if (!any) {
      throw StartupError("daemon.tls_client_ca (--tls-client-ca) " + c.tls_client_ca +
                         " holds no PEM certificate (expected -----BEGIN CERTIFICATE-----)");
    }
    options.pem_root_certs = ca_pem;
    options.client_certificate_request = GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY;
  }
  return grpc::SslServerCredentials(options);
}

// The credentials of the gRPC listener: TLS when configured on TCP; otherwise plain text. A plain
// TCP listener other machines may reach starts only because the operator wrote its address (the
// default is a unix socket), as Curio's example file does for Curio's client, which cannot speak
// TLS: *insecure says so, for the warning, /status and /metrics.
std::shared_ptr<grpc::ServerCredentials> listener_credentials(const DaemonConfig& c, const ListenAddress& addr,
                                                              bool* insecure) {
  *insecure = false;
  bool any_tls = !c.tls_cert.empty() || !c.tls_key.empty() || !c.tls_client_ca.empty();
  if (addr.is_unix) {
    if (any_tls) {
      spdlog::warn(
          "daemon.tls_cert, tls_key and tls_client_ca are ignored: the daemon listens on the unix socket {}, which "
          "never uses TLS (its mode, daemon.socket_mode, decides who connects); TLS needs listen = host:port",
          addr.path);
    }
    return grpc::InsecureServerCredentials();
  }
  if (c.tls_cert.empty() != c.tls_key.empty()) {
    throw StartupError(
        std::string("TLS needs both daemon.tls_cert (--tls-cert) and daemon.tls_key (--tls-key); only ") +
        (c.tls_cert.empty() ? "tls_key" : "tls_cert") + " is set");
  }
  if (!c.tls_client_ca.empty() && c.tls_cert.empty()) {
    throw StartupError(
        "daemon.tls_client_ca (--tls-client-ca) needs TLS: give daemon.tls_cert (--tls-cert) and daemon.tls_key "
        "(--tls-key) too");
  }
  if (!c.tls_cert.empty()) return tls_credentials(c);
  if (!is_loopback_host(addr.host)) {
    *insecure = true;
    spdlog::warn(
        "listening on TCP {} without TLS or client authentication: anyone who can reach this address can submit, "
        "read and cancel proofs. Keep it on a trusted network behind a firewall (Curio's client speaks plain gRPC), "
        "or serve TLS with daemon.tls_cert and daemon.tls_key (--tls-cert, --tls-key), mutual TLS with "
        "daemon.tls_client_ca (--tls-client-ca), or listen on a unix socket (the default){}",
        addr.to_string(),
        c.allow_insecure_tcp ? "" : "; daemon.allow_insecure_tcp = true records that this is intended");
  }
  return grpc::InsecureServerCredentials();
}

// The journal of accepted jobs in daemon.spool_dir; null when the spool is off.
std::unique_ptr<Journal> open_spool(const DaemonConfig& config) {
  std::string spool = resolve_spool_dir(config.spool_dir, config.engine.param_cache_dir);
  if (spool.empty()) {
    spdlog::warn(
        "daemon.spool_dir is off: accepted jobs are not journaled and are lost if the daemon stops or crashes");
    return nullptr;
  }
  std::unique_ptr<Journal> journal;
  try {
    journal = std::make_unique<Journal>(spool);
  } catch (const JournalError& e) {
    throw StartupError(std::string("daemon.spool_dir (--spool-dir): ") + e.what());
  }
  spdlog::info("accepted jobs are journaled in {}", spool);
  return journal;
}

}  // namespace

void Daemon::finish_or_cancel(engine::Engine& engine) {
  bool cancel = config_.shutdown_mode == ShutdownMode::kCancel;
  if (!cancel) {
    auto start = Clock::now();
    auto timeout = std::chrono::duration<double>(config_.shutdown_timeout_seconds);
    size_t active = engine.snapshot().jobs_active;
    if (active > 0) {
      spdlog::info("shutting down: finishing {} proof(s) in flight (up to {} s; signal again to cancel them)", active,
                   config_.shutdown_timeout_seconds);
    }
    std::unique_lock lock(mutex_);
    while ((active = engine.snapshot().jobs_active) > 0 && !force_ &&
           (config_.shutdown_timeout_seconds == 0 || Clock::now() - start < timeout)) {
      cv_.wait_for(lock, std::chrono::milliseconds(200));
    }
    cancel = active > 0;
  }
  if (cancel) spdlog::info("shutting down: cancelling {} proof(s) in flight", engine.snapshot().jobs_active);
  engine.shutdown(cancel);
}

void Daemon::run() {
  resolve_default_dirs(config_);  // "auto" directories: absolute, whatever the working directory
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
  // Before the engine starts: a TLS file or an exposed listener is refused at once.
  bool insecure = false;
  std::shared_ptr<grpc::ServerCredentials> credentials = listener_credentials(config_, addr, &insecure);
  const bool tls = !addr.is_unix && !config_.tls_cert.empty();

  // The status page's history: before the engine, which tells it of every job that ends.
  StatusHistory history;
  std::unique_ptr<engine::Engine> engine;
  try {
    engine::EngineConfig engine_cfg = engine_config(config_);
    engine_cfg.on_job_ended = [&history](const engine::JobStatus& job) { history.job_ended(job, unix_ms_now()); };
    engine = std::make_unique<engine::Engine>(std::move(engine_cfg));
  } catch (const std::exception& e) {
    throw StartupError(std::string("cannot start the engine: ") + e.what());
  }
  // After the engine, so that it stops first however run() ends (and before engine.reset() below).
  std::optional<HistorySampler> sampler;
  if (status_addr) sampler.emplace(history, [&engine] { return engine->snapshot(); });
  if (addr.is_unix) prepare_socket_path(addr.path);

  // The spool, after the socket's lock (a second daemon on the same socket is refused for that).
  std::unique_ptr<Journal> journal = open_spool(config_);

  ProvingService service(*engine, config_, journal.get());
  // Before serving: the jobs of the previous run first, in their order.
  try {
    service.resume_from_spool();
  } catch (const JournalError& e) {
    throw StartupError(std::string("daemon.spool_dir (--spool-dir): ") + e.what());
  }
  grpc::ServerBuilder builder;
  int tcp_port = 0;
  builder.AddListeningPort(addr.grpc_target(), credentials, &tcp_port);
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
  // From here on, however run() ends, the listeners stop in one order (daemon_listeners.hpp).
  DaemonListeners listeners(std::move(server), addr);
  if (addr.is_unix) {
    struct stat bound {};
    if (lstat(addr.path.c_str(), &bound) != 0 || chmod(addr.path.c_str(), config_.socket_mode) != 0) {
      throw StartupError("cannot set mode " + format_socket_mode(config_.socket_mode) + " on " + addr.path + ": " +
                         std::strerror(errno));
    }
    listeners.remember_socket(bound);
  }
  ListenAddress bound_addr = addr;
  if (!addr.is_unix) bound_addr.port = uint16_t(tcp_port);
  service.set_listener({bound_addr.to_string(), tls, tls && !config_.tls_client_ca.empty(), insecure});

  if (status_addr) {
    try {
      listeners.set_http(std::make_unique<HttpStatusServer>(
          status_addr->host, status_addr->port,
          HttpStatusServer::Handlers{[&] { return service.status_json(); }, [&] { return service.metrics_text(); },
                                     [&] { return service.draining(); }, [&] { return history.json(unix_ms_now()); },
                                     [&](const std::string& id) { return engine->job_trace(id); }}));
    } catch (const std::exception& e) {
      throw StartupError(e.what());
    }
  }
  HttpStatusServer* http = listeners.http();
  if (!config_.ready_file.empty()) {
    write_ready_file(config_.ready_file, bound_addr.grpc_target(), http ? http->port() : 0);
  }
  spdlog::info("cuzk-daemon listening on {}{} (max request {}){}", bound_addr.to_string(),
               tls ? (config_.tls_client_ca.empty() ? " with TLS" : " with TLS, client certificates required")
                   : (addr.is_unix ? "" : " without TLS"),
               format_size(config_.max_request_bytes),
               http ? fmt::format(", status page on http://{}:{}/ (JSON at /status, metrics at /metrics)",
                                  status_addr->host, http->port())
                    : std::string());

  // Results nobody collects are dropped after result_ttl_seconds. Memory the allocator holds free
  // (gRPC's buffers of a refused oversized request: 130 MB after one of 279 MB) goes back to the
  // system; glibc would keep it for the process.
  std::thread janitor([&] {
    std::unique_lock lock(mutex_);
    while (!stop_) {
      cv_.wait_for(lock, std::chrono::seconds(5));
      lock.unlock();
      service.collect_expired();
      malloc_trim(0);
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
  finish_or_cancel(*engine);
  // 3. The listeners, as on every way out of run(): waiting calls see their jobs ended.
  listeners.close();
  service.close_journal();  // the results of the last jobs, while the engine still holds them
  sampler.reset();
  engine.reset();
  release_socket_lock();
  spdlog::info("cuzk-daemon stopped");
}

void Daemon::release_socket_lock() {
  if (lock_fd_ < 0) return;
  struct stat held {
  }, named{};
  if (!lock_path_.empty() && fstat(lock_fd_, &held) == 0 && stat(lock_path_.c_str(), &named) == 0 &&
      held.st_dev == named.st_dev && held.st_ino == named.st_ino) {
    unlink(lock_path_.c_str());
  }
  ::close(lock_fd_);  // releases the lock
  lock_fd_ = -1;
}

}  // namespace cuzk::server

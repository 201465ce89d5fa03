#include "server/http_status.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <list>
#include <netdb.h>
#include <netinet/in.h>
#include <optional>
#include <poll.h>
#include <spdlog/spdlog.h>
#include <stdexcept>
#include <string_view>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>
#include <vector>

#include "server/metrics.hpp"
#include "server/status_page_assets.hpp"

namespace cuzk::server {

namespace {

using Clock = std::chrono::steady_clock;

struct Connection {
  int fd = -1;
  std::string in;   // the request head so far
  std::string out;  // the response left to send
  size_t sent = 0;  // bytes of `out` sent
  bool answered = false;
  Clock::time_point deadline;
};

std::string reason(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
  }
  return "Status";
}

// extra_headers: whole lines, each ending in \r\n.
std::string response(int status, const std::string& type, std::string_view body, bool head_only = false,
                     const std::string& extra_headers = {}) {
  std::string r = "HTTP/1.1 " + std::to_string(status) + " " + reason(status) + "\r\nContent-Type: " + type +
                  "\r\nContent-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n";
  if (status == 405) r += "Allow: GET, HEAD\r\n";
  r += extra_headers;
  r += "\r\n";
  if (!head_only) r += body;
  return r;
}

// The value of `key` in a query string ("a=1&job=x"), %XX and '+' decoded; nullopt when absent.
std::optional<std::string> query_value(std::string_view query, std::string_view key) {
  while (!query.empty()) {
    const size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    const size_t eq = pair.find('=');
    if (pair.substr(0, eq) != key) continue;
    const std::string_view raw = eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1);
    std::string out;
    for (size_t i = 0; i < raw.size(); i++) {
      if (raw[i] == '%' && i + 2 < raw.size() && std::isxdigit(uint8_t(raw[i + 1])) &&
          std::isxdigit(uint8_t(raw[i + 2]))) {
        out += char(std::stoi(std::string(raw.substr(i + 1, 2)), nullptr, 16));
        i += 2;
      } else {
        out += raw[i] == '+' ? ' ' : raw[i];
      }
    }
    return out;
  }
  return std::nullopt;
}

// A file name made of the id's safe characters (the engine's ids are letters, digits, '.', '_', '-').
std::string download_name(const std::string& id) {
  std::string name = "cuzk-job-";
  for (char c : id) name += std::isalnum(uint8_t(c)) || c == '.' || c == '_' || c == '-' ? c : '_';
  return name + ".trace.json";
}

}  // namespace

HttpStatusServer::HttpStatusServer(const std::string& host, uint16_t port, Handlers handlers)
    : HttpStatusServer(host, port, std::move(handlers), Limits{}) {}

HttpStatusServer::HttpStatusServer(const std::string& host, uint16_t port, Handlers handlers, Limits limits)
    : handlers_(std::move(handlers)), limits_(limits) {
  auto fail = [&](const std::string& why) {
    if (listen_fd_ >= 0) ::close(listen_fd_);
    throw std::runtime_error("cannot listen for HTTP status on " + host + ":" + std::to_string(port) + ": " + why +
                             " (address in use, or not an address of this machine?)");
  };
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  std::string service = std::to_string(port);
  if (int rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &found); rc != 0) fail(gai_strerror(rc));
  std::string why = "no address";
  for (addrinfo* ai = found; ai; ai = ai->ai_next) {
    int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) {
      why = std::strerror(errno);
      continue;
    }
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && ::listen(fd, 512) == 0) {
      listen_fd_ = fd;
      break;
    }
    why = std::strerror(errno);
    ::close(fd);
  }
  freeaddrinfo(found);
  if (listen_fd_ < 0) fail(why);
  sockaddr_storage bound{};
  socklen_t len = sizeof bound;
  getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&bound), &len);
  port_ = ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                            : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ < 0) fail(std::string("eventfd: ") + std::strerror(errno));
  thread_ = std::thread([this] { run(); });
}

std::string HttpStatusServer::respond(const std::string& head) {
  // "GET /path?query HTTP/1.1"
  size_t line_end = head.find("\r\n");
  std::string line = head.substr(0, line_end);
  size_t sp1 = line.find(' '), sp2 = line.rfind(' ');
  if (sp1 == std::string::npos || sp2 == sp1 || line.compare(sp2 + 1, 5, "HTTP/") != 0) {
    return response(400, "text/plain", "bad request\n");
  }
  std::string method = line.substr(0, sp1), target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  const size_t query_at = target.find('?');
  std::string path = target.substr(0, target.find_first_of("?#"));
  const std::string query =
      query_at == std::string::npos ? std::string() : target.substr(query_at + 1, target.find('#') - query_at - 1);
  bool head_only = method == "HEAD";
  if (method != "GET" && !head_only) return response(405, "text/plain", "only GET and HEAD\n");
  // A handler that throws must answer 500, not take the daemon down.
  try {
    if (path == "/status") return response(200, "application/json", handlers_.status_json(), head_only);
    if (path == "/metrics") {
      return response(200, std::string(kPrometheusContentType), handlers_.metrics_text(), head_only);
    }
    if (path == "/healthz") {
      bool draining = handlers_.draining();
      return response(draining ? 503 : 200, "text/plain", draining ? "draining\n" : "ok\n", head_only);
    }
    if (const StatusPageAsset* asset = find_status_page_asset(path)) {
      return response(200, std::string(asset->content_type), asset->body, head_only,
                      "Cache-Control: no-cache\r\nX-Content-Type-Options: nosniff\r\n");
    }
    if (path == "/status/history" && handlers_.history_json) {
      return response(200, "application/json", handlers_.history_json(), head_only, "Cache-Control: no-store\r\n");
    }
    if (path == "/timeline" && handlers_.job_trace) {
      const std::optional<std::string> id = query_value(query, "job");
      if (!id || id->empty()) return response(400, "text/plain", "say which job: /timeline?job=ID\n", head_only);
      std::optional<std::string> trace = handlers_.job_trace(*id);
      if (!trace) {
        return response(404, "text/plain", "no job '" + *id + "' is kept (running, or among the last ended)\n",
                        head_only);
      }
      return response(
          200, "application/json", *trace, head_only,
          "Cache-Control: no-store\r\nContent-Disposition: attachment; filename=\"" + download_name(*id) + "\"\r\n");
    }
  } catch (const std::exception& e) {
    spdlog::error("http status: {}", e.what());
    return response(500, "text/plain", std::string("internal error: ") + e.what() + "\n", head_only);
  }
  return response(404, "text/plain", "not found; try /status, /metrics, /healthz, or / for the status page\n",
                  head_only);
}

void HttpStatusServer::run() {
  // Oldest first: the front is the one to close when the cap is reached.
  std::list<Connection> conns;
  std::vector<pollfd> fds;
  std::vector<std::list<Connection>::iterator> which;
  auto close_conn = [&](std::list<Connection>::iterator it) {
    ::close(it->fd);
    return conns.erase(it);
  };
  while (!stopping_.load()) {
    fds.clear();
    which.clear();
    fds.push_back({wake_fd_, POLLIN, 0});
    fds.push_back({listen_fd_, POLLIN, 0});
    Clock::time_point next = Clock::now() + std::chrono::seconds(60);
    for (auto it = conns.begin(); it != conns.end(); ++it) {
      fds.push_back({it->fd, short(it->answered ? POLLOUT : POLLIN), 0});
      which.push_back(it);
      next = std::min(next, it->deadline);
    }
    auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(next - Clock::now()).count();
    int n = ::poll(fds.data(), fds.size(), int(std::clamp<int64_t>(wait + 1, 0, 60'000)));
    if (n < 0 && errno != EINTR) {
      spdlog::error("http status: poll failed: {}", std::strerror(errno));
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (stopping_.load()) break;
    Clock::time_point now = Clock::now();
    // Requests and answers first, so that a connection ready now is not closed as expired.
    for (size_t i = 0; n > 0 && i < which.size(); i++) {
      short ev = fds[i + 2].revents;
      if (ev == 0) continue;
      Connection& c = *which[i];
      bool done = false;
      if (!c.answered && (ev & (POLLIN | POLLHUP | POLLERR))) {
        char buf[4096];
        ssize_t got = ::recv(c.fd, buf, sizeof buf, 0);
        if (got > 0) {
          c.in.append(buf, size_t(got));
          c.deadline = now + limits_.idle_timeout;
          size_t end = c.in.find("\r\n\r\n");
          if (end != std::string::npos) {
            c.out = respond(c.in.substr(0, end));
            c.answered = true;
          } else if (c.in.size() > limits_.max_request_bytes) {
            c.out = response(431, "text/plain", "request head too large\n");
            c.answered = true;
          }
        } else if (got == 0 || (errno != EAGAIN && errno != EINTR)) {
          done = true;
        }
      }
      if (!done && c.answered && c.sent < c.out.size()) {
        ssize_t put = ::send(c.fd, c.out.data() + c.sent, c.out.size() - c.sent, MSG_NOSIGNAL);
        if (put > 0) {
          c.sent += size_t(put);
          c.deadline = now + limits_.idle_timeout;
        } else if (put < 0 && errno != EAGAIN && errno != EINTR) {
          done = true;
        }
      }
      if (done || (c.answered && c.sent == c.out.size())) {
        // Answered in full: Connection: close.
        ::shutdown(c.fd, SHUT_WR);
        close_conn(which[i]);
      }
    }
    for (auto it = conns.begin(); it != conns.end();) {
      it = it->deadline <= now ? close_conn(it) : std::next(it);
    }
    if (fds[1].revents & POLLIN) {
      // Everything queued, so that a burst of idle connections cannot starve new ones.
      while (true) {
        int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0 && (errno == EMFILE || errno == ENFILE) && !conns.empty()) {
          // Out of descriptors: the oldest connection makes room, else the listener would spin.
          close_conn(conns.begin());
          continue;
        }
        if (fd < 0) break;  // EAGAIN, or a transient failure: poll again
        if (conns.size() >= limits_.max_connections) close_conn(conns.begin());
        conns.push_back(Connection{fd, {}, {}, 0, false, now + limits_.idle_timeout});
      }
    }
  }
  for (auto it = conns.begin(); it != conns.end();) it = close_conn(it);
}

void HttpStatusServer::stop() {
  stopping_.store(true);
  if (wake_fd_ >= 0) {
    uint64_t one = 1;
    [[maybe_unused]] ssize_t w = ::write(wake_fd_, &one, sizeof one);
  }
  if (thread_.joinable()) thread_.join();
  if (listen_fd_ >= 0) ::close(listen_fd_), listen_fd_ = -1;
  if (wake_fd_ >= 0) ::close(wake_fd_), wake_fd_ = -1;
}

HttpStatusServer::~HttpStatusServer() { stop(); }

}  // namespace cuzk::server

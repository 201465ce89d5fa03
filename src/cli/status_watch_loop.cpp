// `cuzk status --watch`: GetStatus every --interval seconds, drawn by status_watch.cpp's
// renderer. On a terminal each picture replaces the last on the alternate screen, fitted to the
// window; into a pipe or file each is a plain-text snapshot under a timestamp line. SIGINT,
// SIGTERM and SIGHUP end it with exit code 0 and the terminal as it was. A daemon that does not
// answer the first call is an error (exit code as `cuzk status`: most likely a wrong --addr); one
// that goes away later is shown as unreachable and asked again every interval, so that a watch
// outlives a daemon's restart.
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fmt/format.h>
#include <grpcpp/grpcpp.h>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sys/ioctl.h>
#include <thread>
#include <unistd.h>

#include "cli/client.hpp"
#include "cli/client_channel.hpp"
#include "cli/exit_codes.hpp"
#include "cli/status_watch.hpp"

namespace cuzk::cli {

namespace v1 = cuzk::v1;
using Clock = std::chrono::steady_clock;

namespace {

volatile std::sig_atomic_t g_stop = 0, g_resized = 0;

void install_watch_handlers() {
  struct sigaction stop {
  }, resize{};
  stop.sa_handler = [](int) { g_stop = 1; };
  resize.sa_handler = [](int) { g_resized = 1; };
  sigemptyset(&stop.sa_mask);
  sigemptyset(&resize.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &stop, nullptr);
  sigaction(SIGWINCH, &resize, nullptr);
}

// A frame in one write (not interleaved with anything buffered by iostreams). Stdout closed (the
// reader of a pipe left, as `| head` does) ends the watch.
void write_all(const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(STDOUT_FILENO, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      g_stop = 1;
      return;
    }
    done += size_t(n);
  }
}

// The alternate screen with the cursor hidden while the watch draws; the terminal as it was after.
class FullScreen {
 public:
  FullScreen() { write_all("\x1b[?1049h\x1b[?25l\x1b[H\x1b[2J"); }
  ~FullScreen() { write_all("\x1b[?25h\x1b[?1049l"); }
  FullScreen(const FullScreen&) = delete;
  FullScreen& operator=(const FullScreen&) = delete;
};

struct WindowSize {
  size_t columns = 80, rows = 24;
};

WindowSize window_size() {
  winsize ws{};
  if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 && ws.ws_row > 0) return {ws.ws_col, ws.ws_row};
  return {};
}

std::string local_time(const char* format) {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[64];
  return std::strftime(buf, sizeof buf, format, &tm) ? buf : "";
}

std::string interval_text(double seconds) { return fmt::format("{:g}s", seconds); }

}  // namespace

int Client::watch_status(double interval_seconds) {
  const auto interval = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(interval_seconds));
  // One call may take its interval, but not so little that a busy daemon's answer is lost, nor
  // so much that a hung one freezes the picture.
  const auto call_deadline = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::clamp(std::chrono::duration<double>(interval_seconds), std::chrono::duration<double>(2.0),
                 std::chrono::duration<double>(10.0)));
  install_watch_handlers();
  v1::GetStatusResponse resp;
  auto fetch = [&] {
    resp.Clear();
    auto ctx = context(call_deadline);
    return stub_->GetStatus(ctx.get(), v1::GetStatusRequest(), &resp);
  };
  grpc::Status s = fetch();
  if (g_stop) return kOk;
  if (!s.ok()) return fail("status --watch", s);

  const char* term = std::getenv("TERM");
  const bool terminal = isatty(STDOUT_FILENO) && !(term && std::string(term) == "dumb");
  std::optional<FullScreen> screen;
  if (terminal) screen.emplace();
  std::string unreachable_since;
  while (!g_stop) {
    const auto next = Clock::now() + interval;
    // On a terminal the picture fits the window, one column short of its edge (a character in the
    // last column leaves the cursor waiting to wrap, and the line erase would take it).
    const WindowSize win = terminal ? window_size() : WindowSize{0, 0};
    const size_t width = win.columns > 1 ? win.columns - 1 : win.columns;
    std::vector<std::string> lines;
    if (s.ok()) {
      unreachable_since.clear();
      nlohmann::json doc = nlohmann::json::parse(resp.status_json(), nullptr, false);
      if (doc.is_discarded()) {
        lines = {fit("the daemon's status document is not JSON (" + std::to_string(resp.status_json().size()) +
                         " bytes): is --addr a cuzk daemon?",
                     width)};
      } else {
        lines = render_status(doc, width);
      }
    } else {
      if (unreachable_since.empty()) unreachable_since = local_time("%H:%M:%S");
      lines = render_unreachable(options_.addr,
                                 fmt::format("GetStatus: {} (gRPC code {})", s.error_message(), int(s.error_code())),
                                 unreachable_since, width);
    }
    if (terminal) {
      const std::string title = fmt::format("{}  cuzk status --watch: {}, every {}; Ctrl-C quits",
                                            local_time("%H:%M:%S"), options_.addr, interval_text(interval_seconds));
      lines.insert(lines.begin(), {fit(title, width), ""});
      write_all(terminal_frame(lines, win.rows));
    } else {
      write_all(plain_frame(fmt::format("=== {} {} ===", local_time("%Y-%m-%d %H:%M:%S %z"), options_.addr), lines));
    }
    // Sleep in short slices: a signal ends the wait at once, a resized window is redrawn at once.
    g_resized = 0;
    while (!g_stop && !g_resized && Clock::now() < next) std::this_thread::sleep_for(std::chrono::milliseconds(25));
    if (g_stop) break;
    if (g_resized && Clock::now() < next && s.ok()) continue;  // redraw the last answer at the new size
    s = fetch();
    // A fresh channel after a failure: it connects at once when the daemon is back, where the old
    // one would wait out gRPC's growing reconnect backoff.
    if (!s.ok()) stub_ = connect(options_);
  }
  return kOk;
}

}  // namespace cuzk::cli

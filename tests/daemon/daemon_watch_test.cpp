// `cuzk status --watch` against a real cuzk-daemon with a job in flight: on a pseudo-terminal
// (a detached tmux session, skipped without tmux) it draws the job in place, shows the daemon
// going away, and Ctrl-C ends it with exit code 0 and the terminal restored (main screen, cursor
// shown); into a file it writes plain snapshots without escape codes and SIGTERM ends it with 0;
// no daemon at the first call and misused options are errors.
#include <chrono>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <grpcpp/grpcpp.h>
#include <regex>
#include <signal.h>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

#include <gtest/gtest.h>

#include "daemon_harness.hpp"
#include "test_support.hpp"

namespace {

namespace v1 = cuzk::v1;
using cuzk::test::DaemonProcess;
using cuzk::test::eventually;
using namespace std::chrono_literals;

// A job that keeps the daemon's one synthesis worker busy for far longer than the tests watch it
// (SubmitProof; were it to end, it would stay listed among the last ended jobs).
void submit_long_job(const DaemonProcess& d, const std::string& id) {
  auto stub = d.stub();
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + 60s);
  v1::SubmitProofResponse resp;
  grpc::Status s = stub->SubmitProof(&ctx, cuzk::test::synthetic_request(16384, 64, id), &resp);
  ASSERT_TRUE(s.ok()) << s.error_message();
}

std::string find_program(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const std::string candidate = dir + "/" + name;
    if (!dir.empty() && access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return {};
}

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// A tmux server of the test's own (its socket in the daemon's directory, no configuration read),
// killed at the end with whatever its panes still run.
class Tmux {
 public:
  Tmux(std::string binary, const std::string& dir) : binary_(std::move(binary)), socket_(dir + "/tmux.sock") {}
  ~Tmux() { run({"kill-server"}); }
  Tmux(const Tmux&) = delete;
  Tmux& operator=(const Tmux&) = delete;

  // Runs a tmux command; its stdout in *out; true when it exited 0.
  bool run(std::vector<std::string> args, std::string* out = nullptr) const {
    args.insert(args.begin(), {binary_, "-S", socket_, "-f", "/dev/null"});
    return cuzk::test::run_program(args, out, 30s) == 0;
  }
  std::string pane() const {
    std::string text;
    run({"capture-pane", "-p", "-t", "watch"}, &text);
    return text;
  }
  std::string format(const std::string& f) const {
    std::string text;
    run({"display-message", "-p", "-t", "watch", f}, &text);
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    return text;
  }

 private:
  std::string binary_, socket_;
};

TEST(DaemonWatchTest, OnATerminalItRedrawsTheJobInPlaceAndCtrlCRestoresIt) {
  const std::string tmux_bin = find_program("tmux");
  if (tmux_bin.empty()) GTEST_SKIP() << "tmux is not installed (scripts/install-deps.sh installs it)";
  DaemonProcess d({"--synthesis-workers", "1"});
  ASSERT_FALSE(testing::Test::HasFailure());
  submit_long_job(d, "watched-job");
  Tmux tmux(tmux_bin, d.dir());
  // Under bash, which reports the exit code and keeps the pane (and its modes) open after: bash
  // gets the Ctrl-C too, and goes on when its child exits normally. (Run as the pane's own
  // program, the client's exit status was unreliable: tmux 3.3a here often left it unreaped.)
  const std::string bash = find_program("bash");
  ASSERT_FALSE(bash.empty());
  ASSERT_TRUE(tmux.run({"new-session", "-d", "-x", "120", "-y", "40", "-s", "watch", bash, "-c",
                        "\"$0\" \"$@\"; echo \"EXIT:$?\"; exec sleep 300", CUZK_CLIENT_BIN, "--addr", d.addr(),
                        "status", "--watch", "--interval", "0.2"}));
  // The job's row: its id, kind, state and partition bar.
  const auto job_row = [&] {
    std::stringstream lines(tmux.pane());
    for (std::string line; std::getline(lines, line);) {
      if (line.find("watched-job  synthetic") != std::string::npos &&
          (line.find("running") != std::string::npos || line.find("queued") != std::string::npos) &&
          line.find("/64") != std::string::npos && line.find('[') != std::string::npos)
        return true;
    }
    return false;
  };
  EXPECT_TRUE(eventually(job_row)) << tmux.pane();
  const std::string screen = tmux.pane();
  EXPECT_NE(screen.find("cuzk status --watch"), std::string::npos) << screen;
  EXPECT_NE(screen.find("budget "), std::string::npos) << screen;
  EXPECT_TRUE(std::regex_search(screen, std::regex(R"(\n +cpu +(idle|busy: watched-job \(synthetic\)))"))) << screen;
  EXPECT_EQ(tmux.format("#{alternate_on}"), "1") << "the watch draws on the alternate screen";
  EXPECT_EQ(tmux.format("#{cursor_flag}"), "0") << "with the cursor hidden";
  std::stringstream rows(screen);
  for (std::string line; std::getline(rows, line);) EXPECT_LE(line.size(), 120u) << line;

  // The daemon going away: the watch says so and keeps asking.
  d.stop(SIGKILL, 30s);
  EXPECT_TRUE(eventually([&] { return tmux.pane().find("DAEMON UNREACHABLE") != std::string::npos; }, 30s))
      << tmux.pane();

  ASSERT_TRUE(tmux.run({"send-keys", "-t", "watch", "C-c"}));
  EXPECT_TRUE(eventually([&] { return tmux.pane().find("EXIT:") != std::string::npos; }, 30s)) << tmux.pane();
  EXPECT_NE(tmux.pane().find("EXIT:0"), std::string::npos) << tmux.pane();
  EXPECT_EQ(tmux.format("#{alternate_on}"), "0") << "the main screen is back";
  EXPECT_EQ(tmux.format("#{cursor_flag}"), "1") << "the cursor is shown again";
  EXPECT_EQ(tmux.pane().find("watched-job"), std::string::npos) << "the picture went with the alternate screen";
}

TEST(DaemonWatchTest, IntoAFileItWritesPlainSnapshotsAndSigtermEndsIt) {
  DaemonProcess d({"--synthesis-workers", "1"});
  ASSERT_FALSE(testing::Test::HasFailure());
  submit_long_job(d, "logged-job");
  const std::string out = d.dir() + "/watch.out";
  const pid_t pid = fork();
  if (pid == 0) {
    const int fd = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 1);
    const std::string addr = d.addr();
    execl(CUZK_CLIENT_BIN, CUZK_CLIENT_BIN, "--addr", addr.c_str(), "status", "--watch", "--interval", "0.2",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  ASSERT_GT(pid, 0);
  // Two snapshots, the second showing the job.
  const auto snapshots = [&] {
    const std::string text = slurp(out);
    const size_t second = text.find("\n=== ");
    return second != std::string::npos && text.find("logged-job", second) != std::string::npos;
  };
  const bool seen = eventually(snapshots);
  kill(pid, SIGTERM);
  int status = 0;
  ASSERT_TRUE(eventually([&] { return waitpid(pid, &status, WNOHANG) == pid; }, 30s));
  ASSERT_TRUE(WIFEXITED(status)) << "signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0);
  const std::string text = slurp(out);
  EXPECT_TRUE(seen) << text;
  EXPECT_EQ(text.rfind("=== ", 0), 0u) << "each snapshot opens with its timestamp line:\n" << text;
  EXPECT_NE(text.find("\n\n=== "), std::string::npos) << "snapshots are separated by a blank line:\n" << text;
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << "no escape codes into a file";
  EXPECT_NE(text.find("JOBS ("), std::string::npos) << text;
}

TEST(DaemonWatchTest, NoDaemonAtTheFirstCallAndMisusedOptionsAreErrors) {
  cuzk::test::TempDir t("cuzk-watch");
  std::string out;
  EXPECT_EQ(cuzk::test::run_program({CUZK_CLIENT_BIN, "--addr", "unix:" + t.path + "/none.sock", "status", "--watch"},
                                    &out, 60s),
            2);
  EXPECT_EQ(out, "") << "nothing drawn for a daemon that never answered";
  for (const std::vector<std::string>& args : {std::vector<std::string>{"status", "--watch", "--json"},
                                               {"status", "job-1", "--watch"},
                                               {"status", "--interval", "2"},
                                               {"status", "--watch", "--interval", "0"}}) {
    std::vector<std::string> argv = {CUZK_CLIENT_BIN, "--addr", "unix:" + t.path + "/none.sock"};
    argv.insert(argv.end(), args.begin(), args.end());
    EXPECT_EQ(cuzk::test::run_program(argv, &out, 60s), 1) << args.back();
  }
}

}  // namespace

#include "cli/daemon_dispatch.hpp"

#include <cerrno>
#include <climits>
#include <cstring>
#include <iostream>
#include <string>
#include <string_view>
#include <unistd.h>
#include <vector>

namespace cuzk::cli {

namespace {

// Options only the daemon has: a first argument among them means Curio's `cuzk --config FILE`.
bool is_daemon_option(std::string_view arg) {
  for (std::string_view o : {"-c", "--config", "-l", "--listen", "--log-level", "--print-config", "--print-settings"}) {
    if (arg == o || (o.starts_with("--") && arg.starts_with(std::string(o) + "="))) return true;
  }
  return arg.starts_with("-c") && arg.size() > 2 && arg[2] != '-';  // -cFILE
}

// The directory of the running executable (not argv[0], which a PATH lookup leaves bare).
std::string own_directory() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "";
  std::string path(buf, size_t(n));
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

}  // namespace

std::optional<int> run_daemon_if_asked(int argc, char** argv) {
  if (argc < 2) return std::nullopt;
  std::string_view first = argv[1];
  int skip;  // arguments of ours before the daemon's
  if (first == "daemon") {
    skip = 2;
  } else if (is_daemon_option(first)) {
    skip = 1;
  } else {
    return std::nullopt;
  }
  std::string dir = own_directory();
  std::string daemon = (dir.empty() ? std::string(".") : dir) + "/cuzk-daemon";
  std::vector<char*> args;
  args.push_back(const_cast<char*>(daemon.c_str()));
  for (int i = skip; i < argc; i++) args.push_back(argv[i]);
  args.push_back(nullptr);
  execv(daemon.c_str(), args.data());
  int err = errno;
  std::cerr << "cuzk: cannot start the daemon " << daemon << ": " << std::strerror(err)
            << " (`cuzk daemon` and `cuzk --config FILE` run cuzk-daemon, which is installed beside cuzk)\n";
  return 2;  // cuzk-daemon's "cannot start"
}

}  // namespace cuzk::cli

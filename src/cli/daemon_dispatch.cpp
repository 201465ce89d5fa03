#include "cli/daemon_dispatch.hpp"

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "cli/daemon_main.hpp"

namespace cuzk::cli {

namespace {

// Options only the daemon has: a first argument among them means Curio's `cuzk --config FILE`.
bool is_daemon_option(std::string_view arg) {
  for (std::string_view o : {"-c", "--config", "-l", "--listen", "--log-level", "--print-config", "--print-settings"}) {
    if (arg == o || (o.starts_with("--") && arg.starts_with(std::string(o) + "="))) return true;
  }
  return arg.starts_with("-c") && arg.size() > 2 && arg[2] != '-';  // -cFILE
}

}  // namespace

std::optional<int> run_daemon_if_asked(int argc, char** argv) {
  const std::string name = std::filesystem::path(argv[0]).filename().string();  // owns its bytes
  if (name == "cuzk-daemon") return daemon_main(argc, argv);
  if (argc < 2) {
    std::error_code ec;
    if (!std::filesystem::exists(kCurioConfigPath, ec)) return daemon_main(argc, argv);
    std::string config = "--config=" + std::string(kCurioConfigPath);
    std::vector<char*> args = {argv[0], config.data(), nullptr};
    return daemon_main(2, args.data());
  }
  const std::string_view first = argv[1];
  if (first == "daemon") {
    argv[1] = argv[0];  // the daemon's own arguments follow "daemon"
    return daemon_main(argc - 1, argv + 1);
  }
  if (is_daemon_option(first)) return daemon_main(argc, argv);
  return std::nullopt;
}

}  // namespace cuzk::cli

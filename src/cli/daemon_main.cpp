// The proving daemon, as `cuzk` runs it (cli/daemon_dispatch.hpp: `cuzk`, `cuzk --config FILE`,
// `cuzk daemon ...`, or the program under the name cuzk-daemon). Settings come from the defaults,
// then the TOML file given with --config, then the command line (which wins); every flag is made
// from the settings table (server/settings.hpp). See README.md, "Daemon".
#include "cli/daemon_main.hpp"

#include <CLI/CLI.hpp>
#include <csignal>
#include <functional>
#include <iostream>
#include <memory>
#include <spdlog/spdlog.h>

#include "server/address.hpp"
#include "server/config_file.hpp"
#include "server/daemon.hpp"
#include "server/logging.hpp"
#include "server/platform_dirs.hpp"
#include "server/settings.hpp"
#include "server/signals.hpp"

namespace {

using cuzk::server::ConfigNote;
using cuzk::server::DaemonConfig;
using cuzk::server::Setting;
using cuzk::server::SettingKind;

// Exit codes of cuzk-daemon.
constexpr int kExitOk = 0, kExitConfig = 1, kExitStartup = 2, kExitFailure = 3;

std::string_view group_of(const Setting& s) {
  if (s.section == "engine") return "Engine";
  if (s.section == "srs") return "Filecoin parameters";
  return "Daemon";
}

// One flag per setting of the table, read as text and applied after the configuration file, in
// table order, through the same checks as the file's values.
class SettingFlags {
 public:
  explicit SettingFlags(CLI::App& app) {
    const DaemonConfig defaults;
    for (const Setting& s : cuzk::server::settings()) {
      if (s.flag.empty()) continue;
      std::string def = cuzk::server::setting_text(s, s.get(defaults));
      std::string help = std::string(s.help) + " [" + cuzk::server::setting_type_text(s) +
                         (s.in_file() ? "; default " + (def.empty() ? std::string("\"\"") : def) + "; file " + s.name()
                                      : std::string()) +
                         "]";
      std::string group(group_of(s));
      if (s.kind == SettingKind::kSwitch) {
        auto value = std::make_shared<bool>(false);
        CLI::Option* opt =
            app.add_flag(std::string(s.flag) + ",!--no-" + std::string(s.flag.substr(2)), *value, help)->group(group);
        appliers_.push_back([opt, value, &s](DaemonConfig& c) {
          if (opt->count() > 0) cuzk::server::apply_setting(s, *value, c);
        });
        continue;
      }
      // Curio's daemon takes -l for --listen.
      std::string names = s.flag == "--listen" ? "-l,--listen" : std::string(s.flag);
      auto value = std::make_shared<std::string>();
      // A flag given twice takes its last value, so wrappers can append overrides.
      CLI::Option* opt =
          app.add_option(names, *value, help)->group(group)->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
      appliers_.push_back([opt, value, &s](DaemonConfig& c) {
        if (opt->count() == 0) return;
        try {
          cuzk::server::apply_setting(s, cuzk::server::parse_setting_text(s, *value), c);
        } catch (const std::invalid_argument& e) {
          throw std::invalid_argument(std::string(s.flag) + ": " + e.what());
        }
      });
    }
  }
  void apply(DaemonConfig& c) const {
    for (const auto& f : appliers_) f(c);
  }

 private:
  std::vector<std::function<void(DaemonConfig&)>> appliers_;
};

void log_note(const ConfigNote& n) {
  switch (n.level) {
    case ConfigNote::Level::kDebug:
      spdlog::debug("{}", n.text);
      break;
    case ConfigNote::Level::kInfo:
      spdlog::info("{}", n.text);
      break;
    case ConfigNote::Level::kWarn:
      spdlog::warn("{}", n.text);
      break;
  }
}

}  // namespace

namespace cuzk::cli {

int daemon_main(int argc, char** argv) {
  // First, before any thread exists, so that every thread inherits the mask.
  cuzk::server::block_shutdown_signals();

  CLI::App app{"cuzk-daemon: the cuzk Groth16 proving daemon (gRPC service cuzk.v1.ProvingEngine)."};
  app.footer(
      "Settings are applied in order: built-in defaults, the --config TOML file ([daemon], [engine] and\n"
      "[srs] tables, keys as in --print-config; Curio's cuzk.toml is read too), then these flags.\n"
      "Sizes take K/M/G/T (powers of 1024) or KB/MB/GB/TB (powers of 1000) suffixes.\n"
      "SIGTERM or SIGINT: stop accepting proofs, finish or cancel those in flight (--shutdown), remove the\n"
      "socket and exit; a second signal cancels at once.\n"
      "Exit codes: 0 clean shutdown, 1 bad flags or configuration, 2 cannot start (engine or listen\n"
      "address), 3 unexpected failure while running.");
  app.set_version_flag("--version", "cuzk-daemon " CUZK_VERSION);
  std::string config_path;
  app.add_option("-c,--config", config_path, "TOML configuration file (ours, or Curio's cuzk.toml)")->group("Daemon");
  bool print_config = false, print_settings = false;
  app.add_flag("--print-config", print_config, "Print the effective configuration as TOML and exit")->group("Daemon");
  app.add_flag("--print-settings", print_settings,
               "Print every setting (and Curio's keys) as a Markdown table, as README.md lists them, and exit")
      ->group("Daemon");
  SettingFlags flags(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitConfig;
  }
  if (print_settings) {
    std::cout << cuzk::server::settings_markdown();
    return kExitOk;
  }

  DaemonConfig config;
  std::vector<ConfigNote> notes;
  try {
    if (!config_path.empty()) cuzk::server::load_config_file(config_path, config, &notes);
    flags.apply(config);
    if (config.listen.empty()) config.listen = cuzk::server::default_address();
    cuzk::server::resolve_default_dirs(config);  // what --print-config shows is what is used
    cuzk::server::validate_config(config);
  } catch (const std::exception& e) {
    std::cerr << "cuzk-daemon: " << e.what() << "\n";
    return kExitConfig;
  }
  if (print_config) {
    for (const ConfigNote& n : notes) {
      if (n.level != ConfigNote::Level::kDebug) std::cerr << "cuzk-daemon: " << n.text << "\n";
    }
    try {
      std::cout << cuzk::server::config_to_toml(config);
    } catch (const std::exception& e) {
      std::cerr << "cuzk-daemon: --print-config: " << e.what() << "\n";
      return kExitConfig;
    }
    return kExitOk;
  }
  try {
    cuzk::server::setup_logging(config.log_level, config.log_file, config.log_format);
  } catch (const std::exception& e) {
    std::cerr << "cuzk-daemon: " << e.what() << "\n";
    return kExitConfig;
  }
  for (const ConfigNote& n : notes) log_note(n);

  int rc = kExitOk;
  try {
    cuzk::server::Daemon daemon(config);
    cuzk::server::ShutdownSignals signals([&daemon](int sig, int count) {
      spdlog::info("received {}{}", sig == SIGTERM ? "SIGTERM" : "SIGINT", count > 1 ? " again: cancelling" : "");
      daemon.request_stop(count > 1);
    });
    daemon.run();
  } catch (const cuzk::server::StartupError& e) {
    spdlog::error("cannot start: {}", e.what());
    rc = kExitStartup;
  } catch (const std::exception& e) {
    spdlog::critical("stopped by an unexpected error: {}", e.what());
    rc = kExitFailure;
  }
  spdlog::shutdown();  // flushes every sink
  return rc;
}

}  // namespace cuzk::cli

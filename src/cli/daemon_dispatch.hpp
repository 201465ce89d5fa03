// One program, as Curio installs it (`make install-cuzk`: one `cuzk` in /usr/local/bin): the
// daemon when started as Curio starts it, the client under its subcommands.
#pragma once

#include <optional>

namespace cuzk::cli {

// Curio's configuration file, which a bare `cuzk` reads when it exists (as Curio's daemon does).
inline constexpr const char* kCurioConfigPath = "/data/zk/cuzk.toml";

// Runs the daemon and returns its exit code when argv asks for it: the program's name is
// cuzk-daemon; no arguments (Curio's documentation runs a bare `cuzk`: then /data/zk/cuzk.toml
// when it exists); a first argument "daemon"; or one of the daemon's own options (-c/--config,
// -l/--listen, --log-level, --print-config, --print-settings: Curio's unit runs `cuzk --config
// FILE`). nullopt for the client's commands.
std::optional<int> run_daemon_if_asked(int argc, char** argv);

}  // namespace cuzk::cli

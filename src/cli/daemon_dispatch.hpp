// `cuzk` as the daemon: Curio's unit file starts its daemon as `cuzk --config FILE`, and
// `cuzk daemon [flags]` reads better in ours. Both run cuzk-daemon, installed beside cuzk (the
// client itself needs no engine, so it stays small and runs on machines without a GPU stack).
#pragma once

#include <optional>

namespace cuzk::cli {

// When argv asks for the daemon (first argument "daemon", or one of the daemon's own options:
// -c/--config, -l/--listen, --log-level, --print-config, --print-settings), replaces this process
// with cuzk-daemon (same pid, so systemd and signals see the daemon) and does not return; returns
// the exit code when that fails (the message is printed), and nullopt for client commands.
std::optional<int> run_daemon_if_asked(int argc, char** argv);

}  // namespace cuzk::cli

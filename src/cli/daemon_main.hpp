// The proving daemon's command line: flags from the settings table, --config, --print-config,
// --print-settings; runs the daemon until SIGTERM or SIGINT and returns its exit code (0 clean
// shutdown, 1 bad flags or configuration, 2 cannot start, 3 unexpected failure while running).
#pragma once

namespace cuzk::cli {

int daemon_main(int argc, char** argv);

}  // namespace cuzk::cli

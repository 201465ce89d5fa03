// The Filecoin and verify commands on the client's command line.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/client_options.hpp"
#include "cli/command_args.hpp"

namespace cuzk::cli {

// The Filecoin commands on the client's command line: `prove porep`, `prove window-post`,
// `prove winning-post`, `prove snap` (subcommands of the existing `prove`) and `verify porep`.
// Construct it after the `prove` subcommand exists; after parsing, run() first: it returns the
// exit code when one of these commands was given.
class FilecoinCommands {
 public:
  explicit FilecoinCommands(CLI::App& app);
  std::optional<int> run(const ClientOptions& options) const;

 private:
  PoRepArgs args_;
  PoStArgs post_;
  SnapArgs snap_;
  bool json_ = false;
  CLI::App* prove_porep_ = nullptr;
  CLI::App* prove_window_post_ = nullptr;
  CLI::App* prove_winning_post_ = nullptr;
  CLI::App* prove_snap_ = nullptr;
  CLI::App* verify_porep_ = nullptr;
  CLI::App* verify_ = nullptr;
  std::vector<std::string> snarkjs_files_;  // `cuzk verify --snarkjs VK PUBLIC PROOF`
};

}  // namespace cuzk::cli

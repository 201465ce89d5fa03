// cuzk: the command-line client of cuzk-daemon; `cuzk daemon ...` and `cuzk --config FILE` (as
// Curio's unit file starts its daemon) run the daemon instead.
#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/client.hpp"
#include "cli/client_channel.hpp"
#include "cli/daemon_dispatch.hpp"
#include "cli/exit_codes.hpp"
#include "cli/filecoin_commands.hpp"
#include "server/address.hpp"

namespace {

using cuzk::cli::ProofArgs;

// The circuit options shared by prove, submit and preload.
void add_circuit_options(CLI::App* cmd, ProofArgs& a) {
  cmd->add_option("--constraints", a.constraints,
                  "Synthetic circuit size, including input constraints (default 65536)");
  cmd->add_option("--public-inputs", a.public_inputs, "Public inputs, excluding ONE (default 8)");
  cmd->add_option("--seed", a.seed, "Synthetic circuit seed (default 1)");
}

void add_job_options(CLI::App* cmd, ProofArgs& a) {
  add_circuit_options(cmd, a);
  cmd->add_flag("--demo", a.demo, "The demo job: 65536 constraints, 8 public inputs, seed 1, one partition");
  cmd->add_option("--partitions", a.partitions, "Partitions (each the same circuit; default 1)");
  cmd->add_option("--request-id", a.request_id, "Request id (default: the daemon picks one)");
  cmd->add_option("--param-id", a.param_id, "Parameter set (default: derived from the circuit)");
  cmd->add_option("--priority", a.priority, "Higher runs first (default 0)");
}

}  // namespace

int main(int argc, char** argv) {
  using namespace cuzk::cli;
  if (std::optional<int> rc = run_daemon_if_asked(argc, argv)) return *rc;
  CLI::App app{"cuzk: client of the cuzk proving daemon."};
  app.require_subcommand(1);
  app.set_version_flag("--version", "cuzk " CUZK_VERSION);
  app.footer(kExitCodeHelp);
  ClientOptions options;
  options.addr = cuzk::server::default_address();
  app.add_option("--addr", options.addr,
                 "Daemon address: unix:/path or host:port (default $CUZK_ADDR, else " + options.addr + ")")
      ->envname("CUZK_ADDR");
  app.add_option("--timeout", options.timeout_seconds, "prove/await: stop waiting after this many seconds (0: never)");
  app.add_option("--progress", options.progress_seconds, "Seconds between progress lines while waiting (0: none)");
  app.add_option("--tls-ca", options.tls_ca,
                 "TCP with TLS: the PEM CA that signed the daemon's certificate (default with another --tls "
                 "option: the system's roots)");
  app.add_option("--tls-cert", options.tls_cert,
                 "TCP with TLS: this client's PEM certificate, for a daemon that requires one (daemon.tls_client_ca)");
  app.add_option("--tls-key", options.tls_key, "TCP with TLS: the PEM private key of --tls-cert");
  app.add_option("--tls-server-name", options.tls_server_name,
                 "TCP with TLS: the name the daemon's certificate must carry (default: the host of --addr)");

  ProofArgs job;
  std::string id, out, param_id;
  bool json = false, watch = false;
  double interval = 1;

  CLI::App* prove = app.add_subcommand("prove", "Submit a proof and wait for it (Ctrl-C cancels it)");
  add_job_options(prove, job);
  prove->add_option("--out", out, "Write the proof bytes (192 per partition) to this file");
  prove->add_flag("--json", json, "Print the result as JSON");

  CLI::App* submit = app.add_subcommand("submit", "Submit a proof and print its request id");
  add_job_options(submit, job);
  submit->add_flag("--json", json, "Print the result as JSON");

  CLI::App* await = app.add_subcommand("await", "Wait for a submitted proof");
  await->add_option("request_id", id, "Request id")->required();
  await->add_option("--out", out, "Write the proof bytes to this file");
  await->add_flag("--json", json, "Print the result as JSON");

  CLI::App* cancel = app.add_subcommand("cancel", "Cancel a proof");
  cancel->add_option("request_id", id, "Request id")->required();

  CLI::App* status = app.add_subcommand("status", "The daemon's status, or one proof's");
  status->add_option("request_id", id, "Request id (default: the whole daemon)");
  CLI::Option* json_status = status->add_flag("--json", json, "Print the status document (JSON)");
  CLI::Option* watch_flag =
      status
          ->add_flag("--watch", watch,
                     "Redraw the daemon's picture every --interval until Ctrl-C (exit code 0): every job "
                     "(partitions by stage, elapsed time, error), buffers, budget, devices, parameters. Into a "
                     "pipe or file: a plain-text snapshot each interval. A daemon lost after the first answer is "
                     "shown as unreachable and asked again")
          ->excludes(json_status);
  status->add_option("--interval", interval, "--watch: seconds between pictures (default 1)")
      ->check(CLI::Range(0.1, 3600.0))
      ->needs(watch_flag);

  CLI::App* metrics = app.add_subcommand("metrics", "Print the Prometheus metrics");

  CLI::App* preload = app.add_subcommand("preload", "Load a parameter set into memory ahead of use");
  preload->add_option("param_id", param_id, "Parameter set (or give the circuit with --constraints ...)");
  add_circuit_options(preload, job);

  CLI::App* evict = app.add_subcommand("evict", "Drop an idle parameter set from memory");
  evict->add_option("param_id", param_id, "Parameter set")->required();

  // cuzk prove porep / cuzk verify porep.
  FilecoinCommands filecoin(app);

  // Only listed here: run_daemon_if_asked takes `cuzk daemon ...` before parsing.
  CLI::App* daemon = app.add_subcommand(
      "daemon", "Run the proving daemon (cuzk-daemon) with the flags that follow; `cuzk --config FILE` too");
  daemon->allow_extras()->prefix_command();

  try {
    app.parse(argc, argv);
    // The canonical form: the spelling the daemon listens on and reports ("unix:////a" is unix:/a).
    options.addr = cuzk::server::parse_address(options.addr).grpc_target();
    options.credentials = tls_channel_credentials(options);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kOk : kUsage;
  } catch (const std::invalid_argument& e) {
    std::cerr << "cuzk: " << e.what() << "\n";
    return kUsage;
  } catch (const std::runtime_error& e) {
    std::cerr << "cuzk: " << e.what() << "\n";
    return kInputError;
  }
  if (job.demo) job.constraints = uint64_t(1) << 16, job.public_inputs = 8, job.seed = 1, job.partitions = 1;
  options.json = json;
  job.out = out;

  if (std::optional<int> rc = filecoin.run(options)) return *rc;
  install_interrupt_handler();
  Client client(options);
  if (prove->parsed()) return client.prove(job);
  if (submit->parsed()) return client.submit(job);
  if (await->parsed()) return client.await(id, out);
  if (cancel->parsed()) return client.cancel(id);
  if (status->parsed() && watch) {
    if (!id.empty()) {
      std::cerr << "cuzk: status --watch shows every job; leave out the request id (" << id << ")\n";
      return kUsage;
    }
    return client.watch_status(interval);
  }
  if (status->parsed()) return client.status(id);
  if (metrics->parsed()) return client.metrics();
  if (preload->parsed()) {
    bool from_circuit = preload->count("--constraints") > 0;
    if (param_id.empty() && !from_circuit) {
      std::cerr << "cuzk: preload needs a parameter id or --constraints\n";
      return kUsage;
    }
    return client.preload(param_id, job, from_circuit);
  }
  if (evict->parsed()) return client.evict(param_id);
  if (daemon->parsed()) {
    std::cerr << "cuzk: `daemon` must be the first argument: cuzk daemon [DAEMON FLAGS]\n";
    return kUsage;
  }
  return kUsage;
}

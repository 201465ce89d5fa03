// The cuzk client's commands that talk to the daemon, each returning its exit code (exit_codes.hpp).
// Output for people goes to stdout; progress and errors go to stderr. Each group of commands has
// its file: job_commands.cpp, status_commands.cpp (status_watch_loop.cpp: --watch), param_set_commands.cpp and
// filecoin_prove_commands.cpp; client.cpp holds the waiting and reporting they share.
#pragma once

#include <chrono>
#include <grpcpp/client_context.h>
#include <memory>
#include <string>

#include "cli/client_options.hpp"
#include "cli/command_args.hpp"
#include "cuzk/v1/proving.grpc.pb.h"

namespace cuzk::cli {

class Client {
 public:
  explicit Client(ClientOptions options);

  int prove(const ProofArgs& a);
  int submit(const ProofArgs& a);
  int await(const std::string& request_id, const std::string& out);
  int cancel(const std::string& request_id);
  int status(const std::string& request_id);
  // `status --watch`: the daemon's picture every interval until a signal (status_watch_loop.cpp).
  int watch_status(double interval_seconds);
  int metrics();
  int preload(const std::string& param_id, const ProofArgs& circuit, bool from_circuit);
  int evict(const std::string& param_id);
  // Sends the Commit1 output in Curio's envelope, waits, writes the proof bytes (192 per
  // partition, concatenated, as filecoin-ffi's seal_commit_phase2 returns them).
  int prove_porep(const PoRepArgs& a);
  // Read and check the vanilla proof files and the options, send the request as Curio's
  // WindowPoStCuzk / WinningPoStCuzk / ProveUpdateCuzk build it, wait, write the proof bytes.
  int prove_post(const PoStArgs& a, bool winning);
  int prove_snap(const SnapArgs& a);

 private:
  // Submits, then waits and reports; Ctrl-C cancels the job.
  int submit_and_wait(const cuzk::v1::SubmitProofRequest& req, const std::string& what, const std::string& out,
                      std::chrono::seconds submit_deadline);
  // Polls AwaitProof in short calls, printing progress, until the job ends; then reports it.
  int wait_and_report(const std::string& request_id, const std::string& out, bool cancel_on_interrupt);
  int report(const cuzk::v1::AwaitProofResponse& r, const std::string& out);
  int fail(const std::string& what, const grpc::Status& s);
  void progress(const std::string& request_id, double elapsed);

  // A context whose call gives up after deadline.
  static std::unique_ptr<grpc::ClientContext> context(std::chrono::milliseconds deadline);
  // Calls that do not wait for a proof get this long (a stuck daemon must not hang scripts).
  static constexpr std::chrono::seconds kShortCall{30};

  ClientOptions options_;
  std::unique_ptr<cuzk::v1::ProvingEngine::Stub> stub_;
};

// Installs a SIGINT handler that lets a waiting command stop cleanly.
void install_interrupt_handler();

}  // namespace cuzk::cli

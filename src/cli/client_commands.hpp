// The cuzk client's commands, each returning its exit code (exit_codes.hpp). Output for people
// goes to stdout; progress and errors go to stderr.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "cuzk/v1/proving.grpc.pb.h"

namespace cuzk::cli {

struct ClientOptions {
  std::string addr;             // unix:/path or host:port
  double timeout_seconds = 0;   // prove/await: give up waiting after this long (0: never)
  double progress_seconds = 5;  // a progress line this often while waiting (0: none)
  bool json = false;            // machine-readable output where a command has it
};

struct ProofArgs {
  bool demo = false;  // the demo job: 2^16 constraints, 8 public inputs, seed 1, one partition
  uint64_t constraints = uint64_t(1) << 16;
  uint32_t public_inputs = 8;
  uint64_t seed = 1;
  uint32_t partitions = 1;
  std::string request_id, param_id;
  int priority = 0;
  std::string out;  // proof bytes go here
};

class Client {
 public:
  explicit Client(ClientOptions options);

  int prove(const ProofArgs& a);
  int submit(const ProofArgs& a);
  int await(const std::string& request_id, const std::string& out);
  int cancel(const std::string& request_id);
  int status(const std::string& request_id);
  int metrics();
  int preload(const std::string& param_id, const ProofArgs& circuit, bool from_circuit);
  int evict(const std::string& param_id);

 private:
  // Polls AwaitProof in short calls, printing progress, until the job ends; then reports it.
  int wait_and_report(const std::string& request_id, const std::string& out, bool cancel_on_interrupt);
  int report(const cuzk::v1::ProofResult& r, const std::string& out);
  int fail(const std::string& what, const grpc::Status& s);
  void progress(const std::string& request_id, double elapsed);

  ClientOptions options_;
  std::unique_ptr<cuzk::v1::ProvingEngine::Stub> stub_;
};

// Installs a SIGINT handler that lets a waiting command stop cleanly.
void install_interrupt_handler();

}  // namespace cuzk::cli

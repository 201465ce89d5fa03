// The cuzk client's commands, each returning its exit code (exit_codes.hpp). Output for people
// goes to stdout; progress and errors go to stderr.
#pragma once

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdint>
#include <grpcpp/security/credentials.h>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cuzk/v1/proving.grpc.pb.h"

namespace cuzk::cli {

struct ClientOptions {
  std::string addr;             // unix:/path or host:port
  double timeout_seconds = 0;   // prove/await: give up waiting after this long (0: never)
  double progress_seconds = 5;  // a progress line this often while waiting (0: none)
  bool json = false;            // machine-readable output where a command has it
  // TLS to a TCP address (all empty: plain text): the PEM CA the daemon's certificate is checked
  // against (empty: the system's roots), a PEM certificate and key for mutual TLS, and the name
  // that certificate must carry (empty: the address's host).
  std::string tls_ca, tls_cert, tls_key, tls_server_name;
  // Made from the tls_ options by tls_channel_credentials(); null: plain text.
  std::shared_ptr<grpc::ChannelCredentials> credentials;

  bool tls() const { return !tls_ca.empty() || !tls_cert.empty() || !tls_key.empty() || !tls_server_name.empty(); }
};

// The channel credentials of options' tls_ fields (null when none is set). Throws
// std::invalid_argument for options that do not go together (TLS on a unix socket, a certificate
// without its key) and std::runtime_error naming a file that cannot be read or holds no PEM
// certificate or key.
std::shared_ptr<grpc::ChannelCredentials> tls_channel_credentials(const ClientOptions& options);

struct ProofArgs {
  bool demo = false;  // the demo job: 2^16 constraints, 8 public inputs, seed 1, one partition
  uint64_t constraints = uint64_t(1) << 16;
  uint32_t public_inputs = 8;
  uint64_t seed = 1;
  uint32_t partitions = 1;
  std::string request_id, param_id;
  // A level (low, normal, high, critical) or an integer: the order within the normal level,
  // higher first (-999 .. 999). Empty: normal.
  std::string priority;
  std::string out;  // proof bytes go here
};

// A Filecoin PoRep Commit2: `cuzk prove porep` and `cuzk verify porep`.
struct PoRepArgs {
  std::string c1;     // the Commit1 output (SealCommitPhase1Output JSON)
  std::string miner;  // the miner's ID address or actor id: t01000, f01000 or 1000
  uint64_t sector = 0;
  std::string registered_proof;  // name or id; empty: the Commit1 output's
  std::string request_id, priority;
  std::string out;  // prove: the proof bytes go here
  // verify: the proof, and its verifying key from a .vk file or the parameter files in a directory.
  std::string proof, vk, param_cache;
};

// A WindowPoSt partition or a WinningPoSt: `cuzk prove window-post` and `cuzk prove winning-post`.
struct PoStArgs {
  // One bincode FallbackPoStSectorProof per sector (filecoin-ffi's GenerateSingleVanillaProof, as
  // Curio sends them): WinningPoSt the challenged sector's; WindowPoSt the partition's sectors.
  std::vector<std::string> vanilla;
  std::string registered_proof;  // RegisteredPoStProof name or id
  std::string miner;             // t01000, f01000 or 1000
  std::string randomness;        // the 32-byte challenge seed as 64 hex digits
  uint32_t partition = 0;        // WindowPoSt: the partition's index in the deadline
  std::string request_id, priority;
  std::string out;  // the proof bytes (192) go here
};

// A SnapDeals update: `cuzk prove snap`.
struct SnapArgs {
  // One bincode PartitionProof per partition in partition order (filecoin-ffi's
  // GenerateUpdateVanillaProofs), or Curio's snap-vproof.json (a JSON array of them in base64).
  std::vector<std::string> vanilla;
  std::string registered_proof;  // RegisteredUpdateProof name or id
  std::string miner;
  uint64_t sector = 0;
  // 64 hex digits of the raw 32 bytes, or the CID (bagboea4b5abc... sealed, baga6ea4seaq... unsealed).
  std::string comm_r_old, comm_r_new, comm_d_new;
  std::string request_id, priority;
  std::string out;  // the proof bytes (192 per partition) go here
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

  ClientOptions options_;
  std::unique_ptr<cuzk::v1::ProvingEngine::Stub> stub_;
};

// Checks a PoRep proof locally, as Filecoin's verify_seal does (no daemon): the public inputs
// from the Commit1 output's comm_r, comm_d, ticket and seed and the miner and sector; the
// verifying key from --vk, else from the parameter directory (--param-cache, default
// $FIL_PROOFS_PARAMETER_CACHE, else /var/tmp/filecoin-proof-parameters): the published .vk, the
// published .params, then cuzk's TEST parameters (cuzk-TEST-ONLY-<stem>.params).
int verify_porep(const PoRepArgs& a, bool json);

// Checks a snarkjs Groth16 proof locally (no daemon): verification_key.json, public.json and
// proof.json as snarkjs writes them (bls12381), every point checked on the curve and in the
// subgroup. Exit codes: kOk valid, kProofInvalid, kInputError (a file unreadable or malformed).
int verify_snarkjs(const std::string& vk, const std::string& public_signals, const std::string& proof, bool json);

// The miner's actor id from "t01000", "f01000" or "1000"; throws std::invalid_argument.
uint64_t parse_miner(const std::string& text);
// Go's encoding/json of Curio's envelope {SectorNum int64, Phase1Out []byte, SectorSize uint64}
// (curio lib/ffi/cuzk_funcs.go wrapC1Output): compact, in that order, Phase1Out in base64.
std::string curio_c1_envelope(const std::string& c1_json, uint64_t sector_number, uint64_t sector_size);

// The raw 32 bytes of a commitment option (--comm-r-old ...): 64 hex digits, or a CID of
// Filecoin's commitment codecs (sealed: fil-commitment-sealed + poseidon-bls12_381-a2-fc1,
// unsealed: fil-commitment-unsealed + sha2-256-trunc254-padded), as go-fil-commcid makes them;
// either way a canonical field element. Throws std::invalid_argument naming the option.
std::string parse_commitment(const std::string& text, const std::string& option, bool sealed);
// 32 bytes from 64 hex digits (an optional 0x first); throws std::invalid_argument naming the option.
std::string parse_hex32(const std::string& text, const std::string& option);

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

// Installs a SIGINT handler that lets a waiting command stop cleanly.
void install_interrupt_handler();

}  // namespace cuzk::cli

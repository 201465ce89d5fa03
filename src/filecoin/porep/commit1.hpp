// The Commit1 output (filecoin-proofs-api seal.rs SealCommitPhase1Output) in the serde JSON that
// filecoin-proofs-api writes and lotus/curio hand to Commit2:
//
//   {"registered_proof":"StackedDrg32GiBV1_1",
//    "vanilla_proofs":{"StackedDrg32GiBV1":[[proof, ...], ...]},   partitions x challenges
//    "comm_r":[32 bytes],"comm_d":[..],"replica_id":[..],"seed":[..],"ticket":[..]}
//
// with each proof as stacked/vanilla/params.rs Proof serializes it (see porep/vanilla_proof.hpp for the
// pieces). Reading checks the structure against the registered proof (counts, tree shapes, path
// indices, field elements); it does not check roots, labels or challenge derivation
// (porep/commit1_check.hpp does). Writing gives exactly serde_json's compact bytes, so a file read
// and written back is unchanged.
#pragma once

#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "filecoin/porep/registered_proofs.hpp"
#include "filecoin/porep/vanilla_proof.hpp"

namespace cuzk::filecoin {

// A Commit1 output that is not what filecoin-proofs-api writes for its registered proof. The
// message starts with the JSON path of the offending value, e.g.
// "vanilla_proofs.StackedDrg32GiBV1[0][1].replica_column_proofs.drg_parents[3].inclusion_proof
// .data.Sub.base_proof.path[2].hashes: 6 elements, a tree of arity 8 needs 7", and ends with the
// byte offset when the JSON itself is at fault.
class C1FormatError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Parses and validates; throws C1FormatError. A 32 GiB sector's output (39 MB) takes 0.4 s on the
// 2-core development VM, most of it page faults of fresh memory; 0.13 s with a reused
// SealCommitPhase1Reader. The input is copied once into simdjson's padded buffer.
SealCommitPhase1Output read_seal_commit_phase1(std::string_view json);
// Same, from a file (read straight into the padded buffer); throws std::runtime_error when the
// file cannot be read. A separate name: an overload taking a path would make calls with a
// std::string or a string literal ambiguous.
SealCommitPhase1Output read_seal_commit_phase1_file(const std::filesystem::path& path);

// Reads many outputs with one simdjson parser and input buffer: after the first, a read skips the
// page faults of fresh memory for the parser's structural index (4 bytes per number), which are
// most of a cold read's time on a VM. Holds about 6 bytes per byte of the largest input read.
// Not thread-safe; one per thread.
class SealCommitPhase1Reader {
 public:
  SealCommitPhase1Reader();
  ~SealCommitPhase1Reader();
  SealCommitPhase1Reader(const SealCommitPhase1Reader&) = delete;
  SealCommitPhase1Reader& operator=(const SealCommitPhase1Reader&) = delete;

  SealCommitPhase1Output read(std::string_view json);
  SealCommitPhase1Output read_file(const std::filesystem::path& path);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// The structural checks read_seal_commit_phase1 makes after parsing, for an output built in
// memory; throws C1FormatError with the path the value would have in the JSON.
void validate_seal_commit_phase1(const SealCommitPhase1Output& c1);

// serde_json::to_string of the output: compact, fields in declaration order. Does not validate
// (an inconsistent output is written as it is); a MerkleProof is written by its kind, from base,
// sub and top.
std::string write_seal_commit_phase1(const SealCommitPhase1Output& c1);

// The VanillaSealProof variant of a registered proof: "StackedDrg" + sector size + "V1" for every
// API version (filecoin-proofs-api seal.rs VanillaSealProof).
std::string vanilla_proofs_variant(const SealProofInfo& info);

}  // namespace cuzk::filecoin

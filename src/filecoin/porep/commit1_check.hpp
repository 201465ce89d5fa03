// Native verification of a Commit1 output: everything the PoRep circuit will enforce, checked
// before any synthesis, so that a wrong input is refused with the name of what does not hold
// instead of a proof that fails to verify (storage-proofs-porep stacked/vanilla/proof_scheme.rs
// verify_all_partitions and proof.rs Proof::verify restated):
//   - the structure (validate_seal_commit_phase1: counts, tree shapes, path indices);
//   - comm_d and comm_r are non-zero, canonical field elements, and the seed is not zero
//     (filecoin-proofs seal_commit_phase2 refuses those); replica_id recomputes from the prover,
//     sector, ticket, comm_d and porep_id when the prover and sector are given;
//   - every partition opens the challenges derived for it (interactive from the seed, synthetic
//     or non-interactive as the registered proof says);
//   - per challenge: the data leaf is in tree D under comm_d; the challenged column and the 6 DRG
//     and 8 expander parents' columns (at the graph's parents) are in tree C under one comm_c;
//     each layer's label recomputes (create_label) from the parents' labels and is the column's
//     row; the encoded leaf (last label + data) is in tree R under one comm_r_last; and
//     comm_r = Poseidon(comm_c, comm_r_last).
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "filecoin/porep/vanilla_proof.hpp"

namespace cuzk::filecoin {

// What a Commit1 output fails; the message names the partition, challenge and value.
class SealCommitCheckError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct SealCommitIdentity {
  Bytes32 prover_id{};
  uint64_t sector_id = 0;
};

// Whether check_seal_commit_phase1 checks the structure first: an output read_seal_commit_phase1
// returned has been (it validates as it reads), one built in code has not.
enum class C1Structure { kCheck, kValidatedByReader };

// Throws SealCommitCheckError at the first check that fails. Without an identity replica_id is
// taken as given (it binds the labels, and the circuit's public input, so a wrong one fails the
// labels' check unless the labels were made with it).
void check_seal_commit_phase1(const SealCommitPhase1Output& c1, const std::optional<SealCommitIdentity>& identity = {},
                              C1Structure structure = C1Structure::kCheck);

}  // namespace cuzk::filecoin

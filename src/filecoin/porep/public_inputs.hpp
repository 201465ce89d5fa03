// The public inputs of a PoRep partition as the verifier computes them
// (storage-proofs-porep stacked/circuit/proof.rs StackedCompound::generate_public_inputs), in the
// order the circuit allocates them, ONE excluded: replica_id, comm_d, comm_r, then for each
// challenge of partition k 18 leaf indexes: the challenge in tree D, its 6 DRG and 8 expander
// parents in tree C, the challenge itself (a packed u64), the challenge in tree R and in tree C.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "ff/fr.hpp"
#include "filecoin/porep/graph.hpp"
#include "filecoin/porep/registered_proofs.hpp"

namespace cuzk::filecoin {

inline constexpr size_t kPoRepInputsPerChallenge = 18;

// For the given challenges of one partition, with the graph of the registered proof.
std::vector<ff::Fr> porep_public_inputs(const StackedBucketGraph& graph, const ff::Fr& replica_id, const ff::Fr& comm_d,
                                        const ff::Fr& comm_r, std::span<const uint64_t> challenges);

// Partition k, its challenges derived as the registered proof derives them (seal_challenges).
// Throws std::invalid_argument when replica_id, comm_d or comm_r is not a canonical field element
// or comm_d / comm_r is zero (filecoin-proofs verify_seal refuses those).
std::vector<ff::Fr> porep_public_inputs(const SealProofInfo& proof, const StackedBucketGraph& graph,
                                        const Bytes32& replica_id, const Bytes32& comm_d, const Bytes32& comm_r,
                                        const Bytes32& seed, size_t k);

// A 32-byte commitment read as a field element (fr32 bytes_into_fr); throws std::invalid_argument
// naming `what` when it is not canonical.
ff::Fr commitment_to_fr(const Bytes32& bytes, const char* what);

}  // namespace cuzk::filecoin

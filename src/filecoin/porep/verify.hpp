// Verification of a seal proof as filecoin-proofs does it (api/seal.rs verify_seal, for the
// interactive and synthetic PoRep): one Groth16 proof of 192 bytes per partition, partition k
// against the public inputs of its challenges (porep/public_inputs.hpp), replica_id recomputed from the
// prover, sector, ticket, comm_d and porep_id. Non-interactive seal proofs are SnarkPack
// aggregates of their partitions' proofs (verify_aggregate_seal_commit_proofs): not supported.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "filecoin/porep/registered_proofs.hpp"
#include "groth16/parameters.hpp"

namespace cuzk::filecoin {

struct SealVerifyInputs {
  Bytes32 prover_id{};
  uint64_t sector_id = 0;
  Bytes32 ticket{}, seed{}, comm_r{}, comm_d{};
};

// The public inputs of every partition (ONE excluded). Throws std::invalid_argument for a
// non-canonical or zero comm_r / comm_d.
std::vector<std::vector<ff::Fr>> seal_public_inputs(const SealProofInfo& proof, const SealVerifyInputs& in);

// True when every partition's proof verifies (batched). Throws std::invalid_argument when the
// proof is not partitions x 192 bytes, a point does not decode, or the proof is non-interactive.
bool verify_seal(const groth16::PreparedVerifyingKey& vk, const SealProofInfo& proof, const SealVerifyInputs& in,
                 std::span<const uint8_t> proof_bytes);

}  // namespace cuzk::filecoin

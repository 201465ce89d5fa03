// The SnapDeals vanilla proof of one partition (storage-proofs-update vanilla.rs PartitionProof,
// ChallengeProof; poseidon/vanilla.rs for the Poseidon variant), as Curio hands it over: one
// bincode 1.x PartitionProof per partition (filecoin-proofs-api update.rs
// generate_partition_proofs: PartitionProofBytes(bincode::serialize(&proof)); Curio's
// lib/ffi/cuzk_funcs.go sends them in SubmitProofRequest.vanilla_proofs, in partition order).
//
// Layout (common/bincode.hpp): comm_c (32 bytes), apex_leafs: [domain] (absent in the Poseidon
// variant), challenge_proofs: [ {proof_r_old, proof_d_new, proof_r_new} ], each a MerkleProof:
// trees R old and new of tree R's shape, tree D new binary SHA-256 (Single, log2(nodes) levels)
// or, in the Poseidon variant, of tree R's shape.
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "filecoin/common/merkle_proof.hpp"
#include "filecoin/snap/public_inputs.hpp"
#include "filecoin/snap/registered_proofs.hpp"

namespace cuzk::filecoin {

struct UpdateChallengeProof {
  MerkleProof proof_r_old, proof_d_new, proof_r_new;
};

struct EmptySectorUpdatePartitionProof {
  Fr comm_c;
  std::vector<Fr> apex_leafs;  // apex_leaf_count (none for Poseidon)
  std::vector<UpdateChallengeProof> challenge_proofs;
};

// Malformed input; the message names the field and the byte offset.
class UpdateVanillaProofFormatError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Parses one partition's bincode and checks its shape: apex_leaf_count apex leaves,
// challenge_count challenge proofs of the trees' shapes, every domain value canonical, every
// tree R old (and new) opening under one root, every tree D opening under one root, nothing after
// the proof. Throws UpdateVanillaProofFormatError. Whether the openings are the right challenges
// and consistent with the public inputs is verify_empty_sector_update_partition's check.
EmptySectorUpdatePartitionProof read_empty_sector_update_partition_proof(std::span<const uint8_t> bincode,
                                                                         const EmptySectorUpdateParams& params);
std::vector<uint8_t> write_empty_sector_update_partition_proof(const EmptySectorUpdatePartitionProof& proof,
                                                               const EmptySectorUpdateParams& params);

// vanilla.rs EmptySectorUpdate::verify for partition in.k (for the Poseidon variant, the same
// checks with tree D of tree R's shape and no apex tree): comm_r_old / comm_r_new =
// H(comm_c, root), the challenges of comm_r_new, every opening's path index, root and hashes,
// the encoding label_r_new = label_r_old + label_d_new * rho, the apex path. Returns "" when
// valid, else what failed.
std::string verify_empty_sector_update_partition(const EmptySectorUpdateParams& params,
                                                 const EmptySectorUpdatePublicInputs& in,
                                                 const EmptySectorUpdatePartitionProof& proof);

// A whole update's commitments and partition proofs, as the generators make them
// (generators/test_sector_update.hpp, generators/sparse_sector_update.hpp).
struct SectorUpdateProofs {
  EmptySectorUpdateParams params;
  size_t h = 0;
  Fr comm_c, comm_r_last_old, comm_r_old, comm_d_new, comm_r_last_new, comm_r_new;
  std::vector<EmptySectorUpdatePartitionProof> partitions;  // k = 0, 1, ...

  // The verifier's public inputs of partition k (vanilla.rs PublicInputs with k).
  EmptySectorUpdatePublicInputs public_inputs(size_t k) const;
  // Each partition's bincode, as Curio sends it.
  std::vector<std::vector<uint8_t>> partition_bincode() const;
};

}  // namespace cuzk::filecoin

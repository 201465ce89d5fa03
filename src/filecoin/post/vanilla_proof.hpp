// The FallbackPoSt vanilla proof (storage-proofs-post fallback/vanilla.rs SectorProof, Proof) and
// the per-sector container Curio hands over for WindowPoSt and WinningPoSt (filecoin-proofs
// types/mod.rs FallbackPoStSectorProof), with every 32-byte domain value a canonical field
// element. The circuit (post/circuit.hpp) is built from them.
//
// Curio (through filecoin-ffi) sends a FallbackPoStSectorProof as bincode 1.x with its default
// options: integers little-endian and fixed width (usize, sequence lengths and sector ids as u64),
// enum variants as a u32 (MerkleProof's ProofData: 0 Single, 1 Sub, 2 Top), a domain value as its
// 32 bytes. Layout: sector_id, comm_r, vanilla_proof.sectors: [ inclusion_proofs: [ MerkleProof ],
// comm_c, comm_r_last ]; a MerkleProof is Single{root, leaf, path} | Sub{base, sub, root, leaf} |
// Top{base, sub, top, root, leaf}, a path [ {hashes: [domain], index: usize} ].
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

#include "filecoin/common/merkle_proof.hpp"
#include "filecoin/post/registered_proofs.hpp"

namespace cuzk::filecoin {

// fallback/vanilla.rs SectorProof: one tree R opening per challenge, and the two roots whose
// Poseidon hash is comm_r.
struct PoStSectorProof {
  std::vector<MerkleProof> inclusion_proofs;
  Fr comm_c, comm_r_last;
};

// filecoin-proofs FallbackPoStSectorProof: one sector's vanilla proof (vanilla_proof.sectors holds
// one SectorProof when made by generate_single_vanilla_proof).
struct FallbackPoStSectorProof {
  uint64_t sector_id = 0;
  Fr comm_r;
  std::vector<PoStSectorProof> sectors;
};

// Malformed input; the message names the field and the byte offset.
class PoStVanillaProofFormatError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Parses bincode and checks it: every SectorProof has `challenges` inclusion proofs of tree R's
// shape (the ProofData variant, levels and arities, indices below the arity) whose root is its
// comm_r_last; every domain value is canonical; nothing follows the proof. Throws
// PoStVanillaProofFormatError. Whether the openings are the right challenges is the caller's
// check (fallback_post_leaf_challenges against MerkleProof::path_index).
FallbackPoStSectorProof read_fallback_post_sector_proof(std::span<const uint8_t> bincode,
                                                        const gadgets::PorTreeShape& tree_r, size_t challenges);
// With the registered proof's numbers: WindowPoSt 10 openings per sector, WinningPoSt all 66 in
// its one SectorProof (generate_single_vanilla_proof opens WINNING_POST_CHALLENGE_COUNT leaves;
// the circuit takes them as 66 sectors of one challenge).
FallbackPoStSectorProof read_fallback_post_sector_proof(std::span<const uint8_t> bincode, const PoStProofInfo& proof);

// The bincode bytes filecoin-ffi writes for `proof` (read_fallback_post_sector_proof's input).
std::vector<uint8_t> write_fallback_post_sector_proof(const FallbackPoStSectorProof& proof);

}  // namespace cuzk::filecoin

// Sparse SnapDeals (EmptySectorUpdate) updates for tests and benchmarks of any size (32 GiB and
// 64 GiB included), in the style of generators/sparse_sector.hpp / generators/sparse_post_sector.hpp: the commitments
// and every partition's vanilla proof in milliseconds, with no replica held.
//
// The construction: the old replica holds one pseudo-random leaf everywhere (no node of it
// differs), the new data is all zero and comm_c is pseudo-random. Then
//   - tree D new (binary SHA-256, or for the Poseidon variant a Poseidon tree of tree R's shape)
//     is the tree of zeros: one value per level, comm_d_new its top one (in the standard variant, a CC sector's
//     comm_d);
//   - label_new = label_old + 0 * rho = label_old at every node, whatever phi and h are, so
//     tree R new is tree R old: one value per level, comm_r_last_new = comm_r_last_old and
//     comm_r_new = comm_r_old = Poseidon(comm_c, comm_r_last);
//   - the apex leaves of every partition are tree D's default of their level, and the partition
//     path's and apex path's siblings are defaults of the rows the apex tree holds.
// SnapDeals challenges come from comm_r_new (Fiat-Shamir), but every opening of these trees is
// the defaults of its levels, so the openings at whatever challenges comm_r_new gives satisfy
// what the vanilla verifier and the circuit check: H(comm_c, root) against both comm_r (nothing
// requires comm_r_new != comm_r_old), each path to its root, the encoding, the apex tree. No real
// update looks like this (real data is not all zero), but the circuit's shape is fixed, so
// synthesis and proving do the same work as for a real one.
#pragma once

#include <cstdint>
#include <vector>

#include "filecoin/snap/public_inputs.hpp"
#include "filecoin/snap/registered_proofs.hpp"
#include "filecoin/snap/vanilla_proof.hpp"

namespace cuzk::filecoin {

// The commitments and partition proofs (as TestSectorUpdate has them, without its data and full
// trees), and the one leaf both trees R hold.
struct SparseSectorUpdate : SectorUpdateProofs {
  Fr default_leaf;  // every leaf of tree R old and new
};

// The sparse update for params (standard or Poseidon variant) encoded with h (0:
// params.h_default); seed picks the default leaf and comm_c. Throws std::invalid_argument for an
// h the size does not allow.
SparseSectorUpdate make_sparse_sector_update(const EmptySectorUpdateParams& params, uint64_t seed, size_t h = 0);

}  // namespace cuzk::filecoin

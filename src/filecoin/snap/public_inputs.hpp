// The public inputs of one SnapDeals partition (storage-proofs-update circuit.rs PublicInputs::new
// and to_vec, compound.rs generate_public_inputs; poseidon/circuit.rs for the Poseidon variant):
// exactly four after ONE,
//   k_and_h_select = k | h_select << partition_bit_len (Poseidon: h_select), comm_r_old,
//   comm_d_new, comm_r_new.
// Challenges are derived inside the circuit from comm_r_new; they are not inputs.
#pragma once

#include <array>
#include <cstddef>

#include "ff/fr.hpp"
#include "filecoin/snap/registered_proofs.hpp"

namespace cuzk::filecoin {

using ff::Fr;

// vanilla.rs PublicInputs (the verifier's): the commitments as field elements, h (h_default in
// filecoin-proofs) and the partition k.
struct EmptySectorUpdatePublicInputs {
  size_t k = 0;
  size_t h = 0;
  Fr comm_r_old, comm_d_new, comm_r_new;
};

// k_and_h_select (or h_select for Poseidon). Throws std::invalid_argument for k >=
// partition_count or an h the sector size does not allow.
Fr empty_sector_update_k_and_h_select(const EmptySectorUpdateParams& params, size_t k, size_t h);
std::array<Fr, 4> empty_sector_update_public_inputs(const EmptySectorUpdateParams& params,
                                                    const EmptySectorUpdatePublicInputs& in);

}  // namespace cuzk::filecoin

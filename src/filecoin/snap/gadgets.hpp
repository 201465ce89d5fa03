// The SnapDeals circuit's gadgets (storage-proofs-update gadgets.rs, and storage-proofs-core
// gadgets/por.rs por_no_challenge_input), allocation for allocation and constraint for
// constraint:
//   - allocated_num_to_allocated_bits: 255 bits and one decomposition constraint;
//   - apex_por: the partition's apex tree of binary SHA-256 hash2, then its root's path to comm_d;
//   - gen_challenge_bits: per digest an allocated digest index (one constraint), Poseidon with the
//     gen-randomness tag, the digest's 255 bits; 568 constraints per digest;
//   - get_challenge_high_bits: the h high bits of c for every h in hs, each times its h_select
//     bit, summed;
//   - label_r_new: label_r_old + label_d_new * rho (two constraints);
//   - por_no_challenge_input: a Merkle path whose index bits are given (not inputs), ending in
//     an equality with an allocated root.
#pragma once

#include <array>
#include <span>
#include <vector>

#include "filecoin/snap/registered_proofs.hpp"
#include "gadgets/num.hpp"
#include "gadgets/por.hpp"

namespace cuzk::filecoin::update_gadgets {

using gadgets::AllocatedBit;
using gadgets::AllocatedNum;
using r1cs::ConstraintSystem;

std::vector<AllocatedBit> allocated_num_to_allocated_bits(ConstraintSystem& cs, const AllocatedNum& num);

// Index bits little-endian, consumed level by level; path[l] has arity - 1 siblings.
void por_no_challenge_input(ConstraintSystem& cs, const gadgets::PorTreeShape& shape,
                            std::span<const AllocatedBit> challenge_bits, const AllocatedNum& leaf,
                            const std::vector<std::vector<AllocatedNum>>& path, const AllocatedNum& root);

void apex_por(ConstraintSystem& cs, const std::vector<AllocatedNum>& apex_leafs,
              std::span<const AllocatedBit> partition_bits,
              const std::vector<std::vector<AllocatedNum>>& partition_path, const AllocatedNum& comm_d);

std::vector<std::vector<AllocatedBit>> gen_challenge_bits(ConstraintSystem& cs, const AllocatedNum& comm_r_new,
                                                          const AllocatedNum& partition, size_t challenges,
                                                          size_t bits_per_challenge);

AllocatedNum get_challenge_high_bits(ConstraintSystem& cs, std::span<const AllocatedBit> c_bits,
                                     std::span<const AllocatedBit> h_select_bits,
                                     const std::array<size_t, kUpdateHsCount>& hs);

AllocatedNum label_r_new(ConstraintSystem& cs, const AllocatedNum& label_r_old, const AllocatedNum& label_d_new,
                         const AllocatedNum& rho);

// Allocated bits of value (little-endian) with one constraint sum 2^i b_i = num (the
// k_and_h_select / h_select decomposition of circuit.rs).
std::vector<AllocatedBit> decompose_public_selector(ConstraintSystem& cs, const AllocatedNum& num, size_t bit_len,
                                                    const char* what);

}  // namespace cuzk::filecoin::update_gadgets

// Pieces both SnapDeals circuits (snap/circuit.cpp, storage-proofs-update
// circuit.rs, and snap/poseidon_circuit.cpp, poseidon/circuit.rs) synthesize
// identically: named allocations, public commitments, the gen-randomness hashes, the comm_r
// checks, a challenge's path siblings, a challenge's encoding up to label_r_new, and the
// synthesis of the challenges after the shared prefix, in parallel sections where cs takes them.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "filecoin/snap/circuit.hpp"
#include "gadgets/num.hpp"

namespace cuzk::filecoin::update_circuit {

using gadgets::AllocatedBit;
using gadgets::AllocatedNum;
using r1cs::ConstraintSystem;

AllocatedNum alloc(ConstraintSystem& cs, const std::string& name, const Fr& value);
// Allocated, then made a public input (AllocatedNum::inputize).
AllocatedNum alloc_public(ConstraintSystem& cs, const std::string& name, const Fr& value);
// H(a, b) with POSEIDON_CONSTANTS_GEN_RANDOMNESS.
AllocatedNum gen_hash(ConstraintSystem& cs, const std::string& name, const AllocatedNum& a, const AllocatedNum& b);
// comm_r == Poseidon2(comm_c, root) (TreeR hasher's hash2_circuit), one equality constraint.
void enforce_comm_r(ConstraintSystem& cs, const std::string& name, const AllocatedNum& comm_c, const AllocatedNum& root,
                    const AllocatedNum& comm_r);
// The first `levels` levels of a path, every sibling allocated.
std::vector<std::vector<AllocatedNum>> alloc_path(ConstraintSystem& cs, const std::string& name, size_t c_index,
                                                  const std::vector<std::vector<Fr>>& path, size_t levels);
// What a challenge's synthesis reads of the shared prefix (allocated before the challenges).
struct ChallengeInputs {
  std::vector<std::vector<AllocatedBit>> c_bits;  // per challenge, all challenge_bit_len bits
  std::vector<AllocatedBit> h_select_bits;
  AllocatedNum phi, root_r_old, root_r_new;
  std::vector<AllocatedNum> apex_leafs;  // standard variant
  AllocatedNum comm_d_new;               // Poseidon variant
};

// What both variants do first for challenge c_index: c_high, rho, leaf_r_old, leaf_d_new,
// label_r_new, then the openings of c in tree R old and tree R new; returns leaf_d_new (tree D's
// opening differs by variant). With check_values, throws std::invalid_argument when label_r_new
// differs from w.leaf_r_new.
AllocatedNum encode_and_open_tree_r(ConstraintSystem& cs, const EmptySectorUpdateParams& p, const ChallengeInputs& in,
                                    size_t c_index, const UpdateChallengeWitness& w, bool check_values);

// One challenge's allocations and constraints (they read only `in` and their own variables).
using ChallengeSynthesis = void (*)(ConstraintSystem& cs, const EmptySectorUpdateParams& p, const ChallengeInputs& in,
                                    size_t c_index, const UpdateChallengeWitness& w, bool check_values);

// Challenge c_index = 0, 1, ... with one(), each in its own section of cs filled on any thread
// when cs takes sections (the result is the serial one), else one after another.
void synthesize_challenges(ConstraintSystem& cs, const EmptySectorUpdateParams& p, const ChallengeInputs& in,
                           const std::vector<UpdateChallengeWitness>& ws, bool check_values, ChallengeSynthesis one);

}  // namespace cuzk::filecoin::update_circuit

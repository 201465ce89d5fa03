// The SnapDeals (EmptySectorUpdate) circuit of one partition (storage-proofs-update circuit.rs
// EmptySectorUpdateCircuit) and its Poseidon variant (poseidon/circuit.rs), variable for variable
// and constraint for constraint as rust-fil-proofs allocates and enforces them, so that Filecoin's
// published parameters (v28-empty-sector-update-...) fit it:
//
//   k_and_h_select (public) and its bits; the partition number packed from its k bits;
//   comm_r_old, comm_d_new, comm_r_new (public); phi = H_gen(comm_d_new, comm_r_old);
//   comm_c, root_r_old, root_r_new, the apex leaves and the partition path (aux);
//   comm_r_old = H(comm_c, root_r_old), comm_r_new = H(comm_c, root_r_new);
//   the apex tree's root reaches comm_d_new along the partition path (apex_por);
//   the challenges' bits from comm_r_new (gen_challenge_bits), then per challenge
//   rho = H_gen(phi, high bits of c), label_r_new = label_r_old + label_d_new * rho, the tree R old
//   and new openings of c, and tree D's opening of c up to the selected apex leaf.
// The Poseidon variant has one partition: h_select instead of k_and_h_select, no apex tree, and
// tree D new a Poseidon tree of tree R's shape opened up to comm_d_new.
#pragma once

#include <vector>

#include "filecoin/snap/public_inputs.hpp"
#include "filecoin/snap/registered_proofs.hpp"
#include "filecoin/snap/vanilla_proof.hpp"
#include "r1cs/constraint_system.hpp"

namespace cuzk::filecoin {

// circuit.rs ChallengeProof: the three leaves and the siblings of each level (base first).
struct UpdateChallengeWitness {
  Fr leaf_r_old, leaf_d_new, leaf_r_new;
  std::vector<std::vector<Fr>> path_r_old, path_d_new, path_r_new;

  static UpdateChallengeWitness from_vanilla(const UpdateChallengeProof& p);
  // ChallengeProof::empty: zeros of the paths' shapes.
  static UpdateChallengeWitness blank(const EmptySectorUpdateParams& params);
};

// circuit.rs PrivateInputs.
struct EmptySectorUpdateWitness {
  Fr comm_c, root_r_old, root_r_new;
  std::vector<Fr> apex_leafs;  // empty for Poseidon
  std::vector<UpdateChallengeWitness> challenges;

  // PrivateInputs::new: the roots of the first challenge's openings.
  static EmptySectorUpdateWitness from_vanilla(const EmptySectorUpdatePartitionProof& proof);
  static EmptySectorUpdateWitness blank(const EmptySectorUpdateParams& params);
};

class EmptySectorUpdateCircuit final : public r1cs::Circuit {
 public:
  // Checks the witness's shape against params (apex leaves, challenge count, path shapes; every
  // challenge's partition path equal) and k / h; throws std::invalid_argument naming what differs.
  EmptySectorUpdateCircuit(EmptySectorUpdateParams params, EmptySectorUpdatePublicInputs public_inputs,
                           EmptySectorUpdateWitness witness);

  // CompoundProof::circuit for partition public_inputs.k from its vanilla proof.
  static EmptySectorUpdateCircuit from_vanilla(const EmptySectorUpdateParams& params,
                                               const EmptySectorUpdatePublicInputs& public_inputs,
                                               const EmptySectorUpdatePartitionProof& proof);
  // blank_circuit: the shape for params (values zero).
  static EmptySectorUpdateCircuit blank(const EmptySectorUpdateParams& params);

  // Throws std::invalid_argument when the values are given and the computed label_r_new of a
  // challenge differs from the proof's (rust-fil-proofs asserts the same during synthesis).
  // The challenges after the shared prefix go in one section each where cs takes sections
  // (ConstraintSystem::open_sections), filled on any threads; the result is the serial one.
  void synthesize(r1cs::ConstraintSystem& cs) const override;

  const EmptySectorUpdateParams& params() const { return params_; }
  const EmptySectorUpdatePublicInputs& public_inputs() const { return public_inputs_; }
  // The four public inputs the verifier computes (empty_sector_update_public_inputs).
  std::array<Fr, 4> public_input_values() const;

 private:
  void synthesize_standard(r1cs::ConstraintSystem& cs) const;
  void synthesize_poseidon(r1cs::ConstraintSystem& cs) const;

  EmptySectorUpdateParams params_;
  EmptySectorUpdatePublicInputs public_inputs_;
  EmptySectorUpdateWitness witness_;
  bool blank_ = false;
};

}  // namespace cuzk::filecoin

// The StackedDRG PoRep circuit of one partition (storage-proofs-porep stacked/circuit/proof.rs
// StackedCircuit, stacked/circuit/params.rs Proof::synthesize), variable for variable and
// constraint for constraint as rust-fil-proofs allocates and enforces them, so that Filecoin's
// published parameters fit it:
//
//   replica_id (aux, made public, unpacked to bits for the labels), comm_d and comm_r (aux, made
//   public), comm_r_last and comm_c (aux), comm_r = Poseidon(comm_c, comm_r_last); then per
//   challenge: the data leaf and its inclusion in tree D; the 6 DRG and 8 expander parents'
//   columns, each hashed and included in tree C; the challenge as a public u64; every layer's
//   label recomputed from the parents' labels; the last label + data leaf (the encoding)
//   included in tree R; the challenged column's hash included in tree C.
//
// Public inputs (after ONE): replica_id, comm_d, comm_r, then 18 per challenge (see
// porep/public_inputs.hpp). The circuit is built from a Commit1 output's vanilla proofs, or blank
// (zeros) for its shape.
#pragma once

#include <cstdint>
#include <vector>

#include "filecoin/porep/registered_proofs.hpp"
#include "filecoin/porep/vanilla_proof.hpp"
#include "gadgets/por.hpp"
#include "r1cs/constraint_system.hpp"

namespace cuzk::filecoin {

// What the circuit needs of one challenge (stacked/circuit/params.rs Proof).
struct StackedChallengeWitness {
  struct ParentColumn {
    std::vector<Fr> rows;   // the parent's label in each layer
    gadgets::PorPath path;  // its column hash in tree C
  };
  uint64_t challenge = 0;
  Fr data_leaf;
  gadgets::PorPath comm_d_path;                        // tree D (binary SHA-256)
  gadgets::PorPath comm_r_last_path;                   // tree R
  gadgets::PorPath comm_c_path;                        // tree C, the challenged column
  std::vector<ParentColumn> drg_parents, exp_parents;  // 6 and 8
};

// What the circuit takes of one challenge's vanilla proof (StackedCompound::circuit): the
// challenge is labeling_proofs[0].node. Throws std::invalid_argument without labeling proofs.
StackedChallengeWitness challenge_witness(const VanillaSealProof& p);

class StackedCircuit final : public r1cs::Circuit {
 public:
  // Keeps a pointer to info, which must outlive the circuit (hence no temporaries).
  StackedCircuit(const SealProofInfo& info, const Fr& replica_id, const Fr& comm_d, const Fr& comm_r,
                 const Fr& comm_r_last, const Fr& comm_c, std::vector<StackedChallengeWitness> challenges);
  StackedCircuit(const SealProofInfo&&, const Fr&, const Fr&, const Fr&, const Fr&, const Fr&,
                 std::vector<StackedChallengeWitness>) = delete;

  // Partition k of a Commit1 output (StackedCompound::circuit): comm_r_last and comm_c are the
  // roots of the first challenge's tree R and tree C openings. Throws std::invalid_argument when
  // the shapes do not fit the registered proof (read_seal_commit_phase1 has checked them) or the
  // roots differ between challenges.
  static StackedCircuit from_commit_phase1(const SealCommitPhase1Output& c1, size_t k);
  // All values zero, every path index 0: the shape of the registered proof's circuit.
  static StackedCircuit blank(const SealProofInfo& info);
  static StackedCircuit blank(const SealProofInfo&&) = delete;

  void synthesize(r1cs::ConstraintSystem& cs) const override;

  const SealProofInfo& info() const { return *info_; }
  const std::vector<StackedChallengeWitness>& challenges() const { return challenges_; }
  const Fr& replica_id() const { return replica_id_; }
  const Fr& comm_d() const { return comm_d_; }
  const Fr& comm_r() const { return comm_r_; }

  // One challenge's variables that its labels and its tail use.
  struct ChallengeVars;
  // The sizes of a challenge's three parts (the same for every challenge of a shape): what
  // precedes the labels, each layer's label, and what follows them.
  struct PartShapes {
    r1cs::SectionShape head;
    std::vector<r1cs::SectionShape> labels;
    r1cs::SectionShape tail;
  };
  static const PartShapes& part_shapes(const SealProofInfo& info);

 private:
  ChallengeVars synthesize_head(r1cs::ConstraintSystem& cs, const StackedChallengeWitness& w,
                                const gadgets::AllocatedNum& comm_d, const gadgets::AllocatedNum& comm_c) const;
  gadgets::AllocatedNum synthesize_label(r1cs::ConstraintSystem& cs, size_t layer, const ChallengeVars& v,
                                         const std::vector<gadgets::Boolean>& replica_id_bits) const;
  void synthesize_tail(r1cs::ConstraintSystem& cs, const StackedChallengeWitness& w, const ChallengeVars& v,
                       const std::vector<gadgets::AllocatedNum>& labels, const gadgets::AllocatedNum& comm_c,
                       const gadgets::AllocatedNum& comm_r_last) const;
  // The challenges in parallel sections of cs (heads, then each layer's label, then the tail, as
  // their inputs are ready); false when cs takes no sections.
  bool synthesize_challenges_in_sections(r1cs::ConstraintSystem& cs, const gadgets::AllocatedNum& comm_d,
                                         const gadgets::AllocatedNum& comm_c, const gadgets::AllocatedNum& comm_r_last,
                                         const std::vector<gadgets::Boolean>& replica_id_bits) const;

  const SealProofInfo* info_;
  Fr replica_id_, comm_d_, comm_r_, comm_r_last_, comm_c_;
  std::vector<StackedChallengeWitness> challenges_;
};

}  // namespace cuzk::filecoin

// The EmptySectorUpdate-Poseidon synthesis (storage-proofs-update poseidon/circuit.rs): one
// partition; h_select (public) and its six bits; the commitments; phi; comm_c and the two tree R
// roots checked against comm_r_old / comm_r_new; a zero "partition" for gen_challenge_bits; per
// challenge the encoding and three openings of tree R's shape: tree R old, tree R new, and tree
// D new (Poseidon) up to comm_d_new itself, in parallel sections where cs takes them.
#include "filecoin/snap/circuit.hpp"
#include "filecoin/snap/circuit_common.hpp"
#include "filecoin/snap/gadgets.hpp"

namespace cuzk::filecoin {

using gadgets::AllocatedBit;
using gadgets::AllocatedNum;
using r1cs::Namespace;
namespace ug = update_gadgets;

namespace {

// Challenge c_index: the encoding and the openings of c in tree R old, tree R new and tree D new.
void synthesize_poseidon_challenge(r1cs::ConstraintSystem& cs, const EmptySectorUpdateParams& p,
                                   const update_circuit::ChallengeInputs& in, size_t c_index,
                                   const UpdateChallengeWitness& cw, bool check_values) {
  using namespace update_circuit;
  const std::string ci = "(c_index=" + std::to_string(c_index) + ")";
  const std::vector<AllocatedBit>& c_bits = in.c_bits[c_index];

  const AllocatedNum leaf_d_new = encode_and_open_tree_r(cs, p, in, c_index, cw, check_values);
  const auto path_d_new = alloc_path(cs, "path_d_new", c_index, cw.path_d_new, cw.path_d_new.size());
  {
    Namespace ns(cs, "por tree_d_new " + ci);
    ug::por_no_challenge_input(cs, p.tree_d, c_bits, leaf_d_new, path_d_new, in.comm_d_new);
  }
}

}  // namespace

void EmptySectorUpdateCircuit::synthesize_poseidon(r1cs::ConstraintSystem& cs) const {
  using namespace update_circuit;
  const EmptySectorUpdateParams& p = params_;
  const EmptySectorUpdateWitness& w = witness_;
  const bool check_values = cs.has_values() && !blank_;
  const Fr h_select_value = blank_ ? Fr::zero() : Fr::from_u64(p.h_select(public_inputs_.h));

  const AllocatedNum h_select = alloc_public(cs, "h_select", h_select_value);
  const auto h_select_bits = ug::decompose_public_selector(cs, h_select, kUpdateHsCount, "h_select");

  const AllocatedNum comm_r_old = alloc_public(cs, "comm_r_old", public_inputs_.comm_r_old);
  const AllocatedNum comm_d_new = alloc_public(cs, "comm_d_new", public_inputs_.comm_d_new);
  const AllocatedNum comm_r_new = alloc_public(cs, "comm_r_new", public_inputs_.comm_r_new);
  const AllocatedNum phi = gen_hash(cs, "phi", comm_d_new, comm_r_old);

  const AllocatedNum comm_c = alloc(cs, "comm_c", w.comm_c);
  const AllocatedNum root_r_old = alloc(cs, "root_r_old", w.root_r_old);
  const AllocatedNum root_r_new = alloc(cs, "root_r_new", w.root_r_new);
  enforce_comm_r(cs, "comm_r_old", comm_c, root_r_old, comm_r_old);
  enforce_comm_r(cs, "comm_r_new", comm_c, root_r_new, comm_r_new);

  const AllocatedNum partition = alloc(cs, "gen_challenge_bits partition zero", Fr::zero());
  std::vector<std::vector<AllocatedBit>> generated;
  {
    Namespace ns(cs, "gen_challenge_bits");
    generated = ug::gen_challenge_bits(cs, comm_r_new, partition, p.challenge_count, p.challenge_bit_len);
  }

  update_circuit::ChallengeInputs in;
  in.c_bits = std::move(generated);
  in.h_select_bits = h_select_bits;
  in.phi = phi;
  in.root_r_old = root_r_old;
  in.root_r_new = root_r_new;
  in.comm_d_new = comm_d_new;
  synthesize_challenges(cs, p, in, w.challenges, check_values, &synthesize_poseidon_challenge);
}

}  // namespace cuzk::filecoin

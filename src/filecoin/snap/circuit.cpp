#include "filecoin/snap/circuit.hpp"

#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <tbb/parallel_for.h>

#include "filecoin/snap/challenges.hpp"
#include "filecoin/snap/circuit_common.hpp"
#include "filecoin/snap/gadgets.hpp"
#include "gadgets/multipack.hpp"
#include "gadgets/poseidon.hpp"
#include "r1cs/shape.hpp"

namespace cuzk::filecoin {

using gadgets::AllocatedBit;
using gadgets::AllocatedNum;
using gadgets::Boolean;
using r1cs::ConstraintSystem;
using r1cs::LC;
using r1cs::Namespace;
using r1cs::Variable;
namespace ug = update_gadgets;

namespace {

std::vector<std::vector<Fr>> siblings_of(const MerkleProof& p) {
  std::vector<std::vector<Fr>> out;
  for (const PathElement& e : p.levels()) out.push_back(e.hashes);
  return out;
}

std::vector<std::vector<Fr>> blank_path(const gadgets::PorTreeShape& shape) {
  std::vector<std::vector<Fr>> out;
  for (size_t a : shape.level_arities()) out.emplace_back(a - 1, Fr::zero());
  return out;
}

void check_path(const std::vector<std::vector<Fr>>& path, const gadgets::PorTreeShape& shape, const std::string& what) {
  const auto arities = shape.level_arities();
  if (path.size() != arities.size()) {
    throw std::invalid_argument("EmptySectorUpdate circuit: " + what + " has " + std::to_string(path.size()) +
                                " levels, " + shape.name() + " has " + std::to_string(arities.size()));
  }
  for (size_t l = 0; l < arities.size(); l++) {
    if (path[l].size() + 1 != arities[l]) {
      throw std::invalid_argument("EmptySectorUpdate circuit: " + what + " level " + std::to_string(l) +
                                  " does not fit arity " + std::to_string(arities[l]));
    }
  }
}

}  // namespace

namespace update_circuit {

AllocatedNum alloc(ConstraintSystem& cs, const std::string& name, const Fr& value) {
  Namespace ns(cs, name);
  return AllocatedNum::alloc(cs, value);
}

AllocatedNum alloc_public(ConstraintSystem& cs, const std::string& name, const Fr& value) {
  AllocatedNum n = alloc(cs, name, value);
  Namespace ns(cs, name == "k_and_h_select" || name == "h_select" ? name + " (public input)" : name + "_input");
  n.inputize(cs);
  return n;
}

AllocatedNum gen_hash(ConstraintSystem& cs, const std::string& name, const AllocatedNum& a, const AllocatedNum& b) {
  Namespace ns(cs, name);
  const AllocatedNum pre[2] = {a, b};
  return gadgets::poseidon_hash_circuit(cs, pre, gen_randomness_poseidon_constants());
}

void enforce_comm_r(ConstraintSystem& cs, const std::string& name, const AllocatedNum& comm_c, const AllocatedNum& root,
                    const AllocatedNum& comm_r) {
  AllocatedNum calc;
  {
    Namespace ns(cs, name + "_calc");
    const AllocatedNum pre[2] = {comm_c, root};
    calc = gadgets::poseidon_hash_circuit(cs, pre, gadgets::poseidon_constants(2));
  }
  cs.enforce("enforce " + name + "_calc == " + name, LC(calc.var), LC(Variable::one()), LC(comm_r.var));
}

std::vector<std::vector<AllocatedNum>> alloc_path(ConstraintSystem& cs, const std::string& name, size_t c_index,
                                                  const std::vector<std::vector<Fr>>& path, size_t levels) {
  std::vector<std::vector<AllocatedNum>> out;
  for (size_t row = 0; row < levels; row++) {
    std::vector<AllocatedNum> level;
    for (size_t s = 0; s < path[row].size(); s++) {
      level.push_back(alloc(cs,
                            name + " sibling (c_index=" + std::to_string(c_index) +
                                ", tree_row=" + std::to_string(row) + ", sibling_index=" + std::to_string(s) + ")",
                            path[row][s]));
    }
    out.push_back(std::move(level));
  }
  return out;
}

AllocatedNum encode_and_open_tree_r(ConstraintSystem& cs, const EmptySectorUpdateParams& p, const ChallengeInputs& in,
                                    size_t c_index, const UpdateChallengeWitness& w, bool check_values) {
  const std::string ci = "(c_index=" + std::to_string(c_index) + ")";
  const std::vector<AllocatedBit>& c_bits = in.c_bits[c_index];
  AllocatedNum c_high;
  {
    Namespace ns(cs, "get_challenge_high_bits " + ci);
    c_high = ug::get_challenge_high_bits(cs, c_bits, in.h_select_bits, p.hs);
  }
  const AllocatedNum rho = gen_hash(cs, "rho " + ci, in.phi, c_high);
  const AllocatedNum leaf_r_old = alloc(cs, "leaf_r_old " + ci, w.leaf_r_old);
  const AllocatedNum leaf_d_new = alloc(cs, "leaf_d_new " + ci, w.leaf_d_new);
  AllocatedNum leaf_r_new;
  {
    Namespace ns(cs, "leaf_r_new " + ci);
    leaf_r_new = ug::label_r_new(cs, leaf_r_old, leaf_d_new, rho);
  }
  if (check_values && leaf_r_new.value != w.leaf_r_new) {
    throw std::invalid_argument("EmptySectorUpdate circuit: challenge " + std::to_string(c_index) +
                                ": label_r_old + label_d_new * rho differs from the proof's label_r_new");
  }
  const auto path_r_old = alloc_path(cs, "path_r_old", c_index, w.path_r_old, w.path_r_old.size());
  {
    Namespace ns(cs, "por tree_r_old " + ci);
    ug::por_no_challenge_input(cs, p.tree_r, c_bits, leaf_r_old, path_r_old, in.root_r_old);
  }
  const auto path_r_new = alloc_path(cs, "path_r_new", c_index, w.path_r_new, w.path_r_new.size());
  {
    Namespace ns(cs, "por tree_r_new " + ci);
    ug::por_no_challenge_input(cs, p.tree_r, c_bits, leaf_r_new, path_r_new, in.root_r_new);
  }
  return leaf_d_new;
}

namespace {

// One challenge's size, counted once per process per params shape on blank prefix variables
// (every challenge of a circuit has the same shape: the published parameters fix it).
r1cs::SectionShape challenge_shape(const EmptySectorUpdateParams& p, ChallengeSynthesis one) {
  static std::mutex mutex;
  static std::map<std::string, r1cs::SectionShape> cache;
  std::string key = p.tree_r.name() + "/" + p.tree_d.name();
  for (size_t x :
       {size_t(p.poseidon), p.challenge_bit_len, p.partition_bit_len, p.apex_leaf_count, p.apex_leaf_bit_len}) {
    key.append("/").append(std::to_string(x));
  }
  for (size_t h : p.hs) key.append("/").append(std::to_string(h));
  std::lock_guard lock(mutex);
  if (const auto it = cache.find(key); it != cache.end()) return it->second;
  r1cs::ShapeCounter cs;
  const Fr z = Fr::zero();
  ChallengeInputs in;
  in.c_bits.emplace_back();
  for (size_t i = 0; i < p.challenge_bit_len; i++) in.c_bits[0].push_back(AllocatedBit::alloc(cs, false));
  for (size_t i = 0; i < kUpdateHsCount; i++) in.h_select_bits.push_back(AllocatedBit::alloc(cs, false));
  in.phi = AllocatedNum::alloc(cs, z);
  in.root_r_old = AllocatedNum::alloc(cs, z);
  in.root_r_new = AllocatedNum::alloc(cs, z);
  for (size_t i = 0; i < p.apex_leaf_count; i++) in.apex_leafs.push_back(AllocatedNum::alloc(cs, z));
  in.comm_d_new = AllocatedNum::alloc(cs, z);
  const size_t c0 = cs.num_constraints(), a0 = cs.num_aux(), i0 = cs.num_inputs();
  one(cs, p, in, 0, UpdateChallengeWitness::blank(p), false);
  const r1cs::SectionShape shape{cs.num_constraints() - c0, cs.num_aux() - a0, cs.num_inputs() - i0};
  cache.emplace(key, shape);
  return shape;
}

}  // namespace

void synthesize_challenges(ConstraintSystem& cs, const EmptySectorUpdateParams& p, const ChallengeInputs& in,
                           const std::vector<UpdateChallengeWitness>& ws, bool check_values, ChallengeSynthesis one) {
  const size_t n = in.c_bits.size();
  // One challenge gains nothing from sections. The prefix's variables were allocated before the
  // sections open, so every section may read them.
  if (cs.takes_sections() && n >= 2) {
    const std::vector<r1cs::SectionShape> shapes(n, challenge_shape(p, one));
    auto sections = cs.open_sections(shapes);
    if (!sections.empty()) {
      tbb::parallel_for(size_t(0), n, [&](size_t i) {
        r1cs::SectionSystem& s = *sections[i];
        one(s, p, in, i, ws[i], check_values);
        s.close();
      });
      return;
    }
  }
  for (size_t i = 0; i < n; i++) one(cs, p, in, i, ws[i], check_values);
}

}  // namespace update_circuit

UpdateChallengeWitness UpdateChallengeWitness::from_vanilla(const UpdateChallengeProof& p) {
  UpdateChallengeWitness w;
  w.leaf_r_old = p.proof_r_old.leaf;
  w.leaf_d_new = p.proof_d_new.leaf;
  w.leaf_r_new = p.proof_r_new.leaf;
  w.path_r_old = siblings_of(p.proof_r_old);
  w.path_d_new = siblings_of(p.proof_d_new);
  w.path_r_new = siblings_of(p.proof_r_new);
  return w;
}

UpdateChallengeWitness UpdateChallengeWitness::blank(const EmptySectorUpdateParams& params) {
  UpdateChallengeWitness w;
  w.leaf_r_old = w.leaf_d_new = w.leaf_r_new = Fr::zero();
  w.path_r_old = w.path_r_new = blank_path(params.tree_r);
  w.path_d_new = blank_path(params.tree_d);
  return w;
}

EmptySectorUpdateWitness EmptySectorUpdateWitness::from_vanilla(const EmptySectorUpdatePartitionProof& proof) {
  if (proof.challenge_proofs.empty()) throw std::invalid_argument("EmptySectorUpdate: no challenge proofs");
  EmptySectorUpdateWitness w;
  w.comm_c = proof.comm_c;
  w.root_r_old = proof.challenge_proofs[0].proof_r_old.root;
  w.root_r_new = proof.challenge_proofs[0].proof_r_new.root;
  w.apex_leafs = proof.apex_leafs;
  for (const UpdateChallengeProof& p : proof.challenge_proofs)
    w.challenges.push_back(UpdateChallengeWitness::from_vanilla(p));
  return w;
}

EmptySectorUpdateWitness EmptySectorUpdateWitness::blank(const EmptySectorUpdateParams& params) {
  EmptySectorUpdateWitness w;
  w.comm_c = w.root_r_old = w.root_r_new = Fr::zero();
  w.apex_leafs.assign(params.apex_leaf_count, Fr::zero());
  w.challenges.assign(params.challenge_count, UpdateChallengeWitness::blank(params));
  return w;
}

EmptySectorUpdateCircuit::EmptySectorUpdateCircuit(EmptySectorUpdateParams params,
                                                   EmptySectorUpdatePublicInputs public_inputs,
                                                   EmptySectorUpdateWitness witness)
    : params_(std::move(params)), public_inputs_(public_inputs), witness_(std::move(witness)) {
  const std::string at = "EmptySectorUpdate circuit: ";
  // k and h (circuit.rs asserts them through k_and_h_select's bits).
  (void)empty_sector_update_k_and_h_select(params_, public_inputs_.k, public_inputs_.h);
  if (witness_.apex_leafs.size() != params_.apex_leaf_count) {
    throw std::invalid_argument(at + std::to_string(witness_.apex_leafs.size()) + " apex leaves, " +
                                std::to_string(params_.apex_leaf_count) + " required");
  }
  if (witness_.challenges.size() != params_.challenge_count) {
    throw std::invalid_argument(at + std::to_string(witness_.challenges.size()) + " challenge proofs, " +
                                std::to_string(params_.challenge_count) + " required");
  }
  const size_t partition_from = params_.challenge_bit_len - params_.partition_bit_len;
  for (size_t i = 0; i < witness_.challenges.size(); i++) {
    const UpdateChallengeWitness& c = witness_.challenges[i];
    const std::string ci = "challenge " + std::to_string(i);
    check_path(c.path_r_old, params_.tree_r, ci + " path_r_old");
    check_path(c.path_r_new, params_.tree_r, ci + " path_r_new");
    check_path(c.path_d_new, params_.tree_d, ci + " path_d_new");
    // Every challenge of a partition shares its partition path (tree D's top levels).
    for (size_t l = partition_from; l < c.path_d_new.size(); l++) {
      if (c.path_d_new[l] != witness_.challenges[0].path_d_new[l]) {
        throw std::invalid_argument(at + ci + ": its partition path differs from challenge 0's");
      }
    }
  }
}

EmptySectorUpdateCircuit EmptySectorUpdateCircuit::from_vanilla(const EmptySectorUpdateParams& params,
                                                                const EmptySectorUpdatePublicInputs& public_inputs,
                                                                const EmptySectorUpdatePartitionProof& proof) {
  return EmptySectorUpdateCircuit(params, public_inputs, EmptySectorUpdateWitness::from_vanilla(proof));
}

EmptySectorUpdateCircuit EmptySectorUpdateCircuit::blank(const EmptySectorUpdateParams& params) {
  EmptySectorUpdatePublicInputs in;
  in.k = 0;
  in.h = params.h_default;
  in.comm_r_old = in.comm_d_new = in.comm_r_new = Fr::zero();
  EmptySectorUpdateCircuit c(params, in, EmptySectorUpdateWitness::blank(params));
  c.blank_ = true;
  return c;
}

std::array<Fr, 4> EmptySectorUpdateCircuit::public_input_values() const {
  return empty_sector_update_public_inputs(params_, public_inputs_);
}

void EmptySectorUpdateCircuit::synthesize(ConstraintSystem& cs) const {
  if (params_.poseidon) {
    synthesize_poseidon(cs);
  } else {
    synthesize_standard(cs);
  }
}

namespace {

// Challenge c_index of the standard circuit: the encoding, tree R old and new openings of c, and
// tree D's opening of c up to its apex leaf.
void synthesize_standard_challenge(ConstraintSystem& cs, const EmptySectorUpdateParams& p,
                                   const update_circuit::ChallengeInputs& in, size_t c_index,
                                   const UpdateChallengeWitness& cw, bool check_values) {
  using namespace update_circuit;
  // Tree D below the apex leaves: binary SHA-256 of path_len levels.
  const size_t path_len = p.challenge_bit_len - p.partition_bit_len - p.apex_leaf_bit_len;
  gadgets::PorTreeShape to_apex;
  to_apex.hasher = gadgets::TreeHasher::kSha256;
  to_apex.base_arity = 2;
  to_apex.base_levels = path_len;

  const std::string ci = "(c_index=" + std::to_string(c_index) + ")";
  const std::vector<AllocatedBit>& c_bits = in.c_bits[c_index];

  const AllocatedNum leaf_d_new = encode_and_open_tree_r(cs, p, in, c_index, cw, check_values);

  AllocatedNum apex_leaf;
  {
    Namespace ns(cs, "select_apex_leaf " + ci);
    const std::vector<Boolean> bits(c_bits.begin() + path_len, c_bits.begin() + path_len + p.apex_leaf_bit_len);
    apex_leaf = gadgets::select(cs, in.apex_leafs, bits);
  }
  std::vector<std::vector<AllocatedNum>> path_to_apex;
  for (size_t row = 0; row < path_len; row++) {
    path_to_apex.push_back({alloc(
        cs, "path_to_apex_leaf sibling (c_index=" + std::to_string(c_index) + ", tree_row=" + std::to_string(row) + ")",
        cw.path_d_new[row][0])});
  }
  {
    Namespace ns(cs, "por to_apex_leaf " + ci);
    ug::por_no_challenge_input(cs, to_apex, std::span<const AllocatedBit>(c_bits).first(path_len), leaf_d_new,
                               path_to_apex, apex_leaf);
  }
}

}  // namespace

void EmptySectorUpdateCircuit::synthesize_standard(ConstraintSystem& cs) const {
  using namespace update_circuit;
  const EmptySectorUpdateParams& p = params_;
  const EmptySectorUpdateWitness& w = witness_;
  const bool check_values = cs.has_values() && !blank_;
  const Fr k_and_h_select_value =
      blank_ ? Fr::zero() : empty_sector_update_k_and_h_select(p, public_inputs_.k, public_inputs_.h);

  const AllocatedNum k_and_h_select = alloc_public(cs, "k_and_h_select", k_and_h_select_value);
  const auto selector_bits =
      ug::decompose_public_selector(cs, k_and_h_select, p.partition_bit_len + kUpdateHsCount, "k_and_h_select");
  const std::vector<AllocatedBit> partition_bits(selector_bits.begin(), selector_bits.begin() + p.partition_bit_len);
  const std::vector<AllocatedBit> h_select_bits(selector_bits.begin() + p.partition_bit_len, selector_bits.end());
  AllocatedNum partition;
  {
    Namespace ns(cs, "pack partition bits");
    const std::vector<Boolean> bits(partition_bits.begin(), partition_bits.end());
    partition = gadgets::pack_bits(cs, bits);
  }

  const AllocatedNum comm_r_old = alloc_public(cs, "comm_r_old", public_inputs_.comm_r_old);
  const AllocatedNum comm_d_new = alloc_public(cs, "comm_d_new", public_inputs_.comm_d_new);
  const AllocatedNum comm_r_new = alloc_public(cs, "comm_r_new", public_inputs_.comm_r_new);
  const AllocatedNum phi = gen_hash(cs, "phi", comm_d_new, comm_r_old);

  const AllocatedNum comm_c = alloc(cs, "comm_c", w.comm_c);
  const AllocatedNum root_r_old = alloc(cs, "root_r_old", w.root_r_old);
  const AllocatedNum root_r_new = alloc(cs, "root_r_new", w.root_r_new);
  std::vector<AllocatedNum> apex_leafs;
  for (size_t i = 0; i < w.apex_leafs.size(); i++) {
    apex_leafs.push_back(alloc(cs, "apex_leaf_" + std::to_string(i), w.apex_leafs[i]));
  }
  const size_t partition_from = p.challenge_bit_len - p.partition_bit_len;
  std::vector<std::vector<AllocatedNum>> partition_path;
  for (size_t i = 0; i < p.partition_bit_len; i++) {
    partition_path.push_back(
        {alloc(cs, "partition_path_sibling_" + std::to_string(i), w.challenges[0].path_d_new[partition_from + i][0])});
  }

  enforce_comm_r(cs, "comm_r_old", comm_c, root_r_old, comm_r_old);
  enforce_comm_r(cs, "comm_r_new", comm_c, root_r_new, comm_r_new);
  {
    Namespace ns(cs, "apex_gadget");
    ug::apex_por(cs, apex_leafs, partition_bits, partition_path, comm_d_new);
  }

  std::vector<std::vector<AllocatedBit>> generated;
  {
    Namespace ns(cs, "gen_challenge_bits");
    generated = ug::gen_challenge_bits(cs, comm_r_new, partition, p.challenge_count, p.random_bits_per_challenge());
  }

  ChallengeInputs in;
  for (std::vector<AllocatedBit>& bits : generated) {
    bits.insert(bits.end(), partition_bits.begin(), partition_bits.end());
    in.c_bits.push_back(std::move(bits));
  }
  in.h_select_bits = h_select_bits;
  in.phi = phi;
  in.root_r_old = root_r_old;
  in.root_r_new = root_r_new;
  in.apex_leafs = std::move(apex_leafs);
  synthesize_challenges(cs, p, in, w.challenges, check_values, &synthesize_standard_challenge);
}

}  // namespace cuzk::filecoin

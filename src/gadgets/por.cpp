#include "gadgets/por.hpp"

#include <bit>
#include <stdexcept>

#include "gadgets/multipack.hpp"

namespace cuzk::gadgets {

void PorTreeShape::validate() const {
  auto check = [&](size_t a, const char* what) {
    if (a < 2 || !std::has_single_bit(a)) {
      throw std::invalid_argument(std::string("por: ") + what + " arity must be a power of two >= 2, got " +
                                  std::to_string(a));
    }
    if (hasher == TreeHasher::kPoseidon && a != 2 && a != 4 && a != 8) {
      throw std::invalid_argument(std::string("por: Poseidon trees support arities 2, 4, 8; ") + what + " has " +
                                  std::to_string(a));
    }
  };
  check(base_arity, "base");
  if (sub_arity) check(sub_arity, "sub-tree");
  if (top_arity) check(top_arity, "top-tree");
  if (top_arity && !sub_arity) throw std::invalid_argument("por: a top-tree level needs a sub-tree level");
  (void)leaves();
}

std::vector<size_t> PorTreeShape::level_arities() const {
  std::vector<size_t> a(base_levels, base_arity);
  if (sub_arity) a.push_back(sub_arity);
  if (top_arity) a.push_back(top_arity);
  return a;
}

uint64_t PorTreeShape::leaves() const {
  size_t bits = 0;
  for (size_t a : level_arities()) bits += size_t(std::countr_zero(a));
  if (bits > 63) throw std::invalid_argument("por: more than 2^63 leaves");
  return uint64_t(1) << bits;
}

std::string PorTreeShape::name() const {
  return std::string(hasher == TreeHasher::kSha256 ? "sha256" : "poseidon") + "-" + std::to_string(base_arity) + "-" +
         std::to_string(sub_arity) + "-" + std::to_string(top_arity) + " (" + std::to_string(base_levels) +
         " base levels)";
}

namespace {
template <class T>
std::vector<T> inserted(const T& x, size_t index, const std::vector<T>& siblings) {
  std::vector<T> r(siblings.begin(), siblings.begin() + index);
  r.push_back(x);
  r.insert(r.end(), siblings.begin() + index, siblings.end());
  return r;
}

void check_path(const PorTreeShape& shape, const std::vector<std::vector<Fr>>& siblings,
                const std::vector<size_t>& indices) {
  const auto arities = shape.level_arities();
  if (siblings.size() != arities.size() || indices.size() != arities.size()) {
    throw std::invalid_argument("por: the path has " + std::to_string(siblings.size()) + " levels, the tree " +
                                std::to_string(arities.size()));
  }
  for (size_t l = 0; l < arities.size(); l++) {
    if (siblings[l].size() + 1 != arities[l] || indices[l] >= arities[l]) {
      throw std::invalid_argument("por: level " + std::to_string(l) + " does not match arity " +
                                  std::to_string(arities[l]));
    }
  }
}
}  // namespace

Fr por_root(const PorTreeShape& shape, const Fr& leaf, const std::vector<std::vector<Fr>>& siblings,
            const std::vector<size_t>& indices) {
  check_path(shape, siblings, indices);
  Fr cur = leaf;
  for (size_t l = 0; l < siblings.size(); l++) cur = node_hash(shape.hasher, inserted(cur, indices[l], siblings[l]));
  return cur;
}

PorWitness por_random_witness(const PorTreeShape& shape, std::mt19937_64& rng) {
  shape.validate();
  PorWitness w;
  w.leaf = Fr::random(rng);
  for (size_t a : shape.level_arities()) {
    std::vector<Fr> s;
    for (size_t i = 0; i + 1 < a; i++) s.push_back(Fr::random(rng));
    w.siblings.push_back(std::move(s));
    w.indices.push_back(rng() % a);
  }
  w.root = por_root(shape, w.leaf, w.siblings, w.indices);
  return w;
}

uint64_t por_challenge(const PorTreeShape& shape, const std::vector<size_t>& indices) {
  uint64_t c = 0;
  size_t shift = 0;
  const auto arities = shape.level_arities();
  for (size_t l = 0; l < arities.size(); l++) {
    c |= uint64_t(indices[l]) << shift;
    shift += size_t(std::countr_zero(arities[l]));
  }
  return c;
}

std::vector<Fr> por_public_inputs(const PorTreeShape& shape, const PorWitness& w, bool private_root) {
  std::vector<Fr> in = {Fr::from_u64(por_challenge(shape, w.indices))};
  if (!private_root) in.push_back(w.root);
  return in;
}

PorCircuit::PorCircuit(PorTreeShape shape, PorWitness witness, bool private_root)
    : shape_(std::move(shape)), w_(std::move(witness)), private_root_(private_root) {
  shape_.validate();
  check_path(shape_, w_.siblings, w_.indices);
}

void por_inclusion(ConstraintSystem& cs, const PorTreeShape& shape, const AllocatedNum& leaf, const PorPath& path,
                   const PorRoot& root, bool private_root) {
  const auto& siblings = path.siblings;
  const auto& indices = path.indices;
  check_path(shape, siblings, indices);
  AllocatedNum cur = leaf;
  const auto arities = shape.level_arities();
  std::vector<Boolean> path_bits;
  // Levels are grouped as base, sub and top, each level numbered within its group.
  size_t level = 0;
  auto run_group = [&](const char* group, size_t count) {
    if (count == 0) return;
    r1cs::Namespace g(cs, group);
    for (size_t i = 0; i < count; i++, level++) {
      r1cs::Namespace ns(cs, "merkle tree hash " + std::to_string(i));
      const size_t arity = arities[level];
      const size_t nbits = size_t(std::countr_zero(arity));
      std::vector<Boolean> index_bits;
      for (size_t b = 0; b < nbits; b++) {
        r1cs::Namespace n2(cs, "index bit " + std::to_string(b));
        index_bits.emplace_back(AllocatedBit::alloc(cs, (indices[level] >> b) & 1));
      }
      path_bits.insert(path_bits.end(), index_bits.begin(), index_bits.end());
      std::vector<AllocatedNum> level_siblings;
      for (size_t s = 0; s + 1 < arity; s++) {
        r1cs::Namespace n2(cs, "path element " + std::to_string(s));
        level_siblings.push_back(AllocatedNum::alloc(cs, siblings[level][s]));
      }
      auto children = insert(cs, cur, index_bits, level_siblings);
      r1cs::Namespace n2(cs, "computation of commitment hash");
      cur = node_hash_circuit(shape.hasher, cs, children);
    }
  };
  run_group("base", shape.base_levels);
  run_group("sub", shape.sub_arity ? 1 : 0);
  run_group("top", shape.top_arity ? 1 : 0);
  {
    r1cs::Namespace ns(cs, "path");
    pack_into_inputs(cs, path_bits);
  }
  AllocatedNum rt = root.var;
  if (!root.allocated) {
    r1cs::Namespace ns(cs, "root_value");
    rt = AllocatedNum::alloc(cs, root.value);
  }
  enforce_equal(cs, "enforce root is correct", cur, rt);
  if (!private_root) {
    r1cs::Namespace ns(cs, "root");
    rt.inputize(cs);
  }
}

void PorCircuit::synthesize(ConstraintSystem& cs) const {
  AllocatedNum leaf;
  {
    r1cs::Namespace ns(cs, "value");
    leaf = AllocatedNum::alloc(cs, w_.leaf);
  }
  por_inclusion(cs, shape_, leaf, PorPath{w_.siblings, w_.indices}, PorRoot::of(w_.root), private_root_);
}

}  // namespace cuzk::gadgets

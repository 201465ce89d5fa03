#include "filecoin/common/merkle_tree.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>
#include <tbb/parallel_for.h>

#include "filecoin/common/sha256_fast.hpp"
#include "gadgets/poseidon.hpp"

namespace cuzk::filecoin {

using gadgets::PorTreeShape;
using gadgets::TreeHasher;

namespace {

constexpr size_t kMaxArity = 16;

MerkleProof::Kind proof_kind(const PorTreeShape& shape) {
  return shape.top_arity   ? MerkleProof::Kind::kTop
         : shape.sub_arity ? MerkleProof::Kind::kSub
                           : MerkleProof::Kind::kSingle;
}

// The levels of a proof go to base, then sub, then top, as the shape has them.
void place_level(MerkleProof& p, const PorTreeShape& shape, size_t level, PathElement e) {
  if (level < shape.base_levels) {
    p.base.push_back(std::move(e));
  } else if (level == shape.base_levels && shape.sub_arity) {
    p.sub.push_back(std::move(e));
  } else {
    p.top.push_back(std::move(e));
  }
}

// The opening of leaf i (tree.rs gen_proof): at each level the siblings of the climbing node,
// read by node(level, index).
template <class Node>
MerkleProof open_leaf(const PorTreeShape& shape, const std::vector<size_t>& arities, uint64_t i, const Fr& leaf,
                      const Fr& root, Node&& node) {
  MerkleProof p;
  p.kind = proof_kind(shape);
  p.leaf = leaf;
  p.root = root;
  uint64_t at = i;
  for (size_t l = 0; l < arities.size(); l++) {
    const size_t a = arities[l];
    PathElement e;
    e.index = uint32_t(at % a);
    const uint64_t first = at - e.index;
    for (size_t j = 0; j < a; j++) {
      if (j != e.index) e.hashes.push_back(node(l, first + j));
    }
    place_level(p, shape, l, std::move(e));
    at /= a;
  }
  return p;
}

std::vector<size_t> checked_arities(const PorTreeShape& shape) {
  shape.validate();
  auto a = shape.level_arities();
  for (size_t x : a) {
    if (x > kMaxArity) throw std::invalid_argument("Merkle tree: arity " + std::to_string(x) + " is not supported");
  }
  return a;
}

}  // namespace

Fr tree_node_hash(TreeHasher hasher, std::span<const Fr> children) {
  if (hasher == TreeHasher::kPoseidon) {
    // The optimised schedule gives the plain permutation's result at a third of the cost.
    return gadgets::poseidon_hash_optimized(children, gadgets::poseidon_constants(children.size()));
  }
  // Sha256Function::node: SHA-256 of the children's 32-byte encodings, top two bits cleared.
  std::array<uint8_t, 32 * kMaxArity> buf;
  if (children.size() > kMaxArity) throw std::invalid_argument("tree_node_hash: too many children");
  for (size_t i = 0; i < children.size(); i++) children[i].to_bytes_le(buf.data() + 32 * i);
  auto d = sha256_digest(std::span<const uint8_t>(buf.data(), 32 * children.size()));
  d[31] &= 0x3f;
  Fr out;
  Fr::from_bytes_le(d.data(), out);  // below 2^254 < r: always canonical
  return out;
}

Fr hash_single_column(std::span<const Fr> rows) {
  if (rows.size() != 2 && rows.size() != 11) {
    throw std::invalid_argument("hash_single_column: columns of 2 or 11 layers only, got " +
                                std::to_string(rows.size()));
  }
  return tree_node_hash(TreeHasher::kPoseidon, rows);
}

Fr merkle_proof_root(const PorTreeShape& shape, const MerkleProof& proof) {
  const auto arities = checked_arities(shape);
  const auto levels = proof.levels();
  if (levels.size() != arities.size()) {
    throw std::invalid_argument("Merkle proof of " + std::to_string(levels.size()) + " levels, the tree has " +
                                std::to_string(arities.size()));
  }
  Fr cur = proof.leaf;
  std::array<Fr, kMaxArity> children;
  for (size_t l = 0; l < levels.size(); l++) {
    const size_t a = arities[l];
    const PathElement& e = levels[l];
    if (e.hashes.size() + 1 != a || e.index >= a) {
      throw std::invalid_argument("Merkle proof level " + std::to_string(l) + " does not fit arity " +
                                  std::to_string(a));
    }
    for (size_t j = 0, s = 0; j < a; j++) children[j] = j == e.index ? cur : e.hashes[s++];
    cur = tree_node_hash(shape.hasher, std::span<const Fr>(children.data(), a));
  }
  return cur;
}

bool merkle_proof_valid(const PorTreeShape& shape, const MerkleProof& proof, uint64_t leaf_index) {
  if (proof.kind != proof_kind(shape)) return false;
  if (proof.base.size() != shape.base_levels || proof.sub.size() != (shape.sub_arity ? 1u : 0u) ||
      proof.top.size() != (shape.top_arity ? 1u : 0u)) {
    return false;
  }
  try {
    return proof.path_index(shape) == leaf_index && merkle_proof_root(shape, proof) == proof.root;
  } catch (const std::invalid_argument&) {
    return false;
  }
}

gadgets::PorPath por_path(const MerkleProof& proof) {
  gadgets::PorPath out;
  for (const PathElement& e : proof.levels()) {
    out.siblings.push_back(e.hashes);
    out.indices.push_back(e.index);
  }
  return out;
}

gadgets::PorPath blank_por_path(const PorTreeShape& shape) {
  gadgets::PorPath out;
  for (size_t arity : shape.level_arities()) {
    out.siblings.emplace_back(arity - 1, Fr::zero());
    out.indices.push_back(0);
  }
  return out;
}

// ---- MerkleTree ----------------------------------------------------------------------------

MerkleTree::MerkleTree(const PorTreeShape& shape, std::vector<Fr> leaves) : shape_(shape) {
  arities_ = checked_arities(shape);
  if (leaves.size() != shape.leaves()) {
    throw std::invalid_argument("Merkle tree " + shape.name() + ": " + std::to_string(leaves.size()) +
                                " leaves given, the shape has " + std::to_string(shape.leaves()));
  }
  levels_.reserve(arities_.size() + 1);
  levels_.push_back(std::move(leaves));
  for (size_t a : arities_) {
    const std::vector<Fr>& cur = levels_.back();
    std::vector<Fr> next(cur.size() / a);
    tbb::parallel_for(tbb::blocked_range<size_t>(0, next.size(), 256), [&](const tbb::blocked_range<size_t>& r) {
      for (size_t p = r.begin(); p < r.end(); p++) {
        next[p] = tree_node_hash(shape_.hasher, std::span<const Fr>(cur.data() + p * a, a));
      }
    });
    levels_.push_back(std::move(next));
  }
}

MerkleProof MerkleTree::proof(uint64_t i) const {
  if (i >= num_leaves()) {
    throw std::out_of_range("Merkle tree " + shape_.name() + ": leaf " + std::to_string(i) + " of " +
                            std::to_string(num_leaves()));
  }
  return open_leaf(shape_, arities_, i, leaf(i), root(),
                   [&](size_t level, uint64_t index) { return levels_[level][index]; });
}

// ---- SparseMerkleTree ----------------------------------------------------------------------

SparseMerkleTree::SparseMerkleTree(const PorTreeShape& shape, const Fr& default_leaf) : shape_(shape) {
  arities_ = checked_arities(shape);
  defaults_.push_back(default_leaf);
  std::array<Fr, kMaxArity> children;
  for (size_t a : arities_) {
    children.fill(defaults_.back());
    defaults_.push_back(tree_node_hash(shape.hasher, std::span<const Fr>(children.data(), a)));
  }
  levels_.resize(arities_.size() + 1);
  root_ = defaults_.back();
}

void SparseMerkleTree::set_leaves(std::span<const std::pair<uint64_t, Fr>> leaves) {
  const uint64_t n = shape_.leaves();
  auto& base = levels_[0];
  for (const auto& [i, v] : leaves) {
    if (i >= n) {
      throw std::out_of_range("sparse Merkle tree " + shape_.name() + ": leaf " + std::to_string(i) + " of " +
                              std::to_string(n));
    }
    base.emplace_back(i, v);
  }
  // Later values win: a stable sort keeps the order of equal indexes, then the last of each run.
  std::stable_sort(base.begin(), base.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::pair<uint64_t, Fr>> unique;
  unique.reserve(base.size());
  for (size_t k = 0; k < base.size(); k++) {
    if (k + 1 < base.size() && base[k + 1].first == base[k].first) continue;
    unique.push_back(base[k]);
  }
  base = std::move(unique);
  rebuild();
}

Fr SparseMerkleTree::node(size_t level, uint64_t index) const {
  const auto& v = levels_[level];
  auto it = std::lower_bound(v.begin(), v.end(), index, [](const auto& e, uint64_t i) { return e.first < i; });
  return it != v.end() && it->first == index ? it->second : defaults_[level];
}

void SparseMerkleTree::rebuild() {
  for (size_t l = 0; l < arities_.size(); l++) {
    const size_t a = arities_[l];
    std::vector<std::pair<uint64_t, Fr>> next;
    for (const auto& [i, v] : levels_[l]) {
      if (next.empty() || next.back().first != i / a) next.emplace_back(i / a, Fr::zero());
    }
    tbb::parallel_for(tbb::blocked_range<size_t>(0, next.size(), 4), [&](const tbb::blocked_range<size_t>& r) {
      std::array<Fr, kMaxArity> children;
      for (size_t k = r.begin(); k < r.end(); k++) {
        for (size_t j = 0; j < a; j++) children[j] = node(l, next[k].first * a + j);
        next[k].second = tree_node_hash(shape_.hasher, std::span<const Fr>(children.data(), a));
      }
    });
    levels_[l + 1] = std::move(next);
  }
  root_ = levels_.back().empty() ? defaults_.back() : levels_.back().front().second;
}

Fr SparseMerkleTree::leaf(uint64_t i) const {
  if (i >= shape_.leaves()) throw std::out_of_range("sparse Merkle tree: leaf " + std::to_string(i));
  return node(0, i);
}

MerkleProof SparseMerkleTree::proof(uint64_t i) const {
  return open_leaf(shape_, arities_, i, leaf(i), root_,
                   [&](size_t level, uint64_t index) { return node(level, index); });
}

size_t SparseMerkleTree::stored_nodes() const {
  size_t n = 0;
  for (const auto& l : levels_) n += l.size();
  return n;
}

}  // namespace cuzk::filecoin

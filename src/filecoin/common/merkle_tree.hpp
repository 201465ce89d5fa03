// Native Merkle trees of a sealed sector, with openings as vanilla MerkleProofs
// (storage-proofs-core merkle/tree.rs, merkle/proof.rs; the merkletree crate's MerkleTree and its
// compound sub/top trees):
//   - tree D: binary, SHA-256 (two children's 64 bytes hashed, top two bits cleared);
//   - trees C and R: Poseidon (MerkleTree domain), arity 8, with for 32 GiB one arity-8 sub level
//     over 8 base trees of 2^27 leaves and for 64 GiB a further arity-2 top level over 2 sub trees.
// The base trees cover consecutive leaf ranges, so a compound tree is one tree whose levels have
// the arities base..., sub, top: leaf i climbs to parent i / arity at position i % arity, and its
// path indices read the leaf index in mixed radix, base first (MerkleProof::path_index).
//
// MerkleTree keeps every level of a complete tree in memory; SparseMerkleTree holds only the
// leaves that were set and the nodes above them, every other subtree hashing to a default of its
// level (a tree whose unset leaves all hold one value), so a 2^30-leaf tree is opened at a few
// thousand leaves in milliseconds.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "filecoin/common/merkle_proof.hpp"
#include "gadgets/por.hpp"

namespace cuzk::filecoin {

// The hash of one tree node from its children: Poseidon of arity children.size() (2, 4, 8, 11)
// or SHA-256 of their 32-byte encodings truncated to 254 bits.
Fr tree_node_hash(gadgets::TreeHasher hasher, std::span<const Fr> children);

// stacked/vanilla/hash.rs hash_single_column: Poseidon over a column's labels (2 or 11 layers),
// the leaf of tree C.
Fr hash_single_column(std::span<const Fr> rows);

// The root a proof's path reaches from its leaf, and whether its indices encode `leaf_index`
// and its levels fit `shape`.
Fr merkle_proof_root(const gadgets::PorTreeShape& shape, const MerkleProof& proof);
bool merkle_proof_valid(const gadgets::PorTreeShape& shape, const MerkleProof& proof, uint64_t leaf_index);
// The proof's path as the inclusion gadget takes it (siblings and index per level, base first).
gadgets::PorPath por_path(const MerkleProof& proof);
// A path of the tree's shape with zero siblings and index 0 (blank circuits: shape only).
gadgets::PorPath blank_por_path(const gadgets::PorTreeShape& shape);

class MerkleTree {
 public:
  // leaves.size() must be shape.leaves() (std::invalid_argument). Levels are hashed in parallel.
  MerkleTree(const gadgets::PorTreeShape& shape, std::vector<Fr> leaves);

  const gadgets::PorTreeShape& shape() const { return shape_; }
  uint64_t num_leaves() const { return levels_.front().size(); }
  const Fr& leaf(uint64_t i) const { return levels_.front().at(i); }
  const std::vector<Fr>& leaves() const { return levels_.front(); }
  const Fr& root() const { return levels_.back().front(); }
  // The opening of leaf i: Single, Sub or Top as the shape has sub and top levels (tree.rs
  // gen_proof). std::out_of_range for i >= num_leaves().
  MerkleProof proof(uint64_t i) const;

 private:
  gadgets::PorTreeShape shape_;
  std::vector<size_t> arities_;
  std::vector<std::vector<Fr>> levels_;  // leaves first, root last
};

class SparseMerkleTree {
 public:
  // A tree of `shape` every leaf of which holds default_leaf until set.
  SparseMerkleTree(const gadgets::PorTreeShape& shape, const Fr& default_leaf);

  const gadgets::PorTreeShape& shape() const { return shape_; }
  // Sets leaves (index, value); a later value for the same index wins. Rehashes the paths above
  // the leaves set (in parallel), so call it with all leaves at once where possible.
  // std::out_of_range for an index >= shape.leaves().
  void set_leaves(std::span<const std::pair<uint64_t, Fr>> leaves);
  const Fr& root() const { return root_; }
  // The value of leaf i (default_leaf unless set).
  Fr leaf(uint64_t i) const;
  // The hash of a subtree none of whose leaves is set, per level (0: the default leaf).
  const Fr& default_node(size_t level) const { return defaults_.at(level); }
  MerkleProof proof(uint64_t i) const;
  // Nodes held besides the defaults (all levels).
  size_t stored_nodes() const;

 private:
  Fr node(size_t level, uint64_t index) const;
  void rebuild();

  gadgets::PorTreeShape shape_;
  std::vector<size_t> arities_;
  std::vector<Fr> defaults_;  // per level, leaves first
  // Per level, the nodes with a set leaf below them, sorted by index.
  std::vector<std::vector<std::pair<uint64_t, Fr>>> levels_;
  Fr root_;
};

}  // namespace cuzk::filecoin

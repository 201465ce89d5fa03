// Merkle inclusion (storage-proofs-core gadgets/por.rs, PoRCircuit): a leaf climbs base levels
// of one arity, then optionally one sub-tree level and one top-tree level of other arities.
// At each level the index bits (log2 arity, allocated) and the arity - 1 siblings (allocated)
// place the current node with `insert`, and the level's hash gives the next node. The index
// bits of all levels, least significant first, are packed into public inputs; the computed
// root is enforced equal to an allocated root, which is made public unless the root is private.
#pragma once

#include <random>
#include <string>
#include <vector>

#include "gadgets/hashers.hpp"

namespace cuzk::gadgets {

struct PorTreeShape {
  TreeHasher hasher = TreeHasher::kPoseidon;
  size_t base_arity = 8;
  size_t base_levels = 0;
  size_t sub_arity = 0;  // 0: no sub-tree level
  size_t top_arity = 0;  // 0: no top-tree level (requires a sub-tree level)

  // Checks arities (powers of two, > 1) and the hasher's support; throws std::invalid_argument.
  void validate() const;
  // The arity of each level, base first.
  std::vector<size_t> level_arities() const;
  // Number of leaves (the product of the arities); throws past 2^63.
  uint64_t leaves() const;
  std::string name() const;
};

struct PorWitness {
  Fr leaf;
  std::vector<std::vector<Fr>> siblings;  // per level: arity - 1 elements
  std::vector<size_t> indices;            // per level: position of the climbing node
  Fr root;
};

// The root reached from the leaf and path (native twin).
Fr por_root(const PorTreeShape& shape, const Fr& leaf, const std::vector<std::vector<Fr>>& siblings,
            const std::vector<size_t>& indices);
// A Merkle path: per level the arity - 1 siblings and the position of the climbing node.
struct PorPath {
  std::vector<std::vector<Fr>> siblings;
  std::vector<size_t> indices;
};
// The root a path is enforced to reach: a variable, or a value to allocate (storage-proofs' Root).
struct PorRoot {
  bool allocated = false;
  AllocatedNum var;  // when allocated
  Fr value;          // otherwise
  static PorRoot of(const AllocatedNum& n) { return {true, n, Fr::zero()}; }
  static PorRoot of(const Fr& v) { return {false, AllocatedNum{}, v}; }
};
// The synthesis of PoRCircuit with the leaf already allocated (storage-proofs' Root::Var, as
// the StackedDRG circuit passes its leaves): the levels, the path packed into one public input,
// then the computed root enforced equal to `root`: allocated here ("root_value") when it holds a
// value, used as it is when it holds a variable; made public unless private_root.
void por_inclusion(ConstraintSystem& cs, const PorTreeShape& shape, const AllocatedNum& leaf, const PorPath& path,
                   const PorRoot& root, bool private_root);

// A random path for a random challenge, with its root.
PorWitness por_random_witness(const PorTreeShape& shape, std::mt19937_64& rng);
// The challenge (leaf index) a path encodes: level indices in mixed radix, base first.
uint64_t por_challenge(const PorTreeShape& shape, const std::vector<size_t>& indices);
// Public inputs the circuit allocates after ONE: the packed challenge, then the root unless private.
std::vector<Fr> por_public_inputs(const PorTreeShape& shape, const PorWitness& w, bool private_root);

class PorCircuit final : public r1cs::Circuit {
 public:
  PorCircuit(PorTreeShape shape, PorWitness witness, bool private_root = false);
  void synthesize(ConstraintSystem& cs) const override;

 private:
  PorTreeShape shape_;
  PorWitness w_;
  bool private_root_;
};

}  // namespace cuzk::gadgets

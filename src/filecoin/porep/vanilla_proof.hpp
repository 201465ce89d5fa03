// The StackedDRG vanilla proof of one challenge as rust-fil-proofs writes it into a Commit1
// output (storage-proofs-porep stacked/vanilla/proof.rs Proof, column_proof.rs, labeling_proof.rs,
// encoding_proof.rs; storage-proofs-core merkle/proof.rs MerkleProof), with every 32-byte domain
// value already checked to be a canonical field element. The circuit (stacked_circuit.hpp) is
// built from it; consistency checks live in seal_commit_check.hpp.
#pragma once

#include <cstdint>
#include <vector>

#include "ff/fr.hpp"
#include "filecoin/registered_proof.hpp"

namespace cuzk::filecoin {

using ff::Fr;

// One level of a Merkle path: the arity - 1 siblings and the position of the climbing node
// among the arity children (merkle/proof.rs PathElement).
struct PathElement {
  std::vector<Fr> hashes;
  uint32_t index = 0;
};

// merkle/proof.rs MerkleProof: ProofData::Single (base levels only), ::Sub (base levels and one
// sub-tree level) or ::Top (base, sub and top levels).
struct MerkleProof {
  enum class Kind : uint8_t { kSingle, kSub, kTop };
  Kind kind = Kind::kSingle;
  Fr root, leaf;
  std::vector<PathElement> base;
  std::vector<PathElement> sub;  // one element for kSub and kTop, else empty
  std::vector<PathElement> top;  // one element for kTop, else empty

  // Every level, base first (the order of the circuit's path).
  std::vector<PathElement> levels() const;
  // The leaf index the path encodes: the levels' indices in mixed radix, base first.
  uint64_t path_index(const gadgets::PorTreeShape& shape) const;
};

// stacked/vanilla/column.rs Column: the labels of one node in every layer (rows[l] is layer l+1).
struct Column {
  uint32_t index = 0;
  std::vector<Fr> rows;
};

// stacked/vanilla/column_proof.rs ColumnProof: a column and its inclusion in tree C.
struct ColumnProof {
  Column column;
  MerkleProof inclusion_proof;
};

// stacked/vanilla/proof.rs ReplicaColumnProof.
struct ReplicaColumnProof {
  ColumnProof c_x;
  std::vector<ColumnProof> drg_parents;  // 6
  std::vector<ColumnProof> exp_parents;  // 8
};

// stacked/vanilla/labeling_proof.rs and encoding_proof.rs: a node's 37 parent labels in one layer.
struct LabelingProof {
  std::vector<Fr> parents;
  uint32_t layer_index = 0;
  uint64_t node = 0;
};
using EncodingProof = LabelingProof;

// stacked/vanilla/proof.rs Proof: everything one challenge opens.
struct VanillaSealProof {
  MerkleProof comm_d_proofs;      // tree D (binary SHA-256): the data leaf
  MerkleProof comm_r_last_proof;  // tree R (Poseidon): the encoded leaf
  ReplicaColumnProof replica_column_proofs;
  std::vector<LabelingProof> labeling_proofs;  // one per layer
  EncodingProof encoding_proof;
};

// filecoin-proofs-api seal.rs SealCommitPhase1Output: what Commit1 hands to Commit2.
struct SealCommitPhase1Output {
  RegisteredSealProof registered_proof{};
  // vanilla_proofs[k][i]: partition k, challenge i.
  std::vector<std::vector<VanillaSealProof>> vanilla_proofs;
  Bytes32 comm_r{}, comm_d{};
  Fr replica_id;
  Bytes32 seed{}, ticket{};
};

}  // namespace cuzk::filecoin

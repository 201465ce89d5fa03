// The StackedDRG vanilla proof of one challenge as rust-fil-proofs writes it into a Commit1
// output (storage-proofs-porep stacked/vanilla/proof.rs Proof, column_proof.rs, labeling_proof.rs,
// encoding_proof.rs; its Merkle paths are common/merkle_proof.hpp's), with every 32-byte domain
// value already checked to be a canonical field element. The circuit (porep/circuit.hpp) is
// built from it; consistency checks live in porep/commit1_check.hpp.
#pragma once

#include <cstdint>
#include <vector>

#include "ff/fr.hpp"
#include "filecoin/common/merkle_proof.hpp"
#include "filecoin/porep/registered_proofs.hpp"

namespace cuzk::filecoin {

using ff::Fr;

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

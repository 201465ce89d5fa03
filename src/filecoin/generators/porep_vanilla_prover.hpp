// The StackedDRG vanilla proofs of a sealed sector, filled exactly as rust-fil-proofs fills them
// (storage-proofs-porep stacked/vanilla/proof.rs prove_layers and prove_layers_generate): per
// challenge, the data leaf's opening in tree D, the encoded leaf's in tree R, the challenged
// column and the 6 DRG and 8 expander parents' columns with their openings in tree C, a labeling
// proof per layer (the parents' labels repeated to 37: base parents from the layer, expander
// parents from the layer below) and the encoding proof (the last layer's labeling proof).
// The sector is reached through SectorOpenings, so that a real seal and a sparse one share it.
#pragma once

#include <cstdint>
#include <vector>

#include "filecoin/porep/graph.hpp"
#include "filecoin/porep/registered_proofs.hpp"
#include "filecoin/porep/vanilla_proof.hpp"

namespace cuzk::filecoin {

// What a Commit1 opens of a sealed sector. Implementations must be callable from several threads.
class SectorOpenings {
 public:
  virtual ~SectorOpenings() = default;
  // The label of `node` in `layer` (1-based).
  virtual Fr label(size_t layer, uint64_t node) const = 0;
  // Openings of leaf `node` in tree D (data), tree C (column hashes) and tree R (replica).
  virtual MerkleProof tree_d_proof(uint64_t node) const = 0;
  virtual MerkleProof tree_c_proof(uint64_t node) const = 0;
  virtual MerkleProof tree_r_proof(uint64_t node) const = 0;
};

// The vanilla proof of one challenge (prove_layers_generate's body).
VanillaSealProof prove_challenge(const StackedBucketGraph& graph, size_t layers, const SectorOpenings& sector,
                                 uint64_t challenge);

// The Commit1 output of a sealed sector: for each partition the challenges that info's feature
// derives (seal_challenges: interactive from the seed, synthetic from comm_r then the seed,
// non-interactive from comm_r), each proved; challenges in parallel.
struct Commit1Inputs {
  Bytes32 replica_id{}, comm_d{}, comm_r{}, ticket{}, seed{};
};
SealCommitPhase1Output build_commit_phase1(const SealProofInfo& info, const StackedBucketGraph& graph,
                                           const SectorOpenings& sector, const Commit1Inputs& in);

}  // namespace cuzk::filecoin

// A sparse committed-capacity sector: a test sector of any size (32 GiB and 64 GiB included) of
// which only what Commit1 opens is computed, consistent in everything the PoRep circuit checks.
//
//   - The data is all zero, so tree D has one value per level and comm_d takes microseconds.
//   - replica_id follows from comm_d (params.rs generate_replica_id), and the interactive
//     challenges from replica_id and the seed (challenges.rs InteractiveChallenges).
//   - Only the challenged nodes and their 14 parents carry labels. A challenged node's label in
//     each layer is create_label over its parents' labels (DRG parents in the layer, expander
//     parents in the layer below), computed layer by layer in node order, so that a challenged
//     node that is also a parent (of a later challenge, or the expander parent of any) carries
//     the same computed label everywhere. Every other parent's label is a pseudo-random function
//     of (label seed, layer, node), hence the same wherever two challenges share it.
//   - Trees C and R hold a default leaf everywhere else; each untouched subtree hashes to a
//     precomputed default of its level, so only the touched paths are hashed.
//
// Synthetic and non-interactive challenges are derived from comm_r, i.e. from the labels
// themselves (Fiat-Shamir): the labels would have to be fixed before the challenges that say
// which labels must be real are known, so no consistent sparse sector exists for them.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

#include "filecoin/common/merkle_tree.hpp"
#include "filecoin/generators/porep_vanilla_prover.hpp"
#include "filecoin/porep/graph.hpp"
#include "filecoin/porep/registered_proofs.hpp"

namespace cuzk::filecoin {

struct SparseSectorInputs {
  Bytes32 prover_id{};
  uint64_t sector_id = 0;
  Bytes32 ticket{}, seed{};
  uint64_t label_seed = 0;  // the pseudo-random labels and default leaves
};

class SparseSector final : public SectorOpenings {
 public:
  struct Timings {
    double graph_s = 0, labels_s = 0, trees_s = 0, total_s = 0;
  };

  // Throws std::invalid_argument for a proof with synthetic or non-interactive challenges.
  SparseSector(const SealProofInfo& info, const SparseSectorInputs& in);

  const SealProofInfo& info() const { return *info_; }
  const StackedBucketGraph& graph() const { return *graph_; }
  const Bytes32& replica_id() const { return replica_id_; }
  const Bytes32& comm_d() const { return comm_d_; }
  const Bytes32& comm_c() const { return comm_c_; }
  const Bytes32& comm_r_last() const { return comm_r_last_; }
  const Bytes32& comm_r() const { return comm_r_; }
  // challenges()[k]: the challenges of partition k.
  const std::vector<std::vector<uint64_t>>& challenges() const { return challenges_; }
  // The nodes that carry labels (challenges and their parents).
  size_t touched_nodes() const { return columns_.size(); }
  const Timings& timings() const { return timings_; }

  // The Commit1 output for the seed given at construction.
  SealCommitPhase1Output commit_phase1() const;

  // SectorOpenings; label() throws std::out_of_range for a node no challenge touches.
  Fr label(size_t layer, uint64_t node) const override;
  MerkleProof tree_d_proof(uint64_t node) const override { return tree_d_.proof(node); }
  MerkleProof tree_c_proof(uint64_t node) const override { return tree_c_.proof(node); }
  MerkleProof tree_r_proof(uint64_t node) const override { return tree_r_.proof(node); }

 private:
  const SealProofInfo* info_;
  SparseSectorInputs in_;
  std::unique_ptr<StackedBucketGraph> graph_;
  Bytes32 replica_id_{}, comm_d_{}, comm_c_{}, comm_r_last_{}, comm_r_{};
  std::vector<std::vector<uint64_t>> challenges_;
  std::unordered_map<uint64_t, std::vector<Fr>> columns_;  // node -> its label in each layer
  SparseMerkleTree tree_d_, tree_c_, tree_r_;
  Timings timings_;
};

// Throws std::invalid_argument, saying why, unless info's challenges are interactive.
void check_sparse_sector_supported(const SealProofInfo& info);

// The pseudo-random label of an untouched parent: SHA-256 of a tag, the seed, layer and node,
// truncated to 254 bits.
Fr sparse_label(uint64_t label_seed, size_t layer, uint64_t node);

}  // namespace cuzk::filecoin

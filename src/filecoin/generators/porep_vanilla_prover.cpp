#include "filecoin/generators/porep_vanilla_prover.hpp"

#include <array>
#include <stdexcept>
#include <string>
#include <tbb/parallel_for.h>

#include "filecoin/porep/challenges.hpp"
#include "gadgets/label.hpp"

namespace cuzk::filecoin {
namespace {

ColumnProof column_proof(const SectorOpenings& sector, size_t layers, uint64_t node) {
  ColumnProof cp;
  cp.column.index = uint32_t(node);
  cp.column.rows.reserve(layers);
  for (size_t l = 1; l <= layers; l++) cp.column.rows.push_back(sector.label(l, node));
  cp.inclusion_proof = sector.tree_c_proof(node);
  return cp;
}

}  // namespace

VanillaSealProof prove_challenge(const StackedBucketGraph& graph, size_t layers, const SectorOpenings& sector,
                                 uint64_t challenge) {
  // proof.rs asserts 0 < challenge < graph.size(); the derivations never give 0.
  if (challenge == 0 || challenge >= graph.nodes()) {
    throw std::invalid_argument("vanilla proof: challenge " + std::to_string(challenge) + " is not in 1.." +
                                std::to_string(graph.nodes() - 1));
  }
  std::array<uint32_t, kParentCount> parents;
  graph.parents(challenge, parents);

  VanillaSealProof p;
  p.comm_d_proofs = sector.tree_d_proof(challenge);
  ReplicaColumnProof& rcp = p.replica_column_proofs;
  rcp.c_x = column_proof(sector, layers, challenge);
  for (size_t i = 0; i < kBaseDegree; i++) rcp.drg_parents.push_back(column_proof(sector, layers, parents[i]));
  for (size_t i = kBaseDegree; i < kParentCount; i++) {
    rcp.exp_parents.push_back(column_proof(sector, layers, parents[i]));
  }
  p.comm_r_last_proof = sector.tree_r_proof(challenge);

  // Labeling proofs: base parents from the layer, expander parents from the layer below
  // (layer >= 2), repeated to TOTAL_PARENTS = 37.
  for (size_t layer = 1; layer <= layers; layer++) {
    const size_t distinct = layer == 1 ? kBaseDegree : kParentCount;
    std::vector<Fr> data;
    data.reserve(distinct);
    for (size_t i = 0; i < distinct; i++) {
      // The column rows already hold these labels; read them from there (row l-1 is layer l).
      const ColumnProof& col = i < kBaseDegree ? rcp.drg_parents[i] : rcp.exp_parents[i - kBaseDegree];
      data.push_back(col.column.rows[i < kBaseDegree ? layer - 1 : layer - 2]);
    }
    LabelingProof lp;
    lp.layer_index = uint32_t(layer);
    lp.node = challenge;
    lp.parents.reserve(gadgets::kLabelParents);
    for (size_t i = 0; i < gadgets::kLabelParents; i++) lp.parents.push_back(data[i % distinct]);
    p.labeling_proofs.push_back(lp);
    if (layer == layers) p.encoding_proof = lp;
  }
  return p;
}

SealCommitPhase1Output build_commit_phase1(const SealProofInfo& info, const StackedBucketGraph& graph,
                                           const SectorOpenings& sector, const Commit1Inputs& in) {
  if (graph.nodes() != info.nodes) {
    throw std::invalid_argument("Commit1: the graph has " + std::to_string(graph.nodes()) + " nodes, " +
                                std::string(info.name) + " has " + std::to_string(info.nodes));
  }
  SealCommitPhase1Output c1;
  c1.registered_proof = info.proof;
  c1.comm_r = in.comm_r;
  c1.comm_d = in.comm_d;
  if (!Fr::from_bytes_le(in.replica_id.data(), c1.replica_id)) {
    throw std::invalid_argument("Commit1: replica_id is not a canonical field element");
  }
  c1.seed = in.seed;
  c1.ticket = in.ticket;
  // The challenges of every partition first (cheap), then every (partition, challenge) in parallel.
  std::vector<std::vector<uint64_t>> challenges(info.partitions);
  for (size_t k = 0; k < info.partitions; k++) {
    challenges[k] = seal_challenges(info, in.replica_id, in.comm_r, in.seed, k);
  }
  const size_t n = info.challenges_per_partition;
  c1.vanilla_proofs.assign(info.partitions, std::vector<VanillaSealProof>(n));
  tbb::parallel_for(size_t(0), info.partitions * n, [&](size_t t) {
    const size_t k = t / n, i = t % n;
    c1.vanilla_proofs[k][i] = prove_challenge(graph, info.layers, sector, challenges[k][i]);
  });
  return c1;
}

}  // namespace cuzk::filecoin

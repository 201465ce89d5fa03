#include "filecoin/porep/commit1_check.hpp"

#include <array>
#include <string>
#include <tbb/parallel_for.h>
#include <vector>

#include "filecoin/common/merkle_tree.hpp"
#include "filecoin/porep/challenges.hpp"
#include "filecoin/porep/commit1.hpp"
#include "filecoin/porep/graph.hpp"
#include "filecoin/porep/public_inputs.hpp"
#include "gadgets/hashers.hpp"
#include "gadgets/label.hpp"

namespace cuzk::filecoin {
namespace {

using gadgets::PorTreeShape;

[[noreturn]] void fail(const std::string& what) { throw SealCommitCheckError("Commit1 output: " + what); }

std::string hex(const Fr& x) {
  static const char* const kDigits = "0123456789abcdef";
  uint8_t b[32];
  x.to_bytes_le(b);
  std::string s;
  for (uint8_t v : b) s += kDigits[v >> 4], s += kDigits[v & 15];
  return s;
}

// The proof reaches its root from its leaf, and its root is the expected one. (Its shape and the
// leaf its path opens were checked by validate_seal_commit_phase1.)
void check_merkle(const MerkleProof& p, const PorTreeShape& shape, const Fr& root, const std::string& what) {
  const Fr reached = merkle_proof_root(shape, p);
  if (reached != p.root) {
    fail(what + ": the path from the leaf reaches " + hex(reached) + ", not the proof's root " + hex(p.root) +
         " (a sibling or the leaf is wrong)");
  }
  if (p.root != root) fail(what + ": root " + hex(p.root) + " differs from " + hex(root));
}

// One challenge's opening: tree D, the columns in tree C at the graph's parents, the labels, the
// encoding and tree R. Counts, indices and the labeling proofs' repetition are validated already.
void check_opening(const SealProofInfo& info, const StackedBucketGraph& graph, const VanillaSealProof& p, size_t k,
                   size_t i, uint64_t c, const Bytes32& replica_id, const Fr& comm_d, const Fr& comm_c,
                   const Fr& comm_r_last) {
  std::array<uint32_t, kBaseDegree> drg;
  std::array<uint32_t, kExpDegree> exp;
  const std::string at =
      "partition " + std::to_string(k) + " challenge " + std::to_string(i) + " (node " + std::to_string(c) + ")";
  const ReplicaColumnProof& rcp = p.replica_column_proofs;
  const ColumnProof& cx = rcp.c_x;
  if (cx.column.index != c) {
    fail(at + ": it opens node " + std::to_string(cx.column.index) + ", but the challenge derived from " +
         (info.feature == SealFeature::kNonInteractive ? "replica_id and comm_r" : "the seed") + " is node " +
         std::to_string(c) + " (a wrong seed, replica_id or comm_r)");
  }
  // Tree D: the data leaf under comm_d.
  check_merkle(p.comm_d_proofs, info.tree_d, comm_d, at + " tree D (comm_d) proof");
  // Tree C: one comm_c for all columns, each column's hash its leaf, at the graph's parents.
  auto check_column = [&](const ColumnProof& col, uint64_t node, const std::string& what) {
    if (col.column.index != node) {
      fail(what + ": column of node " + std::to_string(col.column.index) + ", the graph says node " +
           std::to_string(node));
    }
    if (hash_single_column(col.column.rows) != col.inclusion_proof.leaf) {
      fail(what + ": the column's labels do not hash to its tree C leaf (a label is wrong)");
    }
    check_merkle(col.inclusion_proof, info.tree_r, comm_c, what + " tree C (comm_c) proof");
  };
  check_column(cx, c, at + " challenged column");
  graph.drg_parents(c, drg);
  graph.expander_parents(c, exp);
  for (size_t j = 0; j < kBaseDegree; j++) {
    check_column(rcp.drg_parents[j], drg[j], at + " DRG parent " + std::to_string(j));
  }
  for (size_t j = 0; j < kExpDegree; j++) {
    check_column(rcp.exp_parents[j], exp[j], at + " expander parent " + std::to_string(j));
  }
  // Labels: each layer's label recomputes from the parents' labels (layer 1: the DRG parents of
  // layer 1; later layers: DRG parents of the layer and expander parents of the layer below,
  // repeated to 37) and is the challenged column's row. The encoding proof is the last layer's.
  std::vector<std::array<uint8_t, 32>> parents;
  for (size_t layer = 1; layer <= info.layers; layer++) {
    const LabelingProof& lp = p.labeling_proofs[layer - 1];
    const std::string lat = at + " layer " + std::to_string(layer);
    std::vector<Fr> distinct;
    for (const auto& col : rcp.drg_parents) distinct.push_back(col.column.rows[layer - 1]);
    if (layer > 1) {
      for (const auto& col : rcp.exp_parents) distinct.push_back(col.column.rows[layer - 2]);
    }
    parents.clear();
    for (size_t j = 0; j < gadgets::kLabelParents; j++) {
      if (lp.parents[j] != distinct[j % distinct.size()]) {
        fail(lat + ": parent label " + std::to_string(j) + " of the labeling proof is not the parent column's");
      }
      parents.push_back(gadgets::fr_to_bytes_le(lp.parents[j]));
    }
    const Fr label = gadgets::create_label(replica_id, uint32_t(layer), c, parents);
    if (label != cx.column.rows[layer - 1]) {
      fail(lat + ": the label recomputed from replica_id and the parents' labels, " + hex(label) +
           ", is not the column's " + hex(cx.column.rows[layer - 1]) + " (a wrong label, parent or replica_id)");
    }
  }
  // Tree R: the encoded leaf (last label + data) under one comm_r_last.
  const Fr encoded = cx.column.rows.back() + p.comm_d_proofs.leaf;
  if (p.comm_r_last_proof.leaf != encoded) {
    fail(at + ": the tree R leaf is not the encoding of the data leaf with the last layer's label");
  }
  check_merkle(p.comm_r_last_proof, info.tree_r, comm_r_last, at + " tree R (comm_r_last) proof");
}

}  // namespace

void check_seal_commit_phase1(const SealCommitPhase1Output& c1, const std::optional<SealCommitIdentity>& identity,
                              C1Structure structure) {
  // The structure first (counts, shapes, indices): what follows indexes by it.
  if (structure == C1Structure::kCheck) {
    try {
      validate_seal_commit_phase1(c1);
    } catch (const C1FormatError& e) {
      fail(e.what());
    }
  }
  const SealProofInfo& info = seal_proof_info(c1.registered_proof);
  // Canonical, as validated.
  const Fr comm_d = commitment_to_fr(c1.comm_d, "comm_d"), comm_r = commitment_to_fr(c1.comm_r, "comm_r");
  if (comm_d.is_zero()) fail("comm_d is zero");
  if (comm_r.is_zero()) fail("comm_r is zero");
  if (c1.seed == Bytes32{}) {
    fail(
        "the seed is zero, which filecoin-proofs' Commit2 refuses (a synthetic-PoRep Commit1 made before "
        "the seed was known has one)");
  }
  Bytes32 replica_id;
  c1.replica_id.to_bytes_le(replica_id.data());
  if (identity) {
    const Bytes32 expect =
        filecoin::replica_id(identity->prover_id, identity->sector_id, c1.ticket, c1.comm_d, info.porep_id());
    if (expect != replica_id) {
      fail("replica_id does not recompute from the prover id, sector " + std::to_string(identity->sector_id) +
           ", ticket, comm_d and porep_id of " + std::string(info.name) +
           " (wrong prover, sector, ticket or comm_d for this sector)");
    }
  }
  // The partitions' challenges, then every challenge checked on its own (in parallel: a 32 GiB
  // Commit1 opens 3,060 columns); the first failure in partition and challenge order is reported.
  const StackedBucketGraph graph(info);
  struct Opening {
    size_t k, i;
    uint64_t c;
  };
  std::vector<Opening> openings;
  for (size_t k = 0; k < c1.vanilla_proofs.size(); k++) {
    const auto challenges = seal_challenges(info, replica_id, c1.comm_r, c1.seed, k);
    for (size_t i = 0; i < challenges.size(); i++) openings.push_back({k, i, challenges[i]});
  }
  const VanillaSealProof& first = c1.vanilla_proofs[0][0];
  const Fr& comm_c = first.replica_column_proofs.c_x.inclusion_proof.root;
  const Fr& comm_r_last = first.comm_r_last_proof.root;
  std::vector<std::string> errors(openings.size());
  tbb::parallel_for(size_t(0), openings.size(), [&](size_t n) {
    try {
      const auto [k, i, c] = openings[n];
      check_opening(info, graph, c1.vanilla_proofs[k][i], k, i, c, replica_id, comm_d, comm_c, comm_r_last);
    } catch (const SealCommitCheckError& e) {
      errors[n] = e.what();
    }
  });
  for (const std::string& e : errors) {
    if (!e.empty()) throw SealCommitCheckError(e);
  }
  const Fr pair[2] = {comm_c, comm_r_last};
  if (tree_node_hash(gadgets::TreeHasher::kPoseidon, pair) != comm_r) {
    fail("comm_r " + hex(comm_r) + " is not Poseidon(comm_c, comm_r_last) of the proofs' trees (a wrong comm_r)");
  }
}

}  // namespace cuzk::filecoin

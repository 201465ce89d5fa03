// The Commit1 output checked against its registered proof: partition and challenge counts, tree
// shapes, Merkle paths, columns and labeling proofs, as rust-fil-proofs' types require.
#include <cstdint>
#include <string>
#include <vector>

#include "filecoin/porep/commit1.hpp"
#include "filecoin/porep/commit1_format.hpp"

namespace cuzk::filecoin {

using namespace c1_format;

namespace {

// ---------------------------------------------------------------------------------------------
// Validation against the registered proof.

[[noreturn]] void invalid(const std::string& at, const std::string& what) { throw C1FormatError(at + ": " + what); }

std::string shape_text(const gadgets::PorTreeShape& s) {
  std::string t = std::to_string(s.base_levels) + " levels of arity " + std::to_string(s.base_arity);
  if (s.sub_arity) t += ", a sub-tree level of arity " + std::to_string(s.sub_arity);
  if (s.top_arity) t += ", a top-tree level of arity " + std::to_string(s.top_arity);
  return t;
}

// The levels of one InclusionPath, each arity - 1 siblings and a position below the arity. Returns
// the positions' part of the leaf index: each times `weight`, the leaves under one child at its
// level, which it advances.
uint64_t check_levels(const std::vector<PathElement>& levels, size_t arity, size_t count, const std::string& at,
                      uint64_t& weight) {
  if (levels.size() != count) {
    invalid(at, std::to_string(levels.size()) + " levels, expected " + std::to_string(count));
  }
  uint64_t index = 0;
  for (size_t j = 0; j < levels.size(); j++) {
    const PathElement& pe = levels[j];
    if (pe.hashes.size() != arity - 1) {
      invalid(at + idx(j) + ".hashes", std::to_string(pe.hashes.size()) + " elements, a tree of arity " +
                                           std::to_string(arity) + " needs " + std::to_string(arity - 1));
    }
    if (pe.index >= arity) {
      invalid(at + idx(j) + ".index", std::to_string(pe.index) + ", but a node of arity " + std::to_string(arity) +
                                          " has children 0.." + std::to_string(arity - 1));
    }
    index += weight * pe.index;
    weight *= arity;
  }
  return index;
}

// A MerkleProof of the tree `shape` (merkle/proof.rs), opening leaf `leaf`.
void check_merkle(const MerkleProof& p, const gadgets::PorTreeShape& shape, const std::string& at, uint64_t leaf,
                  std::string_view leaf_name) {
  using K = MerkleProof::Kind;
  const K want = shape.top_arity ? K::kTop : shape.sub_arity ? K::kSub : K::kSingle;
  if (p.kind != want) {
    invalid(at + ".data", "a " + std::string(kind_name(p.kind)) + " proof; the tree (" + shape_text(shape) + ") has " +
                              std::string(kind_name(want)) + " proofs");
  }
  const std::string data = at + ".data." + std::string(kind_name(p.kind));
  uint64_t weight = 1;
  uint64_t index = check_levels(p.base, shape.base_arity, shape.base_levels,
                                data + (p.kind == K::kSingle ? ".path.path" : ".base_proof.path"), weight);
  if (p.kind == K::kSingle && !p.sub.empty()) invalid(data, "sub-tree levels in a Single proof");
  if (p.kind != K::kTop && !p.top.empty()) {
    invalid(data, "top-tree levels in a " + std::string(kind_name(p.kind)) + " proof");
  }
  if (p.kind != K::kSingle) index += check_levels(p.sub, shape.sub_arity, 1, data + ".sub_proof.path", weight);
  if (p.kind == K::kTop) index += check_levels(p.top, shape.top_arity, 1, data + ".top_proof.path", weight);
  // Rust checks the same (MerkleProofTrait::validate(challenge), ColumnProof::verify).
  if (index != leaf) {
    invalid(at, "the path opens leaf " + std::to_string(index) + ", but the " + std::string(leaf_name) + " is " +
                    std::to_string(leaf));
  }
}

void check_column(const ColumnProof& cp, const SealProofInfo& info, const std::string& at) {
  const std::string col = at + ".column";
  if (cp.column.index >= info.nodes) {
    invalid(col + ".index",
            std::to_string(cp.column.index) + ", the sector has " + std::to_string(info.nodes) + " nodes");
  }
  if (cp.column.rows.size() != info.layers) {
    invalid(col + ".rows", std::to_string(cp.column.rows.size()) + " elements, a column has one label per layer (" +
                               std::to_string(info.layers) + ")");
  }
  check_merkle(cp.inclusion_proof, info.tree_r, at + ".inclusion_proof", cp.column.index, "column index");
}

void check_labeling(const LabelingProof& lp, uint32_t layer, uint64_t challenge, const std::string& at) {
  if (lp.layer_index != layer) {
    invalid(at + ".layer_index", std::to_string(lp.layer_index) + ", expected " + std::to_string(layer));
  }
  if (lp.node != challenge) {
    invalid(at + ".node", std::to_string(lp.node) + ", expected the challenge " + std::to_string(challenge));
  }
  if (lp.parents.size() != kTotalParents) {
    invalid(at + ".parents",
            std::to_string(lp.parents.size()) + " elements, expected " + std::to_string(kTotalParents));
  }
  // proof.rs prove_layers_generate repeats the layer's distinct parents to fill the 37.
  const size_t period = layer == 1 ? kBaseDegree : kBaseDegree + kExpDegree;
  for (size_t j = period; j < kTotalParents; j++) {
    if (!(lp.parents[j] == lp.parents[j % period])) {
      invalid(at + ".parents" + idx(j), "differs from parents" + idx(j % period) + "; layer " + std::to_string(layer) +
                                            "'s " + std::to_string(period) + " parents repeat to fill " +
                                            std::to_string(kTotalParents));
    }
  }
}

void check_proof(const VanillaSealProof& p, const SealProofInfo& info, const std::string& at) {
  const ReplicaColumnProof& rcp = p.replica_column_proofs;
  const std::string rc = at + ".replica_column_proofs";
  // The challenge is the node every part opens; stacked/circuit/params.rs takes it from
  // labeling_proofs[0].node, the columns' own index is c_x's.
  const uint64_t challenge = rcp.c_x.column.index;
  check_column(rcp.c_x, info, rc + ".c_x");
  if (challenge == 0) invalid(rc + ".c_x.column.index", "0; challenges are never node 0");
  if (rcp.drg_parents.size() != kBaseDegree) {
    invalid(rc + ".drg_parents", std::to_string(rcp.drg_parents.size()) + " elements, expected " +
                                     std::to_string(kBaseDegree) + " DRG parents");
  }
  if (rcp.exp_parents.size() != kExpDegree) {
    invalid(rc + ".exp_parents", std::to_string(rcp.exp_parents.size()) + " elements, expected " +
                                     std::to_string(kExpDegree) + " expander parents");
  }
  for (size_t j = 0; j < kBaseDegree; j++) check_column(rcp.drg_parents[j], info, rc + ".drg_parents" + idx(j));
  for (size_t j = 0; j < kExpDegree; j++) check_column(rcp.exp_parents[j], info, rc + ".exp_parents" + idx(j));
  check_merkle(p.comm_d_proofs, info.tree_d, at + ".comm_d_proofs", challenge, "challenge (c_x.column.index)");
  check_merkle(p.comm_r_last_proof, info.tree_r, at + ".comm_r_last_proof", challenge, "challenge (c_x.column.index)");
  if (p.labeling_proofs.size() != info.layers) {
    invalid(at + ".labeling_proofs", std::to_string(p.labeling_proofs.size()) + " elements, expected one per layer (" +
                                         std::to_string(info.layers) + ")");
  }
  for (size_t l = 0; l < info.layers; l++) {
    check_labeling(p.labeling_proofs[l], uint32_t(l + 1), challenge, at + ".labeling_proofs" + idx(l));
  }
  // The encoding proof is the last layer's labeling (proof.rs builds both from parents_data_full).
  check_labeling(p.encoding_proof, uint32_t(info.layers), challenge, at + ".encoding_proof");
  const auto& last = p.labeling_proofs.back().parents;
  for (size_t j = 0; j < kTotalParents; j++) {
    if (!(p.encoding_proof.parents[j] == last[j])) {
      invalid(at + ".encoding_proof.parents" + idx(j), "differs from the last labeling proof's");
    }
  }
}

}  // namespace

std::string vanilla_proofs_variant(const SealProofInfo& info) {
  for (size_t s = 0; s < 5; s++) {
    if (info.sector_size_name() == kSizeNames[s]) return std::string(kVariants[s]);
  }
  return "StackedDrg" + std::string(info.sector_size_name()) + "V1";
}

void validate_seal_commit_phase1(const SealCommitPhase1Output& c1) {
  if (size_t(c1.registered_proof) >= kRegisteredSealProofs) {
    invalid("registered_proof", "unknown id " + std::to_string(size_t(c1.registered_proof)));
  }
  const SealProofInfo& info = seal_proof_info(c1.registered_proof);
  if (!canonical(c1.comm_r)) invalid("comm_r", "not a canonical field element");
  if (!canonical(c1.comm_d)) invalid("comm_d", "not a canonical field element");
  const std::string vp = "vanilla_proofs." + vanilla_proofs_variant(info);
  if (c1.vanilla_proofs.size() != info.partitions) {
    invalid(vp, std::to_string(c1.vanilla_proofs.size()) + " partitions, " + std::string(info.name) + " has " +
                    std::to_string(info.partitions));
  }
  for (size_t k = 0; k < c1.vanilla_proofs.size(); k++) {
    const auto& part = c1.vanilla_proofs[k];
    if (part.size() != info.challenges_per_partition) {
      invalid(vp + idx(k), std::to_string(part.size()) + " proofs, " + std::string(info.name) + " has " +
                               std::to_string(info.challenges_per_partition) + " challenges per partition");
    }
    for (size_t i = 0; i < part.size(); i++) check_proof(part[i], info, vp + idx(k) + idx(i));
  }
}

}  // namespace cuzk::filecoin

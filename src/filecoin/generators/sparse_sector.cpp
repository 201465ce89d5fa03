#include "filecoin/generators/sparse_sector.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tbb/parallel_for.h>

#include "filecoin/common/sha256_fast.hpp"
#include "filecoin/porep/challenges.hpp"
#include "filecoin/porep/labels.hpp"
#include "gadgets/hashers.hpp"
#include "util/elapsed.hpp"

namespace cuzk::filecoin {
namespace {

// SHA-256(tag ‖ seed u64 LE ‖ a u64 LE ‖ b u64 LE), top two bits cleared: a canonical element.
Fr tagged_value(std::string_view tag, uint64_t seed, uint64_t a, uint64_t b) {
  std::array<uint8_t, 24> buf;
  for (int i = 0; i < 8; i++) {
    buf[i] = uint8_t(seed >> (8 * i));
    buf[8 + i] = uint8_t(a >> (8 * i));
    buf[16 + i] = uint8_t(b >> (8 * i));
  }
  auto d = sha256_digest({std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(tag.data()), tag.size()), buf});
  d[31] &= 0x3f;
  Fr out;
  Fr::from_bytes_le(d.data(), out);
  return out;
}

Fr default_leaf(uint64_t seed, uint64_t which) {
  return tagged_value("cuzk sparse sector default leaf", seed, which, 0);
}

}  // namespace

void check_sparse_sector_supported(const SealProofInfo& info) {
  if (info.feature != SealFeature::kInteractive) {
    throw std::invalid_argument(
        std::string(info.name) + ": a sparse test sector needs interactive challenges (V1, V1_1). " +
        (info.feature == SealFeature::kSynthetic ? "Synthetic" : "Non-interactive") +
        " PoRep derives its challenges from comm_r (Fiat-Shamir), and comm_r commits to every label, so the "
        "challenged labels cannot be chosen before the challenges are known: no consistent sparse sector "
        "exists. 2 KiB, 8 MiB and 512 MiB sectors are sealed for real for these proofs (SectorMode::kReal); "
        "32 GiB and 64 GiB ones cannot be generated.");
  }
}

Fr sparse_label(uint64_t label_seed, size_t layer, uint64_t node) {
  return tagged_value("cuzk sparse sector label", label_seed, layer, node);
}

SparseSector::SparseSector(const SealProofInfo& info, const SparseSectorInputs& in)
    : info_((check_sparse_sector_supported(info), &info)),
      in_(in),
      tree_d_(info.tree_d, Fr::zero()),
      tree_c_(info.tree_r, default_leaf(in.label_seed, 0)),
      tree_r_(info.tree_r, default_leaf(in.label_seed, 1)) {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  // All-zero data: tree D is its defaults, comm_d the top one.
  comm_d_ = gadgets::fr_to_bytes_le(tree_d_.root());
  replica_id_ = filecoin::replica_id(in.prover_id, in.sector_id, in.ticket, comm_d_, info.porep_id());
  auto t0 = clock::now();
  graph_ = std::make_unique<StackedBucketGraph>(info);
  timings_.graph_s = seconds_since(t0);

  // The challenges (comm_r is not used by interactive derivations) and the nodes they touch.
  t0 = clock::now();
  challenges_.resize(info.partitions);
  std::vector<uint64_t> challenged;
  for (size_t k = 0; k < info.partitions; k++) {
    challenges_[k] = seal_challenges(info, replica_id_, Bytes32{}, in.seed, k);
    challenged.insert(challenged.end(), challenges_[k].begin(), challenges_[k].end());
  }
  std::sort(challenged.begin(), challenged.end());
  challenged.erase(std::unique(challenged.begin(), challenged.end()), challenged.end());
  std::unordered_map<uint64_t, std::array<uint32_t, kParentCount>> parents;
  for (uint64_t c : challenged) graph_->parents(c, parents[c]);

  // Pseudo-random columns for every parent, then the challenged nodes' labels computed over
  // them, layer by layer, in node order: a DRG parent is below its child, so a challenged DRG
  // parent's label in the layer is final before its child's; expander parents are read from
  // the layer below, final after the previous pass.
  std::vector<uint64_t> touched = challenged;
  for (const auto& [c, ps] : parents) touched.insert(touched.end(), ps.begin(), ps.end());
  std::sort(touched.begin(), touched.end());
  touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
  for (uint64_t n : touched) columns_[n].resize(info.layers);
  tbb::parallel_for(size_t(0), touched.size(), [&](size_t i) {
    auto& col = columns_.at(touched[i]);
    for (size_t l = 1; l <= info.layers; l++) col[l - 1] = sparse_label(in.label_seed, l, touched[i]);
  });
  std::array<Fr, kParentCount> pl;
  for (size_t layer = 1; layer <= info.layers; layer++) {
    const size_t distinct = layer == 1 ? kBaseDegree : kParentCount;
    for (uint64_t c : challenged) {
      const auto& ps = parents.at(c);
      for (size_t i = 0; i < distinct; i++) {
        pl[i] = columns_.at(ps[i])[i < kBaseDegree ? layer - 1 : layer - 2];
      }
      columns_.at(c)[layer - 1] =
          sdr_label_fr(replica_id_, uint32_t(layer), c, std::span<const Fr>(pl.data(), distinct));
    }
  }
  timings_.labels_s = seconds_since(t0);

  // Tree C: every touched column's hash; tree R: each challenged node's encoding (label + 0).
  t0 = clock::now();
  std::vector<std::pair<uint64_t, Fr>> c_leaves(touched.size());
  tbb::parallel_for(size_t(0), touched.size(), [&](size_t i) {
    c_leaves[i] = {touched[i], hash_single_column(columns_.at(touched[i]))};
  });
  std::vector<std::pair<uint64_t, Fr>> r_leaves;
  r_leaves.reserve(challenged.size());
  for (uint64_t c : challenged) r_leaves.emplace_back(c, columns_.at(c)[info.layers - 1]);
  tree_c_.set_leaves(c_leaves);
  tree_r_.set_leaves(r_leaves);
  comm_c_ = gadgets::fr_to_bytes_le(tree_c_.root());
  comm_r_last_ = gadgets::fr_to_bytes_le(tree_r_.root());
  const Fr pair[2] = {tree_c_.root(), tree_r_.root()};
  comm_r_ = gadgets::fr_to_bytes_le(tree_node_hash(gadgets::TreeHasher::kPoseidon, pair));
  timings_.trees_s = seconds_since(t0);
  timings_.total_s = seconds_since(start);
}

Fr SparseSector::label(size_t layer, uint64_t node) const {
  auto it = columns_.find(node);
  if (it == columns_.end() || layer == 0 || layer > it->second.size()) {
    throw std::out_of_range("sparse sector: node " + std::to_string(node) + " layer " + std::to_string(layer) +
                            " carries no label (neither challenged nor a challenge's parent)");
  }
  return it->second[layer - 1];
}

SealCommitPhase1Output SparseSector::commit_phase1() const {
  return build_commit_phase1(*info_, *graph_, *this,
                             Commit1Inputs{replica_id_, comm_d_, comm_r_, in_.ticket, in_.seed});
}

}  // namespace cuzk::filecoin

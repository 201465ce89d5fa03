// The SDR graph: storage-proofs-porep/src/stacked/vanilla/graph.rs StackedBucketGraph, i.e. the
// DRSample base graph of storage-proofs-core/src/drgraph.rs (BucketGraph, 6 parents per node, a
// ChaCha8Rng per node) plus 8 expander parents placed by the Feistel permutation. The labeling of
// layer 1 reads the 6 base parents; layers >= 2 read base then expander parents (14).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "filecoin/porep/feistel.hpp"
#include "filecoin/porep/registered_proofs.hpp"

namespace cuzk::filecoin {

inline constexpr size_t kBaseDegree = 6;  // drgraph.rs BASE_DEGREE
inline constexpr size_t kExpDegree = 8;   // graph.rs EXP_DEGREE
inline constexpr size_t kParentCount = kBaseDegree + kExpDegree;

// crypto/mod.rs derive_porep_domain_seed: SHA-256(tag || porep_id).
Bytes32 derive_porep_domain_seed(std::string_view tag, const Bytes32& porep_id);
// drgraph.rs derive_drg_seed: the first 28 bytes of the "Filecoin_DRSample" domain seed.
std::array<uint8_t, 28> derive_drg_seed(const Bytes32& porep_id);
// graph.rs derive_feistel_keys: the "Filecoin_Feistel" domain seed as four u64 little-endian.
FeistelKeys derive_feistel_keys(const Bytes32& porep_id);

class StackedBucketGraph {
 public:
  // Throws std::invalid_argument for nodes < 2 or nodes > 2^32 - 1 (graph.rs "too many nodes").
  // Tabulates the Feistel round function (FeistelNetwork): about 1 ms for 8 MiB, 0.1 s for 32 GiB.
  StackedBucketGraph(uint64_t nodes, const Bytes32& porep_id, ApiVersion api_version);
  // The graph of a registered proof: its nodes, porep_id and API version.
  explicit StackedBucketGraph(const SealProofInfo& proof);

  uint64_t nodes() const { return nodes_; }
  ApiVersion api_version() const { return api_version_; }
  const std::array<uint8_t, 28>& drg_seed() const { return drg_seed_; }
  const FeistelKeys& feistel_keys() const { return feistel_keys_; }
  // The expander permutation over [0, nodes * 8), round function tabulated (see FeistelNetwork).
  const FeistelNetwork& feistel() const { return feistel_; }

  // drgraph.rs BucketGraph::parents. Nodes 0 and 1 get six 0s; otherwise the predecessor node-1
  // sits at index 5 (V1_0_0) or 0 (V1_1_0, V1_2_0) and the other five come from DRSample.
  // Every parent is < node (node 0: 0). Throws std::out_of_range for node >= nodes().
  void drg_parents(uint64_t node, std::span<uint32_t, kBaseDegree> out) const;
  // graph.rs expanded_parents: parent i = permute(nodes * 8, node * 8 + i) / 8, each < nodes.
  // V1_0_0 truncates the permuted index to 32 bits before dividing, as graph.rs does (this only
  // matters above 2^29 nodes).
  void expander_parents(uint64_t node, std::span<uint32_t, kExpDegree> out) const;
  // graph.rs StackedGraph::parents: the 6 DRG parents, then the 8 expander parents.
  void parents(uint64_t node, std::span<uint32_t, kParentCount> out) const;
  // The parents of nodes [first, first + count), 14 per node in node order (the layout of
  // rust-fil-proofs' parent cache file); out.size() must be 14 * count. Single-threaded; callers
  // split a sector into ranges to use several cores.
  void parents_range(uint64_t first, uint64_t count, std::span<uint32_t> out) const;

 private:
  void check_node(uint64_t node) const;
  void drg_parents_unchecked(uint32_t node, uint32_t* out) const;
  void expander_parents_unchecked(uint64_t node, uint32_t* out) const;

  uint64_t nodes_;
  ApiVersion api_version_;
  std::array<uint8_t, 28> drg_seed_;
  FeistelKeys feistel_keys_;
  FeistelNetwork feistel_;
};

}  // namespace cuzk::filecoin

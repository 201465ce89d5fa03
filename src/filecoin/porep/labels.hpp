// SDR labeling (storage-proofs-porep stacked/vanilla/create_label/single.rs create_label and
// create_label_exp, graph.rs copy_parents_data): the label of node n in layer l is
//   SHA-256(replica_id ‖ l as u32 BE ‖ n as u64 BE ‖ 20 zero bytes ‖ 37 parent labels)
// with the top two bits of its last byte cleared. The parents are the 6 base (DRG) parents' labels
// in layer l, and from layer 2 on also the 8 expander parents' labels in layer l - 1; the 6 (14)
// are hashed repeated to 37: 6 x 6 + the first (14 + 14 + the first 9). Node 0 hashes no parents
// (its 64-byte prefix only). Labels do not depend on the sector's data: they are the key that
// encoding adds to the data (encode.rs).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "filecoin/porep/graph.hpp"
#include "filecoin/porep/vanilla_proof.hpp"

namespace cuzk::filecoin {

// One label. parents: the 6 base parents' labels (layer 1) or the 6 base then 8 expander
// parents' labels (layer >= 2), none for node 0; std::invalid_argument otherwise.
Bytes32 sdr_label(const Bytes32& replica_id, uint32_t layer, uint64_t node, std::span<const Bytes32> parents);
Fr sdr_label_fr(const Bytes32& replica_id, uint32_t layer, uint64_t node, std::span<const Fr> parents);

// The parents of every node, 14 per node in node order (the parent cache file of rust-fil-proofs,
// stacked/vanilla/cache.rs), computed in parallel. 56 bytes per node.
std::vector<uint32_t> parents_cache(const StackedBucketGraph& graph);

// Every label of every layer of a sector (create_labels_for_encoding), in memory: layers x nodes
// x 32 bytes. A layer is sequential (node n - 1 is a parent of n); the parent cache is built in
// parallel first.
class SdrLabels {
 public:
  SdrLabels(const StackedBucketGraph& graph, const Bytes32& replica_id, size_t layers);

  size_t layers() const { return layers_; }
  uint64_t nodes() const { return nodes_; }
  // layer is 1-based, as in rust-fil-proofs; std::out_of_range outside.
  const Bytes32& at(size_t layer, uint64_t node) const;
  Fr fr(size_t layer, uint64_t node) const;
  // Column n: the node's label in layers 1..layers (column.rs).
  std::vector<Fr> column(uint64_t node) const;

 private:
  size_t layers_;
  uint64_t nodes_;
  std::vector<Bytes32> labels_;  // (layer - 1) * nodes + node
};

}  // namespace cuzk::filecoin

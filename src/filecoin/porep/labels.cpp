#include "filecoin/porep/labels.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <tbb/parallel_for.h>

#include "filecoin/common/sha256_fast.hpp"
#include "gadgets/label.hpp"

namespace cuzk::filecoin {
namespace {

constexpr size_t kPrefix = 64;  // replica_id, then layer, node and zeros
constexpr size_t kMessage = kPrefix + gadgets::kLabelParents * 32;

void write_prefix(uint8_t* buf, const Bytes32& replica_id, uint32_t layer, uint64_t node) {
  std::memcpy(buf, replica_id.data(), 32);
  std::memset(buf + 32, 0, 32);
  for (int i = 0; i < 4; i++) buf[32 + i] = uint8_t(layer >> (24 - 8 * i));
  for (int i = 0; i < 8; i++) buf[36 + i] = uint8_t(node >> (56 - 8 * i));
}

// The distinct parents (6 or 14) are at buf + kPrefix; repeats them to 37 (graph.rs
// copy_parents_data_inner{,_exp}).
void repeat_parents(uint8_t* buf, size_t distinct) {
  uint8_t* p = buf + kPrefix;
  for (size_t i = distinct; i < gadgets::kLabelParents; i++) std::memcpy(p + 32 * i, p + 32 * (i % distinct), 32);
}

Bytes32 finish(const uint8_t* buf, uint64_t node) {
  Bytes32 out = sha256_digest(std::span<const uint8_t>(buf, node == 0 ? kPrefix : kMessage));
  out[31] &= 0x3f;  // strip the last two bits, to ensure the label is in Fr
  return out;
}

}  // namespace

Bytes32 sdr_label(const Bytes32& replica_id, uint32_t layer, uint64_t node, std::span<const Bytes32> parents) {
  const size_t want = node == 0 ? 0 : layer == 1 ? kBaseDegree : kParentCount;
  if (layer == 0 || parents.size() != want) {
    throw std::invalid_argument("sdr_label: node " + std::to_string(node) + " of layer " + std::to_string(layer) +
                                " hashes " + std::to_string(want) + " distinct parents, got " +
                                std::to_string(parents.size()));
  }
  std::array<uint8_t, kMessage> buf;
  write_prefix(buf.data(), replica_id, layer, node);
  for (size_t i = 0; i < parents.size(); i++) std::memcpy(buf.data() + kPrefix + 32 * i, parents[i].data(), 32);
  if (node != 0) repeat_parents(buf.data(), parents.size());
  return finish(buf.data(), node);
}

Fr sdr_label_fr(const Bytes32& replica_id, uint32_t layer, uint64_t node, std::span<const Fr> parents) {
  std::vector<Bytes32> bytes(parents.size());
  for (size_t i = 0; i < parents.size(); i++) parents[i].to_bytes_le(bytes[i].data());
  const Bytes32 label = sdr_label(replica_id, layer, node, bytes);
  Fr out;
  Fr::from_bytes_le(label.data(), out);
  return out;
}

std::vector<uint32_t> parents_cache(const StackedBucketGraph& graph) {
  const uint64_t nodes = graph.nodes();
  std::vector<uint32_t> cache(nodes * kParentCount);
  constexpr uint64_t kChunk = 4096;
  tbb::parallel_for(uint64_t(0), (nodes + kChunk - 1) / kChunk, [&](uint64_t c) {
    const uint64_t first = c * kChunk, count = std::min(kChunk, nodes - first);
    graph.parents_range(first, count, std::span<uint32_t>(cache.data() + first * kParentCount, count * kParentCount));
  });
  return cache;
}

SdrLabels::SdrLabels(const StackedBucketGraph& graph, const Bytes32& replica_id, size_t layers)
    : layers_(layers), nodes_(graph.nodes()) {
  if (layers == 0) throw std::invalid_argument("SDR labels: at least one layer");
  const std::vector<uint32_t> parents = parents_cache(graph);
  labels_.resize(layers * nodes_);
  std::array<uint8_t, kMessage> buf;
  for (size_t layer = 1; layer <= layers; layer++) {
    Bytes32* cur = labels_.data() + (layer - 1) * nodes_;
    const Bytes32* prev = layer > 1 ? cur - nodes_ : nullptr;
    const size_t distinct = layer == 1 ? kBaseDegree : kParentCount;
    for (uint64_t node = 0; node < nodes_; node++) {
      write_prefix(buf.data(), replica_id, uint32_t(layer), node);
      if (node != 0) {
        const uint32_t* p = parents.data() + node * kParentCount;
        uint8_t* out = buf.data() + kPrefix;
        for (size_t i = 0; i < kBaseDegree; i++) std::memcpy(out + 32 * i, cur[p[i]].data(), 32);
        for (size_t i = kBaseDegree; i < distinct; i++) std::memcpy(out + 32 * i, prev[p[i]].data(), 32);
        repeat_parents(buf.data(), distinct);
      }
      cur[node] = finish(buf.data(), node);
    }
  }
}

const Bytes32& SdrLabels::at(size_t layer, uint64_t node) const {
  if (layer == 0 || layer > layers_ || node >= nodes_) {
    throw std::out_of_range("SDR labels: layer " + std::to_string(layer) + " node " + std::to_string(node) + " of " +
                            std::to_string(layers_) + " layers x " + std::to_string(nodes_) + " nodes");
  }
  return labels_[(layer - 1) * nodes_ + node];
}

Fr SdrLabels::fr(size_t layer, uint64_t node) const {
  Fr out;
  Fr::from_bytes_le(at(layer, node).data(), out);  // top two bits clear: canonical
  return out;
}

std::vector<Fr> SdrLabels::column(uint64_t node) const {
  std::vector<Fr> rows(layers_);
  for (size_t l = 1; l <= layers_; l++) rows[l - 1] = fr(l, node);
  return rows;
}

}  // namespace cuzk::filecoin

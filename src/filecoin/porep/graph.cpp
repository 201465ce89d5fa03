#include "filecoin/porep/graph.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "filecoin/common/chacha.hpp"
#include "gadgets/sha256.hpp"

namespace cuzk::filecoin {

Bytes32 derive_porep_domain_seed(std::string_view tag, const Bytes32& porep_id) {
  std::vector<uint8_t> msg(tag.begin(), tag.end());
  msg.insert(msg.end(), porep_id.begin(), porep_id.end());
  return gadgets::sha256_native(msg);
}

std::array<uint8_t, 28> derive_drg_seed(const Bytes32& porep_id) {
  const Bytes32 raw = derive_porep_domain_seed("Filecoin_DRSample", porep_id);  // DRSAMPLE_DST
  std::array<uint8_t, 28> seed;
  std::copy_n(raw.begin(), 28, seed.begin());
  return seed;
}

FeistelKeys derive_feistel_keys(const Bytes32& porep_id) {
  const Bytes32 raw = derive_porep_domain_seed("Filecoin_Feistel", porep_id);  // FEISTEL_DST
  FeistelKeys keys;
  for (size_t i = 0; i < 4; i++) {
    uint64_t k = 0;
    for (size_t b = 8; b-- > 0;) k = k << 8 | raw[8 * i + b];
    keys[i] = k;
  }
  return keys;
}

namespace {

// graph.rs: nodes <= u32::MAX; drgraph.rs: nodes * 5 <= 2^54 (implied). Below 2 nodes there is no
// node with random parents and the expander domain degenerates; no Filecoin sector has so few.
uint64_t checked_nodes(uint64_t nodes) {
  if (nodes < 2 || nodes > 0xffffffffull)
    throw std::invalid_argument("SDR graph: " + std::to_string(nodes) + " nodes; a sector graph has 2 .. 2^32-1 nodes");
  return nodes;
}

}  // namespace

StackedBucketGraph::StackedBucketGraph(uint64_t nodes, const Bytes32& porep_id, ApiVersion api_version)
    : nodes_(checked_nodes(nodes)),
      api_version_(api_version),
      drg_seed_(derive_drg_seed(porep_id)),
      feistel_keys_(derive_feistel_keys(porep_id)),
      feistel_(nodes * kExpDegree, feistel_keys_) {}

StackedBucketGraph::StackedBucketGraph(const SealProofInfo& proof)
    : StackedBucketGraph(proof.nodes, proof.porep_id(), proof.api_version) {}

void StackedBucketGraph::check_node(uint64_t node) const {
  if (node >= nodes_)
    throw std::out_of_range("SDR graph: node " + std::to_string(node) + " is outside a graph of " +
                            std::to_string(nodes_) + " nodes");
}

void StackedBucketGraph::drg_parents_unchecked(uint32_t node, uint32_t* out) const {
  if (node < 2) {
    std::fill_n(out, kBaseDegree, 0u);
    return;
  }
  uint8_t seed[32];
  std::memcpy(seed, drg_seed_.data(), 28);
  for (int i = 0; i < 4; i++) seed[28 + i] = uint8_t(node >> (8 * i));
  ChaCha8Rng rng{std::span<const uint8_t, 32>(seed, 32)};

  constexpr uint64_t m_prime = kBaseDegree - 1;
  const uint64_t metagraph_node = uint64_t(node) * m_prime;
  // drgraph.rs: (metagraph_node as f64).log2().ceil(). metagraph_node >= 10 and < 2^35, so the f64
  // is exact, and log2 of a non-power of two is more than 2^-35 above the integer below it, far more
  // than its rounding error: the result is the bit width of metagraph_node - 1.
  const uint64_t n_buckets = std::bit_width(metagraph_node - 1);

  const bool predecessor_last = api_version_ == ApiVersion::kV1_0_0;
  uint32_t* random = predecessor_last ? out : out + 1;
  for (size_t i = 0; i < m_prime; i++) {
    const uint64_t bucket_index = rng.next_u64() % n_buckets + 1;
    const uint64_t largest = std::min(metagraph_node, uint64_t(1) << bucket_index);
    const uint64_t smallest = std::max(uint64_t(2), largest >> 1);
    const uint64_t distance = smallest + rng.next_u64() % (largest - smallest + 1);
    const uint32_t mapped = uint32_t((metagraph_node - distance) / m_prime);
    random[i] = mapped == node ? node - 1 : mapped;
  }
  out[predecessor_last ? m_prime : 0] = node - 1;
}

void StackedBucketGraph::expander_parents_unchecked(uint64_t node, uint32_t* out) const {
  for (size_t i = 0; i < kExpDegree; i++) {
    const uint64_t t = feistel_.permute(node * kExpDegree + i);
    out[i] = api_version_ == ApiVersion::kV1_0_0 ? uint32_t(t) / uint32_t(kExpDegree) : uint32_t(t / kExpDegree);
  }
}

void StackedBucketGraph::drg_parents(uint64_t node, std::span<uint32_t, kBaseDegree> out) const {
  check_node(node);
  drg_parents_unchecked(uint32_t(node), out.data());
}

void StackedBucketGraph::expander_parents(uint64_t node, std::span<uint32_t, kExpDegree> out) const {
  check_node(node);
  expander_parents_unchecked(node, out.data());
}

void StackedBucketGraph::parents(uint64_t node, std::span<uint32_t, kParentCount> out) const {
  check_node(node);
  drg_parents_unchecked(uint32_t(node), out.data());
  expander_parents_unchecked(node, out.data() + kBaseDegree);
}

void StackedBucketGraph::parents_range(uint64_t first, uint64_t count, std::span<uint32_t> out) const {
  if (first > nodes_ || count > nodes_ - first)
    throw std::out_of_range("SDR graph: nodes [" + std::to_string(first) + ", " + std::to_string(first) + "+" +
                            std::to_string(count) + ") are outside a graph of " + std::to_string(nodes_) + " nodes");
  if (out.size() != count * kParentCount)
    throw std::invalid_argument("SDR graph: parents_range needs " + std::to_string(count * kParentCount) +
                                " entries, got " + std::to_string(out.size()));
  for (uint64_t i = 0; i < count; i++) {
    uint32_t* p = out.data() + i * kParentCount;
    drg_parents_unchecked(uint32_t(first + i), p);
    expander_parents_unchecked(first + i, p + kBaseDegree);
  }
}

}  // namespace cuzk::filecoin

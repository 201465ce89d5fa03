#include "filecoin/generators/test_sector_update.hpp"

#include <random>
#include <stdexcept>
#include <string>

#include "filecoin/snap/challenges.hpp"
#include "gadgets/hashers.hpp"

namespace cuzk::filecoin {
namespace {

Fr fr_of(const Bytes32& b, const char* what) {
  Fr x;
  if (!Fr::from_bytes_le(b.data(), x)) throw std::invalid_argument(std::string(what) + " is not a field element");
  return x;
}

// The node of `proof`'s path `height` levels above its leaf (binary tree D).
Fr node_above(const gadgets::PorTreeShape& shape, const MerkleProof& proof, size_t height) {
  Fr cur = proof.leaf;
  const auto levels = proof.levels();
  for (size_t l = 0; l < height; l++) {
    const PathElement& e = levels.at(l);
    std::vector<Fr> children;
    for (size_t j = 0, s = 0; j < e.hashes.size() + 1; j++) children.push_back(j == e.index ? cur : e.hashes[s++]);
    cur = tree_node_hash(shape.hasher, children);
  }
  return cur;
}

}  // namespace

std::vector<uint8_t> test_update_data(const EmptySectorUpdateParams& params, uint64_t seed, bool zeros) {
  std::vector<uint8_t> out(params.sector_size(), 0);
  if (zeros) return out;
  std::mt19937_64 rng(seed);
  for (size_t i = 0; i < out.size(); i += 8) {
    const uint64_t v = rng();
    for (size_t b = 0; b < 8; b++) out[i + b] = uint8_t(v >> (8 * b));
  }
  for (size_t i = 31; i < out.size(); i += 32) out[i] &= 0x3f;
  return out;
}

EmptySectorUpdatePartitionProof empty_sector_update_partition_proof(const EmptySectorUpdateParams& params,
                                                                    const MerkleTree& tree_r_old,
                                                                    const MerkleTree& tree_d_new,
                                                                    const MerkleTree& tree_r_new, const Fr& comm_c,
                                                                    const Fr& comm_r_new, size_t k) {
  EmptySectorUpdatePartitionProof out;
  out.comm_c = comm_c;
  if (!params.poseidon) {
    // Apex leaf j of partition k is tree D's node k * A + j at height challenge_bit_len -
    // partition_bit_len - apex_leaf_bit_len: the ancestor of leaf (k * A + j) << height.
    const size_t height = params.challenge_bit_len - params.partition_bit_len - params.apex_leaf_bit_len;
    for (size_t j = 0; j < params.apex_leaf_count; j++) {
      const uint64_t leaf = (uint64_t(k) * params.apex_leaf_count + j) << height;
      out.apex_leafs.push_back(node_above(params.tree_d, tree_d_new.proof(leaf), height));
    }
  }
  for (uint32_t c : empty_sector_update_challenges(params, comm_r_new, k)) {
    out.challenge_proofs.push_back({tree_r_old.proof(c), tree_d_new.proof(c), tree_r_new.proof(c)});
  }
  return out;
}

TestSectorUpdate generate_test_sector_update(const EmptySectorUpdateParams& params, std::span<const Fr> replica_old,
                                             const Fr& comm_c, std::span<const uint8_t> new_data, size_t h) {
  const uint64_t nodes = params.sector_nodes;
  if (replica_old.size() != nodes) {
    throw std::invalid_argument("test sector update: " + std::to_string(replica_old.size()) + " replica nodes, " +
                                std::to_string(nodes) + " required");
  }
  if (new_data.size() != params.sector_size()) {
    throw std::invalid_argument("test sector update: " + std::to_string(new_data.size()) + " bytes of new data, " +
                                std::to_string(params.sector_size()) + " required");
  }
  TestSectorUpdate u;
  u.params = params;
  u.h = h ? h : params.h_default;
  (void)params.h_select(u.h);
  u.comm_c = comm_c;
  u.new_data.assign(new_data.begin(), new_data.end());

  std::vector<Fr> data(nodes);
  for (uint64_t i = 0; i < nodes; i++) {
    if (!Fr::from_bytes_le(new_data.data() + 32 * i, data[i])) {
      throw std::invalid_argument("test sector update: new data node " + std::to_string(i) + " is not a field element");
    }
  }
  u.tree_r_old = std::make_shared<MerkleTree>(params.tree_r, std::vector<Fr>(replica_old.begin(), replica_old.end()));
  u.comm_r_last_old = u.tree_r_old->root();
  u.comm_r_old = gadgets::poseidon_node_hash(std::vector<Fr>{comm_c, u.comm_r_last_old});
  u.tree_d_new = std::make_shared<MerkleTree>(params.tree_d, data);
  u.comm_d_new = u.tree_d_new->root();

  // encode_into: label_new = label_old + data * rho(node >> (bit_len - h)).
  const Fr phi = empty_sector_update_phi(u.comm_d_new, u.comm_r_old);
  const auto rhos = empty_sector_update_rhos(phi, u.h);
  std::vector<Fr> replica_new(nodes);
  u.new_replica.resize(params.sector_size());
  for (uint64_t i = 0; i < nodes; i++) {
    replica_new[i] = replica_old[i] + data[i] * rhos[empty_sector_update_high(params, u.h, i)];
    replica_new[i].to_bytes_le(u.new_replica.data() + 32 * i);
  }
  u.tree_r_new = std::make_shared<MerkleTree>(params.tree_r, std::move(replica_new));
  u.comm_r_last_new = u.tree_r_new->root();
  u.comm_r_new = gadgets::poseidon_node_hash(std::vector<Fr>{comm_c, u.comm_r_last_new});

  for (size_t k = 0; k < params.partition_count; k++) {
    u.partitions.push_back(empty_sector_update_partition_proof(params, *u.tree_r_old, *u.tree_d_new, *u.tree_r_new,
                                                               comm_c, u.comm_r_new, k));
  }
  return u;
}

TestSectorUpdate generate_test_sector_update(const EmptySectorUpdateParams& params, const SealedSector& sealed,
                                             std::span<const uint8_t> new_data, size_t h) {
  if (sealed.info().sector_size != params.sector_size()) {
    throw std::invalid_argument("test sector update: a " + std::to_string(sealed.info().sector_size) +
                                "-byte sector for " + std::to_string(params.sector_size()) + "-byte parameters");
  }
  return generate_test_sector_update(params, sealed.tree_r().leaves(), fr_of(sealed.comm_c(), "comm_c"), new_data, h);
}

}  // namespace cuzk::filecoin

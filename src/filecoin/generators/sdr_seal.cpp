#include "filecoin/generators/sdr_seal.hpp"

#include <chrono>
#include <stdexcept>
#include <string>
#include <tbb/parallel_for.h>

#include "filecoin/porep/challenges.hpp"
#include "gadgets/hashers.hpp"
#include "util/elapsed.hpp"

namespace cuzk::filecoin {
namespace {

// The sector's nodes as field elements, in parallel.
std::vector<Fr> nodes_as_fr(std::span<const uint8_t> bytes) {
  std::vector<Fr> out(bytes.size() / 32);
  tbb::parallel_for(tbb::blocked_range<size_t>(0, out.size(), 4096), [&](const tbb::blocked_range<size_t>& r) {
    for (size_t i = r.begin(); i < r.end(); i++) Fr::from_bytes_le(bytes.data() + 32 * i, out[i]);
  });
  return out;
}

}  // namespace

void check_sector_data(const SealProofInfo& info, std::span<const uint8_t> data) {
  if (data.size() != info.sector_size) {
    throw std::invalid_argument(std::string(info.name) + ": sector data of " + std::to_string(data.size()) +
                                " bytes, the sector holds " + std::to_string(info.sector_size));
  }
  for (uint64_t n = 0; n < info.nodes; n++) {
    if (data[32 * n + 31] & 0xc0) {
      throw std::invalid_argument(std::string(info.name) + ": node " + std::to_string(n) + " (bytes " +
                                  std::to_string(32 * n) + ".." + std::to_string(32 * n + 31) +
                                  ") has one of its top two bits set; sector data must be fr32-padded (each "
                                  "32-byte node below 2^254, little-endian)");
    }
  }
}

MerkleTree build_tree_c(const SealProofInfo& info, const SdrLabels& labels) {
  std::vector<Fr> leaves(labels.nodes());
  tbb::parallel_for(tbb::blocked_range<uint64_t>(0, labels.nodes(), 256), [&](const tbb::blocked_range<uint64_t>& r) {
    for (uint64_t n = r.begin(); n < r.end(); n++) leaves[n] = hash_single_column(labels.column(n));
  });
  return MerkleTree(info.tree_r, std::move(leaves));
}

SealedSector::SealedSector(const SealProofInfo& info, std::vector<uint8_t> data, const Bytes32& prover_id,
                           uint64_t sector_id, const Bytes32& ticket)
    : info_(&info), prover_id_(prover_id), ticket_(ticket), sector_id_(sector_id), data_(std::move(data)) {
  if (info.sector_size > kMaxRealSealSize) {
    throw std::invalid_argument(std::string(info.name) + ": a real seal is done up to 512 MiB (it needs about " +
                                std::to_string(info.layers + 5) +
                                " times the sector size in memory); build larger test sectors sparsely "
                                "(generate_test_sector, SectorMode::kSparse)");
  }
  check_sector_data(info, data_);
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();

  // Tree D over the data, and the replica_id it binds.
  auto t0 = clock::now();
  const std::vector<Fr> data_fr = nodes_as_fr(data_);
  tree_d_ = std::make_unique<MerkleTree>(info.tree_d, data_fr);
  comm_d_ = gadgets::fr_to_bytes_le(tree_d_->root());
  replica_id_ = filecoin::replica_id(prover_id, sector_id, ticket, comm_d_, info.porep_id());
  timings_.tree_d_s = seconds_since(t0);

  // Labels of every layer (independent of the data).
  t0 = clock::now();
  graph_ = std::make_unique<StackedBucketGraph>(info);
  labels_ = std::make_unique<SdrLabels>(*graph_, replica_id_, info.layers);
  timings_.labels_s = seconds_since(t0);

  t0 = clock::now();
  tree_c_ = std::make_unique<MerkleTree>(build_tree_c(info, *labels_));
  comm_c_ = gadgets::fr_to_bytes_le(tree_c_->root());
  timings_.tree_c_s = seconds_since(t0);

  // The replica: data + the last layer's label (the key), then tree R over it.
  t0 = clock::now();
  std::vector<Fr> replica(info.nodes);
  tbb::parallel_for(tbb::blocked_range<uint64_t>(0, info.nodes, 4096), [&](const tbb::blocked_range<uint64_t>& r) {
    for (uint64_t n = r.begin(); n < r.end(); n++) replica[n] = labels_->fr(info.layers, n) + data_fr[n];
  });
  tree_r_ = std::make_unique<MerkleTree>(info.tree_r, std::move(replica));
  comm_r_last_ = gadgets::fr_to_bytes_le(tree_r_->root());
  const Fr pair[2] = {tree_c_->root(), tree_r_->root()};
  comm_r_ = gadgets::fr_to_bytes_le(tree_node_hash(gadgets::TreeHasher::kPoseidon, pair));
  timings_.tree_r_s = seconds_since(t0);
  timings_.total_s = seconds_since(start);
}

std::vector<uint8_t> SealedSector::replica() const {
  std::vector<uint8_t> out(info_->sector_size);
  const auto& leaves = tree_r_->leaves();
  tbb::parallel_for(tbb::blocked_range<size_t>(0, leaves.size(), 4096), [&](const tbb::blocked_range<size_t>& r) {
    for (size_t i = r.begin(); i < r.end(); i++) leaves[i].to_bytes_le(out.data() + 32 * i);
  });
  return out;
}

SealCommitPhase1Output SealedSector::commit_phase1(const Bytes32& seed) const {
  return build_commit_phase1(*info_, *graph_, *this, Commit1Inputs{replica_id_, comm_d_, comm_r_, ticket_, seed});
}

std::vector<uint8_t> unseal_replica(const SealProofInfo& info, std::span<const uint8_t> replica,
                                    const Bytes32& replica_id) {
  if (info.sector_size > kMaxRealSealSize) {
    throw std::invalid_argument(std::string(info.name) + ": unsealing is done up to 512 MiB");
  }
  if (replica.size() != info.sector_size) {
    throw std::invalid_argument(std::string(info.name) + ": a replica of " + std::to_string(replica.size()) +
                                " bytes, the sector holds " + std::to_string(info.sector_size));
  }
  const StackedBucketGraph graph(info);
  const SdrLabels labels(graph, replica_id, info.layers);
  std::vector<uint8_t> data(info.sector_size);
  for (uint64_t n = 0; n < info.nodes; n++) {
    Fr r;
    if (!Fr::from_bytes_le(replica.data() + 32 * n, r)) {
      throw std::invalid_argument(std::string(info.name) + ": replica node " + std::to_string(n) +
                                  " is not a canonical field element (not a sealed replica?)");
    }
    (r - labels.fr(info.layers, n)).to_bytes_le(data.data() + 32 * n);
  }
  return data;
}

}  // namespace cuzk::filecoin

// A real SDR seal of a small sector in memory (filecoin-proofs api/seal.rs seal_pre_commit_phase1
// and _phase2, storage-proofs-porep stacked/vanilla/proof.rs replicate): tree D over the data,
// replica_id from comm_d, every layer's labels, tree C over the columns, the replica (data + the
// last layer's label in Fr, encode.rs) and tree R over it; comm_r = Poseidon2(comm_c,
// comm_r_last). Then Commit1 (seal_commit_phase1): the vanilla proofs of every partition.
//
// Memory is about (layers + 6) x the sector size, so sealing stops at 512 MiB (4.2 GiB peak);
// larger test sectors are built sparsely (generators/sparse_sector.hpp). Labels are sequential within a
// layer (node n - 1 is a parent of n) after a parallel parent cache; the trees are hashed in
// parallel, and tree C's Poseidon column hashes dominate (timings: docs/perf-history.md, "Test sectors").
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "filecoin/common/merkle_tree.hpp"
#include "filecoin/generators/porep_vanilla_prover.hpp"
#include "filecoin/porep/graph.hpp"
#include "filecoin/porep/labels.hpp"
#include "filecoin/porep/registered_proofs.hpp"
#include "filecoin/porep/vanilla_proof.hpp"

namespace cuzk::filecoin {

// The largest sector sealed for real.
inline constexpr uint64_t kMaxRealSealSize = uint64_t(512) << 20;

// Checks that `data` is info.sector_size bytes of 32-byte nodes with the top two bits of each
// node's last byte clear (fr32 padding gives that); std::invalid_argument naming the first
// offending node.
void check_sector_data(const SealProofInfo& info, std::span<const uint8_t> data);

class SealedSector final : public SectorOpenings {
 public:
  struct Timings {
    double tree_d_s = 0, labels_s = 0, tree_c_s = 0, tree_r_s = 0, total_s = 0;
  };

  // Seals `data` (check_sector_data) for the prover's sector under `ticket`. Throws
  // std::invalid_argument for a sector above kMaxRealSealSize or bad data.
  SealedSector(const SealProofInfo& info, std::vector<uint8_t> data, const Bytes32& prover_id, uint64_t sector_id,
               const Bytes32& ticket);

  const SealProofInfo& info() const { return *info_; }
  const StackedBucketGraph& graph() const { return *graph_; }
  const Bytes32& prover_id() const { return prover_id_; }
  uint64_t sector_id() const { return sector_id_; }
  const Bytes32& ticket() const { return ticket_; }
  const Bytes32& replica_id() const { return replica_id_; }
  const Bytes32& comm_d() const { return comm_d_; }
  const Bytes32& comm_c() const { return comm_c_; }
  const Bytes32& comm_r_last() const { return comm_r_last_; }
  const Bytes32& comm_r() const { return comm_r_; }
  // The unsealed data and the sealed replica (what lotus writes to sealed/s-t0...-n), bytes.
  const std::vector<uint8_t>& data() const { return data_; }
  std::vector<uint8_t> replica() const;
  const SdrLabels& labels() const { return *labels_; }
  const MerkleTree& tree_d() const { return *tree_d_; }
  const MerkleTree& tree_c() const { return *tree_c_; }
  const MerkleTree& tree_r() const { return *tree_r_; }
  const Timings& timings() const { return timings_; }

  // Commit1 for `seed`: every partition's challenges as info's feature derives them, proved.
  SealCommitPhase1Output commit_phase1(const Bytes32& seed) const;

  // SectorOpenings
  Fr label(size_t layer, uint64_t node) const override { return labels_->fr(layer, node); }
  MerkleProof tree_d_proof(uint64_t node) const override { return tree_d_->proof(node); }
  MerkleProof tree_c_proof(uint64_t node) const override { return tree_c_->proof(node); }
  MerkleProof tree_r_proof(uint64_t node) const override { return tree_r_->proof(node); }

 private:
  const SealProofInfo* info_;
  Bytes32 prover_id_, ticket_, replica_id_{}, comm_d_{}, comm_c_{}, comm_r_last_{}, comm_r_{};
  uint64_t sector_id_;
  std::vector<uint8_t> data_;
  std::unique_ptr<StackedBucketGraph> graph_;
  std::unique_ptr<SdrLabels> labels_;
  std::unique_ptr<MerkleTree> tree_d_, tree_c_, tree_r_;
  Timings timings_;
};

// Tree C of a sector's labels: the leaf of node n is hash_single_column of its column.
MerkleTree build_tree_c(const SealProofInfo& info, const SdrLabels& labels);

// The data a replica holds: per node, replica - the last layer's label (encode.rs decode), with
// the labels computed for replica_id (they do not depend on the data). Throws
// std::invalid_argument when the replica is not info.sector_size bytes of canonical elements.
std::vector<uint8_t> unseal_replica(const SealProofInfo& info, std::span<const uint8_t> replica,
                                    const Bytes32& replica_id);

}  // namespace cuzk::filecoin

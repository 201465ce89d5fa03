// Test sectors: Commit1 outputs (SealCommitPhase1Output) of every registered seal proof with
// real inputs and no Filecoin node, for tests and benchmarks.
//
// Two constructions, chosen by size (SectorMode::kAuto):
//   - a real SDR seal (generators/sdr_seal.hpp) for 2 KiB and 8 MiB, and for 512 MiB when the data is not
//     all zero or the challenges are synthetic or non-interactive; the data is zeros,
//     pseudo-random or the caller's bytes;
//   - a sparse committed-capacity sector (generators/sparse_sector.hpp) for 32 GiB and 64 GiB, and 512 MiB
//     with zero data and interactive challenges: only the challenged nodes and their parents are
//     labelled, a 32 GiB output (10 partitions x 18 challenges, 11 layers) in about a second.
// Both are consistent in everything the PoRep circuit checks, in every partition. Synthetic and
// non-interactive proofs above 512 MiB cannot be generated (their challenges depend on comm_r;
// see generators/sparse_sector.hpp).
//
// Cost: seconds up to 8 MiB, minutes for a real 512 MiB seal (tree C's Poseidon hashes dominate),
// about a second sparse; the measured figures are in docs/perf-history.md, "Test sectors".
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "filecoin/generators/sdr_seal.hpp"
#include "filecoin/porep/registered_proofs.hpp"
#include "filecoin/porep/vanilla_proof.hpp"

namespace cuzk::filecoin {

enum class SectorData {
  kZeros,   // a committed-capacity sector
  kRandom,  // pseudo-random nodes from rng_seed (top two bits of each node clear)
  kBytes,   // TestSectorOptions::data_bytes
};

enum class SectorMode { kAuto, kReal, kSparse };

struct TestSectorOptions {
  // The prover: prover_id if set, else the ID address payload of miner_actor_id (t01000 -> e807..).
  uint64_t miner_actor_id = 1000;
  std::optional<Bytes32> prover_id;
  uint64_t sector_id = 1;
  Bytes32 ticket{};  // the sealing randomness (PreCommit1)
  // The interactive randomness (Commit1); unused by non-interactive proofs, but never all zero
  // (Commit2 refuses a zero seed).
  Bytes32 seed{1};
  SectorData data = SectorData::kZeros;
  std::vector<uint8_t> data_bytes;  // kBytes: sector_size bytes of fr32-padded nodes
  uint64_t rng_seed = 0;            // kRandom data; the sparse sector's labels and default leaves
  SectorMode mode = SectorMode::kAuto;
};

struct TestSector {
  SealCommitPhase1Output c1;
  Bytes32 prover_id{};
  uint64_t sector_id = 0;
  Bytes32 replica_id{}, comm_d{}, comm_c{}, comm_r_last{}, comm_r{};
  bool sparse = false;
  // The real seal (data, replica bytes, labels, trees); null for a sparse sector.
  std::shared_ptr<const SealedSector> sealed;
  double seal_s = 0, commit_s = 0;  // wall time of the seal (or sparse build) and of Commit1
};

// The construction kAuto picks for these options (never kAuto). Throws std::invalid_argument
// when none fits: synthetic or non-interactive above 512 MiB, non-zero data above 512 MiB, a
// sparse sector with non-zero data or non-interactive challenges, a real seal above 512 MiB.
SectorMode test_sector_mode(const SealProofInfo& info, const TestSectorOptions& options);

// The sector's data for options.data (zeros, pseudo-random, or the caller's bytes checked).
std::vector<uint8_t> test_sector_data(const SealProofInfo& info, const TestSectorOptions& options);

TestSector generate_test_sector(const SealProofInfo& info, const TestSectorOptions& options = {});
SealCommitPhase1Output generate_commit_phase1(const SealProofInfo& info, const TestSectorOptions& options = {});

}  // namespace cuzk::filecoin

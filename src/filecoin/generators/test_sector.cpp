#include "filecoin/generators/test_sector.hpp"

#include <chrono>
#include <stdexcept>
#include <string>

#include "filecoin/common/chacha.hpp"
#include "filecoin/generators/sparse_sector.hpp"
#include "filecoin/porep/challenges.hpp"
#include "util/elapsed.hpp"

namespace cuzk::filecoin {
namespace {

const char* feature_name(SealFeature f) {
  return f == SealFeature::kSynthetic        ? "synthetic"
         : f == SealFeature::kNonInteractive ? "non-interactive"
                                             : "interactive";
}

}  // namespace

SectorMode test_sector_mode(const SealProofInfo& info, const TestSectorOptions& options) {
  const std::string name(info.name);
  const bool interactive = info.feature == SealFeature::kInteractive;
  const bool zeros = options.data == SectorData::kZeros;
  const bool small = info.sector_size <= kMaxRealSealSize;
  switch (options.mode) {
    case SectorMode::kReal:
      if (!small) {
        throw std::invalid_argument(name +
                                    ": a real seal is done up to 512 MiB; use SectorMode::kSparse (zero "
                                    "data, interactive challenges) for larger sectors");
      }
      return SectorMode::kReal;
    case SectorMode::kSparse:
      if (!zeros) {
        throw std::invalid_argument(name +
                                    ": a sparse test sector is a committed-capacity sector (all-zero data); "
                                    "use SectorData::kZeros or a real seal (up to 512 MiB)");
      }
      check_sparse_sector_supported(info);
      return SectorMode::kSparse;
    case SectorMode::kAuto:
      break;
  }
  if (info.sector_size < kMaxRealSealSize) return SectorMode::kReal;
  if (interactive && zeros) return SectorMode::kSparse;
  if (small) return SectorMode::kReal;  // 512 MiB with data or Fiat-Shamir challenges: minutes
  if (!interactive) {
    throw std::invalid_argument(name + ": " + feature_name(info.feature) +
                                " PoRep challenges are derived from comm_r (Fiat-Shamir), so a sparse sector cannot "
                                "be consistent, and a real seal of " +
                                std::string(info.sector_size_name()) +
                                " is out of reach here. Test sectors of these proofs are sealed for real at 2 KiB, "
                                "8 MiB and 512 MiB.");
  }
  throw std::invalid_argument(name + ": sectors above 512 MiB are built sparsely, with all-zero data only");
}

std::vector<uint8_t> test_sector_data(const SealProofInfo& info, const TestSectorOptions& options) {
  switch (options.data) {
    case SectorData::kZeros:
      return std::vector<uint8_t>(info.sector_size, 0);
    case SectorData::kBytes:
      check_sector_data(info, options.data_bytes);
      return options.data_bytes;
    case SectorData::kRandom:
      break;
  }
  // ChaCha20 keyed by the seed (u64 LE, zero padded); each node's top two bits cleared.
  std::array<uint8_t, 32> key{};
  for (int i = 0; i < 8; i++) key[i] = uint8_t(options.rng_seed >> (8 * i));
  ChaCha20Rng rng(key);
  std::vector<uint8_t> data(info.sector_size);
  for (size_t i = 0; i < data.size(); i += 4) {
    const uint32_t w = rng.next_u32();
    for (int j = 0; j < 4; j++) data[i + j] = uint8_t(w >> (8 * j));
  }
  for (size_t n = 0; n < info.nodes; n++) data[32 * n + 31] &= 0x3f;
  return data;
}

TestSector generate_test_sector(const SealProofInfo& info, const TestSectorOptions& options) {
  const SectorMode mode = test_sector_mode(info, options);
  TestSector out;
  out.prover_id = options.prover_id ? *options.prover_id : prover_id_from_actor_id(options.miner_actor_id);
  out.sector_id = options.sector_id;
  auto t0 = std::chrono::steady_clock::now();
  if (mode == SectorMode::kSparse) {
    const SparseSector sector(info, {out.prover_id, options.sector_id, options.ticket, options.seed, options.rng_seed});
    out.seal_s = seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    out.c1 = sector.commit_phase1();
    out.commit_s = seconds_since(t0);
    out.sparse = true;
    out.replica_id = sector.replica_id();
    out.comm_d = sector.comm_d();
    out.comm_c = sector.comm_c();
    out.comm_r_last = sector.comm_r_last();
    out.comm_r = sector.comm_r();
    return out;
  }
  auto sealed = std::make_shared<const SealedSector>(info, test_sector_data(info, options), out.prover_id,
                                                     options.sector_id, options.ticket);
  out.seal_s = seconds_since(t0);
  t0 = std::chrono::steady_clock::now();
  out.c1 = sealed->commit_phase1(options.seed);
  out.commit_s = seconds_since(t0);
  out.replica_id = sealed->replica_id();
  out.comm_d = sealed->comm_d();
  out.comm_c = sealed->comm_c();
  out.comm_r_last = sealed->comm_r_last();
  out.comm_r = sealed->comm_r();
  out.sealed = std::move(sealed);
  return out;
}

SealCommitPhase1Output generate_commit_phase1(const SealProofInfo& info, const TestSectorOptions& options) {
  return generate_test_sector(info, options).c1;
}

}  // namespace cuzk::filecoin

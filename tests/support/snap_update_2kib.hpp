// The 2 KiB SnapDeals update the engine, daemon and client tests prove: a real sealed 2 KiB sector
// of pseudo-random data (seed 7) updated with pseudo-random data (seed 11), one partition; and a
// field element's 32 raw little-endian bytes, as Curio sends commitments.
#pragma once

#include <cstdint>
#include <string>

#include "ff/fr.hpp"
#include "filecoin/generators/test_sector.hpp"
#include "filecoin/generators/test_sector_update.hpp"
#include "filecoin/porep/registered_proofs.hpp"

namespace cuzk::test {

inline filecoin::TestSectorUpdate real_2kib_update(const filecoin::EmptySectorUpdateParams& params) {
  filecoin::TestSectorOptions o;
  o.data = filecoin::SectorData::kRandom;
  o.rng_seed = 7;
  o.mode = filecoin::SectorMode::kReal;
  const auto sealed =
      filecoin::generate_test_sector(filecoin::seal_proof_info(filecoin::RegisteredSealProof::kStackedDrg2KiBV1_1), o);
  return filecoin::generate_test_sector_update(params, *sealed.sealed, filecoin::test_update_data(params, 11));
}

inline std::string fr_bytes(const ff::Fr& x) {
  std::string b(32, '\0');
  x.to_bytes_le(reinterpret_cast<uint8_t*>(b.data()));
  return b;
}

}  // namespace cuzk::test

// Fuzz target: the bincode PartitionProof reader of SnapDeals (EmptySectorUpdate) vanilla proofs.
// The first byte picks the parameters (2 KiB or 8 MiB sector); the rest is one partition's
// bincode. Oracle: an accepted partition proof is written back byte for byte.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <vector>

#include "filecoin/snap/registered_proofs.hpp"
#include "filecoin/snap/vanilla_proof.hpp"
#include "fuzz_check.hpp"

using namespace cuzk::filecoin;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Built once: the parameters are pure numbers.
  static const EmptySectorUpdateParams kParams[] = {
      EmptySectorUpdateParams::from_sector_size(2 * 1024),
      EmptySectorUpdateParams::from_sector_size(8 * 1024 * 1024),
  };
  if (size == 0) return 0;
  const EmptySectorUpdateParams& params = kParams[data[0] % 2];
  std::span<const uint8_t> in(data + 1, size - 1);
  EmptySectorUpdatePartitionProof proof;
  try {
    proof = read_empty_sector_update_partition_proof(in, params);
  } catch (const UpdateVanillaProofFormatError&) {
    return 0;
  } catch (const std::invalid_argument&) {
    return 0;
  }
  const std::vector<uint8_t> again = write_empty_sector_update_partition_proof(proof, params);
  CUZK_FUZZ_CHECK(again.size() == in.size() && std::memcmp(again.data(), in.data(), in.size()) == 0);
  return 0;
}

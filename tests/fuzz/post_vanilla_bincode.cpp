// Fuzz target: the bincode FallbackPoStSectorProof reader (Curio's WindowPoSt and WinningPoSt
// vanilla proofs). The first byte picks the registered proof, the rest is the bincode. Oracle: an
// accepted proof is written back byte for byte (bincode has one encoding per value, and the reader
// refuses trailing bytes and non-canonical field elements).
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <vector>

#include "filecoin/post/registered_proofs.hpp"
#include "filecoin/post/vanilla_proof.hpp"
#include "fuzz_check.hpp"

using namespace cuzk::filecoin;

// The small sizes' trees (2 KiB: one level of 8, 8 MiB: 8-0-0 deep) and both PoSt types; the
// large sizes differ only in depth and counts.
static constexpr std::array kProofs = {
    RegisteredPoStProof::kStackedDrgWinning2KiBV1,
    RegisteredPoStProof::kStackedDrgWindow2KiBV1,
    RegisteredPoStProof::kStackedDrgWindow2KiBV1_2,
    RegisteredPoStProof::kStackedDrgWindow8MiBV1_2,
};

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const PoStProofInfo& info = post_proof_info(kProofs[data[0] % kProofs.size()]);
  std::span<const uint8_t> in(data + 1, size - 1);
  FallbackPoStSectorProof proof;
  try {
    proof = read_fallback_post_sector_proof(in, info);
  } catch (const PoStVanillaProofFormatError&) {
    return 0;
  } catch (const std::invalid_argument&) {
    return 0;
  }
  const std::vector<uint8_t> again = write_fallback_post_sector_proof(proof);
  CUZK_FUZZ_CHECK(again.size() == in.size() && std::memcmp(again.data(), in.data(), in.size()) == 0);
  return 0;
}

// Fuzz target: the 192-byte Groth16 proof decoder (ZCash compressed A || B || C) and the
// concatenated partition proofs. Oracle: whatever decodes re-encodes to the same bytes, and the
// decoded points are on the curve and in the subgroup (decode_proof checks fully).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>

#include "fuzz_check.hpp"
#include "groth16/parameters.hpp"

using namespace cuzk::groth16;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const uint8_t> in(data, size);
  if (size == kProofBytes) {
    try {
      Proof p = decode_proof(in);
      auto again = encode_proof(p);
      CUZK_FUZZ_CHECK(std::memcmp(again.data(), data, kProofBytes) == 0);
      CUZK_FUZZ_CHECK(decode_proof(again) == p);
    } catch (const std::invalid_argument&) {
    }
    return 0;
  }
  try {
    std::vector<Proof> proofs = decode_proofs(in);
    CUZK_FUZZ_CHECK(proofs.size() * kProofBytes == size);
    std::vector<uint8_t> again = encode_proofs(proofs);
    CUZK_FUZZ_CHECK(again.size() == size && std::memcmp(again.data(), data, size) == 0);
  } catch (const std::invalid_argument&) {
  }
  return 0;
}

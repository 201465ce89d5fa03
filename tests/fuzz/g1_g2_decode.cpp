// Fuzz target: the ZCash G1 and G2 point decoders, compressed and uncompressed. The first byte
// picks the decoder and the check level; the rest is the encoding. Oracle: an accepted encoding
// re-encodes to the same bytes (the format has one encoding per point), and the other form of the
// point decodes back to the same point.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

#include "ec/encoding.hpp"
#include "fuzz_check.hpp"

using namespace cuzk::ec;

namespace {

template <size_t N>
bool same(const std::array<uint8_t, N>& a, std::span<const uint8_t> b) {
  return b.size() == N && std::memcmp(a.data(), b.data(), N) == 0;
}

// Decode with `decode`, re-encode with `encode` (same form) and `other_encode`/`other_decode`
// (the other form). N: this form's size, M: the other's.
template <typename Affine, size_t N, size_t M, typename Dec, typename Enc, typename ODec, typename OEnc>
void round_trip(std::span<const uint8_t> in, PointCheck check, Dec decode, Enc encode, ODec other_decode,
                OEnc other_encode) {
  Affine p;
  if (decode(in, p, check) != DecodeError::kOk) return;
  CUZK_FUZZ_CHECK(in.size() == N);
  std::array<uint8_t, N> again;
  encode(p, std::span<uint8_t, N>(again));
  CUZK_FUZZ_CHECK(same(again, in));
  // An uncompressed point decoded with kNone may be off the curve: its compressed form (x and the
  // sign of y) then names another point or none.
  if (N > M && check == PointCheck::kNone) return;
  std::array<uint8_t, M> other;
  other_encode(p, std::span<uint8_t, M>(other));
  Affine q;
  // The other form, checked at the same level, gives the same point back.
  CUZK_FUZZ_CHECK(other_decode(std::span<const uint8_t>(other), q, check) == DecodeError::kOk);
  CUZK_FUZZ_CHECK(q == p);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t mode = data[0];
  std::span<const uint8_t> in(data + 1, size - 1);
  // kNone skips the subgroup check only; kOnCurve the subgroup check. Both must still be safe.
  const PointCheck check = (mode >> 2) % 3 == 0   ? PointCheck::kFull
                           : (mode >> 2) % 3 == 1 ? PointCheck::kOnCurve
                                                  : PointCheck::kNone;
  switch (mode & 3) {
    case 0:
      round_trip<G1Affine, kG1CompressedBytes, kG1UncompressedBytes>(
          in, check, g1_decode_compressed, g1_encode_compressed, g1_decode_uncompressed, g1_encode_uncompressed);
      break;
    case 1:
      round_trip<G1Affine, kG1UncompressedBytes, kG1CompressedBytes>(
          in, check, g1_decode_uncompressed, g1_encode_uncompressed, g1_decode_compressed, g1_encode_compressed);
      break;
    case 2:
      round_trip<G2Affine, kG2CompressedBytes, kG2UncompressedBytes>(
          in, check, g2_decode_compressed, g2_encode_compressed, g2_decode_uncompressed, g2_encode_uncompressed);
      break;
    case 3:
      round_trip<G2Affine, kG2UncompressedBytes, kG2CompressedBytes>(
          in, check, g2_decode_uncompressed, g2_encode_uncompressed, g2_decode_compressed, g2_encode_compressed);
      break;
  }
  return 0;
}

#include "filecoin/common/chacha.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <string>

namespace cuzk::filecoin {
namespace {

inline uint32_t load_le32(const uint8_t* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

#define CUZK_CHACHA_QR(a, b, c, d) \
  a += b;                          \
  d = std::rotl(d ^ a, 16);        \
  c += d;                          \
  b = std::rotl(b ^ c, 12);        \
  a += b;                          \
  d = std::rotl(d ^ a, 8);         \
  c += d;                          \
  b = std::rotl(b ^ c, 7)

}  // namespace

void chacha_block(const uint32_t in[16], unsigned rounds, uint32_t out[16]) {
  uint32_t x0 = in[0], x1 = in[1], x2 = in[2], x3 = in[3], x4 = in[4], x5 = in[5], x6 = in[6], x7 = in[7];
  uint32_t x8 = in[8], x9 = in[9], x10 = in[10], x11 = in[11], x12 = in[12], x13 = in[13], x14 = in[14], x15 = in[15];
  for (unsigned r = 0; r < rounds; r += 2) {
    CUZK_CHACHA_QR(x0, x4, x8, x12);
    CUZK_CHACHA_QR(x1, x5, x9, x13);
    CUZK_CHACHA_QR(x2, x6, x10, x14);
    CUZK_CHACHA_QR(x3, x7, x11, x15);
    CUZK_CHACHA_QR(x0, x5, x10, x15);
    CUZK_CHACHA_QR(x1, x6, x11, x12);
    CUZK_CHACHA_QR(x2, x7, x8, x13);
    CUZK_CHACHA_QR(x3, x4, x9, x14);
  }
  out[0] = x0 + in[0];
  out[1] = x1 + in[1];
  out[2] = x2 + in[2];
  out[3] = x3 + in[3];
  out[4] = x4 + in[4];
  out[5] = x5 + in[5];
  out[6] = x6 + in[6];
  out[7] = x7 + in[7];
  out[8] = x8 + in[8];
  out[9] = x9 + in[9];
  out[10] = x10 + in[10];
  out[11] = x11 + in[11];
  out[12] = x12 + in[12];
  out[13] = x13 + in[13];
  out[14] = x14 + in[14];
  out[15] = x15 + in[15];
}

#undef CUZK_CHACHA_QR

void chacha_init(uint32_t state[16], std::span<const uint8_t, 32> key) {
  state[0] = 0x61707865;  // "expa"
  state[1] = 0x3320646e;  // "nd 3"
  state[2] = 0x79622d32;  // "2-by"
  state[3] = 0x6b206574;  // "te k"
  for (size_t i = 0; i < 8; i++) state[4 + i] = load_le32(key.data() + 4 * i);
  state[12] = state[13] = state[14] = state[15] = 0;
}

ChaCha20Ietf::ChaCha20Ietf(std::span<const uint8_t, 32> key, std::span<const uint8_t, 12> nonce) {
  chacha_init(state_, key);
  for (size_t i = 0; i < 3; i++) state_[13 + i] = load_le32(nonce.data() + 4 * i);
}

void ChaCha20Ietf::seek(uint64_t pos) {
  if (pos / 64 > 0xffffffffull)
    throw std::out_of_range("ChaCha20: keystream position " + std::to_string(pos) +
                            " is past the 2^32 blocks of the 32-bit counter");
  pos_ = pos;
}

void ChaCha20Ietf::apply_keystream(std::span<uint8_t> data) {
  if (data.empty()) return;
  if ((pos_ + data.size() - 1) / 64 > 0xffffffffull)
    throw std::out_of_range("ChaCha20: " + std::to_string(data.size()) + " keystream bytes from position " +
                            std::to_string(pos_) + " run past the 2^32 blocks of the 32-bit counter");
  uint32_t in[16], out[16];
  std::copy(state_, state_ + 16, in);
  size_t done = 0;
  while (done < data.size()) {
    in[12] = uint32_t(pos_ / 64);
    chacha_block(in, 20, out);
    const size_t offset = size_t(pos_ % 64);
    const size_t n = std::min(data.size() - done, 64 - offset);
    for (size_t i = 0; i < n; i++) {
      const size_t b = offset + i;
      data[done + i] ^= uint8_t(out[b / 4] >> (8 * (b % 4)));
    }
    done += n;
    pos_ += n;
  }
}

void ChaCha20Ietf::keystream(std::span<uint8_t> out) {
  std::fill(out.begin(), out.end(), uint8_t(0));
  apply_keystream(out);
}

}  // namespace cuzk::filecoin

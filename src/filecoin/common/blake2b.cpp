#include "filecoin/common/blake2b.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <string>

namespace cuzk::filecoin {
namespace {

constexpr uint64_t kIv[8] = {0x6a09e667f3bcc908ull, 0xbb67ae8584caa73bull, 0x3c6ef372fe94f82bull,
                             0xa54ff53a5f1d36f1ull, 0x510e527fade682d1ull, 0x9b05688c2b3e6c1full,
                             0x1f83d9abfb41bd6bull, 0x5be0cd19137e2179ull};

constexpr uint8_t kSigma[12][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4}, {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13}, {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11}, {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5}, {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
};

inline uint64_t load_le64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
  return v;
}

void compress_bytes(uint64_t h[8], const uint8_t block[128], uint64_t t, bool last) {
  uint64_t m[16];
  for (int i = 0; i < 16; i++) m[i] = load_le64(block + 8 * i);
  blake2b_compress(h, m, t, last);
}

}  // namespace

void blake2b_compress(uint64_t h[8], const uint64_t m[16], uint64_t t, bool last) {
  uint64_t v[16];
  for (int i = 0; i < 8; i++) v[i] = h[i], v[8 + i] = kIv[i];
  v[12] ^= t;
  if (last) v[14] = ~v[14];
  auto g = [&v](int a, int b, int c, int d, uint64_t x, uint64_t y) {
    v[a] = v[a] + v[b] + x;
    v[d] = std::rotr(v[d] ^ v[a], 32);
    v[c] = v[c] + v[d];
    v[b] = std::rotr(v[b] ^ v[c], 24);
    v[a] = v[a] + v[b] + y;
    v[d] = std::rotr(v[d] ^ v[a], 16);
    v[c] = v[c] + v[d];
    v[b] = std::rotr(v[b] ^ v[c], 63);
  };
  for (int r = 0; r < 12; r++) {
    const uint8_t* s = kSigma[r];
    g(0, 4, 8, 12, m[s[0]], m[s[1]]);
    g(1, 5, 9, 13, m[s[2]], m[s[3]]);
    g(2, 6, 10, 14, m[s[4]], m[s[5]]);
    g(3, 7, 11, 15, m[s[6]], m[s[7]]);
    g(0, 5, 10, 15, m[s[8]], m[s[9]]);
    g(1, 6, 11, 12, m[s[10]], m[s[11]]);
    g(2, 7, 8, 13, m[s[12]], m[s[13]]);
    g(3, 4, 9, 14, m[s[14]], m[s[15]]);
  }
  for (int i = 0; i < 8; i++) h[i] ^= v[i] ^ v[8 + i];
}

void blake2b_512_init(uint64_t h[8]) {
  for (int i = 0; i < 8; i++) h[i] = kIv[i];
  h[0] ^= 0x01010040ull;  // digest 64 bytes, no key, fanout 1, depth 1
}

Blake2b::Blake2b(size_t out_len, std::span<const uint8_t> key) : out_len_(out_len) {
  if (out_len == 0 || out_len > 64)
    throw std::invalid_argument("BLAKE2b: output length " + std::to_string(out_len) + " is not in 1..64");
  if (key.size() > 64)
    throw std::invalid_argument("BLAKE2b: key of " + std::to_string(key.size()) + " bytes is longer than 64");
  for (int i = 0; i < 8; i++) h_[i] = kIv[i];
  h_[0] ^= 0x01010000ull ^ (uint64_t(key.size()) << 8) ^ uint64_t(out_len);
  if (!key.empty()) {
    std::copy(key.begin(), key.end(), buf_.begin());
    buf_len_ = 128;  // the zero-padded key block, compressed once more data (or finalize) comes
  }
}

Blake2b& Blake2b::update(std::span<const uint8_t> data) {
  size_t i = 0;
  while (i < data.size()) {
    // Compress a full buffer only when more input follows: the last block is finalize's.
    if (buf_len_ == 128) {
      t_ += 128;
      compress_bytes(h_.data(), buf_.data(), t_, false);
      buf_len_ = 0;
    }
    const size_t n = std::min(data.size() - i, 128 - buf_len_);
    std::copy_n(data.data() + i, n, buf_.data() + buf_len_);
    buf_len_ += n;
    i += n;
  }
  return *this;
}

void Blake2b::finalize(std::span<uint8_t> out) {
  if (out.size() != out_len_)
    throw std::invalid_argument("BLAKE2b: digest buffer of " + std::to_string(out.size()) + " bytes, expected " +
                                std::to_string(out_len_));
  t_ += buf_len_;
  std::fill(buf_.begin() + buf_len_, buf_.end(), uint8_t(0));
  compress_bytes(h_.data(), buf_.data(), t_, true);
  for (size_t i = 0; i < out_len_; i++) out[i] = uint8_t(h_[i / 8] >> (8 * (i % 8)));
}

std::array<uint8_t, 64> blake2b_512(std::span<const uint8_t> data) {
  std::array<uint8_t, 64> out;
  Blake2b(64).update(data).finalize(out);
  return out;
}

}  // namespace cuzk::filecoin

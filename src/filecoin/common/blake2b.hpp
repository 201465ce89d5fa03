// BLAKE2b (RFC 7693), as the blake2b_simd crate computes it: the Feistel round function of the
// SDR graph (porep/feistel.hpp) and, keyed with a 32-byte output, the keys of the synthetic PoRep
// challenges (storage-proofs-porep stacked/vanilla/challenges.rs).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace cuzk::filecoin {

// BLAKE2b with an output of 1..64 bytes and an optional key of up to 64 bytes (blake2b_simd's
// Params::new().hash_length(n).key(k)). Throws std::invalid_argument on other lengths.
class Blake2b {
 public:
  explicit Blake2b(size_t out_len = 64, std::span<const uint8_t> key = {});
  Blake2b& update(std::span<const uint8_t> data);
  // Writes the digest; out.size() must be the output length. The object is spent afterwards.
  void finalize(std::span<uint8_t> out);

 private:
  std::array<uint64_t, 8> h_;
  std::array<uint8_t, 128> buf_{};
  size_t buf_len_ = 0;
  uint64_t t_ = 0;  // bytes compressed so far (inputs here stay far below 2^64)
  size_t out_len_;
};

// Unkeyed BLAKE2b-512 (blake2b_simd::blake2b).
std::array<uint8_t, 64> blake2b_512(std::span<const uint8_t> data);

// RFC 7693 F: compresses the message block m (16 little-endian words) into h; t is the byte
// counter (its high word 0), last marks the final block. For callers that hash one fixed block.
void blake2b_compress(uint64_t h[8], const uint64_t m[16], uint64_t t, bool last);
// The initial state of an unkeyed BLAKE2b with a 64-byte digest.
void blake2b_512_init(uint64_t h[8]);

}  // namespace cuzk::filecoin

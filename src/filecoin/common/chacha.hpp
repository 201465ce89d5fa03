// ChaCha as rust-fil-proofs uses it, in two flavours that must not be confused:
//  * ChaChaRng<Rounds>: rand_chacha 0.3's ChaCha8Rng / ChaCha20Rng (the 64-bit block counter in
//    state words 12-13, a 64-bit stream id, always 0 here, in words 14-15; the seed is the key).
//    storage-proofs-core/src/drgraph.rs seeds a ChaCha8Rng per node to draw the DRSample parents.
//  * ChaCha20Ietf: RustCrypto chacha20 0.9's ChaCha20 (RFC 8439: 32-bit block counter in word 12,
//    96-bit nonce in words 13-15), the PRF of the synthetic PoRep challenges
//    (storage-proofs-porep/src/stacked/vanilla/challenges.rs).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace cuzk::filecoin {

// The ChaCha block function: `out` = `rounds` rounds (8, 12 or 20) over `in`, plus `in`.
void chacha_block(const uint32_t in[16], unsigned rounds, uint32_t out[16]);

// A ChaCha state laid out as rand_chacha and RFC 8439 both do: "expand 32-byte k", the 32-byte
// key as eight little-endian words, then four words of counter/nonce that the caller sets.
void chacha_init(uint32_t state[16], std::span<const uint8_t, 32> key);

// rand_chacha 0.3 ChaChaXRng::from_seed(seed) with rand_core 0.6's BlockRng on top.
//
// rand_chacha fills a buffer of four blocks (64 words) at a time and BlockRng hands the words out
// in order; next_u64 is always (word i) | (word i+1) << 32, also across a refill (BlockRng's
// `index == len - 1` branch). The buffer size therefore does not show in the output, and this
// generator computes one block at a time, only when a word of it is needed: drgraph.rs draws ten
// u64 per node, which is 20 words, two blocks rather than rand_chacha's four.
//
// rand 0.8's `rng.gen::<u64>()` (the Standard distribution, what drgraph.rs calls) is exactly
// next_u64(). drgraph.rs reduces it with `%`; it does not use gen_range.
template <unsigned Rounds>
class ChaChaRng {
 public:
  explicit ChaChaRng(std::span<const uint8_t, 32> seed) { chacha_init(state_, seed); }

  uint32_t next_u32() {
    if (index_ == 16) refill();
    return buf_[index_++];
  }
  uint64_t next_u64() {
    const uint64_t lo = next_u32();
    return lo | uint64_t(next_u32()) << 32;
  }
  // rand_chacha's get_word_pos: the number of 32-bit words handed out so far.
  uint64_t word_pos() const { return (block_counter() - 1) * 16 + index_; }

 private:
  uint64_t block_counter() const { return uint64_t(state_[12]) | uint64_t(state_[13]) << 32; }
  void refill() {
    chacha_block(state_, Rounds, buf_);
    const uint64_t next = block_counter() + 1;  // wraps at 2^64 as rand_chacha's does
    state_[12] = uint32_t(next);
    state_[13] = uint32_t(next >> 32);
    index_ = 0;
  }

  uint32_t state_[16];  // words 12-13: the next block to compute; 14-15: stream 0
  uint32_t buf_[16];
  unsigned index_ = 16;  // 16 = nothing buffered
};
using ChaCha8Rng = ChaChaRng<8>;
using ChaCha20Rng = ChaChaRng<20>;

// RustCrypto chacha20 0.9 `ChaCha20::new(key, nonce)` with StreamCipher::apply_keystream and
// StreamCipherSeek::try_seek (a byte offset into the keystream; the block counter starts at 0).
class ChaCha20Ietf {
 public:
  ChaCha20Ietf(std::span<const uint8_t, 32> key, std::span<const uint8_t, 12> nonce);

  // Moves to byte `pos` of the keystream. Throws std::out_of_range past the 2^32 blocks the 32-bit
  // counter can address (the crate refuses those too).
  void seek(uint64_t pos);
  uint64_t position() const { return pos_; }
  // XORs the next data.size() keystream bytes into data and advances.
  void apply_keystream(std::span<uint8_t> data);
  // The next out.size() keystream bytes (apply_keystream over zeros).
  void keystream(std::span<uint8_t> out);

 private:
  uint32_t state_[16];
  uint64_t pos_ = 0;
};

}  // namespace cuzk::filecoin

// A bit per variable saying whether it occurs in some query (bellperson's DensityTracker).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace cuzk::r1cs {

class DensityTracker {
 public:
  void add_element() {
    if (bits_ % 64 == 0) words_.push_back(0);
    bits_++;
  }
  // count more elements, all clear.
  void grow(size_t count) {
    bits_ += count;
    words_.resize((bits_ + 63) / 64, 0);
  }
  // Sets every bit that is set in src, src's bit i at bit offset + i (offset + src.size() <=
  // size()).
  void set_from(size_t offset, const DensityTracker& src) {
    const size_t shift = offset % 64;
    for (size_t k = 0; k < src.words_.size(); k++) {
      const uint64_t w = src.words_[k];
      if (w == 0) continue;
      const size_t at = offset / 64 + k;
      or_word(at, w << shift);
      if (shift != 0 && (w >> (64 - shift)) != 0) or_word(at + 1, w >> (64 - shift));
    }
  }
  // A tracker of `bits` elements with these words (a file's copy); bits past the end must be clear.
  static DensityTracker from_words(std::vector<uint64_t> words, size_t bits) {
    DensityTracker d;
    d.words_ = std::move(words);
    d.bits_ = bits;
    for (uint64_t w : d.words_) d.ones_ += size_t(std::popcount(w));
    return d;
  }
  void set(size_t i) {  // hot (every term of a synthesis): a test, not or_word's popcount
    uint64_t& w = words_[i / 64];
    const uint64_t mask = uint64_t(1) << (i % 64);
    ones_ += (w & mask) == 0;
    w |= mask;
  }
  bool test(size_t i) const { return (words_[i / 64] >> (i % 64)) & 1; }
  size_t size() const { return bits_; }
  size_t count_ones() const { return ones_; }
  const std::vector<uint64_t>& words() const { return words_; }
  size_t bytes() const { return words_.capacity() * sizeof(uint64_t); }
  friend bool operator==(const DensityTracker&, const DensityTracker&) = default;

 private:
  void or_word(size_t at, uint64_t bits) {
    ones_ += size_t(std::popcount(bits & ~words_[at]));
    words_[at] |= bits;
  }

  std::vector<uint64_t> words_;
  size_t bits_ = 0;
  size_t ones_ = 0;
};

}  // namespace cuzk::r1cs

// A bit per variable saying whether it occurs in some query (bellperson's DensityTracker).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace cuzk::r1cs {

class DensityTracker {
 public:
  void add_element() {
    if (bits_ % 64 == 0) words_.push_back(0);
    bits_++;
  }
  void set(size_t i) {
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

 private:
  std::vector<uint64_t> words_;
  size_t bits_ = 0;
  size_t ones_ = 0;
};

}  // namespace cuzk::r1cs

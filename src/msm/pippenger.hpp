// Multi-scalar multiplication sum_i [k_i] B_i on the CPU (G1 and G2): Pippenger's bucket
// method with signed (Booth) window digits, affine buckets filled by batched additions (XYZZ
// for the overflow and the reduction), density masks, and a
// pre-pass that takes zero scalars out and sums the bases of one-scalars by plain additions,
// so only the remaining scalars do bucket work. Multi-threaded with oneTBB over windows
// and point ranges.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "ec/curves.hpp"

namespace cuzk::msm {

using ec::AffinePoint;
using ec::JacobianPoint;
using ff::Fr;

// Which scalars have a base, as bellperson's DensityTracker records it: bit i set means
// scalar i is paired with the next base; bases are stored only for set bits.
struct DensityView {
  std::span<const uint64_t> words;  // little-endian bit order, bit i in words[i / 64]
  size_t bits = 0;                  // number of scalars described
  bool test(size_t i) const { return (words[i / 64] >> (i % 64)) & 1; }
  size_t count_ones() const;
};

struct MsmOptions {
  unsigned window_bits = 0;    // 0: chosen from the number of non-trivial scalars
  bool split_zero_one = true;  // take 0 and 1 scalars out before the bucket method
};

// What the pre-pass found, for the benchmark's table.
struct MsmStats {
  size_t terms = 0, zeros = 0, ones = 0, bucketed = 0;
  unsigned window_bits = 0;
};

// sum_i [scalars[i]] bases[i]; the spans must have equal length.
template <class Curve>
JacobianPoint<Curve> msm(std::span<const AffinePoint<Curve>> bases, std::span<const Fr> scalars,
                         const MsmOptions& options = {}, MsmStats* stats = nullptr);

// sum over the i with density bit i set of [scalars[i]] bases[j(i)], j(i) = the rank of i
// among set bits. density.bits must equal scalars.size(); bases.size() its number of set bits.
template <class Curve>
JacobianPoint<Curve> msm_with_density(std::span<const AffinePoint<Curve>> bases, std::span<const Fr> scalars,
                                      const DensityView& density, const MsmOptions& options = {},
                                      MsmStats* stats = nullptr);

// The window width that minimises the cost (256 / c)(n + 2 * 2^c), in affine additions, of n bucketed terms.
unsigned default_window_bits(size_t n);

// Naive sum of [k_i] B_i by one scalar multiplication each; the tests' reference.
template <class Curve>
JacobianPoint<Curve> msm_naive(std::span<const AffinePoint<Curve>> bases, std::span<const Fr> scalars);

}  // namespace cuzk::msm

// Fixed-base scalar multiplication with a precomputed table, for setups that multiply one
// generator by millions of scalars: the table holds d 2^(w i) G for every w-bit digit d of every
// window i, so [k] G is one addition per window of k.
//
// The window width follows the work the table will serve (expected_muls): wide windows halve the
// additions per scalar but cost 2^w / w times more table. mul_all adds in affine coordinates, a
// batch of scalars at a time, with one inversion per window for the whole batch (Montgomery's
// trick): about 6 field multiplications an addition against a mixed Jacobian addition's 11.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <vector>

#include "ec/curves.hpp"

namespace cuzk::ec {

template <class Curve>
class FixedBaseTable {
 public:
  using Affine = AffinePoint<Curve>;
  using Jacobian = JacobianPoint<Curve>;
  using Field = typename Curve::Field;

  static constexpr unsigned kMinWindowBits = 4, kMaxWindowBits = 16;
  static constexpr unsigned kScalarBits = 255;  // Fr's modulus is below 2^255

  // The width that minimises the additions of the table and of expected_muls scalars (a table
  // entry, a mixed addition and its share of the conversion to affine, costs about three batched
  // affine additions).
  static unsigned window_bits_for(size_t expected_muls) {
    unsigned best = kMinWindowBits;
    double best_cost = 0;
    for (unsigned w = kMinWindowBits; w <= kMaxWindowBits; w++) {
      const double windows = (kScalarBits + w - 1) / w;
      const double cost = windows * (double(expected_muls) + 3.0 * double((1u << w) - 1));
      if (w == kMinWindowBits || cost < best_cost) best = w, best_cost = cost;
    }
    return best;
  }

  // window_bits: 0 chooses it from expected_muls; tests set it.
  explicit FixedBaseTable(const Affine& g, size_t expected_muls = 0, unsigned window_bits = 0)
      : bits_(window_bits ? std::clamp(window_bits, kMinWindowBits, kMaxWindowBits) : window_bits_for(expected_muls)),
        windows_((kScalarBits + bits_ - 1) / bits_),
        entries_((size_t(1) << bits_) - 1),
        table_(windows_ * entries_) {
    // Each window's base 2^(w i) G, then the windows' multiples in parallel.
    std::vector<Jacobian> doubled(windows_);
    doubled[0] = Jacobian::from_affine(g);
    for (size_t i = 1; i < windows_; i++) {
      Jacobian b = doubled[i - 1];
      for (unsigned k = 0; k < bits_; k++) b = b.dbl();
      doubled[i] = b;
    }
    std::vector<Affine> bases(windows_);
    std::vector<Field> base_scratch(windows_);
    batch_to_affine(doubled.data(), bases.data(), windows_, base_scratch.data());
    tbb::parallel_for(size_t(0), windows_, [&](size_t i) {
      std::vector<Jacobian> multiples(entries_);
      Jacobian acc = Jacobian::from_affine(bases[i]);
      for (size_t d = 0; d < entries_; d++) {
        multiples[d] = acc;  // (d + 1) 2^(w i) G
        acc = acc.add_mixed(bases[i]);
      }
      std::vector<Field> scratch(entries_);
      batch_to_affine(multiples.data(), table_.data() + i * entries_, entries_, scratch.data());
    });
  }

  unsigned window_bits() const { return bits_; }

  Jacobian mul(const Fr& k) const {
    const BigInt<4> c = k.to_canonical();
    Jacobian acc = Jacobian::infinity();
    for (size_t i = 0; i < windows_; i++) {
      if (const uint32_t d = digit(c, i)) acc = acc.add_mixed(entry(i, d));
    }
    return acc;
  }

  // [k_i] G for every scalar, in parallel, as affine points.
  std::vector<Affine> mul_all(std::span<const Fr> scalars) const {
    std::vector<Affine> out(scalars.size());
    tbb::parallel_for(tbb::blocked_range<size_t>(0, scalars.size(), kBatch), [&](const tbb::blocked_range<size_t>& r) {
      mul_batch(scalars.subspan(r.begin(), r.size()), out.data() + r.begin());
    });
    return out;
  }

 private:
  static constexpr size_t kBatch = 1024;  // scalars sharing one inversion per window

  uint32_t digit(const BigInt<4>& c, size_t window) const {
    const size_t bit = window * bits_, limb = bit / 64, shift = bit % 64;
    uint64_t v = c.limb[limb] >> shift;
    if (shift + bits_ > 64 && limb + 1 < 4) v |= c.limb[limb + 1] << (64 - shift);
    return uint32_t(v & ((uint64_t(1) << bits_) - 1));
  }
  const Affine& entry(size_t window, uint32_t d) const { return table_[window * entries_ + d - 1]; }

  // acc_j += entry for every scalar of the batch, window by window. An accumulator still at
  // infinity takes the entry; one equal to the entry or to its negation (which canonical scalars
  // never give, but nothing here relies on it) goes through a Jacobian addition.
  void mul_batch(std::span<const Fr> scalars, Affine* acc) const {
    const size_t n = scalars.size();
    std::vector<BigInt<4>> canonical(n);
    for (size_t j = 0; j < n; j++) {
      canonical[j] = scalars[j].to_canonical();
      acc[j] = Affine::infinity();
    }
    std::vector<Field> denominators(n), scratch(n);
    std::vector<uint32_t> pending(n);
    std::vector<const Affine*> addends(n);
    for (size_t i = 0; i < windows_; i++) {
      size_t m = 0;
      for (size_t j = 0; j < n; j++) {
        const uint32_t d = digit(canonical[j], i);
        if (d == 0) continue;
        const Affine& t = entry(i, d);
        if (acc[j].is_infinity()) {
          acc[j] = t;
        } else if (acc[j].x == t.x) {
          acc[j] = Jacobian::from_affine(acc[j]).add_mixed(t).to_affine();
        } else {
          denominators[m] = t.x - acc[j].x;
          addends[m] = &t;
          pending[m++] = uint32_t(j);
        }
      }
      ff::batch_inverse(denominators.data(), m, scratch.data());
      for (size_t q = 0; q < m; q++) {
        Affine& a = acc[pending[q]];
        const Affine& t = *addends[q];
        const Field lambda = (t.y - a.y) * denominators[q];
        const Field x3 = lambda.sqr() - a.x - t.x;
        a.y = lambda * (a.x - x3) - a.y;
        a.x = x3;
      }
    }
  }

  unsigned bits_;
  size_t windows_, entries_;
  std::vector<Affine> table_;
};

}  // namespace cuzk::ec

#include "msm/pippenger.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
#include <vector>

#include "ec/scalar_mul.hpp"
#include "ff/mont_field.hpp"

namespace cuzk::msm {
namespace {

using ec::XyzzPoint;
using ff::BigInt;

constexpr size_t kChunk = 1 << 14;
constexpr unsigned kScalarBits = 256;  // Booth windows must cover bit 255 (always 0 for Fr)

// A term that needs bucket work: its base index and canonical scalar.
struct Term {
  uint32_t base;
  BigInt<4> k;
};

// Signed Booth digit of window w (width c): bits [w c - 1, w c + c - 1] of k, where bit -1
// is 0; d = b_{wc-1} + sum_{i<c-1} b_{wc+i} 2^i - b_{wc+c-1} 2^(c-1), in [-2^(c-1), 2^(c-1)],
// and k = sum_w d_w 2^(w c) without carries between windows.
inline int booth_digit(const BigInt<4>& k, unsigned w, unsigned c) {
  const int lo_bit = int(w * c) - 1;
  // Gather c + 1 bits starting at lo_bit (which may be -1).
  unsigned start = lo_bit < 0 ? 0 : unsigned(lo_bit);
  uint64_t t = 0;
  if (start < kScalarBits) {
    unsigned limb = start / 64, off = start % 64;
    t = k.limb[limb] >> off;
    if (off && limb + 1 < 4) t |= k.limb[limb + 1] << (64 - off);
  }
  if (lo_bit < 0) t <<= 1;  // bit -1 is zero
  t &= (uint64_t(1) << (c + 1)) - 1;
  const int low = int(t & 1);
  const int mid = int((t >> 1) & ((uint64_t(1) << (c - 1)) - 1));
  const int top = int((t >> c) & 1);
  return low + mid - (top << (c - 1));
}

// Buckets kept in affine form and filled by batches of affine additions that share one field
// inversion (Montgomery's trick): ~6 multiplications per addition instead of ~10 for a mixed
// XYZZ addition. A point whose bucket already has an addition pending in the current batch goes
// into that bucket's XYZZ overflow accumulator instead, so repeated scalars (many points in one
// bucket) cost one mixed addition each and never wait.
// The batch: an inversion costs ~330 multiplications (binary Euclid, Fp), so small batches pay
// more for it than the affine form saves; large ones fill buckets that are already pending. About
// 8 sqrt(buckets) (capped at 512) balances the two: 3.2x faster at 2^10 points and 2x at 2^12
// than buckets / 8, and the same from 2^13 buckets up (2-core VM, 2026-12-06).
template <class Curve>
class AffineBucketAccumulator {
 public:
  using Affine = AffinePoint<Curve>;
  using Field = typename Curve::Field;

  explicit AffineBucketAccumulator(size_t buckets)
      : point_(buckets),
        full_(buckets, 0),
        busy_(buckets, 0),
        batch_size_(std::clamp<size_t>(size_t(8.0 * std::sqrt(double(buckets))), 1, 512)) {
    bucket_.reserve(batch_size_);
    addend_.reserve(batch_size_);
    denom_.reserve(batch_size_);
    scratch_.resize(batch_size_);
  }

  void add(size_t b, const Affine& p) {
    if (!full_[b]) {
      point_[b] = p;
      full_[b] = 1;
      return;
    }
    if (busy_[b]) {
      if (overflow_.empty()) overflow_.assign(point_.size(), XyzzPoint<Curve>::infinity());
      overflow_[b] = overflow_[b].add_mixed(p);
      return;
    }
    busy_[b] = 1;
    bucket_.push_back(b);
    addend_.push_back(p);
    if (bucket_.size() == batch_size_) flush();
  }

  // Completes the pending additions.
  void finish() { flush(); }

  // sum_j (j + 1) bucket[j] with a running sum from the top (call after finish()).
  XyzzPoint<Curve> reduce() const {
    XyzzPoint<Curve> running = XyzzPoint<Curve>::infinity(), total = XyzzPoint<Curve>::infinity();
    for (size_t j = point_.size(); j-- > 0;) {
      if (full_[j]) running = running.add_mixed(point_[j]);
      if (!overflow_.empty()) running += overflow_[j];
      total += running;
    }
    return total;
  }

 private:
  void flush() {
    const size_t n = bucket_.size();
    denom_.resize(n);
    for (size_t i = 0; i < n; i++) {
      const Affine& q = point_[bucket_[i]];
      const Affine& p = addend_[i];
      // x equal: doubling (2y) or cancellation (zero denominator, skipped by the inversion).
      denom_[i] = q.x == p.x ? (q.y == p.y ? p.y.dbl() : Field::zero()) : p.x - q.x;
    }
    ff::batch_inverse(denom_.data(), n, scratch_.data());
    for (size_t i = 0; i < n; i++) {
      const size_t b = bucket_[i];
      Affine& q = point_[b];
      const Affine& p = addend_[i];
      busy_[b] = 0;
      if (denom_[i].is_zero()) {  // q = -p (y = 0 cannot occur in a prime-order group)
        full_[b] = 0;
        continue;
      }
      Field lambda;
      if (q.x == p.x) {
        const Field xx = p.x.sqr();
        lambda = (xx.dbl() + xx) * denom_[i];
      } else {
        lambda = (p.y - q.y) * denom_[i];
      }
      const Field x3 = lambda.sqr() - q.x - p.x;
      q.y = lambda * (q.x - x3) - q.y;
      q.x = x3;
    }
    bucket_.clear();
    addend_.clear();
  }

  std::vector<Affine> point_;
  std::vector<uint8_t> full_, busy_;
  size_t batch_size_;
  std::vector<size_t> bucket_;
  std::vector<Affine> addend_;
  std::vector<Field> denom_, scratch_;
  std::vector<XyzzPoint<Curve>> overflow_;  // allocated on the first conflict
};

template <class Curve>
JacobianPoint<Curve> run(std::span<const AffinePoint<Curve>> bases, std::span<const Fr> scalars,
                         const DensityView* density, const MsmOptions& options, MsmStats* stats) {
  const size_t n = scalars.size();
  if (bases.size() > UINT32_MAX) throw std::invalid_argument("MSM: more than 2^32 bases");
  // Base index of each chunk's first scalar: prefix sums of the density popcounts.
  const size_t chunks = (n + kChunk - 1) / kChunk;
  std::vector<size_t> base_offset(chunks + 1, 0);
  for (size_t c = 0; c < chunks; c++) {
    size_t count = std::min(kChunk, n - c * kChunk);
    if (density) {
      size_t ones = 0;
      for (size_t i = c * kChunk; i < c * kChunk + count; i++) ones += density->test(i);
      count = ones;
    }
    base_offset[c + 1] = base_offset[c] + count;
  }
  if (base_offset[chunks] != bases.size()) {
    throw std::invalid_argument("MSM: " + std::to_string(bases.size()) + " bases for " +
                                std::to_string(base_offset[chunks]) + " scalars that have one");
  }

  // Pre-pass: canonical scalars, zeros dropped, ones summed by additions.
  std::vector<std::vector<Term>> chunk_terms(chunks);
  std::vector<XyzzPoint<Curve>> chunk_ones(chunks, XyzzPoint<Curve>::infinity());
  std::vector<size_t> chunk_zeros(chunks, 0), chunk_one_count(chunks, 0);
  const BigInt<4> one = BigInt<4>::from_u64(1);
  tbb::parallel_for(size_t(0), chunks, [&](size_t c) {
    size_t b = base_offset[c];
    auto& terms = chunk_terms[c];
    const size_t end = std::min(n, (c + 1) * kChunk);
    for (size_t i = c * kChunk; i < end; i++) {
      if (density && !density->test(i)) continue;
      const size_t base = b++;
      BigInt<4> k = scalars[i].to_canonical();
      // Infinity bases contribute nothing (and affine buckets cannot hold them): counted as zeros.
      if (bases[base].is_infinity() || (options.split_zero_one && k.is_zero())) {
        chunk_zeros[c]++;
      } else if (options.split_zero_one && k == one) {
        chunk_ones[c] = chunk_ones[c].add_mixed(bases[base]);
        chunk_one_count[c]++;
      } else {
        terms.push_back({uint32_t(base), k});
      }
    }
  });
  std::vector<Term> terms;
  XyzzPoint<Curve> ones_sum = XyzzPoint<Curve>::infinity();
  size_t zeros = 0, ones = 0, total_terms = 0;
  for (size_t c = 0; c < chunks; c++) total_terms += chunk_terms[c].size();
  terms.reserve(total_terms);
  for (size_t c = 0; c < chunks; c++) {
    terms.insert(terms.end(), chunk_terms[c].begin(), chunk_terms[c].end());
    std::vector<Term>().swap(chunk_terms[c]);
    ones_sum += chunk_ones[c];
    zeros += chunk_zeros[c];
    ones += chunk_one_count[c];
  }
  const unsigned c = options.window_bits ? options.window_bits : default_window_bits(terms.size());
  if (c < 2 || c > 24) throw std::invalid_argument("MSM: window width must be between 2 and 24 bits");
  const unsigned windows = (kScalarBits + c - 1) / c;
  if (stats) *stats = {bases.size(), zeros, ones, terms.size(), c};

  // Tasks: every window, split into enough point ranges to keep all threads busy.
  const size_t threads = size_t(tbb::this_task_arena::max_concurrency());
  const size_t parts = std::max<size_t>(
      1, std::min<size_t>((2 * threads + windows - 1) / windows, (terms.size() + kChunk - 1) / kChunk));
  std::vector<XyzzPoint<Curve>> partial(size_t(windows) * parts, XyzzPoint<Curve>::infinity());
  tbb::parallel_for(size_t(0), size_t(windows) * parts, [&](size_t task) {
    const unsigned w = unsigned(task / parts);
    const size_t part = task % parts;
    const size_t lo = terms.size() * part / parts, hi = terms.size() * (part + 1) / parts;
    AffineBucketAccumulator<Curve> buckets(size_t(1) << (c - 1));
    for (size_t t = lo; t < hi; t++) {
      const int d = booth_digit(terms[t].k, w, c);
      if (d > 0) buckets.add(size_t(d - 1), bases[terms[t].base]);
      if (d < 0) buckets.add(size_t(-d - 1), -bases[terms[t].base]);
    }
    buckets.finish();
    partial[task] = buckets.reduce();
  });

  // sum_w 2^(w c) S_w by Horner's rule from the top window.
  JacobianPoint<Curve> acc = JacobianPoint<Curve>::infinity();
  for (unsigned w = windows; w-- > 0;) {
    for (unsigned i = 0; i < c; i++) acc = acc.dbl();
    XyzzPoint<Curve> s = XyzzPoint<Curve>::infinity();
    for (size_t part = 0; part < parts; part++) s += partial[size_t(w) * parts + part];
    acc += s.to_jacobian();
  }
  return acc + ones_sum.to_jacobian();
}

}  // namespace

size_t DensityView::count_ones() const {
  size_t ones = 0;
  for (size_t i = 0; i < bits / 64; i++) ones += size_t(std::popcount(words[i]));
  for (size_t i = bits / 64 * 64; i < bits; i++) ones += test(i);
  return ones;
}

unsigned default_window_bits(size_t n) {
  if (n < 32) return 3;
  unsigned best = 4;
  double best_cost = 0;
  for (unsigned c = 4; c <= 20; c++) {
    // Per window: n batched affine additions (~6 multiplications each), then the reduction's
    // mixed plus full XYZZ addition per bucket (~24 multiplications for 2^(c-1) buckets).
    const double cost = double((kScalarBits + c - 1) / c) * (double(n) + 2.0 * double(size_t(1) << c));
    if (c == 4 || cost < best_cost) {
      best = c;
      best_cost = cost;
    }
  }
  return best;
}

template <class Curve>
JacobianPoint<Curve> msm(std::span<const AffinePoint<Curve>> bases, std::span<const Fr> scalars,
                         const MsmOptions& options, MsmStats* stats) {
  if (bases.size() != scalars.size()) {
    throw std::invalid_argument("MSM: " + std::to_string(bases.size()) + " bases but " +
                                std::to_string(scalars.size()) + " scalars");
  }
  return run<Curve>(bases, scalars, nullptr, options, stats);
}

template <class Curve>
JacobianPoint<Curve> msm_with_density(std::span<const AffinePoint<Curve>> bases, std::span<const Fr> scalars,
                                      const DensityView& density, const MsmOptions& options, MsmStats* stats) {
  if (density.bits != scalars.size() || density.words.size() * 64 < density.bits) {
    throw std::invalid_argument("MSM: density describes " + std::to_string(density.bits) + " scalars, given " +
                                std::to_string(scalars.size()));
  }
  return run<Curve>(bases, scalars, &density, options, stats);
}

template <class Curve>
JacobianPoint<Curve> msm_naive(std::span<const AffinePoint<Curve>> bases, std::span<const Fr> scalars) {
  if (bases.size() != scalars.size()) throw std::invalid_argument("MSM: bases and scalars differ in length");
  JacobianPoint<Curve> acc = JacobianPoint<Curve>::infinity();
  for (size_t i = 0; i < bases.size(); i++) {
    acc += ec::scalar_mul(JacobianPoint<Curve>::from_affine(bases[i]), scalars[i].to_canonical());
  }
  return acc;
}

#define CUZK_INSTANTIATE_MSM(Curve)                                                                               \
  template JacobianPoint<Curve> msm<Curve>(std::span<const AffinePoint<Curve>>, std::span<const Fr>,              \
                                           const MsmOptions&, MsmStats*);                                         \
  template JacobianPoint<Curve> msm_with_density<Curve>(std::span<const AffinePoint<Curve>>, std::span<const Fr>, \
                                                        const DensityView&, const MsmOptions&, MsmStats*);        \
  template JacobianPoint<Curve> msm_naive<Curve>(std::span<const AffinePoint<Curve>>, std::span<const Fr>);

CUZK_INSTANTIATE_MSM(ec::G1Curve)
CUZK_INSTANTIATE_MSM(ec::G2Curve)

}  // namespace cuzk::msm

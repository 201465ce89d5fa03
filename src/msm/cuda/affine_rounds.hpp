// Affine bucket additions with batched inversion for the GPU MSM (CUZK_GPU_MSM_AFFINE=1).
// Host/device code (CUZK_HD) without CUDA headers, so that tests/msm_affine_rounds_test.cpp
// runs the same per-thread logic on the host.
//
// One round over n (key, point) entries sorted by key: slot m holds entries 2m and 2m + 1. When
// both have the same key, they are added in affine form into one output entry; otherwise (or
// for the last entry of an odd n) they are copied. So slot m gives outputs(m) = 1 or 2 entries,
// at pos[m] = exclusive prefix sum of outputs (a scan on the device), and the output stays
// sorted by key with n - additions entries. Each thread takes the slots t, t + T, t + 2T, ...
// (T threads, at most K slots each; neighbouring lanes read neighbouring slots) and shares one
// field inversion among its additions (Montgomery's trick): a forward pass keeps the running
// product of the denominators in the x of each addition's own output entry, one inversion, and a
// backward pass turns each into its inverse and writes the sum there.
//
// Exceptional pairs are exact in the same batch: an infinity operand (affine (0, 0)) gives the
// other one and P + (-P) gives infinity (denominator 1: nothing to invert), equal points double
// with denominator 2y, λ = 3x² / 2y (a point with y = 0 doubles to infinity).
#pragma once

#include <cstddef>
#include <cstdint>

#include "ec/point.hpp"

namespace cuzk::msm::cuda {

// Entry j of the first round: the sorted pairs' value j names base v >> 1, negated when v & 1.
template <class Curve>
struct GatherTerms {
  using Term = ec::AffinePoint<Curve>;
  using Field = typename Curve::Field;
  const ec::AffinePoint<Curve>* bases;
  const uint32_t* vals;
  CUZK_HD Term load(size_t j) const {
    const uint32_t v = vals[j];
    Term p = bases[v >> 1];
    if (v & 1) p = -p;
    return p;
  }
  CUZK_HD Field load_x(size_t j) const { return bases[vals[j] >> 1].x; }
  CUZK_HD static void add(ec::XyzzPoint<Curve>& acc, const Term& p) { acc = acc.add_mixed(p); }
};

// Entry j of later rounds (and of the XYZZ accumulation after them): an affine point.
template <class Curve>
struct ListTerms {
  using Term = ec::AffinePoint<Curve>;
  using Field = typename Curve::Field;
  const ec::AffinePoint<Curve>* points;
  CUZK_HD Term load(size_t j) const { return points[j]; }
  CUZK_HD Field load_x(size_t j) const { return points[j].x; }
  CUZK_HD static void add(ec::XyzzPoint<Curve>& acc, const Term& p) { acc = acc.add_mixed(p); }
};

// Entries of slot m in the round's output: 1 when 2m and 2m + 1 share a key (or 2m is last).
CUZK_HD inline uint32_t affine_slot_outputs(const uint32_t* keys, size_t n, size_t m) {
  const size_t j = 2 * m;
  if (j + 1 >= n) return 1;
  return keys[j] == keys[j + 1] ? 1 : 2;
}

// The denominator of p + q (1 when the sum needs no inversion).
template <class Curve>
CUZK_HD typename Curve::Field affine_denominator(const ec::AffinePoint<Curve>& p, const ec::AffinePoint<Curve>& q) {
  using Field = typename Curve::Field;
  if (p.is_infinity() || q.is_infinity()) return Field::one();
  if (p.x != q.x) return q.x - p.x;
  if (p.y == q.y && !p.y.is_zero()) return p.y.dbl();
  return Field::one();
}

// p + q given inv = 1 / affine_denominator(p, q).
template <class Curve>
CUZK_HD ec::AffinePoint<Curve> affine_sum(const ec::AffinePoint<Curve>& p, const ec::AffinePoint<Curve>& q,
                                          const typename Curve::Field& inv) {
  using Field = typename Curve::Field;
  if (p.is_infinity()) return q;
  if (q.is_infinity()) return p;
  Field lambda;
  if (p.x != q.x) {
    lambda = (q.y - p.y) * inv;
  } else if (p.y == q.y && !p.y.is_zero()) {
    const Field xx = p.x.sqr();
    lambda = (xx.dbl() + xx) * inv;
  } else {
    return ec::AffinePoint<Curve>::infinity();
  }
  const Field x3 = lambda.sqr() - p.x - q.x;
  return {x3, lambda * (p.x - x3) - p.y};
}

// Thread t of T (see the top of the file): slots m = t + i T, i < K, m < ceil(n / 2).
template <class Curve, class Terms>
CUZK_HD void affine_round_thread(size_t t, size_t T, unsigned K, const uint32_t* keys, const Terms& terms, size_t n,
                                 const uint32_t* pos, uint32_t* keys_out, ec::AffinePoint<Curve>* out) {
  using Field = typename Curve::Field;
  using Affine = ec::AffinePoint<Curve>;
  const size_t slots = (n + 1) / 2;
  if (t >= T || t >= slots) return;
  const size_t count = (slots - t + T - 1) / T < K ? (slots - t + T - 1) / T : K;
  Field acc = Field::one();
  for (size_t i = 0; i < count; i++) {
    const size_t m = t + i * T, j = 2 * m, o = pos[m];
    const uint32_t key = keys[j];
    if (j + 1 < n && keys[j + 1] == key) {
      // Only the x coordinates unless they are equal or zero (infinity, or x = 0 on the curve).
      const Field x1 = terms.load_x(j), x2 = terms.load_x(j + 1);
      Field d;
      if (x1 != x2 && !x1.is_zero() && !x2.is_zero()) {
        d = x2 - x1;
      } else {
        d = affine_denominator<Curve>(terms.load(j), terms.load(j + 1));
      }
      out[o].x = acc;  // the product of the earlier denominators, read back below
      acc = acc * d;
    } else {
      out[o] = terms.load(j);
      keys_out[o] = key;
      if (j + 1 < n) {
        out[o + 1] = terms.load(j + 1);
        keys_out[o + 1] = keys[j + 1];
      }
    }
  }
  Field inv = acc.inverse();  // 1 / (product of all denominators), then of those before slot i
  for (size_t i = count; i-- > 0;) {
    const size_t m = t + i * T, j = 2 * m;
    const uint32_t key = keys[j];
    if (j + 1 >= n || keys[j + 1] != key) continue;
    const size_t o = pos[m];
    const Affine p = terms.load(j), q = terms.load(j + 1);
    const Field d = affine_denominator<Curve>(p, q);
    const Field inv_d = inv * out[o].x;
    inv = inv * d;
    out[o] = affine_sum<Curve>(p, q, inv_d);
    keys_out[o] = key;
  }
}

// Round planning (host): threads T and slots per thread K for n entries, at most max_chunk
// slots per thread and about target_threads threads.
struct AffinePlan {
  size_t slots = 0, threads = 0;
  unsigned chunk = 0;
};
inline AffinePlan plan_affine_round(size_t n, unsigned max_chunk, size_t target_threads) {
  AffinePlan p;
  p.slots = (n + 1) / 2;
  size_t k = (p.slots + target_threads - 1) / target_threads;
  if (k < 1) k = 1;
  if (k > max_chunk) k = max_chunk;
  p.chunk = unsigned(k);
  p.threads = (p.slots + k - 1) / k;
  return p;
}

}  // namespace cuzk::msm::cuda

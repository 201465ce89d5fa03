#include "ntt/domain.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <tbb/parallel_for.h>
#include <tbb/parallel_invoke.h>
#include <utility>

namespace cuzk::ntt {
namespace {

// Twiddle tables beyond this many entries (2^22 = 128 MiB) are not kept; larger domains
// compute each stage's twiddles in blocks instead.
constexpr size_t kMaxTwiddleTable = size_t(1) << 22;
constexpr size_t kGrain = 1 << 12;

size_t bit_reverse(size_t x, unsigned bits) {
  size_t r = 0;
  for (unsigned i = 0; i < bits; i++) {
    r = (r << 1) | (x & 1);
    x >>= 1;
  }
  return r;
}

void bit_reverse_permute(std::span<Fr> a, unsigned log_n) {
  tbb::parallel_for(tbb::blocked_range<size_t>(0, a.size(), kGrain), [&](const auto& range) {
    for (size_t i = range.begin(); i < range.end(); i++) {
      size_t j = bit_reverse(i, log_n);
      if (i < j) std::swap(a[i], a[j]);
    }
  });
}

std::vector<Fr> powers(const Fr& base, size_t count) {
  std::vector<Fr> out(count);
  // Blocks start from an explicit power, so the table is built in parallel.
  tbb::parallel_for(tbb::blocked_range<size_t>(0, count, kGrain), [&](const auto& range) {
    Fr w = base.pow(ff::BigInt<1>::from_u64(range.begin()));
    for (size_t i = range.begin(); i < range.end(); i++) {
      out[i] = w;
      w *= base;
    }
  });
  return out;
}

}  // namespace

EvaluationDomain EvaluationDomain::for_size(size_t min_size) {
  unsigned log_n = 0;
  while ((size_t(1) << log_n) < min_size) {
    if (++log_n > kMaxLogSize) {
      throw std::invalid_argument("evaluation domain of " + std::to_string(min_size) +
                                  " points exceeds Fr's 2-adicity (2^32)");
    }
  }
  return EvaluationDomain(log_n);
}

EvaluationDomain::EvaluationDomain(unsigned log_n, Twiddles twiddles) : log_n_(log_n), n_(size_t(1) << log_n) {
  if (log_n > kMaxLogSize) throw std::invalid_argument("evaluation domain larger than 2^32");
  omega_ = Fr::two_adic_root_of_unity();
  for (unsigned i = log_n; i < kMaxLogSize; i++) omega_ = omega_.sqr();
  omega_inv_ = omega_.inverse();
  n_inv_ = Fr::from_u64(n_).inverse();
  g_ = Fr::from_u64(ff::kFrMultiplicativeGenerator);
  g_inv_ = g_.inverse();
  if (twiddles == Twiddles::kAuto && n_ / 2 <= kMaxTwiddleTable) {
    twiddles_ = powers(omega_, n_ / 2);
    inv_twiddles_ = powers(omega_inv_, n_ / 2);
  }
}

// Iterative Cooley-Tukey: bit-reversal, then log n stages of butterflies. The butterflies
// of one stage are independent, so each stage is one parallel loop over n/2 butterflies.
void EvaluationDomain::check_size(std::span<const Fr> a) const {
  if (a.size() != n_) {
    throw std::invalid_argument("NTT input has " + std::to_string(a.size()) + " elements, domain has " +
                                std::to_string(n_));
  }
}

namespace {

// Butterflies t in [begin, end) of stage s (half block m = 2^s): pairs (i0, i0 + m) with
// i0 = (t / m) 2m + t % m and twiddle root^((t % m) stride), from the table or, without one,
// as running powers of the stage's root.
void stage_butterflies(std::span<Fr> a, unsigned s, size_t stride, const std::vector<Fr>* table, const Fr& stage_root,
                       size_t begin, size_t end) {
  const size_t m = size_t(1) << s;
  Fr w = table ? Fr::zero() : stage_root.pow(ff::BigInt<1>::from_u64(begin & (m - 1)));
  for (size_t t = begin; t < end; t++) {
    const size_t j = t & (m - 1);
    const size_t i0 = ((t >> s) << (s + 1)) + j;
    const size_t i1 = i0 + m;
    Fr tw;
    if (table) {
      tw = (*table)[j * stride];
    } else {
      if (j == 0) w = Fr::one();
      tw = w;
      w *= stage_root;
    }
    Fr x = a[i0];
    Fr y = a[i1] * tw;
    a[i0] = x + y;
    a[i1] = x - y;
  }
}

// The first kBlockLog stages only combine elements within aligned blocks of 2^kBlockLog
// (64 KiB): they run block by block while the block sits in cache.
constexpr unsigned kBlockLog = 11;

}  // namespace

// Iterative Cooley-Tukey: bit-reversal, then log n stages of butterflies; the small stages
// block by block, the large ones as one parallel loop over the n/2 butterflies of a stage.
void EvaluationDomain::transform(std::span<Fr> a, const Fr& root, const std::vector<Fr>* table) const {
  check_size(a);
  if (n_ == 1) return;
  bit_reverse_permute(a, log_n_);
  const size_t half_n = n_ / 2;
  std::vector<Fr> stage_roots(log_n_, Fr::zero());
  if (!table) {
    for (unsigned s = 0; s < log_n_; s++) stage_roots[s] = root.pow(ff::BigInt<1>::from_u64(half_n >> s));
  }
  const unsigned blocked = std::min(kBlockLog, log_n_);
  const size_t per_block = size_t(1) << (blocked - 1);  // butterflies per block and stage
  tbb::parallel_for(size_t(0), half_n / per_block, [&](size_t block) {
    for (unsigned s = 0; s < blocked; s++) {
      stage_butterflies(a, s, half_n >> s, table, stage_roots[s], block * per_block, (block + 1) * per_block);
    }
  });
  for (unsigned s = blocked; s < log_n_; s++) {
    tbb::parallel_for(tbb::blocked_range<size_t>(0, half_n, kGrain), [&](const auto& range) {
      stage_butterflies(a, s, half_n >> s, table, stage_roots[s], range.begin(), range.end());
    });
  }
}

void EvaluationDomain::scale_by_powers(std::span<Fr> a, const Fr& base) {
  tbb::parallel_for(tbb::blocked_range<size_t>(0, a.size(), kGrain), [&](const auto& range) {
    Fr w = base.pow(ff::BigInt<1>::from_u64(range.begin()));
    for (size_t i = range.begin(); i < range.end(); i++) {
      a[i] *= w;
      w *= base;
    }
  });
}

void EvaluationDomain::fft(std::span<Fr> a) const { transform(a, omega_, twiddles_.empty() ? nullptr : &twiddles_); }

void EvaluationDomain::ifft(std::span<Fr> a) const {
  transform(a, omega_inv_, inv_twiddles_.empty() ? nullptr : &inv_twiddles_);
  const Fr scale = n_inv_;
  tbb::parallel_for(tbb::blocked_range<size_t>(0, a.size(), kGrain), [&](const auto& range) {
    for (size_t i = range.begin(); i < range.end(); i++) a[i] *= scale;
  });
}

void EvaluationDomain::coset_fft(std::span<Fr> a) const {
  check_size(a);
  scale_by_powers(a, g_);
  fft(a);
}

void EvaluationDomain::icoset_fft(std::span<Fr> a) const {
  ifft(a);
  scale_by_powers(a, g_inv_);
}

Fr EvaluationDomain::z_on_coset() const { return g_.pow(ff::BigInt<1>::from_u64(n_)) - Fr::one(); }

void EvaluationDomain::divide_by_z_on_coset(std::span<Fr> a) const {
  const Fr z_inv = z_on_coset().inverse();
  tbb::parallel_for(tbb::blocked_range<size_t>(0, a.size(), kGrain), [&](const auto& range) {
    for (size_t i = range.begin(); i < range.end(); i++) a[i] *= z_inv;
  });
}

void compute_h_polynomial(const EvaluationDomain& domain, std::span<Fr> a, std::span<Fr> b, std::span<Fr> c) {
  const size_t n = domain.size();
  if (a.size() != n || b.size() != n || c.size() != n) {
    throw std::invalid_argument("H polynomial: a, b, c must each have the domain's " + std::to_string(n) + " elements");
  }
  // H = (A B - C) / Z. On the coset Z is the constant g^n - 1 and the coset iNTT is linear, so
  // H = icoset(A^ B^) / Z(g) - C / Z(g), with C = iNTT(c) (deg C < n, so icoset(coset(C)) = C):
  // c needs one transform instead of bellperson's three, 6 in all instead of 7, and the
  // coefficients are exactly bellperson's for any a, b, c (a linear identity, not a property of
  // satisfied systems). The three vectors are independent until the product.
  tbb::parallel_invoke([&] { domain.ifft(a), domain.coset_fft(a); }, [&] { domain.ifft(b), domain.coset_fft(b); },
                       [&] { domain.ifft(c); });
  tbb::parallel_for(tbb::blocked_range<size_t>(0, n, kGrain), [&](const auto& range) {
    for (size_t i = range.begin(); i < range.end(); i++) a[i] *= b[i];
  });
  domain.icoset_fft(a);
  const Fr z_inv = domain.z_on_coset().inverse();
  tbb::parallel_for(tbb::blocked_range<size_t>(0, n, kGrain), [&](const auto& range) {
    for (size_t i = range.begin(); i < range.end(); i++) a[i] = (a[i] - c[i]) * z_inv;
  });
}

}  // namespace cuzk::ntt

// The GPU NTT's host driver: DeviceDomain (its pass plan, tables and launches) and the expansion
// of compact vectors (see ntt.hpp). One nvcc translation unit with the kernels' headers:
//   radix_pass.cuh       several radix-2 stages per shared-memory block
//   bit_reverse.cuh      the bit-reversal permutations, scalings fused in
//   pointwise.cuh        power tables, scalings, H's product and last step
//   expand_zero_one.cuh  compact mostly-0/1 vectors expanded on the device
// (transform_on_device and h_polynomial_on_device, for tests and benches: on_host.cpp.)
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda/check.hpp"
#include "cuda/device.hpp"
#include "ntt/cuda/bit_reverse.cuh"
#include "ntt/cuda/expand_zero_one.cuh"
#include "ntt/cuda/ntt.hpp"
#include "ntt/cuda/pointwise.cuh"
#include "ntt/cuda/radix_pass.cuh"

namespace cuzk::ntt::cuda {
namespace {

using cuzk::cuda::check;
using cuzk::cuda::check_launch;

unsigned grid_for(size_t n) { return unsigned(std::min<size_t>((n + kThreads - 1) / kThreads, size_t(1) << 20)); }

// base^0 .. base^(count-1) on the host, times `scale`.
std::vector<Fr> host_powers(const Fr& base, const Fr& start, size_t count) {
  std::vector<Fr> out(count);
  Fr w = start;
  for (size_t i = 0; i < count; i++) {
    out[i] = w;
    w *= base;
  }
  return out;
}

DeviceBuffer<Fr> upload(const std::vector<Fr>& v, cudaStream_t stream) {
  DeviceBuffer<Fr> d(v.size());
  check(cudaMemcpyAsync(d.get(), v.data(), v.size() * sizeof(Fr), cudaMemcpyHostToDevice, stream), "upload table");
  return d;
}

template <int kScale>
void launch_bit_reverse(Fr* a, unsigned log_n, const Fr& s, const Fr* lo, const Fr* hi, unsigned split,
                        cudaStream_t stream) {
  if (log_n >= 2 * kTileLog) {
    bit_reverse_tiled_kernel<kScale>
        <<<1u << (log_n - 2 * kTileLog), kBitrevThreads, 0, stream>>>(a, log_n, s, lo, hi, split);
  } else {
    const size_t n = size_t(1) << log_n;
    bit_reverse_kernel<kScale><<<grid_for(n), kThreads, 0, stream>>>(a, log_n, n, s, lo, hi, split);
  }
  check_launch("bit_reverse");
}

template <bool kDif, bool kInverse>
void launch_pass(Fr* a, const Fr* tw, unsigned log_n, unsigned h_low, unsigned k, unsigned t, cudaStream_t stream,
                 const Fr* scale_lo = nullptr, const Fr* scale_hi = nullptr, unsigned split = 0) {
  const unsigned elems_log = k + t;
  const size_t blocks = size_t(1) << (log_n - elems_log);
  // Two radix-4 groups per thread and step (128 threads for 2^10 elements).
  const unsigned threads = std::min(kThreads, std::max(1u, (1u << elems_log) / 8));
  radix_pass<kDif, kInverse><<<unsigned(blocks), threads, sizeof(Fr) << elems_log, stream>>>(a, tw, log_n, h_low, k, t,
                                                                                             scale_lo, scale_hi, split);
  check_launch("radix_pass");
}

}  // namespace

DeviceDomain::DeviceDomain(unsigned log_n, cudaStream_t stream)
    : log_n_(log_n), n_(size_t(1) << log_n), stream_(stream) {
  if (log_n > kMaxLogSize) {
    throw std::invalid_argument("GPU NTT domain 2^" + std::to_string(log_n) + " exceeds 2^" +
                                std::to_string(kMaxLogSize));
  }
  // The same constants as ntt::EvaluationDomain.
  Fr omega = Fr::two_adic_root_of_unity();
  for (unsigned i = log_n; i < 32; i++) omega = omega.sqr();
  n_inv_ = Fr::from_u64(n_).inverse();
  const Fr g = Fr::from_u64(ff::kFrMultiplicativeGenerator);
  const Fr g_inv = g.inverse();
  const Fr z_inv = (g.pow(uint64_t(n_)) - Fr::one()).inverse();  // 1 / Z on the coset

  // Passes bottom up; the DIF runs them in reverse order. The first pass takes up to kBlockLog
  // stages; the rest are shared evenly among as few passes as fit (at most kBlockLog -
  // kCoalesceLog stages each), and each block fills its 2^kBlockLog elements with consecutive
  // low indices (2^t), so that no pass runs small blocks.
  const unsigned first = std::min(kBlockLog, log_n);
  passes_.push_back({0, first, 0});
  const unsigned rest = log_n - first;
  const unsigned max_k = kBlockLog - kCoalesceLog;
  const unsigned count = (rest + max_k - 1) / max_k;
  for (unsigned i = 0, h = first; i < count; i++) {
    const unsigned k = (rest - (h - first)) / (count - i);  // even split, larger passes last
    const unsigned t = std::min(h, kBlockLog - k);
    passes_.push_back({h, k, t});
    h += k;
  }
  if (log_n == 0) passes_.clear();

  split_ = (log_n + 1) / 2;
  const size_t lo_n = size_t(1) << split_, hi_n = size_t(1) << (log_n - split_);
  const Fr one = Fr::one();
  auto g_lo = host_powers(g, one, lo_n);
  auto ginv_lo = host_powers(g_inv, one, lo_n);
  auto g_hi = host_powers(g.pow(uint64_t(lo_n)), one, hi_n);
  auto g_hi_ninv = host_powers(g.pow(uint64_t(lo_n)), n_inv_, hi_n);
  auto ginv_hi_ninv = host_powers(g_inv.pow(uint64_t(lo_n)), n_inv_, hi_n);
  auto ginv_hi_ninv_zinv = host_powers(g_inv.pow(uint64_t(lo_n)), n_inv_ * z_inv, hi_n);
  g_lo_ = upload(g_lo, stream_);
  g_hi_ = upload(g_hi, stream_);
  g_hi_ninv_ = upload(g_hi_ninv, stream_);
  ginv_lo_ = upload(ginv_lo, stream_);
  ginv_hi_ninv_ = upload(ginv_hi_ninv, stream_);
  ginv_hi_ninv_zinv_ = upload(ginv_hi_ninv_zinv, stream_);
  if (n_ >= 2) {
    auto w_lo = host_powers(omega, one, lo_n);
    auto w_hi = host_powers(omega.pow(uint64_t(lo_n)), one, hi_n);
    auto d_lo = upload(w_lo, stream_), d_hi = upload(w_hi, stream_);
    twiddles_ = DeviceBuffer<Fr>(n_ / 2);
    expand_powers_kernel<<<grid_for(n_ / 2), kThreads, 0, stream_>>>(twiddles_.get(), d_lo.get(), d_hi.get(), split_,
                                                                     n_ / 2);
    check_launch("expand_powers");
    // The host vectors and the small device tables die here: wait for the copies.
    check(cudaStreamSynchronize(stream_), "twiddle table");
  }
  check(cudaStreamSynchronize(stream_), "domain tables");
}

size_t DeviceDomain::table_bytes() const {
  return twiddles_.bytes() + g_lo_.bytes() + g_hi_.bytes() + g_hi_ninv_.bytes() + ginv_lo_.bytes() +
         ginv_hi_ninv_.bytes() + ginv_hi_ninv_zinv_.bytes();
}

void DeviceDomain::dit(Fr* a, const Fr* scale_lo, const Fr* scale_hi) const {
  for (const Pass& p : passes_) {
    const bool first = p.h_low == 0;
    launch_pass<false, false>(a, twiddles_.get(), log_n_, p.h_low, p.k, p.t, stream_, first ? scale_lo : nullptr,
                              first ? scale_hi : nullptr, split_);
  }
}

void DeviceDomain::dif_inverse(Fr* a) const {
  for (auto p = passes_.rbegin(); p != passes_.rend(); ++p) {
    launch_pass<true, true>(a, twiddles_.get(), log_n_, p->h_low, p->k, p->t, stream_);
  }
}

void DeviceDomain::bit_reverse(Fr* a) const {
  if (n_ < 2) return;
  launch_bit_reverse<kNoScale>(a, log_n_, Fr::one(), nullptr, nullptr, 0, stream_);
}

void DeviceDomain::bit_reverse_scaled(Fr* a, const Fr& s) const {
  if (n_ < 2) return scale(a, s);
  launch_bit_reverse<kScaleConst>(a, log_n_, s, nullptr, nullptr, 0, stream_);
}

void DeviceDomain::bit_reverse_scaled(Fr* a, const Fr* lo, const Fr* hi) const {
  if (n_ < 2) return scale_by_table(a, lo, hi, false);
  launch_bit_reverse<kScaleByDest>(a, log_n_, Fr::one(), lo, hi, split_, stream_);
}

void DeviceDomain::scaled_bit_reverse(Fr* a, const Fr* lo, const Fr* hi) const {
  if (n_ < 2) return scale_by_table(a, lo, hi, false);
  launch_bit_reverse<kScaleBySource>(a, log_n_, Fr::one(), lo, hi, split_, stream_);
}

void DeviceDomain::scale_by_table(Fr* a, const Fr* lo, const Fr* hi, bool bit_reversed_index) const {
  scale_by_table_kernel<<<grid_for(n_), kThreads, 0, stream_>>>(a, lo, hi, split_, log_n_, n_, bit_reversed_index);
  check_launch("scale_by_table");
}

void DeviceDomain::scale(Fr* a, const Fr& s) const {
  scale_kernel<<<grid_for(n_), kThreads, 0, stream_>>>(a, s, n_);
  check_launch("scale");
}

void DeviceDomain::fft(Fr* a) const {
  bit_reverse(a);
  dit(a);
}

void DeviceDomain::ifft(Fr* a) const {
  dif_inverse(a);
  bit_reverse_scaled(a, n_inv_);
}

void DeviceDomain::coset_fft(Fr* a) const {
  scaled_bit_reverse(a, g_lo_.get(), g_hi_.get());  // element k times g^k, then permuted
  dit(a);
}

void DeviceDomain::icoset_fft(Fr* a) const {
  dif_inverse(a);
  // Coefficient k comes to index k and is scaled by g^-k / n on the way.
  bit_reverse_scaled(a, ginv_lo_.get(), ginv_hi_ninv_.get());
}

void DeviceDomain::coset_evaluations(Fr* x) const {
  // iNTT leaves coefficients bit-reversed; the coset scale (with 1/n) reads their true
  // index, and the forward DIT takes bit-reversed input: no permutation in between.
  dif_inverse(x);
  if (!passes_.empty()) {
    dit(x, g_lo_.get(), g_hi_ninv_.get());  // scaled as the first pass loads
  } else {
    scale_by_table(x, g_lo_.get(), g_hi_ninv_.get(), true);  // n = 1: no pass
  }
}

void DeviceDomain::h_product(Fr* a, const Fr* b) const {
  multiply_kernel<<<grid_for(n_), kThreads, 0, stream_>>>(a, b, n_);
  check_launch("multiply");
  dif_inverse(a);  // unscaled, bit-reversed: h_finish applies g^-k / n with the permutation
}

void DeviceDomain::h_finish(Fr* a, Fr* c) const {
  dif_inverse(c);
  h_combine_kernel<<<grid_for(n_), kThreads, 0, stream_>>>(a, c, g_lo_.get(), g_hi_.get(), split_, log_n_, n_);
  check_launch("h_combine");
  bit_reverse_scaled(a, ginv_lo_.get(), ginv_hi_ninv_zinv_.get());
}

void DeviceDomain::h_polynomial(Fr* a, Fr* b, Fr* c) const {
  coset_evaluations(a);
  coset_evaluations(b);
  h_product(a, b);
  h_finish(a, c);
}

void DeviceDomain::synchronize() const { check(cudaStreamSynchronize(stream_), "NTT"); }

int device_count(std::string* why) { return cuzk::cuda::device_count(why); }

void expand_zero_one(Fr* out, size_t n, const DeviceZeroOneVector& v, cudaStream_t stream) {
  if (v.size > n) throw std::invalid_argument("expand_zero_one: the vector is longer than its target");
  const size_t chunks = (v.size + ZeroOneVector::kChunk - 1) / ZeroOneVector::kChunk;
  if (chunks > 0) {
    expand_zero_one_kernel<<<unsigned(chunks), kExpandThreads, 0, stream>>>(out, v.size, v.kinds, v.chunk_offsets,
                                                                            v.others, Fr::one());
    check_launch("expand_zero_one");
  }
  if (n > v.size) check(cudaMemsetAsync(out + v.size, 0, (n - v.size) * sizeof(Fr), stream), "zero padding");
}

}  // namespace cuzk::ntt::cuda

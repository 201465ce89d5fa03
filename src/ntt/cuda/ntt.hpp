// Number-theoretic transforms over Fr on a CUDA device, bit-identical to ntt::EvaluationDomain
// (same omega, coset generator g = 7, 1/n inside the inverse): the field is exact and both
// sides keep elements fully reduced in Montgomery form, so any correct transform agrees.
//
// Data stays on the device: every call takes device pointers to n = 2^log_n elements and
// enqueues its kernels on the domain's stream (nothing synchronises unless named so). The
// pointers must be 16-byte aligned (any element of a cudaMalloc'd buffer is): the bit
// reversal moves elements as two 16-byte words.
// Transforms are radix-2 Cooley-Tukey, several stages per kernel in shared memory; the
// forward transform is decimation in time (bit-reversed in, natural out) and the inverse
// decimation in frequency (natural in, bit-reversed out), so the H polynomial needs only one
// bit-reversal, at the end.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "cuda/device_buffer.hpp"
#include "ff/fr.hpp"
#include "ntt/zero_one_vector.hpp"

namespace cuzk::ntt::cuda {

using cuzk::cuda::DeviceBuffer;
using ff::Fr;

class DeviceDomain {
 public:
  // Largest domain: 2^27 points hold 4 GiB per vector; larger ones are not needed for PoRep.
  static constexpr unsigned kMaxLogSize = 28;

  // Builds the twiddle table (n/2 powers of omega, 16 n bytes) on the current device.
  // Throws std::invalid_argument above kMaxLogSize, std::runtime_error on CUDA failures.
  explicit DeviceDomain(unsigned log_n, cudaStream_t stream = nullptr);

  size_t size() const { return n_; }
  unsigned log_size() const { return log_n_; }
  cudaStream_t stream() const { return stream_; }
  // Device memory held by the domain's tables.
  size_t table_bytes() const;

  // In place on n device elements, natural order in and out (as the CPU domain).
  void fft(Fr* a) const;
  void ifft(Fr* a) const;
  void coset_fft(Fr* a) const;
  void icoset_fft(Fr* a) const;

  // bellperson's H polynomial, (A B - C) / Z, on device vectors of n elements each (zero-padded
  // evaluations of a, b, c); the coefficients (natural order) are left in a, b and c are
  // scratch. Z is the constant g^n - 1 on the coset and the coset iNTT is linear, so
  // H = icoset(A^ B^) / Z(g) - iNTT(c) / Z(g): 6 transforms instead of bellperson's 7, one of
  // them for c, with bellperson's coefficients for any a, b, c (ntt::compute_h_polynomial).
  void h_polynomial(Fr* a, Fr* b, Fr* c) const;
  // Its steps, so that a caller can upload b and c while a and b are transformed:
  // coset_evaluations(a); coset_evaluations(b); h_product(a, b); h_finish(a, c).
  // coset_evaluations: one vector's iNTT and coset NTT (evaluations to coset evaluations, in
  // place); h_product: a <- a b, then its iNTT (unscaled, bit-reversed); h_finish: c's iNTT,
  // then H into a.
  void coset_evaluations(Fr* x) const;
  void h_product(Fr* a, const Fr* b) const;
  void h_finish(Fr* a, Fr* c) const;

  void synchronize() const;

 private:
  // One kernel of radix-2 stages [h_low, h_low + k), its blocks spanning 2^t consecutive
  // indices below h_low (for wider memory accesses).
  struct Pass {
    unsigned h_low, k, t;
  };
  // Bit-reversed in, natural out, forward twiddles; with scale_lo/hi the first pass
  // multiplies the element at i by lo/hi at rev(i) as it loads it (the H polynomial's coset).
  void dit(Fr* a, const Fr* scale_lo = nullptr, const Fr* scale_hi = nullptr) const;
  void dif_inverse(Fr* a) const;  // natural in, bit-reversed out, inverse twiddles
  void bit_reverse(Fr* a) const;
  // The permutation with every element times s, or the element landing at k times lo/hi(k).
  void bit_reverse_scaled(Fr* a, const Fr& s) const;
  void bit_reverse_scaled(Fr* a, const Fr* lo, const Fr* hi) const;
  // The element from index k times lo/hi(k), then the permutation (the coset's scaling).
  void scaled_bit_reverse(Fr* a, const Fr* lo, const Fr* hi) const;
  // a[i] *= lo[k mod 2^L] * hi[k >> L] with k = i, or bit-reversed i.
  void scale_by_table(Fr* a, const Fr* lo, const Fr* hi, bool bit_reversed_index) const;
  void scale(Fr* a, const Fr& s) const;

  unsigned log_n_;
  size_t n_;
  cudaStream_t stream_;
  std::vector<Pass> passes_;
  Fr n_inv_;
  unsigned split_;             // L: power tables are lo[2^L] x hi[2^(log_n - L)]
  DeviceBuffer<Fr> twiddles_;  // omega^j, j < n/2
  // Split power tables: g^k; g^k / n; g^-k / n; g^-k / (n Z(g)) (H's last step).
  DeviceBuffer<Fr> g_lo_, g_hi_, g_hi_ninv_, ginv_lo_, ginv_hi_ninv_, ginv_hi_ninv_zinv_;
};

// Host-side wrappers for tests and benchmarks: copy in, transform on the current device,
// copy back. kind: 0 fft, 1 ifft, 2 coset_fft, 3 icoset_fft.
enum class Transform { kFft, kIfft, kCosetFft, kIcosetFft };
void transform_on_device(std::span<Fr> a, Transform kind);
// The H polynomial of host vectors (each of the domain's size); the result is left in a.
void h_polynomial_on_device(std::span<Fr> a, std::span<Fr> b, std::span<Fr> c);

// Number of CUDA devices, 0 when there is none or no driver (with the reason in *why).
int device_count(std::string* why = nullptr);

// A ZeroOneVector (ntt/zero_one_vector.hpp) whose arrays are in device memory.
struct DeviceZeroOneVector {
  size_t size = 0;
  const uint32_t* kinds = nullptr;          // chunks * ZeroOneVector::kWordsPerChunk words
  const uint32_t* chunk_offsets = nullptr;  // chunks entries (the last one, others' count, not needed)
  const Fr* others = nullptr;
};
// Enqueues on stream the expansion of v into out[0, v.size) and zeros into out[v.size, n)
// (the zero-padded evaluations the transforms take). n >= v.size.
void expand_zero_one(Fr* out, size_t n, const DeviceZeroOneVector& v, cudaStream_t stream);

}  // namespace cuzk::ntt::cuda

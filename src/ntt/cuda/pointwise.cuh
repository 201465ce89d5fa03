// The GPU NTT's pointwise kernels: power tables, scalings, the H polynomial's product and its
// last step (part of the one translation unit ntt.cu; see ntt.hpp). Grid-stride loops.
#pragma once

#include <cstddef>

#include "ff/fr.hpp"

namespace cuzk::ntt::cuda {
namespace {

using ff::Fr;

// out[i] = lo[i mod 2^L] * hi[i >> L]: expands a split power table.
__global__ void expand_powers_kernel(Fr* out, const Fr* lo, const Fr* hi, unsigned split, size_t count) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x) {
    out[i] = lo[i & ((size_t(1) << split) - 1)] * hi[i >> split];
  }
}

__global__ void scale_by_table_kernel(Fr* a, const Fr* lo, const Fr* hi, unsigned split, unsigned log_n, size_t n,
                                      bool bit_reversed) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    const size_t k = bit_reversed && log_n ? __brevll(i) >> (64 - log_n) : i;
    a[i] = a[i] * (lo[k & ((size_t(1) << split) - 1)] * hi[k >> split]);
  }
}

__global__ void scale_kernel(Fr* a, Fr s, size_t n) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    a[i] = a[i] * s;
  }
}

__global__ void multiply_kernel(Fr* a, const Fr* b, size_t n) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    a[i] = a[i] * b[i];
  }
}

// H's last pointwise step, on the bit-reversed outputs of the unscaled DIF iNTTs of a b (on the
// coset) and of c (position i holds index k = rev(i)): a[i] = a[i] - c[i] g^k, so that the final
// permutation's g^-k / (n Z(g)) gives (icoset(a b) - iNTT(c)) / Z(g).
__global__ void h_combine_kernel(Fr* a, const Fr* c, const Fr* lo, const Fr* hi, unsigned split, unsigned log_n,
                                 size_t n) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    const size_t k = log_n ? __brevll(i) >> (64 - log_n) : i;
    a[i] = a[i] - c[i] * (lo[k & ((size_t(1) << split) - 1)] * hi[k >> split]);
  }
}

}  // namespace
}  // namespace cuzk::ntt::cuda

// The pointwise steps of snarkjs' H convention on the device that the GPU NTT does not offer
// (odd_coset.hpp): C = A .* B on the constraint domain, coefficients times powers of the shift,
// and A B - C on the coset. Host-callable; enqueued on the given stream, nothing synchronises.
#pragma once

#include <cstddef>

#include <cuda_runtime.h>

#include "ff/fr.hpp"

namespace cuzk::snarkjs::cuda {

// a[i] *= lo[i mod 2^split] * hi[i >> split] for i < n (lo, hi: device tables of the shift's
// powers, s^j and s^(j 2^split)).
void scale_by_power_table(ff::Fr* a, size_t n, const ff::Fr* lo, const ff::Fr* hi, unsigned split, cudaStream_t stream);
// c[i] = a[i] b[i] for i < n.
void multiply(ff::Fr* c, const ff::Fr* a, const ff::Fr* b, size_t n, cudaStream_t stream);
// a[i] = a[i] b[i] - c[i] for i < n.
void multiply_subtract(ff::Fr* a, const ff::Fr* b, const ff::Fr* c, size_t n, cudaStream_t stream);

}  // namespace cuzk::snarkjs::cuda

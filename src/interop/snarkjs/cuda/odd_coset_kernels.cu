#include <algorithm>

#include "cuda/check.hpp"
#include "interop/snarkjs/cuda/odd_coset_kernels.hpp"

namespace cuzk::snarkjs::cuda {
namespace {

using ff::Fr;

constexpr unsigned kThreads = 256;

unsigned blocks_for(size_t n) { return unsigned(std::min<size_t>((n + kThreads - 1) / kThreads, 65535)); }

__global__ void scale_by_power_table_kernel(Fr* a, size_t n, const Fr* lo, const Fr* hi, unsigned split) {
  const size_t lo_mask = (size_t(1) << split) - 1;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    a[i] = a[i] * (lo[i & lo_mask] * hi[i >> split]);
  }
}

__global__ void multiply_kernel(Fr* c, const Fr* a, const Fr* b, size_t n) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    c[i] = a[i] * b[i];
  }
}

__global__ void multiply_subtract_kernel(Fr* a, const Fr* b, const Fr* c, size_t n) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    a[i] = a[i] * b[i] - c[i];
  }
}

}  // namespace

void scale_by_power_table(Fr* a, size_t n, const Fr* lo, const Fr* hi, unsigned split, cudaStream_t stream) {
  scale_by_power_table_kernel<<<blocks_for(n), kThreads, 0, stream>>>(a, n, lo, hi, split);
  cuzk::cuda::check_launch("scale_by_power_table");
}

void multiply(Fr* c, const Fr* a, const Fr* b, size_t n, cudaStream_t stream) {
  multiply_kernel<<<blocks_for(n), kThreads, 0, stream>>>(c, a, b, n);
  cuzk::cuda::check_launch("multiply");
}

void multiply_subtract(Fr* a, const Fr* b, const Fr* c, size_t n, cudaStream_t stream) {
  multiply_subtract_kernel<<<blocks_for(n), kThreads, 0, stream>>>(a, b, c, n);
  cuzk::cuda::check_launch("multiply_subtract");
}

}  // namespace cuzk::snarkjs::cuda

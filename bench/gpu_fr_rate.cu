// Device Fr multiplication throughput, for the NTT floor in docs/PERF.md: many independent
// chains of x = x * y, timed with events.
#include <cuda_runtime.h>

#include "bench/gpu_fr_rate.hpp"
#include "ff/cuda/cuda_check.hpp"
#include "ff/fr.hpp"

namespace cuzk::bench {
namespace {

using ff::Fr;

constexpr unsigned kChain = 2048;

// kDenseEo: the even/odd product for any modulus (ff::ptx::MontMulEoPtx) instead of Fr's
// operator* (the same with Fr's sparse low words).
template <bool kDenseEo>
__global__ void fr_mul_chain(Fr* out, Fr y) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  Fr x = Fr::from_montgomery(ff::BigInt<4>::from_u64(i + 2));
  // Not unrolled: ptxas spends minutes unrolling a chain of inline-asm products.
#pragma unroll 1
  for (unsigned k = 0; k < kChain; k++) {
    if constexpr (kDenseEo) {
      constexpr auto m = Fr::Consts::M;
      Fr r;
      ff::ptx::MontMulEoPtx<4>::mul(r.mont.limb, x.mont.limb, y.mont.limb, m.limb, uint32_t(Fr::Consts::INV));
      x = r;
    } else {
      x = x * y;
    }
  }
  out[i] = x;  // keeps the chain alive
}

}  // namespace

double gpu_fr_muls_per_second(bool dense_even_odd) {
  using cuzk::cuda::check;
  int sms = 0;
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), "device attributes");
  const unsigned threads = 256, blocks = unsigned(sms) * 16;
  cuzk::cuda::DeviceBuffer<Fr> out(size_t(threads) * blocks);
  const Fr y = Fr::from_u64(0x1234567890abcdefULL);
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "event");
  check(cudaEventCreate(&stop), "event");
  auto kernel = dense_even_odd ? fr_mul_chain<true> : fr_mul_chain<false>;
  kernel<<<blocks, threads>>>(out.get(), y);  // warm-up
  check(cudaEventRecord(start), "event");
  kernel<<<blocks, threads>>>(out.get(), y);
  check(cudaEventRecord(stop), "event");
  check(cudaEventSynchronize(stop), "fr_mul_chain");
  float ms = 0;
  check(cudaEventElapsedTime(&ms, start, stop), "event");
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return double(threads) * blocks * kChain / (ms * 1e-3);
}

}  // namespace cuzk::bench

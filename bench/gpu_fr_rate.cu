// Device field-product throughput, for the NTT and MSM floors in docs/PERF.md: many independent
// chains of x = x * y, timed with events.
#include <cuda_runtime.h>

#include "bench/gpu_fr_rate.hpp"
#include "ff/cuda/cuda_check.hpp"
#include "ff/cuda/lazy_mont.hpp"
#include "ff/fp.hpp"
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

using LazyFp = ff::LazyMont<ff::Fp>;
constexpr unsigned kFpChain = 1024;

// The MSM's Fp product (the lazy even/odd one) with kDfma double-precision FMAs beside each, in
// four independent chains: does the FP64 pipe issue beside the IMAD-bound product for free?
template <unsigned kDfma>
__global__ void fp_mul_chain(LazyFp* out, double* dout, LazyFp y) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  LazyFp x{ff::BigInt<6>::from_u64(i + 2)};
  double d[4] = {1e-9 * double(i), 1.0, 2.0, 3.0};
#pragma unroll 1
  for (unsigned k = 0; k < kFpChain; k++) {
    x = x * y;
    if constexpr (kDfma > 0) {
#pragma unroll
      for (unsigned j = 0; j < kDfma / 4; j++) {
        for (double& v : d) v = fma(v, 0.999999, 1e-7);
      }
    }
  }
  out[i] = x;  // keeps the chains alive
  dout[i] = d[0] + d[1] + d[2] + d[3];
}

// Milliseconds of the second of two launch() calls (the first warms up), timed with events.
template <class Launch>
float timed_ms(Launch launch, const char* what) {
  using cuzk::cuda::check;
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "event");
  check(cudaEventCreate(&stop), "event");
  launch();
  check(cudaEventRecord(start), "event");
  launch();
  check(cudaEventRecord(stop), "event");
  check(cudaEventSynchronize(stop), what);
  float ms = 0;
  check(cudaEventElapsedTime(&ms, start, stop), "event");
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return ms;
}

template <unsigned kDfma>
double fp_chain_ms(LazyFp* out, double* dout, unsigned blocks, unsigned threads) {
  const LazyFp y = LazyFp::from(ff::Fp::from_u64(0x1234567890abcdefULL));
  return timed_ms([&] { fp_mul_chain<kDfma><<<blocks, threads>>>(out, dout, y); }, "fp_mul_chain");
}

}  // namespace

std::vector<FpRate> gpu_fp_muls_per_second_with_dfma() {
  using cuzk::cuda::check;
  int sms = 0;
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), "device attributes");
  const unsigned threads = 256, blocks = unsigned(sms) * 16;
  const size_t count = size_t(threads) * blocks;
  cuzk::cuda::DeviceBuffer<LazyFp> out(count);
  cuzk::cuda::DeviceBuffer<double> dout(count);
  std::vector<FpRate> rates;
  auto add = [&](unsigned dfma, double ms) {
    const double products = double(count) * kFpChain;
    rates.push_back({dfma, products / (ms * 1e-3), products * dfma / (ms * 1e-3)});
  };
  add(0, fp_chain_ms<0>(out.get(), dout.get(), blocks, threads));
  add(64, fp_chain_ms<64>(out.get(), dout.get(), blocks, threads));
  add(128, fp_chain_ms<128>(out.get(), dout.get(), blocks, threads));
  add(256, fp_chain_ms<256>(out.get(), dout.get(), blocks, threads));
  add(512, fp_chain_ms<512>(out.get(), dout.get(), blocks, threads));
  return rates;
}

double gpu_fr_muls_per_second(bool dense_even_odd) {
  using cuzk::cuda::check;
  int sms = 0;
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), "device attributes");
  const unsigned threads = 256, blocks = unsigned(sms) * 16;
  cuzk::cuda::DeviceBuffer<Fr> out(size_t(threads) * blocks);
  const Fr y = Fr::from_u64(0x1234567890abcdefULL);
  auto kernel = dense_even_odd ? fr_mul_chain<true> : fr_mul_chain<false>;
  const float ms = timed_ms([&] { kernel<<<blocks, threads>>>(out.get(), y); }, "fr_mul_chain");
  return double(threads) * blocks * kChain / (ms * 1e-3);
}

}  // namespace cuzk::bench

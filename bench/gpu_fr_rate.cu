// Device field-product throughput, for the NTT and MSM floors in docs/PERF.md: many independent
// chains of x = x * y, timed with events.
#include <algorithm>

#include <cuda_runtime.h>

#include "bench/gpu_fr_rate.hpp"
#include "cuda/check.hpp"
#include "cuda/device_buffer.hpp"
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

// What a product split between pipes could borrow (docs/perf-history.md, "The FP64 pipe beside the Fp
// product"): the MSM's Fp product (the lazy even/odd one), with beside each product either kDfma
// double-precision FMAs (four independent chains), kMma int8 tensor-core MMAs of the warp
// (m16n8k32, u8 x u8 + s32, four independent accumulators: the shape a q * M reduction would
// use) or kShfl warp shuffles (four independent chains: the traffic a product spread over
// several lanes needs). The beside work is kept alive through the outputs.
template <unsigned kDfma, unsigned kMma, unsigned kShfl>
__global__ void fp_mul_chain(LazyFp* out, double* dout, uint32_t* iout, LazyFp y) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  LazyFp x{ff::BigInt<6>::from_u64(i + 2)};
  double d[4] = {1e-9 * double(i), 1.0, 2.0, 3.0};
  uint32_t acc[4][4] = {};
  uint32_t sh[4] = {uint32_t(i), uint32_t(i) * 3u, uint32_t(i) * 5u, uint32_t(i) * 7u};
  const uint32_t fa[4] = {uint32_t(i) * 0x01010101u, 0x7f7f7f7fu, uint32_t(i) ^ 0x5a5a5a5au, 0x01020304u};
  const uint32_t fb[2] = {0x31415926u ^ uint32_t(i), 0x27182818u};
#pragma unroll 1
  for (unsigned k = 0; k < kFpChain; k++) {
    x = x * y;
    if constexpr (kDfma > 0) {
#pragma unroll
      for (unsigned j = 0; j < kDfma / 4; j++) {
        for (double& v : d) v = fma(v, 0.999999, 1e-7);
      }
    }
    if constexpr (kMma > 0) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#pragma unroll
      for (unsigned j = 0; j < kMma; j++) {
        uint32_t* c = acc[j % 4];
        asm volatile(
            "mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
            "{%0,%1,%2,%3};"
            : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])
            : "r"(fa[0]), "r"(fa[1]), "r"(fa[2]), "r"(fa[3]), "r"(fb[0]), "r"(fb[1]));
      }
#endif
    }
    if constexpr (kShfl > 0) {
#pragma unroll
      for (unsigned j = 0; j < kShfl / 4; j++) {
        for (unsigned v = 0; v < 4; v++) sh[v] = __shfl_xor_sync(0xffffffffu, sh[v], 1 + v) + j;
      }
    }
  }
  out[i] = x;  // keeps the chains alive
  dout[i] = d[0] + d[1] + d[2] + d[3];
  uint32_t keep = sh[0] ^ sh[1] ^ sh[2] ^ sh[3];
  for (const auto& c : acc) keep ^= c[0] ^ c[1] ^ c[2] ^ c[3];
  iout[i] = keep;
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

template <unsigned kDfma, unsigned kMma, unsigned kShfl>
double fp_chain_ms(LazyFp* out, double* dout, uint32_t* iout, unsigned blocks, unsigned threads) {
  const LazyFp y = LazyFp::from(ff::Fp::from_u64(0x1234567890abcdefULL));
  return timed_ms([&] { fp_mul_chain<kDfma, kMma, kShfl><<<blocks, threads>>>(out, dout, iout, y); }, "fp_mul_chain");
}

}  // namespace

std::vector<FpRate> gpu_fp_muls_per_second_beside() {
  using cuzk::cuda::check;
  int sms = 0, major = 0;
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), "device attributes");
  check(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0), "device attributes");
  const unsigned threads = 256, blocks = unsigned(sms) * 16;
  const size_t count = size_t(threads) * blocks;
  cuzk::cuda::DeviceBuffer<LazyFp> out(count);
  cuzk::cuda::DeviceBuffer<double> dout(count);
  cuzk::cuda::DeviceBuffer<uint32_t> iout(count);
  std::vector<FpRate> rates;
  // ops_per_product: beside operations per product (FMAs and shuffles are per thread, so per
  // product; an MMA is one per warp, i.e. per 32 products).
  auto add = [&](const char* beside, unsigned n, double ops_per_product, double ms) {
    const double products = double(count) * kFpChain;
    rates.push_back({beside, n, products / (ms * 1e-3), products * ops_per_product / (ms * 1e-3)});
  };
  auto run = [&]<unsigned kF, unsigned kM, unsigned kS>() {
    return fp_chain_ms<kF, kM, kS>(out.get(), dout.get(), iout.get(), blocks, threads);
  };
  add("nothing", 0, 0, run.template operator()<0, 0, 0>());
  add("FP64 FMAs", 64, 64, run.template operator()<64, 0, 0>());
  add("FP64 FMAs", 128, 128, run.template operator()<128, 0, 0>());
  add("FP64 FMAs", 256, 256, run.template operator()<256, 0, 0>());
  add("FP64 FMAs", 512, 512, run.template operator()<512, 0, 0>());
  // int8 mma.sync needs sm_80, in the device and in the code loaded for it (the kernel issues
  // none when compiled for an older architecture).
  cudaFuncAttributes mma_kernel{};
  check(cudaFuncGetAttributes(&mma_kernel, fp_mul_chain<0, 2, 0>), "kernel attributes");
  if (major >= 8 && std::min(mma_kernel.ptxVersion, mma_kernel.binaryVersion) >= 80) {
    add("int8 MMAs (m16n8k32) per warp", 2, 2.0 / 32, run.template operator()<0, 2, 0>());
    add("int8 MMAs (m16n8k32) per warp", 8, 8.0 / 32, run.template operator()<0, 8, 0>());
    add("int8 MMAs (m16n8k32) per warp", 32, 32.0 / 32, run.template operator()<0, 32, 0>());
    add("int8 MMAs (m16n8k32) per warp", 64, 64.0 / 32, run.template operator()<0, 64, 0>());
  }
  add("warp shuffles", 16, 16, run.template operator()<0, 0, 16>());
  add("warp shuffles", 32, 32, run.template operator()<0, 0, 32>());
  add("warp shuffles", 64, 64, run.template operator()<0, 0, 64>());
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

// cuzk-bench gpu-ntt: GPU NTTs over Fr and the H polynomial on device-resident data, the
// device-to-device copy ceiling, the Fr multiplication rate, and host-to-device upload rates.
#include <algorithm>
#include <cstdio>
#include <random>
#include <vector>

#include "bench/commands.hpp"

#if CUZK_HAVE_CUDA
#include <cuda_runtime.h>

#include "bench/gpu_fr_rate.hpp"
#include "cuda/check.hpp"
#include "cuda/device_buffer.hpp"
#include "ntt/cuda/ntt.hpp"
#include "ntt/cuda/pinned_pool.hpp"
#endif

namespace cuzk::bench {

#if CUZK_HAVE_CUDA
namespace {

using cuzk::cuda::check;
using cuzk::cuda::DeviceBuffer;
using ff::Fr;

// sppark on device-resident data, same card model (issue 4).
double sppark_ms(unsigned log_n) {
  switch (log_n) {
    case 24:
      return 4.7;
    case 26:
      return 23.8;
    case 27:
      return 44.0;
    default:
      return 0;
  }
}

class Timer {
 public:
  Timer() {
    check(cudaEventCreate(&a_), "event");
    check(cudaEventCreate(&b_), "event");
  }
  ~Timer() {
    cudaEventDestroy(a_);
    cudaEventDestroy(b_);
  }
  // Median over reps of f() in milliseconds, after one warm-up call.
  template <class F>
  double median_ms(unsigned reps, F&& f) {
    f();
    check(cudaDeviceSynchronize(), "warm-up");
    std::vector<double> t;
    for (unsigned r = 0; r < reps; r++) {
      check(cudaEventRecord(a_), "event");
      f();
      check(cudaEventRecord(b_), "event");
      check(cudaEventSynchronize(b_), "timed region");
      float ms = 0;
      check(cudaEventElapsedTime(&ms, a_, b_), "event");
      t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  }

 private:
  cudaEvent_t a_, b_;
};

// Pseudo-random field elements: 2^16 random values tiled (the timing does not depend on them).
void fill(DeviceBuffer<Fr>& d, std::mt19937_64& rng) {
  const size_t tile = std::min<size_t>(d.size(), 1 << 16);
  std::vector<Fr> h(tile);
  for (auto& x : h) x = Fr::random(rng);
  for (size_t off = 0; off < d.size(); off += tile) {
    check(cudaMemcpy(d.get() + off, h.data(), std::min(tile, d.size() - off) * sizeof(Fr), cudaMemcpyHostToDevice),
          "fill");
  }
}

}  // namespace

int run_gpu_ntt_bench(const GpuNttBenchArgs& args) {
  std::string why;
  if (ntt::cuda::device_count(&why) == 0) {
    std::fprintf(stderr, "cuzk-bench gpu-ntt: no CUDA device (%s)\n", why.c_str());
    return 2;
  }
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "device properties");
  std::mt19937_64 rng(args.seed);
  Timer timer;

  // Ceilings: a large device-to-device copy (bytes read + written) and the Fr mul rate.
  const size_t copy_bytes = size_t(2) << 30;
  double copy_gbs = 0;
  {
    DeviceBuffer<char> x(copy_bytes), y(copy_bytes);
    const double ms = timer.median_ms(
        args.reps, [&] { check(cudaMemcpyAsync(y.get(), x.get(), copy_bytes, cudaMemcpyDeviceToDevice), "d2d copy"); });
    copy_gbs = 2.0 * double(copy_bytes) / (ms * 1e6);
  }
  const double mul_rate = gpu_fr_muls_per_second();
  const double mul_rate_dense = gpu_fr_muls_per_second(/*dense_even_odd=*/true);
  std::printf(
      "device: %s, %d SMs; D2D copy %.0f GB/s (read + write); Fr mul %.1f G/s (without Fr's sparse low words %.1f "
      "G/s)\n",
      prop.name, prop.multiProcessorCount, copy_gbs, mul_rate * 1e-9, mul_rate_dense * 1e-9);
  std::printf("inputs: 2^16 random elements tiled over each vector; median of %u after a warm-up\n\n", args.reps);

  std::printf(
      "| log n | fft ms | ifft ms | coset fft ms | H polynomial ms | fft GB/s | floor ms (mul / bytes) | fft / floor | "
      "sppark ms | fft / sppark |\n|---|---|---|---|---|---|---|---|---|---|\n");
  for (unsigned log_n : args.log_sizes) {
    const size_t n = size_t(1) << log_n;
    ntt::cuda::DeviceDomain domain(log_n);
    DeviceBuffer<Fr> a(n), b(n), c(n);
    fill(a, rng);
    fill(b, rng);
    fill(c, rng);
    const double fft = timer.median_ms(args.reps, [&] { domain.fft(a.get()); });
    const double ifft = timer.median_ms(args.reps, [&] { domain.ifft(a.get()); });
    const double coset = timer.median_ms(args.reps, [&] { domain.coset_fft(a.get()); });
    const double h = timer.median_ms(args.reps, [&] { domain.h_polynomial(a.get(), b.get(), c.get()); });
    const double bytes = 2.0 * double(n) * sizeof(Fr);  // read and write each element once
    // Floor: n/2 log n multiplications at the measured rate, or one read + write at copy speed.
    const double mul_floor = double(n) / 2 * log_n / mul_rate * 1e3;
    const double byte_floor = bytes / (copy_gbs * 1e9) * 1e3;
    const double floor = std::max(mul_floor, byte_floor);
    const double sp = sppark_ms(log_n);
    char ref[32] = "-", ratio[32] = "-";
    if (sp > 0) {
      std::snprintf(ref, sizeof ref, "%.1f", sp);
      std::snprintf(ratio, sizeof ratio, "%.2f", fft / sp);
    }
    std::printf("| %u | %.3f | %.3f | %.3f | %.3f | %.0f | %.3f (%.3f / %.3f) | %.2f | %s | %s |\n", log_n, fft, ifft,
                coset, h, bytes / (fft * 1e6), floor, mul_floor, byte_floor, fft / floor, ref, ratio);
  }

  if (!args.uploads) return 0;
  // Host to device: straight from a pinned buffer, and from pageable memory through the pool.
  const size_t up_bytes = size_t(1) << 30;
  DeviceBuffer<char> dst(up_bytes);
  void* pinned = nullptr;
  check(cudaHostAlloc(&pinned, up_bytes, cudaHostAllocDefault), "cudaHostAlloc");
  std::fill_n(static_cast<char*>(pinned), up_bytes, char(1));
  const double pinned_ms = timer.median_ms(
      args.reps, [&] { check(cudaMemcpyAsync(dst.get(), pinned, up_bytes, cudaMemcpyHostToDevice), "h2d"); });
  cudaFreeHost(pinned);
  std::vector<char> pageable(up_bytes, char(2));
  cuzk::cuda::PinnedStagingPool pool;
  const double staged_ms =
      timer.median_ms(args.reps, [&] { pool.upload(dst.get(), pageable.data(), up_bytes, nullptr); });
  const double pageable_ms = timer.median_ms(
      args.reps, [&] { check(cudaMemcpy(dst.get(), pageable.data(), up_bytes, cudaMemcpyHostToDevice), "h2d"); });
  std::printf("\n| upload of 1 GiB | ms | GB/s |\n|---|---|---|\n");
  std::printf("| pinned buffer -> device | %.1f | %.1f |\n", pinned_ms, up_bytes / (pinned_ms * 1e6));
  std::printf("| pageable via pinned staging pool (%zu MiB pinned) | %.1f | %.1f |\n", pool.bytes() >> 20, staged_ms,
              up_bytes / (staged_ms * 1e6));
  std::printf("| pageable, plain cudaMemcpy | %.1f | %.1f |\n", pageable_ms, up_bytes / (pageable_ms * 1e6));
  return 0;
}

#else

int run_gpu_ntt_bench(const GpuNttBenchArgs&) {
  std::fprintf(stderr, "cuzk-bench gpu-ntt: cuzk was built without CUDA\n");
  return 2;
}

#endif

}  // namespace cuzk::bench

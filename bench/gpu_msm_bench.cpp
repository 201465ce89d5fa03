// cuzk-bench gpu-msm: GPU MSM timings over sizes and window widths, bases resident on the device.
// Bases and scalars are pseudo-random (bases P_0 + i Q, generated in parallel chunks; scalars
// uniform, or with the requested 0/1 shares): these runs measure speed, not a proof's validity.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <string>
#include <tbb/parallel_for.h>
#include <utility>
#include <vector>

#include <cuda_runtime.h>

#include "bench/commands.hpp"
#include "bench/gpu_fr_rate.hpp"
#include "bench/timing.hpp"
#include "cuda/check.hpp"
#include "ec/random_points.hpp"
#include "ec/scalar_mul.hpp"
#include "msm/cuda/msm.hpp"
#include "msm/pippenger.hpp"

namespace cuzk::bench {
namespace {

using Clock = std::chrono::steady_clock;
using cuzk::cuda::check;

// sppark on the same card (H200, bases resident), from the issue; 0 where not measured.
double sppark_ms(unsigned curve_g2, unsigned log_n) {
  if (curve_g2) return 0;
  switch (log_n) {
    case 20:
      return 28;
    case 22:
      return 63;
    case 24:
      return 185;
    case 26:
      return 656;
    default:
      return 0;
  }
}

// n pseudo-random subgroup points, chunk k starting at P + (k chunk) Q, chunks in parallel.
template <class Curve>
std::vector<ec::AffinePoint<Curve>> bases_in_parallel(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const auto p = ec::random_subgroup_point<Curve>(rng);
  const auto q = ec::random_subgroup_point<Curve>(rng);
  constexpr size_t kChunk = size_t(1) << 16;
  std::vector<ec::AffinePoint<Curve>> out(n);
  tbb::parallel_for(size_t(0), (n + kChunk - 1) / kChunk, [&](size_t k) {
    const size_t lo = k * kChunk, hi = std::min(n, lo + kChunk);
    std::vector<ec::JacobianPoint<Curve>> jac(hi - lo);
    ec::JacobianPoint<Curve> cur = p + ec::scalar_mul_u64(q, uint64_t(lo));
    for (auto& j : jac) {
      j = cur;
      cur += q;
    }
    std::vector<typename Curve::Field> scratch(hi - lo);
    ec::batch_to_affine(jac.data(), out.data() + lo, hi - lo, scratch.data());
  });
  return out;
}

std::vector<ff::Fr> scalars_in_parallel(size_t n, const GpuMsmBenchArgs& args, uint64_t seed) {
  constexpr size_t kChunk = size_t(1) << 16;
  std::vector<ff::Fr> out(n);
  tbb::parallel_for(size_t(0), (n + kChunk - 1) / kChunk, [&](size_t k) {
    std::mt19937_64 rng(seed * 1000003 + k);
    for (size_t i = k * kChunk; i < std::min(n, (k + 1) * kChunk); i++) {
      const double u = double(rng() >> 11) / double(uint64_t(1) << 53);
      out[i] = u < args.zero_fraction                       ? ff::Fr::zero()
               : u < args.zero_fraction + args.one_fraction ? ff::Fr::one()
                                                            : ff::Fr::random(rng);
    }
  });
  return out;
}

// Each window with each workspace limit (MiB), in that order.
std::vector<std::pair<unsigned, unsigned>> window_limit_pairs(const GpuMsmBenchArgs& args) {
  std::vector<std::pair<unsigned, unsigned>> pairs;
  for (unsigned window : args.windows) {
    for (unsigned limit : args.workspace_mib) pairs.emplace_back(window, limit);
  }
  return pairs;
}

// 0: no precomputation; otherwise the Precompute copies (0 there: one per window).
bool parse_copies(const std::string& text, unsigned& copies) {
  if (text == "0" || text == "off") return false;
  if (text == "all") {
    copies = 0;
    return true;
  }
  copies = unsigned(std::stoul(text));
  return true;
}

template <class Curve>
void rows(const char* name, unsigned is_g2, const GpuMsmBenchArgs& args) {
  const unsigned max_log = *std::max_element(args.log_sizes.begin(), args.log_sizes.end());
  const size_t max_n = size_t(1) << max_log;
  unsigned copies = 0;
  const bool precompute = parse_copies(args.precompute_copies, copies);
  const auto t0 = Clock::now();
  const auto host_bases = bases_in_parallel<Curve>(max_n, args.seed);
  const double gen_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  std::fprintf(stderr, "%s: generated 2^%u bases in %.0f ms\n", name, max_log, gen_ms);
  // Without precomputation the bases of the largest size serve every size; with it, each size
  // and window gets its own precomputed bases (the window is fixed by them).
  std::shared_ptr<msm::cuda::Bases<Curve>> bases;
  if (!precompute) bases = msm::cuda::Bases<Curve>::upload(args.device, host_bases);
  for (unsigned log_n : args.log_sizes) {
    const size_t n = size_t(1) << log_n;
    const auto scalars = scalars_in_parallel(n, args, args.seed + log_n);
    ff::Fr* device_scalars = nullptr;
    check(cudaSetDevice(args.device), "cudaSetDevice");
    check(cudaMalloc(&device_scalars, n * sizeof(ff::Fr)), "cudaMalloc");
    check(cudaMemcpy(device_scalars, scalars.data(), n * sizeof(ff::Fr), cudaMemcpyHostToDevice), "upload");
    for (const auto& [window, limit_mib] : window_limit_pairs(args)) {
      msm::cuda::set_workspace_limit(int(args.device), size_t(limit_mib) << 20);  // 0: none
      msm::MsmOptions options;
      double upload_ms = 0;
      if (precompute) {
        bases.reset();
        bases = msm::cuda::Bases<Curve>::upload(args.device, std::span(host_bases).first(n),
                                                msm::cuda::Precompute{window, copies});
        upload_ms = bases->upload_ms();
      } else {
        options.window_bits = window;
        upload_ms = bases->upload_ms() * double(n) / double(max_n);
      }
      msm::MsmStats stats, host_stats;  // the window: the device-scalar run's (host scalars take room too)
      (void)msm::cuda::msm<Curve>(*bases, 0, n, device_scalars, options, &stats);  // warm-up: workspace
      const double ms =
          median_ms(args.reps, [&] { (void)msm::cuda::msm<Curve>(*bases, 0, n, device_scalars, options, &stats); });
      const double host_ms = median_ms(args.reps, [&] {
        (void)msm::cuda::msm<Curve>(*bases, 0, n, std::span<const ff::Fr>(scalars), options, &host_stats);
      });
      const double ref = sppark_ms(is_g2, log_n);
      char ratio[32] = "-";
      if (ref > 0) std::snprintf(ratio, sizeof ratio, "%.2f", ms / ref);
      const unsigned c = stats.window_bits, windows = (256 + c - 1) / c;
      const unsigned sets = precompute ? bases->bucket_sets() : windows;
      const double device_gb =
          precompute ? double(bases->device_bytes()) / 1e9 : double(n * sizeof(ec::AffinePoint<Curve>)) / 1e9;
      char limit_gb[32] = "-";
      if (limit_mib) std::snprintf(limit_gb, sizeof limit_gb, "%.2f", double(size_t(limit_mib) << 20) / 1e9);
      std::printf(
          "| %-4s | 2^%-3u | %9.2f | %9.2f | %6s | %9.1f | %6u | %3u | %3u | %9.1f | %7.2f | %7s | %7.2f | %8zu | "
          "%8zu |\n",
          name, log_n, ms, host_ms, ratio, upload_ms, c, precompute ? bases->copies() : 1u, sets,
          precompute ? bases->precompute_ms() : 0.0, device_gb, limit_gb,
          double(msm::cuda::workspace_bytes(int(args.device))) / 1e9, stats.zeros, stats.ones);
      std::fflush(stdout);
    }
    cudaFree(device_scalars);
  }
  bases.reset();
  msm::cuda::set_workspace_limit(int(args.device), 0);
  msm::cuda::release_workspace(int(args.device));
}

}  // namespace

void set_gpu_msm_phases(unsigned level) { msm::cuda::set_phase_report(level); }

int run_gpu_msm_bench(const GpuMsmBenchArgs& args) {
  std::string why;
  if (msm::cuda::device_count(&why) <= int(args.device)) {
    std::fprintf(stderr, "cuzk-bench gpu-msm: no CUDA device %u (%s)\n", args.device, why.c_str());
    return 1;
  }
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, int(args.device));
  std::printf(
      "GPU MSM on %s, bases resident; PSEUDO-RANDOM bases and scalars (%.0f%% zero, %.0f%% one, rest "
      "uniform); median of %u. 'ms' takes scalars already on the device, 'host ms' uploads them from "
      "pageable host memory; ratio = ms / sppark's on an H200; upload = bases upload time for that size; copies, "
      "precompute ms: precomputed multiples of the bases ([2^(t G c)] B, on the device; bases GB all copies).\n\n",
      prop.name, 100 * args.zero_fraction, 100 * args.one_fraction, args.reps);
  if (args.field_rates) {
    try {
      const auto rates = gpu_fp_muls_per_second_beside();
      std::printf(
          "Fp product (lazy even/odd) on device 0, independent chains on all SMs, with other work beside each "
          "(MMAs: per warp, i.e. per 32 products):\n\n"
          "| beside each product | count | Fp products G/s | beside ops G/s | products vs alone |\n"
          "|---|---|---|---|---|\n");
      for (const auto& r : rates) {
        std::printf("| %s | %u | %.2f | %.1f | %.3f |\n", r.beside.c_str(), r.count, r.products_per_second * 1e-9,
                    r.beside_per_second * 1e-9, r.products_per_second / rates.front().products_per_second);
      }
      std::printf("\n");
    } catch (const std::exception& e) {
      std::fprintf(stderr, "cuzk-bench gpu-msm: %s\n", e.what());
      return 1;
    }
  }
  std::printf(
      "| curve | size | ms | host ms | ratio to sppark | upload ms | window | copies | bucket sets | precompute ms | "
      "bases GB | workspace limit GB | workspace GB | zeros | ones |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  try {
    if (args.curve == "g1" || args.curve == "both") rows<ec::G1Curve>("G1", 0, args);
    if (args.curve == "g2" || args.curve == "both") rows<ec::G2Curve>("G2", 1, args);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cuzk-bench gpu-msm: %s\n", e.what());
    return 1;
  }
  return 0;
}

}  // namespace cuzk::bench

// cuzk-bench msm / ntt: tables of CPU MSM and NTT timings over sizes and thread counts.
// Bases and scalars are pseudo-random (bases: P_0 + i Q for random subgroup points P_0, Q);
// these runs measure speed, not any proof's validity.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <tbb/global_control.h>
#include <tbb/task_arena.h>
#include <vector>

#include "bench/commands.hpp"
#include "bench/timing.hpp"
#include "ec/random_points.hpp"
#include "msm/pippenger.hpp"
#include "ntt/domain.hpp"
#include "ntt/zero_one_vector.hpp"

namespace cuzk::bench {
namespace {

template <class Curve>
void msm_rows(const char* name, const MsmBenchArgs& args, std::mt19937_64& rng) {
  for (unsigned log_n : args.log_sizes) {
    const size_t n = size_t(1) << log_n;
    auto bases = ec::pseudo_random_subgroup_points<Curve>(n, rng);
    std::vector<ff::Fr> scalars(n);
    for (auto& s : scalars) {
      const double u = double(rng() >> 11) / double(uint64_t(1) << 53);
      s = u < args.zero_fraction                       ? ff::Fr::zero()
          : u < args.zero_fraction + args.one_fraction ? ff::Fr::one()
                                                       : ff::Fr::random(rng);
    }
    for (unsigned threads : args.threads) {
      tbb::global_control limit(tbb::global_control::max_allowed_parallelism, threads);
      msm::MsmStats stats;
      msm::MsmOptions options;
      options.window_bits = args.window_bits;
      double ms = median_ms(args.reps, [&] { (void)msm::msm<Curve>(bases, scalars, options, &stats); });
      std::printf("| %-4s | 2^%-3u | %7u | %6u | %10.1f | %9.0f | %8zu | %8zu |\n", name, log_n, threads,
                  stats.window_bits, ms, ms * 1e6 / double(n), stats.zeros, stats.ones);
    }
  }
}

}  // namespace

int run_msm_bench(const MsmBenchArgs& args) {
  std::mt19937_64 rng(args.seed);
  std::printf("CPU MSM, pseudo-random bases; scalars %.0f%% zero, %.0f%% one, rest uniform; median of %u\n\n",
              100 * args.zero_fraction, 100 * args.one_fraction, args.reps);
  std::printf("| curve | size | threads | window | median ms | ns/point | zeros | ones |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  if (args.curve == "g1" || args.curve == "both") msm_rows<ec::G1Curve>("G1", args, rng);
  if (args.curve == "g2" || args.curve == "both") msm_rows<ec::G2Curve>("G2", args, rng);
  return 0;
}

int run_ntt_bench(const NttBenchArgs& args) {
  std::mt19937_64 rng(args.seed);
  std::printf(
      "CPU NTT over Fr, random inputs; median of %u. 0/1 compress: ntt::ZeroOneVector::compress of a vector "
      "with the PoRep mix (37.5%% zeros, 37.5%% ones, the rest uniform), what the GPU prover's prepare_assignment "
      "does to each of a, b and c\n\n",
      args.reps);
  std::printf("| size | threads | fft ms | coset_fft ms | ifft ms | H polynomial ms | 0/1 compress ms |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  for (unsigned log_n : args.log_sizes) {
    ntt::EvaluationDomain d(log_n);
    std::vector<ff::Fr> a(d.size()), b(d.size()), c(d.size());
    for (size_t i = 0; i < d.size(); i++) {
      a[i] = ff::Fr::random(rng);
      b[i] = ff::Fr::random(rng);
      c[i] = a[i] * b[i];
    }
    std::vector<ff::Fr> mix(d.size());
    for (auto& x : mix) {
      const uint64_t r = rng() % 8;
      x = r < 3 ? ff::Fr::zero() : r < 6 ? ff::Fr::one() : ff::Fr::random(rng);
    }
    for (unsigned threads : args.threads) {
      tbb::global_control limit(tbb::global_control::max_allowed_parallelism, threads);
      auto v = a;
      double fft = median_ms(args.reps, [&] { d.fft(v); });
      double coset = median_ms(args.reps, [&] { d.coset_fft(v); });
      double ifft = median_ms(args.reps, [&] { d.ifft(v); });
      double h = median_ms(args.reps, [&] {
        auto x = a, y = b, z = c;
        ntt::compute_h_polynomial(d, x, y, z);
      });
      double compress = median_ms(args.reps, [&] { (void)ntt::ZeroOneVector::compress(mix); });
      std::printf("| 2^%-3u | %7u | %8.1f | %8.1f | %8.1f | %8.1f | %8.1f |\n", log_n, threads, fft, coset, ifft, h,
                  compress);
    }
  }
  return 0;
}

}  // namespace cuzk::bench

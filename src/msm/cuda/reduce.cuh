// The GPU MSM's window reduction (part of the one translation unit msm.cu): per bucket set,
// F = sum_j (j + 1) B_j = H(B) + sum_j B_j with H(X) = sum_j j X_j, from running sums over short
// segments (weigh_segments) and halving steps above them (reduction_plan.hpp); the host combines
// the sets' sums by Horner's rule.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include <cuda_runtime.h>

#include "cuda/check.hpp"
#include "ec/point.hpp"
#include "msm/cuda/bucket_curve.cuh"
#include "msm/cuda/launch.cuh"
#include "msm/cuda/phases.cuh"
#include "msm/cuda/reduction_plan.hpp"
#include "msm/cuda/workspace.cuh"

namespace cuzk::msm::cuda {
namespace {

using cuzk::cuda::check;
using cuzk::cuda::check_launch;

// Level 0 of the window reduction, thread (w, s): H_s = sum_{r < m} r X_w[s m + r] by a running sum
// from the top, and R_s = sum_r X_w[s m + r]. Then sum_j j X_j = sum_s H_s + m sum_s s R_s; the
// halving steps (reduction_plan.hpp) finish both sums.
template <class B>
__global__ void weigh_segments(const ec::XyzzPoint<B>* in, unsigned windows, size_t n, unsigned m, ec::XyzzPoint<B>* h,
                               ec::XyzzPoint<B>* r) {
  using Xyzz = ec::XyzzPoint<B>;
  const size_t segs = n / m;
  const size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= windows * segs) return;
  const Xyzz* x = in + (t / segs) * n + (t % segs) * m;
  Xyzz running = Xyzz::infinity(), total = Xyzz::infinity();
  for (unsigned j = m - 1; j >= 1; j--) {
    running += x[j];
    total += running;
  }
  running += x[0];
  h[t] = total;
  r[t] = running;
}

// One step of the window reduction above level 0 (reduction_plan.hpp).
template <class B>
__global__ void halve(ec::XyzzPoint<B>* data, const __grid_constant__ HalvingStep step) {
  halve_thread(data, step, size_t(blockIdx.x) * blockDim.x + threadIdx.x);
}

// Buckets per thread at level 0 of the window reduction (a power of two): 16, or 2 when segments
// of 16 over all `buckets` would not fill half of the threads the card holds at once
// (`resident`): such small reductions are bound by one thread's chain of dependent additions,
// not by the work (docs/perf-history.md, GPU MSM, eleventh pass).
unsigned reduce_segment(size_t buckets, size_t resident) { return buckets / 16 >= resident / 2 ? 16 : 2; }

// What comes back of the reduction: per set w, results[k sets + w] is slot k of reduction_plan.hpp
// (0: sum_s H_s, 1: sum_s R_s, 2 + b: T_b), then the ones' bucket; m buckets per segment.
template <class B>
struct WindowSums {
  std::vector<ec::XyzzPoint<B>> results;
  unsigned m = 0, bits = 0;
};

// Enqueues the reduction of the buckets' sets (`buckets` per set, the ones' bucket at ones_key)
// and the download of its results on ws's stream; they are there once the stream has
// synchronised.
template <class B>
WindowSums<B> reduce_windows(Workspace& ws, Phases& phases, const ec::XyzzPoint<B>* buckets, unsigned sets, size_t nb,
                             size_t ones_key) {
  using Xyzz = ec::XyzzPoint<B>;
  cudaStream_t stream = ws.stream;
  const unsigned m = unsigned(std::min<size_t>(reduce_segment(sets * nb, resident_threads(weigh_segments<B>)), nb));
  const size_t segs = nb / m;
  const ReductionPlan plan = plan_reduction(segs, sets);
  Xyzz* red = ws.levels.get<Xyzz>(plan.points);
  weigh_segments<B><<<blocks_for(sets * segs), kThreads, 0, stream>>>(buckets, sets, nb, m, red, red + sets * segs);
  check_launch("weigh_segments");
  phases.detail("weigh");
  for (const HalvingStep& step : plan.steps) {
    halve<B><<<blocks_for(size_t(step.first[step.jobs]) * sets), kThreads, 0, stream>>>(red, step);
    check_launch("halve");
    phases.detail("halve");
  }
  WindowSums<B> sums;
  sums.m = m;
  sums.bits = plan.bits;
  sums.results.resize(sets * (2 + plan.bits) + 1);  // the last entry: the ones' bucket
  check(cudaMemcpyAsync(sums.results.data(), red + plan.results, (sums.results.size() - 1) * sizeof(Xyzz),
                        cudaMemcpyDeviceToHost, stream),
        "download");
  check(cudaMemcpyAsync(&sums.results.back(), buckets + ones_key, sizeof(Xyzz), cudaMemcpyDeviceToHost, stream),
        "download");
  return sums;
}

// F_u = S_u + m sum_b 2^b T_u,b + total_u, then sum_u 2^(u c) F_u by Horner's rule, plus the
// ones (with precomputed copies, the factors 2^(t G c) of windows t G + u are in the bases).
template <class Curve, class B>
ec::JacobianPoint<Curve> combine_windows(const WindowSums<B>& sums, unsigned sets, unsigned c) {
  using Jacobian = ec::JacobianPoint<Curve>;
  auto slot = [&](unsigned k, unsigned w) { return canonical(sums.results[size_t(k) * sets + w]).to_jacobian(); };
  Jacobian acc = Jacobian::infinity();
  for (unsigned w = sets; w-- > 0;) {
    for (unsigned i = 0; i < c; i++) acc = acc.dbl();
    Jacobian h = Jacobian::infinity();
    for (unsigned b = sums.bits; b-- > 0;) h = h.dbl() + slot(2 + b, w);
    for (unsigned i = 1; i < sums.m; i <<= 1) h = h.dbl();
    acc += h + slot(0, w) + slot(1, w);
  }
  return acc + canonical(sums.results.back()).to_jacobian();
}

}  // namespace
}  // namespace cuzk::msm::cuda

// The GPU MSM's window reduction above level 0, as a plan of halving steps. Host/device code
// (CUZK_HD) without CUDA headers, so that tests/arith/msm_reduction_plan_test.cpp runs the plan and the
// per-thread step on the host.
//
// Level 0 (weigh_segments in reduce.cuh) leaves, per bucket set, H_s = sum_{r < m} r B[s m + r] and
// R_s = sum_r B[s m + r] for n segments s; the set's window sum needs sum_s H_s, sum_s R_s and
// sum_s s R_s. With Y_0 = R and Y_{b+1} the pairwise sums of Y_b,
//   sum_s s R_s = sum_b 2^b T_b,  T_b = the sum of Y_b's odd elements,
// because s = 2q + r gives sum_s s Y_s = sum_q Y_{2q+1} + 2 sum_q q (Y_{2q} + Y_{2q+1}). Every
// step halves Y and every unfinished sum (H, the T_b) at once, so the reduction above level 0 is
// ceil(log2(n)) launches (one when n = 1) of one addition each, where running sums at every
// level took 45 launches (docs/perf-history.md, GPU MSM, eleventh pass).
//
// All vectors live in one array of points: [0, S n) the H_s of the S sets, [S n, 2 S n) their
// R_s, then the results (slot k of set w at results + k S + w: slot 0 sum_s H_s, slot 1 sum_s R_s,
// slot 2 + b T_b), then scratch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

#include "ff/hd.hpp"

namespace cuzk::msm::cuda {

// out[w][i] = in[w][2i] + in[w][2i + 1] for every set w, the input elements `stride` apart (an
// odd length's last element is copied; a length of 1 is a copy). Offsets and strides count points.
struct Halving {
  uint64_t in, out;
  uint64_t in_set_stride, out_set_stride;
  uint32_t length, stride;
};

constexpr unsigned kMaxHalvings = 32;  // vectors halved in one step: at most ceil(log2(n)) + 1

// One launch: job j's outputs are threads [first[j], first[j + 1]) of each set.
struct HalvingStep {
  Halving job[kMaxHalvings];
  uint32_t first[kMaxHalvings + 1];
  uint32_t jobs, sets;
};

struct ReductionPlan {
  size_t results = 0;  // offset of slot 0
  unsigned bits = 0;   // the T_b, b < bits
  size_t points = 0;   // size of the array
  std::vector<HalvingStep> steps;
};

// Thread t of a step (threads: step.first[step.jobs] * step.sets). T needs T + T.
template <class T>
CUZK_HD inline void halve_thread(T* data, const HalvingStep& step, size_t t) {
  const size_t per_set = step.first[step.jobs];
  if (t >= per_set * step.sets) return;
  const size_t w = t / per_set;
  const uint32_t k = uint32_t(t % per_set);
  unsigned j = 0;
  while (k >= step.first[j + 1]) j++;
  const Halving& h = step.job[j];
  const uint32_t i = k - step.first[j];
  const T* in = data + h.in + w * h.in_set_stride;
  T sum = in[size_t(2 * i) * h.stride];
  if (2 * i + 1 < h.length) sum = sum + in[size_t(2 * i + 1) * h.stride];
  data[h.out + w * h.out_set_stride + i] = sum;
}

// The plan for n segments (n < 2^31: the job limit) in each of `sets` sets.
inline ReductionPlan plan_reduction(size_t n, unsigned sets) {
  struct Vector {
    uint64_t at, set_stride;
    uint32_t length, stride;
    unsigned slot;  // where its sum ends
  };
  if (n == 0 || sets == 0 || n >= (size_t(1) << 31)) throw std::invalid_argument("plan_reduction: bad size");
  ReductionPlan plan;
  for (size_t k = n; k > 1; k = (k + 1) / 2) plan.bits++;
  plan.results = 2 * sets * n;
  uint64_t next = plan.results + sets * (2 + plan.bits);
  Vector y{sets * n, n, uint32_t(n), 1, 1};
  std::vector<Vector> sums{{0, n, uint32_t(n), 1, 0}};
  bool y_done = false;
  for (unsigned b = 0; !y_done || !sums.empty();) {
    HalvingStep& step = plan.steps.emplace_back();
    step.sets = sets;
    // Adds the halving of v, which becomes its output; true when that is v's sum (in its slot).
    auto halve_once = [&](Vector& v) {
      if (step.jobs == kMaxHalvings) throw std::logic_error("plan_reduction: too many halvings in one step");
      const uint32_t out_length = (v.length + 1) / 2;
      const bool last = out_length == 1;
      const uint64_t out = last ? plan.results + uint64_t(v.slot) * sets : next;
      const uint64_t out_set_stride = last ? 1 : out_length;
      step.job[step.jobs] = {v.at, out, v.set_stride, out_set_stride, v.length, v.stride};
      step.first[step.jobs + 1] = step.first[step.jobs] + out_length;
      step.jobs++;
      if (!last) next += uint64_t(sets) * out_length;
      v = {out, out_set_stride, out_length, 1, v.slot};
      return last;
    };
    std::vector<Vector> unfinished;
    for (Vector& v : sums) {
      if (!halve_once(v)) unfinished.push_back(v);
    }
    if (!y_done) {
      if (y.length > 1) {
        Vector odd{y.at + y.stride, y.set_stride, y.length / 2, 2 * y.stride, 2 + b++};
        if (!halve_once(odd)) unfinished.push_back(odd);
      }
      y_done = halve_once(y);
    }
    sums = std::move(unfinished);
  }
  plan.points = next;
  return plan;
}

}  // namespace cuzk::msm::cuda

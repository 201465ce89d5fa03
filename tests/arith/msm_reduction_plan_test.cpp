// The GPU MSM's window reduction above level 0 (msm/cuda/reduction_plan.hpp) run on the host,
// thread by thread, with the very per-thread code of the device kernel. Over the group of
// integers modulo 2^64 every set's results must be sum_s H_s, sum_s R_s and T_b with
// sum_b 2^b T_b = sum_s s R_s; over G1 the same for a few sizes. Each step must read only
// points written before it (level 0's output or earlier steps), never what the same step writes,
// stay inside the array, and fill every result slot exactly once. No GPU needed.
#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "ec/curves.hpp"
#include "ec/random_points.hpp"
#include "msm/cuda/reduction_plan.hpp"
#include "test_support.hpp"

namespace cuzk::msm::cuda {
namespace {

// Runs the plan over `data` (H and R filled), checking the access rules above.
template <class T>
void run_plan(const ReductionPlan& plan, size_t n, unsigned sets, std::vector<T>& data, std::mt19937_64& rng) {
  ASSERT_EQ(data.size(), plan.points);
  std::vector<int> written(plan.points, -1);  // step that wrote a point; -2: level 0
  std::fill(written.begin(), written.begin() + 2 * sets * n, -2);
  for (size_t k = 0; k < plan.steps.size(); k++) {
    const HalvingStep& step = plan.steps[k];
    ASSERT_GE(step.jobs, 1u);
    ASSERT_LE(step.jobs, kMaxHalvings);
    const size_t threads = size_t(step.first[step.jobs]) * step.sets;
    // The reads of every thread, from its job: all written before this step.
    for (unsigned j = 0; j < step.jobs; j++) {
      const Halving& h = step.job[j];
      ASSERT_EQ(step.first[j + 1] - step.first[j], (h.length + 1) / 2);
      for (unsigned w = 0; w < sets; w++) {
        for (uint32_t e = 0; e < h.length; e++) {
          const size_t at = h.in + w * h.in_set_stride + size_t(e) * h.stride;
          ASSERT_LT(at, plan.points);
          ASSERT_NE(written[at], -1) << "step " << k << " reads a point nobody wrote";
          ASSERT_LT(written[at], int(k)) << "step " << k << " reads its own output";
        }
      }
    }
    // Threads in a random order: the step must not depend on it.
    std::vector<size_t> order(threads);
    for (size_t t = 0; t < threads; t++) order[t] = t;
    std::shuffle(order.begin(), order.end(), rng);
    for (size_t t : order) halve_thread(data.data(), step, t);
    for (unsigned j = 0; j < step.jobs; j++) {
      const Halving& h = step.job[j];
      for (unsigned w = 0; w < sets; w++) {
        for (uint32_t i = 0; i < (h.length + 1) / 2; i++) {
          const size_t at = h.out + w * h.out_set_stride + i;
          ASSERT_LT(at, plan.points);
          ASSERT_EQ(written[at], -1) << "step " << k << " overwrites a point";
          written[at] = int(k);
        }
      }
    }
  }
  for (size_t slot = 0; slot < 2 + plan.bits; slot++) {
    for (unsigned w = 0; w < sets; w++) {
      EXPECT_GE(written[plan.results + slot * sets + w], 0) << "result slot " << slot << " of set " << w;
    }
  }
}

TEST(MsmReductionPlan, IntegerSumsForManySizes) {
  auto rng = test::make_rng();
  for (size_t n : {size_t(1), size_t(2), size_t(3), size_t(4), size_t(5), size_t(7), size_t(8), size_t(9), size_t(16),
                   size_t(31), size_t(33), size_t(100), size_t(1000), size_t(4096), size_t(1) << 14}) {
    for (unsigned sets : {1u, 2u, 7u}) {
      SCOPED_TRACE("n = " + std::to_string(n) + ", sets = " + std::to_string(sets));
      const ReductionPlan plan = plan_reduction(n, sets);
      std::vector<uint64_t> data(plan.points, 0);
      for (size_t i = 0; i < 2 * sets * n; i++) data[i] = rng();
      const std::vector<uint64_t> input(data.begin(), data.begin() + 2 * sets * n);
      run_plan(plan, n, sets, data, rng);
      if (HasFatalFailure()) return;
      for (unsigned w = 0; w < sets; w++) {
        uint64_t h = 0, r = 0, weighted = 0;
        for (size_t s = 0; s < n; s++) {
          h += input[w * n + s];
          r += input[sets * n + w * n + s];
          weighted += uint64_t(s) * input[sets * n + w * n + s];
        }
        auto slot = [&](size_t k) { return data[plan.results + k * sets + w]; };
        EXPECT_EQ(slot(0), h);
        EXPECT_EQ(slot(1), r);
        uint64_t horner = 0;
        for (unsigned b = plan.bits; b-- > 0;) horner = 2 * horner + slot(2 + b);
        EXPECT_EQ(horner, weighted);
      }
    }
  }
}

TEST(MsmReductionPlan, StepsStayWithinTheJobLimit) {
  // Up to 2^23 buckets in segments of 2 (the smallest segment reduce_segment picks): 2^22 segments.
  for (unsigned log = 0; log <= 22; log++) {
    const ReductionPlan plan = plan_reduction(size_t(1) << log, 1);
    EXPECT_EQ(plan.bits, log);
    EXPECT_EQ(plan.steps.size(), std::max<size_t>(log, 1)) << "one step per halving of R (a copy when n = 1)";
  }
  EXPECT_THROW(plan_reduction(0, 1), std::invalid_argument);
  EXPECT_THROW(plan_reduction(4, 0), std::invalid_argument);
}

TEST(MsmReductionPlan, G1PointSums) {
  using Xyzz = ec::G1Xyzz;
  using Jacobian = ec::JacobianPoint<ec::G1Curve>;
  auto rng = test::make_rng();
  for (size_t n : {size_t(1), size_t(6), size_t(37)}) {
    const unsigned sets = 2;
    SCOPED_TRACE("n = " + std::to_string(n));
    const ReductionPlan plan = plan_reduction(n, sets);
    const auto points = ec::pseudo_random_subgroup_points<ec::G1Curve>(2 * sets * n, rng);
    std::vector<Xyzz> data(plan.points, Xyzz::infinity());
    for (size_t i = 0; i < points.size(); i++) data[i] = Xyzz::from_affine(points[i]);
    run_plan(plan, n, sets, data, rng);
    if (HasFatalFailure()) return;
    for (unsigned w = 0; w < sets; w++) {
      Jacobian h = Jacobian::infinity(), r = Jacobian::infinity(), weighted = Jacobian::infinity();
      for (size_t s = n; s-- > 0;) {  // weighted = sum_s s R_s by a running sum
        h += data[w * n + s].to_jacobian();
        if (s == 0) break;
        r += data[sets * n + w * n + s].to_jacobian();
        weighted += r;
      }
      r += data[sets * n + w * n].to_jacobian();
      auto slot = [&](size_t k) { return data[plan.results + k * sets + w].to_jacobian(); };
      EXPECT_EQ(slot(0).to_affine(), h.to_affine());
      EXPECT_EQ(slot(1).to_affine(), r.to_affine());
      Jacobian horner = Jacobian::infinity();
      for (unsigned b = plan.bits; b-- > 0;) horner = horner.dbl() + slot(2 + b);
      EXPECT_EQ(horner.to_affine(), weighted.to_affine());
    }
  }
}

}  // namespace
}  // namespace cuzk::msm::cuda

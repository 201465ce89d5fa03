// The CUDA backend's device-memory arithmetic (groth16/cuda/device_memory_plan.hpp): the working
// set estimate against the measured 2^27 figure, and the choice of H's precomputed copies
// against the room it is given. Host code: runs without a GPU.
#include "groth16/cuda/device_memory_plan.hpp"

#include <gtest/gtest.h>

#include "ec/curves.hpp"
#include "msm/cuda/msm.hpp"

namespace cuzk::groth16::cuda {
namespace {

constexpr size_t kPoint = sizeof(ec::G1Affine);

TEST(DeviceMemoryPlanTest, WorkingSetMatchesTheMeasuredPartition) {
  // 2^27 on the H200: workspace 37 + scratch 17 + compact a/b/c 2.2 + twiddles 2.1 = 58.3 GB.
  const double estimate = double(proof_working_bytes(size_t(1) << 27));
  EXPECT_GT(estimate, 0.95 * 58.3e9);
  EXPECT_LT(estimate, 1.05 * 58.3e9);
  // Grows with the domain.
  EXPECT_LT(proof_working_bytes(size_t(1) << 20), proof_working_bytes(size_t(1) << 22));
  EXPECT_EQ(device_memory_margin(size_t(100) << 30), size_t(6) << 30);
}

TEST(DeviceMemoryPlanTest, NoRoomOrNoPointsMeansNoCopies) {
  EXPECT_EQ(plan_h_copies(size_t(1) << 20, 0, 0).copies, 1u);
  EXPECT_EQ(plan_h_copies(size_t(1) << 20, 0, (size_t(1) << 20) * kPoint - 1).copies, 1u);
  EXPECT_EQ(plan_h_copies(0, 0, size_t(1) << 40).copies, 1u);
  EXPECT_EQ(plan_h_copies(size_t(1) << 20, 1, size_t(1) << 40).copies, 1u);  // 1: none asked for
}

TEST(DeviceMemoryPlanTest, UnlimitedRoomGivesOneCopyPerWindow) {
  for (size_t n : {size_t(1000), size_t(1) << 16, size_t(1) << 24}) {
    const HCopiesPlan plan = plan_h_copies(n, 0, size_t(1) << 50);
    const unsigned c = msm::cuda::gpu_precompute_window_bits(n, 0);
    EXPECT_EQ(plan.window_bits, c) << n;
    EXPECT_EQ(plan.copies, (256 + c - 1) / c) << n;  // one bucket set
  }
}

TEST(DeviceMemoryPlanTest, TheLargestPlanThatFitsIsChosen) {
  const size_t n = size_t(1) << 24, h_bytes = n * kPoint;
  for (unsigned limit : {2u, 3u, 4u, 6u}) {
    const HCopiesPlan plan = plan_h_copies(n, limit, size_t(1) << 50);
    EXPECT_GE(plan.copies, 2u);
    EXPECT_LE(plan.copies, limit);
    // The copies, and the buckets of their window beyond a plain MSM's (never fewer bytes).
    EXPECT_GE(plan.extra_bytes, (plan.copies - 1) * h_bytes);
    EXPECT_LT(plan.extra_bytes, plan.copies * h_bytes);
    // Exactly the room for that plan gives it; a byte less gives fewer copies.
    EXPECT_EQ(plan_h_copies(n, limit, plan.extra_bytes).copies, plan.copies);
    EXPECT_LT(plan_h_copies(n, limit, plan.extra_bytes - 1).copies, plan.copies);
  }
}

TEST(DeviceMemoryPlanTest, ThePartitionOnTheH200GetsThreeCopies) {
  // 2^27 (H: 2^27 - 1 points) on a card with 149.5 GB free before the load: 47.4 GB of plain
  // bases, the working set and the margin leave ~34.6 GB, room for two more copies (25.8 GB) and
  // the wider window's buckets (4 sets of 2^23: 6.4 GB against the 4.8 GB counted), not three
  // more; the window is then 24 with 4 bucket sets.
  const size_t n = size_t(1) << 27, total = size_t(143771) << 20;
  const size_t plain = size_t(47.4e9);
  const size_t room = size_t(149.5e9) - plain - proof_working_bytes(n) - device_memory_margin(total);
  const HCopiesPlan plan = plan_h_copies(n - 1, 0, room);
  EXPECT_EQ(plan.copies, 3u);
  EXPECT_EQ(plan.window_bits, 24u);
}

TEST(DeviceMemoryPlanTest, CopiesStayBelowTwoToTheThirtyOnePoints) {
  const size_t n = size_t(1) << 28;
  const HCopiesPlan plan = plan_h_copies(n, 0, size_t(1) << 50);
  EXPECT_GE(plan.copies, 2u);
  EXPECT_LT(double(plan.copies) * double(n), double(size_t(1) << 31));
}

}  // namespace
}  // namespace cuzk::groth16::cuda

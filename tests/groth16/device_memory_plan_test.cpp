// The CUDA backend's device memory plan (groth16/cuda/device_memory_plan.hpp): what a 32 GiB
// PoRep partition gets on the cards storage providers prove on, the plan's invariants over many
// card sizes, and the choice of H's precomputed copies against the room it is given. Host code:
// runs without a GPU.
#include "groth16/cuda/device_memory_plan.hpp"

#include <random>

#include <gtest/gtest.h>

#include "ec/curves.hpp"
#include "msm/cuda/msm.hpp"
#include "test_support.hpp"

namespace cuzk::groth16::cuda {
namespace {

constexpr size_t kPoint = sizeof(ec::G1Affine);
constexpr size_t kGB = 1000000000;

// A 32 GiB PoRep partition: 2^27 (130,278,869 constraints with the inputs), num_aux 130,169,893
// and 328 inputs (shared/filecoin/CONSTRAINT_COUNTS.md); its bases 47.2 GB in all (the 44 GiB
// parameter file), a, b_g1 and b_g2 sharing what h and l leave.
constexpr ProofShape kPoRep32{size_t(1) << 27, 130169893, 328};
QueryBytes porep32_queries() {
  const size_t h = ((size_t(1) << 27) - 1) * kPoint, l = kPoRep32.aux * kPoint;
  const size_t rest = size_t(47.2e9) - h - l, a = rest / 4;
  return {h, l, a, a, rest - 2 * a};
}

// What cuzk has of a card of `total` bytes: the margin and ~0.6 GB of CUDA context are not its.
size_t available_on(size_t total) { return total - device_memory_margin(total) - size_t(0.6e9); }

DeviceMemoryPlan porep32_on(size_t total, unsigned copies = 0) {
  return plan_device_memory(available_on(total), 0, kPoRep32, porep32_queries(), (size_t(1) << 27) - 1, copies);
}

size_t planned_bytes(const DeviceMemoryPlan& p, size_t h_points) {
  const size_t copies = p.h_copies.copies > 1 ? (p.h_copies.copies - 1) * h_points * kPoint : 0;
  return p.scratch + p.twiddles + p.compact_abc + p.resident_bytes + copies + p.witness_ahead + p.workspace_limit;
}

TEST(DeviceMemoryPlanTest, ASeparatePartitionMatchesTheMeasuredWorkingSet) {
  // 2^27 on the H200: workspace 37 + scratch 17 + compact a/b/c 2.2 + twiddles 2.1 = 58.3 GB.
  const DeviceMemoryPlan p = porep32_on(size_t(1) << 50, 1);
  ASSERT_TRUE(p.fits);
  EXPECT_EQ(p.layout, ScratchLayout::kSeparate);
  const double working = double(p.scratch + p.twiddles + p.compact_abc + msm_workspace_whole(kPoRep32.n));
  EXPECT_GT(working, 0.92 * 58.3e9);
  EXPECT_LT(working, 1.08 * 58.3e9);
  EXPECT_EQ(device_memory_margin(size_t(100) << 30), size_t(6) << 30);
}

TEST(DeviceMemoryPlanTest, TheH200KeepsEveryBaseAndCopiesOfH) {
  const DeviceMemoryPlan p = porep32_on(size_t(143771) << 20);  // 141 GiB
  ASSERT_TRUE(p.fits) << p.why;
  EXPECT_EQ(p.layout, ScratchLayout::kSeparate);
  EXPECT_TRUE(p.all_resident());
  EXPECT_EQ(p.streamed_bytes, 0u);
  EXPECT_GE(p.h_copies.copies, 2u) << p.summary();
  EXPECT_GE(p.workspace_limit, msm_workspace_whole(kPoRep32.n));  // H's MSM in one piece
}

TEST(DeviceMemoryPlanTest, AnH100KeepsEveryBaseAndChunksItsMsms) {
  const DeviceMemoryPlan p = porep32_on(size_t(81559) << 20);  // the H100's 80 GB
  ASSERT_TRUE(p.fits) << p.why;
  EXPECT_EQ(p.layout, ScratchLayout::kSeparate);
  EXPECT_TRUE(p.all_resident()) << p.summary();
  EXPECT_EQ(p.h_copies.copies, 1u) << "no room for copies beside a whole MSM";
  EXPECT_LT(p.workspace_limit, msm_workspace_whole(kPoRep32.n)) << "the MSMs must be chunked";
  EXPECT_GE(p.workspace_limit, 5 * kGB) << p.summary();
}

TEST(DeviceMemoryPlanTest, SmallCardsOverlayTheScratchAndStreamBases) {
  for (size_t gib : {16, 24, 32}) {
    SCOPED_TRACE(std::to_string(gib) + " GiB");
    const DeviceMemoryPlan p = porep32_on(gib << 30);
    ASSERT_TRUE(p.fits) << p.why;
    EXPECT_EQ(p.layout, ScratchLayout::kOverlaid) << p.summary();
    EXPECT_EQ(p.scratch, 32 * 2 * kPoRep32.n) << "2 n scalars: aux and inputs fit in them";
    EXPECT_GT(p.streamed_bytes, 0u);
    EXPECT_EQ(p.resident_bytes + p.streamed_bytes, size_t(47.2e9));
    EXPECT_EQ(p.h_copies.copies, 1u);
    EXPECT_GE(p.workspace_limit, msm_workspace_floor(kPoRep32.n));
    EXPECT_LE(planned_bytes(p, kPoRep32.n - 1), p.available);
  }
  // The larger card keeps more bases.
  EXPECT_GT(porep32_on(size_t(32) << 30).resident_bytes, porep32_on(size_t(16) << 30).resident_bytes);
}

TEST(DeviceMemoryPlanTest, ACardTooSmallForTheDomainSaysWhatItNeeds) {
  const DeviceMemoryPlan p = porep32_on(size_t(8) << 30);
  EXPECT_FALSE(p.fits);
  EXPECT_NE(p.why.find("2^27"), std::string::npos) << p.why;
  EXPECT_NE(p.why.find("GB"), std::string::npos) << p.why;
  EXPECT_NE(p.summary().find("does not fit"), std::string::npos);
}

// Over many card sizes, other sets' bytes and shapes: the plan never places more than it has, and
// never leaves the MSMs less than their floor.
TEST(DeviceMemoryPlanTest, NeverPlacesMoreThanIsAvailable) {
  std::mt19937_64 rng(test::run_seed());
  for (int i = 0; i < 2000; i++) {
    const unsigned log_n = 10 + unsigned(rng() % 18);
    const size_t n = size_t(1) << log_n;
    const ProofShape shape{n, n - n / 8 + rng() % (n / 4), 1 + rng() % 400};
    const QueryBytes q{(n - 1) * kPoint, shape.aux * kPoint, rng() % n * kPoint, rng() % n * kPoint,
                       rng() % n * 2 * kPoint};
    const size_t available = size_t(rng() % (size_t(160) << 30)), others = size_t(rng() % (size_t(40) << 30));
    const bool witness_only = rng() % 2;
    const DeviceMemoryPlan p =
        plan_device_memory(available, others, shape, q, n - 1, unsigned(rng() % 4), witness_only);
    SCOPED_TRACE(p.summary());
    if (!p.fits) {
      EXPECT_FALSE(p.why.empty());
      continue;
    }
    EXPECT_LE(planned_bytes(p, n - 1) + others, available);
    EXPECT_GE(p.workspace_limit, msm_workspace_floor(n));
    size_t resident = 0, streamed = 0;
    for (unsigned k = 0; k < kQueries; k++) (p.resident[k] ? resident : streamed) += q[k];
    EXPECT_EQ(resident, p.resident_bytes);
    EXPECT_EQ(streamed, p.streamed_bytes);
    if (p.h_copies.copies > 1) {
      EXPECT_TRUE(p.all_resident());
    }
    EXPECT_EQ(p.compact_abc == 0, witness_only);
    if (witness_only && p.layout == ScratchLayout::kSeparate) {
      EXPECT_EQ(p.scratch, 32 * (2 * n + shape.aux + shape.inputs));  // c over b
    }
    if (p.witness_ahead) {
      EXPECT_TRUE(witness_only && p.all_resident() && p.layout == ScratchLayout::kSeparate);
      EXPECT_EQ(p.witness_ahead, 32 * (shape.aux + shape.inputs));
      EXPECT_GE(p.workspace_limit, msm_workspace_whole(n));
    }
  }
}

// Witness-only proofs need no room for compact a/b/c and form c over b (2 n + witness: n scalars
// less; the MSMs get both), and get a second witness buffer where every base stays and H's MSM
// keeps its whole workspace: on the H200 for a 32 GiB partition (4.2 GB, taken before the copies
// of H), not on the H100 (its MSMs are chunked already), nor for full synthesis.
TEST(DeviceMemoryPlanTest, WitnessOnlyProofsFormCOverBAndGetASecondWitnessBuffer) {
  const size_t h200 = available_on(size_t(143771) << 20), h100 = available_on(size_t(81559) << 20);
  const auto plan = [&](size_t available, bool witness_only) {
    return plan_device_memory(available, 0, kPoRep32, porep32_queries(), kPoRep32.n - 1, 0, witness_only);
  };
  const DeviceMemoryPlan with = plan(h200, true), without = plan(h200, false);
  ASSERT_TRUE(with.fits && without.fits);
  EXPECT_EQ(with.witness_ahead, 32 * (kPoRep32.aux + kPoRep32.inputs)) << with.summary();
  EXPECT_NE(with.summary().find("witness ahead 4.2 GB"), std::string::npos) << with.summary();
  EXPECT_EQ(without.witness_ahead, 0u);
  const size_t witness = kPoRep32.aux + kPoRep32.inputs;
  EXPECT_EQ(with.scratch, 32 * (2 * kPoRep32.n + witness));
  EXPECT_EQ(without.scratch, 32 * (3 * kPoRep32.n + witness));
  EXPECT_EQ(with.resident_bytes, without.resident_bytes);
  EXPECT_GE(with.h_copies.copies, 2u) << "copies of H still fit beside it";
  EXPECT_GE(with.workspace_limit, msm_workspace_whole(kPoRep32.n));
  EXPECT_LE(planned_bytes(with, kPoRep32.n - 1), with.available);
  EXPECT_EQ(with.compact_abc, 0u);
  EXPECT_GT(without.compact_abc, 2 * kGB);
  const DeviceMemoryPlan h100_witness = plan(h100, true), h100_full = plan(h100, false);
  EXPECT_EQ(h100_witness.witness_ahead, 0u) << h100_witness.summary();
  EXPECT_EQ(h100_witness.workspace_limit, h100_full.workspace_limit + h100_full.compact_abc + 32 * kPoRep32.n)
      << "compact a/b/c's room and c's go to the MSMs";
}

// Beside a 32 GiB PoRep's compiled matrices (5.52 GiB on the device), a card of 24 GiB or more
// takes the witness path (separate layout, c over b, bases streamed where they do not fit): the
// host then holds no a/b/c. Smaller cards overlay the witness on a/b/c, and their proofs go by
// full synthesis.
TEST(DeviceMemoryPlanTest, CardsFrom24GiBTakeTheWitnessPath) {
  const size_t matrices = size_t(5.52 * double(size_t(1) << 30));
  const size_t witness = kPoRep32.aux + kPoRep32.inputs;
  for (size_t gib : {16, 20, 24, 32, 48}) {
    SCOPED_TRACE(std::to_string(gib) + " GiB");
    const DeviceMemoryPlan p = plan_device_memory(available_on(gib << 30) - matrices, 0, kPoRep32, porep32_queries(),
                                                  kPoRep32.n - 1, 0, /*witness_only=*/true);
    if (gib < 24) {
      EXPECT_TRUE(!p.fits || p.layout == ScratchLayout::kOverlaid) << p.summary();
      continue;
    }
    ASSERT_TRUE(p.fits) << p.why;
    EXPECT_EQ(p.layout, ScratchLayout::kSeparate) << p.summary();
    EXPECT_EQ(p.scratch, 32 * (2 * kPoRep32.n + witness));
    EXPECT_GT(p.streamed_bytes, 0u);
    EXPECT_GE(p.workspace_limit, msm_workspace_floor(kPoRep32.n));
    EXPECT_LE(planned_bytes(p, kPoRep32.n - 1), p.available);
  }
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

TEST(DeviceMemoryPlanTest, CopiesStayBelowTwoToTheThirtyOnePoints) {
  const size_t n = size_t(1) << 28;
  const HCopiesPlan plan = plan_h_copies(n, 0, size_t(1) << 50);
  EXPECT_GE(plan.copies, 2u);
  EXPECT_LT(double(plan.copies) * double(n), double(size_t(1) << 31));
}

}  // namespace
}  // namespace cuzk::groth16::cuda

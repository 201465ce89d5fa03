// The GPU MSM's affine bucket rounds (msm/cuda/affine_rounds.hpp, CUZK_GPU_MSM_AFFINE=1) run
// here on the host, thread by thread, with the round structure of the device driver (slot
// counts, exclusive scan, rounds until few additions are left, then XYZZ accumulation of the
// remaining list): every bucket's sum must equal the plain sum of its points. Inputs cover
// random buckets, one heavy bucket, singletons, repeated bases (doublings, also of doublings),
// a base with its negation (P + (-P)), the point at infinity, points with x = 0, and chunk and
// thread counts that leave partial last threads. No GPU needed.
#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "ec/random_points.hpp"
#include "msm/cuda/affine_rounds.hpp"
#include "test_support.hpp"

namespace cuzk::msm::cuda {
namespace {

using ec::G1Curve;
using ec::G2Curve;

struct Params {
  unsigned max_chunk;
  size_t target_threads;
  size_t min_adds_per_thread;  // 0: rounds until no addition is left
};

struct Sorted {
  std::vector<uint32_t> keys, vals;
};

Sorted sort_pairs(std::vector<uint32_t> keys, std::vector<uint32_t> vals) {
  std::vector<size_t> order(keys.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return keys[a] < keys[b]; });
  Sorted s;
  for (size_t i : order) {
    s.keys.push_back(keys[i]);
    s.vals.push_back(vals[i]);
  }
  return s;
}

// The device driver's rounds, emulated; returns the bucket sums and the number of rounds.
template <class Curve>
std::vector<ec::XyzzPoint<Curve>> emulate(const std::vector<ec::AffinePoint<Curve>>& bases, const Sorted& pairs,
                                          size_t buckets, const Params& params, unsigned* rounds_out) {
  using Affine = ec::AffinePoint<Curve>;
  using Xyzz = ec::XyzzPoint<Curve>;
  size_t n = pairs.keys.size();
  std::vector<uint32_t> keys = pairs.keys;
  std::vector<Affine> points;
  unsigned rounds = 0;
  for (;;) {
    const AffinePlan plan = plan_affine_round(n, params.max_chunk, params.target_threads);
    std::vector<uint32_t> cnt(plan.slots), pos(plan.slots);
    for (size_t m = 0; m < plan.slots; m++) cnt[m] = affine_slot_outputs(keys.data(), n, m);
    std::exclusive_scan(cnt.begin(), cnt.end(), pos.begin(), uint32_t(0));
    const size_t total = plan.slots ? size_t(pos.back()) + cnt.back() : 0;
    const size_t adds = n - total;
    if (adds == 0 || adds < params.min_adds_per_thread * plan.threads) break;
    std::vector<uint32_t> keys_out(total, UINT32_MAX);
    std::vector<Affine> out(total);
    // Threads in reverse order: a thread must not depend on another's writes.
    for (size_t t = plan.threads; t-- > 0;) {
      if (rounds == 0) {
        const GatherTerms<Curve> terms{bases.data(), pairs.vals.data()};
        affine_round_thread<Curve>(t, plan.threads, plan.chunk, keys.data(), terms, n, pos.data(), keys_out.data(),
                                   out.data());
      } else {
        const ListTerms<Curve> terms{points.data()};
        affine_round_thread<Curve>(t, plan.threads, plan.chunk, keys.data(), terms, n, pos.data(), keys_out.data(),
                                   out.data());
      }
    }
    EXPECT_TRUE(std::is_sorted(keys_out.begin(), keys_out.end())) << "round " << rounds;
    EXPECT_EQ(std::count(keys_out.begin(), keys_out.end(), UINT32_MAX), 0) << "round " << rounds;
    for (const Affine& p : out) EXPECT_TRUE(p.is_on_curve()) << "round " << rounds;
    keys = std::move(keys_out);
    points = std::move(out);
    n = total;
    rounds++;
  }
  std::vector<Xyzz> sums(buckets, Xyzz::infinity());
  for (size_t j = 0; j < n; j++) {
    if (rounds == 0) {
      GatherTerms<Curve>::add(sums[keys[j]], GatherTerms<Curve>{bases.data(), pairs.vals.data()}.load(j));
    } else {
      ListTerms<Curve>::add(sums[keys[j]], points[j]);
    }
  }
  if (rounds_out) *rounds_out = rounds;
  return sums;
}

template <class Curve>
void expect_bucket_sums(const std::vector<ec::AffinePoint<Curve>>& bases, const std::vector<uint32_t>& keys,
                        const std::vector<uint32_t>& vals, size_t buckets, const std::string& what) {
  using Jacobian = ec::JacobianPoint<Curve>;
  std::vector<Jacobian> want(buckets, Jacobian::infinity());
  for (size_t j = 0; j < keys.size(); j++) {
    auto p = bases[vals[j] >> 1];
    if (vals[j] & 1) p = -p;
    want[keys[j]] = want[keys[j]].add_mixed(p);
  }
  const Sorted sorted = sort_pairs(keys, vals);
  // Slots pair entries 2m and 2m + 1, so a bucket of two at an odd start never adds (the XYZZ
  // accumulation takes it); one bucket of two or more always does.
  const bool shared_bucket = std::adjacent_find(sorted.keys.begin(), sorted.keys.end()) != sorted.keys.end();
  const bool one_bucket = buckets == 1 && keys.size() >= 2;
  for (const Params params : {Params{3, 4, 0}, Params{1, 1, 0}, Params{2, 1000, 0}, Params{7, 3, 0},
                              Params{1024, 65536, 0}, Params{1024, 16, 64}}) {
    unsigned rounds = 0;
    const auto got = emulate<Curve>(bases, sorted, buckets, params, &rounds);
    if (rounds > 0) {
      EXPECT_TRUE(shared_bucket) << what;
    }
    if (one_bucket && params.min_adds_per_thread == 0) {
      EXPECT_GT(rounds, 0u) << what;
    }
    for (size_t b = 0; b < buckets; b++) {
      ASSERT_EQ(got[b].to_jacobian(), want[b]) << what << ", bucket " << b << ", chunk " << params.max_chunk
                                               << ", threads " << params.target_threads << ", rounds " << rounds;
    }
  }
}

template <class Curve>
std::vector<ec::AffinePoint<Curve>> special_bases(std::mt19937_64& rng) {
  auto bases = ec::pseudo_random_subgroup_points<Curve>(64, rng);
  bases[0] = ec::AffinePoint<Curve>::infinity();
  bases[2] = bases[1];   // a repeated base
  bases[4] = -bases[3];  // a base and its negation
  bases[5] = bases[1];   // three copies
  return bases;
}

template <class Curve>
void run_cases(std::vector<ec::AffinePoint<Curve>> bases, std::mt19937_64& rng) {
  const uint32_t nb = uint32_t(bases.size());
  auto random_pairs = [&](size_t n, uint32_t buckets, std::vector<uint32_t>& keys, std::vector<uint32_t>& vals) {
    keys.resize(n);
    vals.resize(n);
    for (size_t i = 0; i < n; i++) {
      keys[i] = uint32_t(rng() % buckets);
      vals[i] = uint32_t(rng() % nb) << 1 | uint32_t(rng() & 1);
    }
  };
  std::vector<uint32_t> keys, vals;
  for (size_t n : {size_t(0), size_t(1), size_t(2), size_t(3), size_t(17), size_t(300), size_t(1001)}) {
    for (uint32_t buckets : {1u, 3u, 40u, 5000u}) {
      random_pairs(n, buckets, keys, vals);
      expect_bucket_sums<Curve>(bases, keys, vals, buckets,
                                "random, n = " + std::to_string(n) + ", buckets " + std::to_string(buckets));
    }
  }
  // One bucket of one repeated base (doublings of doublings), with and without a negation.
  for (size_t n : {size_t(2), size_t(7), size_t(64), size_t(129)}) {
    keys.assign(n, 0);
    vals.assign(n, 6u << 1);
    expect_bucket_sums<Curve>(bases, keys, vals, 1, "repeated base, n = " + std::to_string(n));
    vals[n / 2] |= 1;
    expect_bucket_sums<Curve>(bases, keys, vals, 1, "repeated base with one negation, n = " + std::to_string(n));
  }
  // P + (-P) in every pair position, by sign and by the negated base; infinity among them.
  keys = {0, 0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 2};
  vals = {7u << 1,     7u << 1 | 1, 3u << 1, 4u << 1, 0u << 1, 8u << 1,
          0u << 1 | 1, 8u << 1 | 1, 9u << 1, 1u << 1, 2u << 1, 5u << 1 | 1};
  expect_bucket_sums<Curve>(bases, keys, vals, 3, "negations and infinity");
  keys.assign(10, 0);
  vals.assign(10, 0);  // only infinity
  expect_bucket_sums<Curve>(bases, keys, vals, 1, "all infinity");
}

TEST(MsmAffineRounds, G1MatchesPlainBucketSums) {
  auto rng = test::make_rng();
  auto bases = special_bases<G1Curve>(rng);
  // (0, 2) and (0, -2) lie on y^2 = x^3 + 4 (not in the subgroup; bucket sums do not care):
  // x = 0 takes the full-point path of the forward pass.
  const ec::G1Affine zero_x{ff::Fp::zero(), ff::Fp::from_u64(2)};
  ASSERT_TRUE(zero_x.is_on_curve());
  bases[10] = zero_x;
  bases[11] = -zero_x;
  bases[12] = zero_x;
  run_cases<G1Curve>(bases, rng);
}

TEST(MsmAffineRounds, G2MatchesPlainBucketSums) {
  auto rng = test::make_rng();
  run_cases<G2Curve>(special_bases<G2Curve>(rng), rng);
}

TEST(MsmAffineRounds, AffineSumExceptionalCases) {
  using ec::G1Affine;
  auto rng = test::make_rng();
  const auto pts = ec::pseudo_random_subgroup_points<G1Curve>(2, rng);
  const G1Affine p = pts[0], q = pts[1], inf = G1Affine::infinity();
  auto sum = [](const G1Affine& a, const G1Affine& b) {
    return affine_sum<G1Curve>(a, b, affine_denominator<G1Curve>(a, b).inverse());
  };
  const auto jp = ec::G1Jacobian::from_affine(p), jq = ec::G1Jacobian::from_affine(q);
  EXPECT_EQ(sum(p, q), (jp + jq).to_affine());
  EXPECT_EQ(sum(p, p), jp.dbl().to_affine());
  EXPECT_EQ(sum(p, -p), inf);
  EXPECT_EQ(sum(inf, q), q);
  EXPECT_EQ(sum(p, inf), p);
  EXPECT_EQ(sum(inf, inf), inf);
  EXPECT_EQ(affine_denominator<G1Curve>(p, -p), ff::Fp::one());
}

TEST(MsmAffineRounds, PlanCoversEverySlot) {
  for (size_t n : {size_t(0), size_t(1), size_t(2), size_t(5), size_t(1000), size_t(123457), size_t(1) << 28}) {
    for (unsigned chunk : {1u, 32u, 1024u}) {
      for (size_t threads : {size_t(1), size_t(7), size_t(65536)}) {
        const AffinePlan p = plan_affine_round(n, chunk, threads);
        EXPECT_EQ(p.slots, (n + 1) / 2);
        EXPECT_GE(p.chunk, 1u);
        EXPECT_LE(p.chunk, chunk);
        EXPECT_GE(p.threads * p.chunk, p.slots);
        if (p.slots) {
          EXPECT_LT((p.threads - 1) * p.chunk, p.slots);
        }
      }
    }
  }
}

}  // namespace
}  // namespace cuzk::msm::cuda

// ZeroOneVector: the compact form of vectors that are mostly 0 and 1 gives back every entry, its
// chunk offsets point at each chunk's first other entry, and vectors with too many other
// entries are refused. (The device's expansion is checked against expand() in ntt_gpu_test.)
#include "ntt/zero_one_vector.hpp"

#include <algorithm>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace cuzk::ntt {
namespace {

// n entries: zero with probability p0, one with p1, else uniform (never 0 or 1 in practice).
std::vector<Fr> mixed(size_t n, double p0, double p1, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<Fr> v(n);
  for (auto& x : v) {
    const double t = u(rng);
    x = t < p0 ? Fr::zero() : t < p0 + p1 ? Fr::one() : Fr::random(rng);
  }
  return v;
}

size_t count_others(const std::vector<Fr>& v) {
  size_t m = 0;
  for (const Fr& x : v) m += !x.is_zero() && x != Fr::one();
  return m;
}

TEST(ZeroOneVectorTest, GivesBackEveryEntry) {
  auto rng = test::make_rng();
  const size_t sizes[] = {0, 1, 15, 16, 17, 1023, 1024, 1025, 5000, 70000};
  const double mixes[][2] = {{0.375, 0.375}, {0.5, 0.5}, {1, 0}, {0, 1}, {0.2, 0.3}, {0, 0}};
  for (size_t n : sizes) {
    for (const auto& mix : mixes) {
      const auto v = mixed(n, mix[0], mix[1], rng);
      const auto z = ZeroOneVector::compress(v, 1.0);
      ASSERT_TRUE(z.has_value());
      ASSERT_EQ(z->size, n);
      EXPECT_EQ(z->others.size(), count_others(v)) << n;
      EXPECT_EQ(z->kinds.size(), z->chunks() * ZeroOneVector::kWordsPerChunk);
      ASSERT_EQ(z->chunk_offsets.size(), z->chunks() + 1);
      EXPECT_EQ(z->chunk_offsets.back(), z->others.size());
      // Each chunk's offset is the count of others before it.
      for (size_t k = 0; k < z->chunks(); k++) {
        const std::vector<Fr> before(v.begin(), v.begin() + long(k * ZeroOneVector::kChunk));
        ASSERT_EQ(z->chunk_offsets[k], count_others(before)) << "n = " << n << ", chunk " << k;
      }
      EXPECT_EQ(z->expand(), v) << "n = " << n << ", zeros " << mix[0] << ", ones " << mix[1];
      EXPECT_EQ(z->bytes(), ZeroOneVector::bytes_for(n, z->others.size()));
    }
  }
}

TEST(ZeroOneVectorTest, TellsZeroAndOneFromTheirLookalikes) {
  // Montgomery forms of 0 and 1 only: the integer 1 in the lowest limb is not one, and values
  // whose limbs hold one's limbs in part are others.
  Fr raw_one = Fr::zero();
  raw_one.mont.limb[0] = 1;
  Fr partial = Fr::one();
  partial.mont.limb[3] = 0;
  const std::vector<Fr> v = {Fr::zero(), Fr::one(), raw_one, partial, -Fr::one(), Fr::from_u64(2)};
  const auto z = ZeroOneVector::compress(v, 1.0);
  ASSERT_TRUE(z.has_value());
  EXPECT_EQ(z->others.size(), 4u);
  EXPECT_EQ(z->kinds[0], 0u | (1u << 2) | (2u << 4) | (2u << 6) | (2u << 8) | (2u << 10));
  EXPECT_EQ(z->expand(), v);
}

TEST(ZeroOneVectorTest, RefusesVectorsWithTooManyOthers) {
  auto rng = test::make_rng();
  const auto v = mixed(4096, 0.2, 0.2, rng);  // ~60% others
  EXPECT_FALSE(ZeroOneVector::compress(v, 0.5).has_value());
  EXPECT_TRUE(ZeroOneVector::compress(v, 0.7).has_value());
  const auto w = mixed(4096, 0.4, 0.4, rng);  // ~20% others
  EXPECT_TRUE(ZeroOneVector::compress(w).has_value());
  std::vector<Fr> exact(10, Fr::from_u64(5));
  exact[0] = exact[1] = exact[2] = exact[3] = exact[4] = Fr::zero();  // exactly half others
  EXPECT_TRUE(ZeroOneVector::compress(exact, 0.5).has_value());
}

// compress_into refills a vector in place: the arrays keep their addresses while their capacity
// suffices (what a page-locked copy needs), before_fill sees the sizes first and may reserve
// more, and a refused vector leaves it empty with its memory.
TEST(ZeroOneVectorTest, RefillsInPlace) {
  auto rng = test::make_rng();
  ZeroOneVector z;
  size_t seen_words = 0, seen_others = 0;
  auto reserve_more = [&](size_t words, size_t others) {
    seen_words = words;
    seen_others = others;
    if (others > z.others.capacity()) z.others.reserve(others + others / 4);
    if (words > z.kinds.capacity()) z.kinds.reserve(words);
  };
  const auto first = mixed(70000, 0.375, 0.375, rng);
  ASSERT_TRUE(ZeroOneVector::compress_into(first, z, 0.5, reserve_more));
  EXPECT_EQ(seen_words, z.kinds.size());
  EXPECT_EQ(seen_others, count_others(first));
  EXPECT_EQ(z.expand(), first);
  const uint32_t* kinds = z.kinds.data();
  const Fr* others = z.others.data();
  // Slightly more others (within the 25% reserved), and then fewer: same memory, right entries.
  for (double p : {0.36, 0.45}) {
    const auto next = mixed(70000, p, p, rng);
    ASSERT_TRUE(ZeroOneVector::compress_into(next, z, 0.5, reserve_more));
    EXPECT_EQ(z.kinds.data(), kinds);
    EXPECT_EQ(z.others.data(), others);
    EXPECT_EQ(z.others.size(), count_others(next));
    EXPECT_EQ(z.expand(), next) << p;
    const auto fresh = ZeroOneVector::compress(next, 0.5);  // the same arrays as a fresh compression
    ASSERT_TRUE(fresh.has_value());
    EXPECT_TRUE(std::equal(z.kinds.begin(), z.kinds.end(), fresh->kinds.begin(), fresh->kinds.end()));
    EXPECT_EQ(z.chunk_offsets, fresh->chunk_offsets);
    EXPECT_TRUE(std::equal(z.others.begin(), z.others.end(), fresh->others.begin(), fresh->others.end()));
  }
  const size_t capacity = z.others.capacity();
  EXPECT_FALSE(ZeroOneVector::compress_into(mixed(70000, 0.1, 0.1, rng), z, 0.5));
  EXPECT_EQ(z.size, 0u);
  EXPECT_TRUE(z.others.empty());
  EXPECT_EQ(z.others.capacity(), capacity);
}

}  // namespace
}  // namespace cuzk::ntt

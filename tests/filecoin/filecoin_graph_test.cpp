// The SDR graph and the PoRep challenges (src/filecoin/{chacha,feistel,graph,challenges}):
// published vectors for ChaCha20 (RFC 8439), BLAKE2b (RFC 7693, the reference keyed KAT) and
// rand_chacha's ChaCha20Rng; rust-fil-proofs' own hard-coded synthetic challenge vector; the
// Feistel network as a bijection; and a real 8 MiB StackedDrg8MiBV1_1 sector (its Commit1 output):
// replica_id, both challenges and all their DRG and expander parents.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "filecoin/common/chacha.hpp"
#include "filecoin/porep/challenges.hpp"
#include "filecoin/porep/feistel.hpp"
#include "filecoin/porep/graph.hpp"
#include "filecoin/porep/registered_proofs.hpp"
#include "test_support.hpp"

namespace cuzk::filecoin {
namespace {

std::vector<uint8_t> hex(std::string_view s) {
  std::vector<uint8_t> out;
  for (size_t i = 0; i + 1 < s.size(); i += 2)
    out.push_back(uint8_t(std::stoul(std::string(s.substr(i, 2)), nullptr, 16)));
  return out;
}
Bytes32 hex32(std::string_view s) {
  const auto v = hex(s);
  Bytes32 out{};
  EXPECT_EQ(v.size(), 32u) << s;
  std::copy_n(v.begin(), std::min<size_t>(32, v.size()), out.begin());
  return out;
}
Bytes32 le32(uint64_t v) {
  Bytes32 out{};
  for (int i = 0; i < 8; i++) out[i] = uint8_t(v >> (8 * i));
  return out;
}
Bytes32 porep_id_of(uint64_t id) { return le32(id); }

// ---- ChaCha ------------------------------------------------------------------------------

TEST(FilecoinChaChaTest, Rfc8439BlockFunction) {
  // RFC 8439 2.3.2: key 00..1f, nonce 00:00:00:09:00:00:00:4a:00:00:00:00, block counter 1.
  std::array<uint8_t, 32> key;
  for (int i = 0; i < 32; i++) key[i] = uint8_t(i);
  const auto nonce = hex("000000090000004a00000000");
  ChaCha20Ietf c(key, std::span<const uint8_t, 12>(nonce.data(), 12));
  c.seek(64);
  std::array<uint8_t, 64> out;
  c.keystream(out);
  EXPECT_EQ(std::vector<uint8_t>(out.begin(), out.end()),
            hex("10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e"
                "d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e"));
  EXPECT_EQ(c.position(), 128u);
}

TEST(FilecoinChaChaTest, Rfc8439EncryptionInPiecesAndSeek) {
  // RFC 8439 2.4.2: the "sunscreen" plaintext with key 00..1f, nonce 00..4a00000000, counter 1.
  std::array<uint8_t, 32> key;
  for (int i = 0; i < 32; i++) key[i] = uint8_t(i);
  const auto nonce = hex("000000000000004a00000000");
  const std::string pt =
      "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would "
      "be it.";
  const auto want =
      hex("6e2e359a2568f98041ba0728dd0d6981e97e7aec1d4360c20a27afccfd9fae0bf91b65c5524733ab8f593dabcd62b3571639d624e6"
          "5152ab8f530c359f0861d807ca0dbf500d6a6156a38e088a22b65e52bc514d16ccf806818ce91ab77937365af90bbf74a35be6b40b8e"
          "edf2785e42874d");
  ASSERT_EQ(pt.size(), want.size());
  // In uneven pieces, crossing block boundaries inside a call and between calls.
  ChaCha20Ietf c(key, std::span<const uint8_t, 12>(nonce.data(), 12));
  c.seek(64);
  std::vector<uint8_t> data(pt.begin(), pt.end());
  size_t at = 0;
  for (size_t piece : {1, 30, 33, 7, 64, 100}) {
    const size_t n = std::min(piece, data.size() - at);
    c.apply_keystream(std::span<uint8_t>(data).subspan(at, n));
    at += n;
  }
  ASSERT_EQ(at, data.size());
  EXPECT_EQ(data, want);
  // Seeking into the middle gives the same bytes as running there.
  ChaCha20Ietf d(key, std::span<const uint8_t, 12>(nonce.data(), 12));
  d.seek(64 + 77);
  std::vector<uint8_t> tail(pt.begin() + 77, pt.end());
  d.apply_keystream(tail);
  EXPECT_TRUE(std::equal(tail.begin(), tail.end(), want.begin() + 77));
  EXPECT_THROW(d.seek(uint64_t(64) << 32), std::out_of_range);
}

TEST(FilecoinChaChaTest, RandChachaChaCha20RngTrueValues) {
  // rand_chacha 0.3 chacha.rs tests (ChaChaRng = ChaCha20Rng), from the IETF draft's vectors.
  {
    ChaCha20Rng rng(Bytes32{});  // test_chacha_true_values_a
    const uint32_t want[32] = {0xade0b876, 0x903df1a0, 0xe56a5d40, 0x28bd8653, 0xb819d2bd, 0x1aed8da0, 0xccef36a8,
                               0xc70d778b, 0x7c5941da, 0x8d485751, 0x3fe02477, 0x374ad8b8, 0xf4b8436a, 0x1ca11815,
                               0x69b687c3, 0x8665eeb2, 0xbee7079f, 0x7a385155, 0x7c97ba98, 0x0d082d73, 0xa0290fcb,
                               0x6965e348, 0x3e53c612, 0xed7aee32, 0x7621b729, 0x434ee69c, 0xb03371d5, 0xd539d874,
                               0x281fed31, 0x45fb0a51, 0x1f0ae1ac, 0x6f4d794b};
    for (uint32_t w : want) EXPECT_EQ(rng.next_u32(), w);
    EXPECT_EQ(rng.word_pos(), 32u);
  }
  {
    Bytes32 seed{};  // test_chacha_true_values_b: block 1 of key ...01
    seed[31] = 1;
    ChaCha20Rng rng(seed);
    for (int i = 0; i < 16; i++) rng.next_u32();
    const uint32_t want[16] = {0x2452eb3a, 0x9249f8ec, 0x8d829d9b, 0xddd4ceb1, 0xe8252083, 0x60818b01,
                               0xf38422b8, 0x5aaa49c9, 0xbb00ca8e, 0xda3ba7b4, 0xc4b592d1, 0xfdf2732f,
                               0x4436274e, 0x2561b3c8, 0xebdd4aa6, 0xa0136c00};
    for (uint32_t w : want) EXPECT_EQ(rng.next_u32(), w);
  }
  {
    Bytes32 seed{};  // test_chacha_true_values_c: block 2 of key 00 ff 00 ...
    seed[1] = 0xff;
    ChaCha20Rng rng(seed);
    for (int i = 0; i < 32; i++) rng.next_u32();
    const uint32_t want[16] = {0xfb4dd572, 0x4bc42ef1, 0xdf922636, 0x327f1394, 0xa78dea8f, 0x5e269039,
                               0xa1bebbc1, 0xcaf09aae, 0xa25ab213, 0x48a6b46c, 0x1b9d9bcb, 0x092c5be6,
                               0x546ca624, 0x1bec45d5, 0x87f47473, 0x96f0992e};
    for (uint32_t w : want) EXPECT_EQ(rng.next_u32(), w);
    EXPECT_EQ(rng.word_pos(), 48u);
  }
  {
    const uint8_t s[32] = {0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0,
                           4, 0, 0, 0, 5, 0, 0, 0, 6, 0, 0, 0, 7, 0, 0, 0};
    ChaCha20Rng rng(std::span<const uint8_t, 32>(s, 32));  // test_chacha_multiple_blocks
    const uint32_t want[16] = {0xf225c81a, 0x6ab1be57, 0x04d42951, 0x70858036, 0x49884684, 0x64efec72,
                               0x4be2d186, 0x3615b384, 0x11cfa18e, 0xd3c50049, 0x75c775f6, 0x434c6530,
                               0x2c5bad8f, 0x898881dc, 0x5f1c86d9, 0xc1f8e7f4};
    for (uint32_t w : want) {
      EXPECT_EQ(rng.next_u32(), w);
      for (int i = 0; i < 16; i++) rng.next_u32();
    }
  }
  {
    const uint8_t s[32] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0,
                           2, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0};
    ChaCha20Rng rng(std::span<const uint8_t, 32>(s, 32));  // test_chacha_construction
    EXPECT_EQ(rng.next_u32(), 137206642u);
  }
}

TEST(FilecoinChaChaTest, NextU64IsTwoWordsAlsoAcrossBlocksAndRandChachaRefills) {
  // BlockRng::next_u64 returns word i | word i+1 << 32 in all three of its branches, including the
  // one that straddles rand_chacha's 64-word refill (odd offsets reach it).
  auto rng = test::make_rng();
  Bytes32 seed;
  for (auto& b : seed) b = uint8_t(rng());
  for (unsigned skip : {0u, 1u, 15u, 63u, 127u}) {
    ChaCha8Rng a(seed), b(seed);
    for (unsigned i = 0; i < skip; i++) a.next_u32(), b.next_u32();
    for (int i = 0; i < 80; i++) {
      const uint64_t lo = b.next_u32();
      const uint64_t hi = b.next_u32();
      ASSERT_EQ(a.next_u64(), lo | hi << 32) << "skip " << skip << " i " << i;
    }
  }
  // ChaCha8 is the 8-round block function on rand_chacha's layout (counter in words 12-13).
  ChaCha8Rng r8(seed);
  uint32_t st[16], out[16];
  chacha_init(st, seed);
  st[12] = 1;  // the second block
  chacha_block(st, 8, out);
  for (int i = 0; i < 16; i++) r8.next_u32();
  for (int i = 0; i < 16; i++) EXPECT_EQ(r8.next_u32(), out[i]);
}

// ---- BLAKE2b -------------------------------------------------------------------------------

TEST(FilecoinBlake2bTest, Rfc7693AndReferenceKeyedKat) {
  const std::string abc = "abc";  // RFC 7693 appendix A
  const auto d = blake2b_512(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(abc.data()), 3));
  EXPECT_EQ(std::vector<uint8_t>(d.begin(), d.end()),
            hex("ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc9518d3"
                "8aa8dbf1925ab92386edd4009923"));
  // blake2b-kat.txt (BLAKE2 reference): key 00..3f, input 00..(n-1).
  std::array<uint8_t, 64> key;
  for (int i = 0; i < 64; i++) key[i] = uint8_t(i);
  std::array<uint8_t, 255> in;
  for (int i = 0; i < 255; i++) in[i] = uint8_t(i);
  const std::pair<size_t, const char*> kats[] = {
      {0,
       "10ebb67700b1868efb4417987acf4690ae9d972fb7a590c2f02871799aaa4786b5e996e8f0f4eb981fc214b005f42d2ff4233499391653"
       "df7aefcbc13fc51568"},
      {1,
       "961f6dd1e4dd30f63901690c512e78e4b45e4742ed197c3c5e45c549fd25f2e4187b0bc9fe30492b16b0d0bc4ef9b0f34c7003fac09a5e"
       "f1532e69430234cebd"},
      {128,
       "72065ee4dd91c2d8509fa1fc28a37c7fc9fa7d5b3f8ad3d0d7a25626b57b1b44788d4caf806290425f9890a3a2a35a905ab4b37acfd0da"
       "6e4517b2525c9651e4"},
      {255,
       "142709d62e28fcccd0af97fad0f8465b971e82201dc51070faa0372aa43e92484be1c1e73ba10906d5d1853db6a4106e0a7bf9800d373d"
       "6dee2d46d62ef2a461"},
  };
  for (const auto& [n, want] : kats) {
    std::array<uint8_t, 64> out;
    Blake2b(64, key).update(std::span<const uint8_t>(in.data(), n)).finalize(out);
    EXPECT_EQ(std::vector<uint8_t>(out.begin(), out.end()), hex(want)) << "input length " << n;
    // The same in two pieces split at every 37th byte.
    Blake2b h(64, key);
    for (size_t at = 0; at < n; at += 37)
      h.update(std::span<const uint8_t>(in.data() + at, std::min<size_t>(37, n - at)));
    h.finalize(out);
    EXPECT_EQ(std::vector<uint8_t>(out.begin(), out.end()), hex(want)) << "input length " << n << " in pieces";
  }
  EXPECT_THROW(Blake2b(0), std::invalid_argument);
  EXPECT_THROW(Blake2b(65), std::invalid_argument);
  std::array<uint8_t, 65> long_key{};
  EXPECT_THROW(Blake2b(32, long_key), std::invalid_argument);
}

// ---- Feistel -------------------------------------------------------------------------------

TEST(FilecoinFeistelTest, PrecomputeMatchesFeistelRs) {
  const auto p = feistel_precompute(uint64_t(1) << 21);  // 8 MiB: 2^18 nodes * 8
  EXPECT_EQ(p.half_bits, 11u);
  EXPECT_EQ(p.right_mask, 0x7ffu);
  EXPECT_EQ(p.left_mask, 0x7ffu << 11);
  EXPECT_EQ(feistel_precompute(1).half_bits, 1u);
  EXPECT_EQ(feistel_precompute(4).half_bits, 1u);
  EXPECT_EQ(feistel_precompute(5).half_bits, 2u);
  EXPECT_EQ(feistel_precompute(uint64_t(1) << 34).half_bits, 17u);  // 64 GiB
}

TEST(FilecoinFeistelTest, EncodeIsABijectionOnPowersOfFourAndDecodeInverts) {
  const FeistelKeys keys = {1, 2, 3, 4};  // feistel.rs test_feistel_power_of_4
  for (uint64_t n : {4u, 16u, 64u, 256u, 4096u}) {
    const auto p = feistel_precompute(n);
    std::vector<bool> seen(n);
    for (uint64_t i = 0; i < n; i++) {
      const uint64_t e = feistel_encode(i, keys, p);
      ASSERT_LT(e, n);
      ASSERT_FALSE(seen[e]) << "n " << n << " collision at " << i;
      seen[e] = true;
      ASSERT_EQ(feistel_decode(e, keys, p), i);
    }
  }
}

TEST(FilecoinFeistelTest, PermuteIsABijectionOnArbitrarySizes) {
  auto rng = test::make_rng();
  const FeistelKeys keys = {rng(), rng(), rng(), rng()};
  for (uint64_t n : {5u, 6u, 8u, 12u, 17u, 1000u, 8192u}) {  // feistel.rs BAD_NS and more
    const auto p = feistel_precompute(n);
    std::vector<bool> seen(n);
    for (uint64_t i = 0; i < n; i++) {
      const uint64_t e = feistel_permute(n, i, keys, p);
      ASSERT_LT(e, n);
      ASSERT_FALSE(seen[e]) << "n " << n << " collision at " << i;
      seen[e] = true;
      ASSERT_EQ(feistel_invert_permute(n, e, keys, p), i);
    }
  }
}

TEST(FilecoinFeistelTest, KnownValues) {
  // From an independent Python transcription of feistel.rs (hashlib.blake2b), which reproduces the
  // real sector's expander parents below.
  {
    const FeistelKeys keys = {1, 2, 3, 4};
    const auto p = feistel_precompute(1000);
    const uint64_t want[8] = {722, 111, 8, 582, 910, 209, 999, 526};
    for (uint64_t i = 0; i < 8; i++) EXPECT_EQ(feistel_permute(1000, i, keys, p), want[i]);
  }
  {
    const FeistelKeys keys = {0x0123456789abcdefull, 0xfedcba9876543210ull, 42, 7};
    const uint64_t n = uint64_t(1) << 21;
    const auto p = feistel_precompute(n);
    EXPECT_EQ(feistel_permute(n, 0, keys, p), 454443u);
    EXPECT_EQ(feistel_permute(n, 1, keys, p), 232592u);
    EXPECT_EQ(feistel_permute(n, 12345, keys, p), 323367u);
    EXPECT_EQ(feistel_permute(n, n - 1, keys, p), 1622006u);
  }
}

TEST(FilecoinFeistelTest, TabulatedNetworkEqualsHashingOne) {
  auto rng = test::make_rng();
  const FeistelKeys keys = {rng(), rng(), rng(), rng()};
  for (uint64_t n : {5u, 1000u, 1u << 21, 8u * 16777216u}) {  // ..., 8 MiB and 512 MiB expander domains
    const FeistelNetwork net(n, keys);
    const auto p = feistel_precompute(n);
    for (int t = 0; t < 2000; t++) {
      const uint64_t i = rng() % n;
      const uint64_t e = net.permute(i);
      ASSERT_EQ(e, feistel_permute(n, i, keys, p)) << "n " << n << " i " << i;
      ASSERT_EQ(net.invert_permute(e), i);
      const uint64_t raw = rng() & (p.left_mask | p.right_mask);
      ASSERT_EQ(net.encode(raw), feistel_encode(raw, keys, p));
      ASSERT_EQ(net.decode(raw), feistel_decode(raw, keys, p));
    }
  }
}

// ---- graph ---------------------------------------------------------------------------------

TEST(FilecoinGraphTest, StructureOfDrgAndExpanderParents) {
  for (ApiVersion v : {ApiVersion::kV1_0_0, ApiVersion::kV1_1_0, ApiVersion::kV1_2_0}) {
    for (uint64_t nodes : {4u, 16u, 64u, 256u, 2048u}) {  // drgraph.rs graph_bucket sizes and 2 KiB
      const StackedBucketGraph g(nodes, porep_id_of(v == ApiVersion::kV1_0_0 ? 0 : 5), v);
      std::array<uint32_t, kParentCount> p;
      for (uint64_t node = 0; node < nodes; node++) {
        g.parents(node, p);
        std::array<uint32_t, kBaseDegree> drg;
        g.drg_parents(node, drg);
        ASSERT_TRUE(std::equal(drg.begin(), drg.end(), p.begin()));
        std::array<uint32_t, kExpDegree> exp;
        g.expander_parents(node, exp);
        ASSERT_TRUE(std::equal(exp.begin(), exp.end(), p.begin() + kBaseDegree));
        if (node < 2) {
          for (size_t i = 0; i < kBaseDegree; i++) ASSERT_EQ(p[i], 0u) << "node " << node;
        } else {
          for (size_t i = 0; i < kBaseDegree; i++) ASSERT_LT(p[i], node) << "node " << node;
          ASSERT_EQ(p[v == ApiVersion::kV1_0_0 ? 5 : 0], node - 1) << "node " << node;
        }
        for (size_t i = kBaseDegree; i < kParentCount; i++) ASSERT_LT(p[i], nodes) << "node " << node;
      }
    }
  }
}

TEST(FilecoinGraphTest, ExpanderParentsOfAllNodesCoverEachNodeEightTimes) {
  // The expander edges come from a permutation of [0, 8 * nodes): every node is a parent exactly 8
  // times over the whole graph (graph.rs test_shuffle, through the graph).
  for (ApiVersion v : {ApiVersion::kV1_0_0, ApiVersion::kV1_1_0}) {
    const uint64_t nodes = 1024;
    const StackedBucketGraph g(nodes, porep_id_of(5), v);
    std::vector<int> count(nodes);
    std::array<uint32_t, kExpDegree> exp;
    for (uint64_t node = 0; node < nodes; node++) {
      g.expander_parents(node, exp);
      for (uint32_t e : exp) count[e]++;
    }
    for (uint64_t node = 0; node < nodes; node++) ASSERT_EQ(count[node], 8) << "node " << node;
  }
}

TEST(FilecoinGraphTest, VersionsShareParentsExceptThePredecessorSlot) {
  const Bytes32 id = porep_id_of(6);
  const uint64_t nodes = uint64_t(1) << 18;
  const StackedBucketGraph g0(nodes, id, ApiVersion::kV1_0_0), g1(nodes, id, ApiVersion::kV1_1_0),
      g2(nodes, id, ApiVersion::kV1_2_0);
  std::array<uint32_t, kParentCount> a, b, c;
  for (uint64_t node : {2u, 3u, 1000u, 151786u, 262143u}) {
    g0.parents(node, a);
    g1.parents(node, b);
    g2.parents(node, c);
    EXPECT_EQ(b, c) << "V1_1_0 and V1_2_0 differ at node " << node;
    // Same ChaCha8 draws: V1_0_0 puts the five random parents first, V1_1_0 after the predecessor.
    for (size_t i = 0; i < 5; i++) EXPECT_EQ(a[i], b[i + 1]) << "node " << node;
    EXPECT_EQ(a[5], b[0]);
    // Below 2^29 nodes the 32-bit truncation of V1_0_0 does not bite.
    EXPECT_TRUE(std::equal(a.begin() + kBaseDegree, a.end(), b.begin() + kBaseDegree));
  }
}

TEST(FilecoinGraphTest, LargeSectorExpanderParentsAreNotTruncated) {
  // graph.rs test_high_parent_bits: with 2^31 nodes (64 GiB) V1_2_0 reaches parents >= 2^29 within
  // the first three nodes; V1_0_0 truncates the permuted index to 32 bits and never does
  // (test_graph_distribution_pathology).
  const uint64_t nodes = uint64_t(1) << 31;
  Bytes32 id = porep_id_of(5);
  const StackedBucketGraph g(nodes, id, ApiVersion::kV1_2_0);
  bool high = false;
  std::array<uint32_t, kExpDegree> exp;
  for (uint64_t node = 0; node < 3 && !high; node++) {
    g.expander_parents(node, exp);
    high = std::any_of(exp.begin(), exp.end(), [](uint32_t p) { return p >= (uint32_t(1) << 29); });
  }
  EXPECT_TRUE(high);
  const StackedBucketGraph legacy(nodes, porep_id_of(4), ApiVersion::kV1_0_0);
  for (uint64_t node = 0; node < 200; node++) {
    legacy.expander_parents(node, exp);
    for (uint32_t p : exp) ASSERT_LT(p, nodes / 2) << "node " << node;
  }
}

TEST(FilecoinGraphTest, ParentsRangeEqualsPerNodeAndArgumentsAreChecked) {
  const StackedBucketGraph g(seal_proof_info(RegisteredSealProof::kStackedDrg2KiBV1_1));
  EXPECT_EQ(g.nodes(), 64u);
  std::vector<uint32_t> all(64 * kParentCount);
  g.parents_range(0, 64, all);
  std::array<uint32_t, kParentCount> p;
  for (uint64_t node = 0; node < 64; node++) {
    g.parents(node, p);
    ASSERT_TRUE(std::equal(p.begin(), p.end(), all.begin() + node * kParentCount)) << "node " << node;
  }
  std::vector<uint32_t> part(10 * kParentCount);
  g.parents_range(54, 10, part);
  EXPECT_TRUE(std::equal(part.begin(), part.end(), all.begin() + 54 * kParentCount));
  EXPECT_THROW(g.parents(64, p), std::out_of_range);
  EXPECT_THROW(g.parents_range(60, 5, part), std::out_of_range);
  EXPECT_THROW(g.parents_range(0, 9, part), std::invalid_argument);
  EXPECT_THROW(StackedBucketGraph(1, Bytes32{}, ApiVersion::kV1_1_0), std::invalid_argument);
  EXPECT_THROW(StackedBucketGraph(uint64_t(1) << 32, Bytes32{}, ApiVersion::kV1_1_0), std::invalid_argument);
}

TEST(FilecoinGraphTest, AllParentsOfAn8MiBSector) {
  // Every parent of the 262,144 nodes, the work of one labeling pass's parent lookups.
  const StackedBucketGraph g(seal_proof_info(RegisteredSealProof::kStackedDrg8MiBV1_1));
  const uint64_t nodes = g.nodes();
  std::vector<uint32_t> all(nodes * kParentCount);
  const auto t0 = std::chrono::steady_clock::now();
  g.parents_range(0, nodes, all);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("all parents of %llu nodes: %.3f s (%.0f ns per node)\n", (unsigned long long)nodes, s,
              s * 1e9 / double(nodes));
  std::vector<int> exp_count(nodes);
  for (uint64_t node = 0; node < nodes; node++) {
    const uint32_t* p = all.data() + node * kParentCount;
    if (node >= 2) {
      ASSERT_EQ(p[0], node - 1);
    }
    for (size_t i = 0; i < kBaseDegree; i++) ASSERT_LE(p[i], node == 0 ? 0 : node - 1);
    for (size_t i = kBaseDegree; i < kParentCount; i++) exp_count[p[i]]++;
  }
  for (uint64_t node = 0; node < nodes; node++) ASSERT_EQ(exp_count[node], 8) << "node " << node;
}

// ---- challenges ----------------------------------------------------------------------------

TEST(FilecoinChallengesTest, ProverIdIsLeb128OfTheActorId) {
  EXPECT_EQ(prover_id_from_actor_id(1000), hex32("e807000000000000000000000000000000000000000000000000000000000000"));
  EXPECT_EQ(prover_id_from_actor_id(1002), hex32("ea07000000000000000000000000000000000000000000000000000000000000"));
  EXPECT_EQ(prover_id_from_actor_id(0), Bytes32{});
  EXPECT_EQ(prover_id_from_actor_id(127), hex32("7f00000000000000000000000000000000000000000000000000000000000000"));
  EXPECT_EQ(prover_id_from_actor_id(128), hex32("8001000000000000000000000000000000000000000000000000000000000000"));
  EXPECT_EQ(prover_id_from_actor_id(UINT64_MAX),
            hex32("ffffffffffffffffff0100000000000000000000000000000000000000000000"));
}

TEST(FilecoinChallengesTest, ChallengeReductionNeverGivesNodeZero) {
  Bytes32 b{};
  EXPECT_EQ(challenge_from_bytes(b, 64), 1u);
  b.fill(0xff);  // 2^256 - 1 = 2^(6*42+4) - 1 = 15 mod 63 -> 16
  EXPECT_EQ(challenge_from_bytes(b, 64), 16u);
  EXPECT_EQ(challenge_from_bytes(le32(62), 64), 63u);
  EXPECT_EQ(challenge_from_bytes(le32(63), 64), 1u);
  EXPECT_THROW(challenge_from_bytes(b, 1), std::invalid_argument);
}

TEST(FilecoinChallengesTest, SyntheticMatchesRustHardcodedVector) {
  // challenges.rs test_synth_challenges_against_hardcoded: sector_nodes 2^10, replica_id
  // Fr::from(55), comm_r Fr::from(101), 21 synthetic challenges, 10 PoRep challenges from rand [1; 32].
  const SyntheticChallengeGenerator synth(1024, le32(55), le32(101), 21);
  const std::vector<uint64_t> want_synth = {178, 297, 869, 211, 875, 477, 94,  781, 124, 332, 856,
                                            801, 176, 692, 429, 691, 290, 204, 986, 210, 973};
  EXPECT_EQ(synth.all(), want_synth);
  for (uint64_t i = 21; i-- > 0;) EXPECT_EQ(synth.challenge(i), want_synth[i]);
  EXPECT_THROW(synth.challenge(21), std::out_of_range);
  Bytes32 rand;
  rand.fill(1);
  const std::vector<uint64_t> want_porep = {176, 781, 801, 986, 290, 211, 692, 856, 986, 332};
  EXPECT_EQ(synth.partition_challenges(10, rand, 0), want_porep);
  // Partitions are consecutive slices of one selection stream (test_synth_challenges_32gib).
  for (size_t k = 0; k < 5; k++) {
    const auto part = synth.partition_challenges(2, rand, k);
    EXPECT_EQ(part, std::vector<uint64_t>(want_porep.begin() + 2 * k, want_porep.begin() + 2 * k + 2));
  }
}

struct RealSector {
  Bytes32 prover_id, ticket, seed, comm_d, comm_r, replica_id, porep_id;
  uint64_t sector_id = 0;
  std::string proof_name;
  struct Challenge {
    uint64_t node;
    std::vector<uint32_t> drg, exp;
  };
  std::vector<Challenge> challenges;
};

// The meta file of the real 8 MiB Commit1 output; false (and the test skips) when absent.
bool load_real_sector(RealSector& s) {
  const auto path = std::filesystem::path(test::testdata_dir()) / "filecoin/porep/c1-8MiB-StackedDrg8MiBV1_1.meta.json";
  std::ifstream in(path);
  if (!in) return false;
  const auto j = nlohmann::json::parse(in);
  s.prover_id = hex32(j.at("prover_id_hex").get<std::string>());
  s.ticket = hex32(j.at("ticket_hex").get<std::string>());
  s.seed = hex32(j.at("seed_hex").get<std::string>());
  s.comm_d = hex32(j.at("comm_d_hex").get<std::string>());
  s.comm_r = hex32(j.at("comm_r_hex").get<std::string>());
  s.replica_id = hex32(j.at("replica_id_hex").get<std::string>());
  s.porep_id = hex32(j.at("porep_id_hex").get<std::string>());
  s.sector_id = j.at("sector_id").get<uint64_t>();
  s.proof_name = j.at("registered_proof").get<std::string>();
  for (const auto& c : j.at("challenges_and_parents_from_vanilla_proofs")) {
    s.challenges.push_back({c.at("challenge").get<uint64_t>(), c.at("drg_parents").get<std::vector<uint32_t>>(),
                            c.at("exp_parents").get<std::vector<uint32_t>>()});
  }
  return true;
}

TEST(FilecoinRealSectorTest, ReplicaIdAndInteractiveChallenges) {
  RealSector s;
  if (!load_real_sector(s)) GTEST_SKIP() << "filecoin/porep/c1-8MiB-StackedDrg8MiBV1_1.meta.json not in testdata";
  const SealProofInfo& info = seal_proof_info(s.proof_name);
  EXPECT_EQ(info.porep_id(), s.porep_id);
  EXPECT_EQ(prover_id_from_actor_id(1006), s.prover_id);
  EXPECT_EQ(replica_id(s.prover_id, s.sector_id, s.ticket, s.comm_d, info.porep_id()), s.replica_id);
  ASSERT_EQ(s.challenges.size(), info.challenges_per_partition);
  const auto want = interactive_challenges(info.nodes, s.replica_id, s.seed, 0, info.challenges_per_partition);
  const auto got = seal_challenges(info, s.replica_id, s.comm_r, s.seed, 0);
  EXPECT_EQ(got, want);
  for (size_t i = 0; i < s.challenges.size(); i++) EXPECT_EQ(got[i], s.challenges[i].node);
  EXPECT_THROW(seal_challenges(info, s.replica_id, s.comm_r, s.seed, 1), std::out_of_range);
}

TEST(FilecoinRealSectorTest, DrgAndExpanderParentsOfTheChallenges) {
  RealSector s;
  if (!load_real_sector(s)) GTEST_SKIP() << "filecoin/porep/c1-8MiB-StackedDrg8MiBV1_1.meta.json not in testdata";
  const StackedBucketGraph g(seal_proof_info(s.proof_name));
  for (const auto& c : s.challenges) {
    std::array<uint32_t, kParentCount> p;
    g.parents(c.node, p);
    EXPECT_EQ(std::vector<uint32_t>(p.begin(), p.begin() + kBaseDegree), c.drg) << "challenge " << c.node;
    EXPECT_EQ(std::vector<uint32_t>(p.begin() + kBaseDegree, p.end()), c.exp) << "challenge " << c.node;
  }
}

TEST(FilecoinRealSectorTest, SyntheticAndNonInteractiveOnTheRealSectorInputs) {
  // No real synthetic or NI-PoRep artefact is at hand: these values come from an independent Python
  // transcription of challenges.rs (hashlib SHA-256 / keyed BLAKE2b, the `cryptography` package's
  // ChaCha20), which reproduces Rust's hard-coded synthetic vector and the interactive challenges
  // of the real sector. Inputs: the real sector's replica_id, comm_r and seed.
  RealSector s;
  if (!load_real_sector(s)) GTEST_SKIP() << "filecoin/porep/c1-8MiB-StackedDrg8MiBV1_1.meta.json not in testdata";
  const uint64_t n8 = uint64_t(1) << 18, n32 = uint64_t(1) << 30;
  EXPECT_EQ(non_interactive_challenges(n8, s.replica_id, s.comm_r, 0, 2), (std::vector<uint64_t>{142066, 205739}));
  EXPECT_EQ(non_interactive_challenges(n8, s.replica_id, s.comm_r, 5, 2), (std::vector<uint64_t>{13822, 122327}));
  EXPECT_EQ(non_interactive_challenges(n8, s.replica_id, s.comm_r, 12, 2), (std::vector<uint64_t>{62123, 146543}));
  EXPECT_EQ(non_interactive_challenges(n32, s.replica_id, s.comm_r, 125, 18),
            (std::vector<uint64_t>{567064797, 715099998, 840360807, 905409929, 895024769, 435393710, 497936925, 1727758,
                                   514091519, 585383823, 940748792, 289948779, 610503415, 162777139, 9537003, 181141143,
                                   113499299, 24816427}));

  EXPECT_EQ(synthetic_challenge_indexes(n8, s.replica_id, s.comm_r, s.seed, 0, 2),
            (std::vector<uint64_t>{25084, 244557}));
  EXPECT_EQ(synthetic_challenges(n8, s.replica_id, s.comm_r, s.seed, 0, 2), (std::vector<uint64_t>{225348, 221685}));
  const auto set = synthetic_challenge_set(n8, s.replica_id, s.comm_r);
  ASSERT_EQ(set.size(), n8);
  EXPECT_EQ(std::vector<uint64_t>(set.begin(), set.begin() + 4), (std::vector<uint64_t>{21141, 44043, 212344, 224606}));
  EXPECT_EQ(set[25084], 225348u);
  EXPECT_EQ(set[244557], 221685u);
  EXPECT_EQ(synthetic_challenge_indexes(n32, s.replica_id, s.comm_r, s.seed, 9, 18),
            (std::vector<uint64_t>{66568, 125818, 243575, 177389, 51397, 207695, 54659, 219189, 46579, 190846, 127391,
                                   151601, 181583, 37934, 115559, 29079, 213, 194339}));
  EXPECT_EQ(synthetic_challenges(n32, s.replica_id, s.comm_r, s.seed, 9, 18),
            (std::vector<uint64_t>{99683644, 295687854, 658465749, 552870118, 1485235, 424144829, 430230776, 977723733,
                                   311421756, 983432229, 330438546, 160209207, 422793944, 337583118, 979731972,
                                   840902655, 953669872, 860320990}));

  // The dispatcher picks the derivation by feature, with the proof's own counts.
  const auto& synth8 = seal_proof_info(RegisteredSealProof::kStackedDrg8MiBV1_1_Feat_SyntheticPoRep);
  EXPECT_EQ(seal_challenges(synth8, s.replica_id, s.comm_r, s.seed, 0), (std::vector<uint64_t>{225348, 221685}));
  const auto& ni8 = seal_proof_info(RegisteredSealProof::kStackedDrg8MiBV1_2_Feat_NonInteractivePoRep);
  ASSERT_EQ(ni8.partitions, 13u);
  EXPECT_EQ(seal_challenges(ni8, s.replica_id, s.comm_r, Bytes32{}, 5), (std::vector<uint64_t>{13822, 122327}));
  const auto& ni32 = seal_proof_info(RegisteredSealProof::kStackedDrg32GiBV1_2_Feat_NonInteractivePoRep);
  EXPECT_EQ(seal_challenges(ni32, s.replica_id, s.comm_r, s.seed, 125),
            non_interactive_challenges(n32, s.replica_id, s.comm_r, 125, 18));
  const auto& synth32 = seal_proof_info(RegisteredSealProof::kStackedDrg32GiBV1_1_Feat_SyntheticPoRep);
  EXPECT_EQ(seal_challenges(synth32, s.replica_id, s.comm_r, s.seed, 9),
            synthetic_challenges(n32, s.replica_id, s.comm_r, s.seed, 9, 18));

  // Synthetic challenges convert replica_id and comm_r to Fr first; non-canonical bytes are refused.
  Bytes32 bad;
  bad.fill(0xff);
  EXPECT_THROW(synthetic_challenges(n8, s.replica_id, bad, s.seed, 0, 2), std::invalid_argument);
}

TEST(FilecoinChallengesTest, PartitionsAreSlicesOfOneSequence) {
  // challenges.rs challenge_partition_equivalence, for the three derivations.
  auto rng = test::make_rng();
  Bytes32 rid, comm_r, seed;
  for (auto* b : {&rid, &comm_r, &seed})
    for (auto& x : *b) x = uint8_t(rng());
  rid[31] &= 0x3f;
  comm_r[31] &= 0x3f;
  const uint64_t nodes = uint64_t(1) << 30;
  const auto one_i = interactive_challenges(nodes, rid, seed, 0, 5 * 18);
  const auto one_n = non_interactive_challenges(nodes, rid, comm_r, 0, 5 * 18);
  const auto one_s = synthetic_challenges(nodes, rid, comm_r, seed, 0, 5 * 18);
  for (uint8_t k = 0; k < 5; k++) {
    auto slice = [&](const std::vector<uint64_t>& v) {
      return std::vector<uint64_t>(v.begin() + 18 * k, v.begin() + 18 * (k + 1));
    };
    EXPECT_EQ(interactive_challenges(nodes, rid, seed, k, 18), slice(one_i));
    EXPECT_EQ(non_interactive_challenges(nodes, rid, comm_r, k, 18), slice(one_n));
    EXPECT_EQ(synthetic_challenges(nodes, rid, comm_r, seed, k, 18), slice(one_s));
  }
  for (uint64_t c : one_i) EXPECT_TRUE(c >= 1 && c < nodes);
}

}  // namespace
}  // namespace cuzk::filecoin

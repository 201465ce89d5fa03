// Filecoin gadgets: the node hashers (SHA-256 truncated, Poseidon), Merkle inclusion for
// binary SHA-256 trees and Poseidon trees with sub- and top-tree levels, create_label (532,025
// constraints in rust-fil-proofs' set-up) and encoding; native == circuit throughout.
#include <openssl/sha.h>

#include <gtest/gtest.h>

#include "gadgets/hashers.hpp"
#include "gadgets/label.hpp"
#include "gadgets/por.hpp"
#include "gadgets/sha256.hpp"
#include "gadgets_corrupt.hpp"
#include "r1cs/shape.hpp"
#include "test_support.hpp"

namespace cuzk::gadgets {
namespace {

TEST(GadgetsFilecoinTest, Sha256NodeHashTruncatesAndMatchesOpenSsl) {
  auto rng = test::make_rng();
  const Fr a = Fr::random(rng), b = Fr::random(rng);
  uint8_t buf[64], d[32];
  a.to_bytes_le(buf);
  b.to_bytes_le(buf + 32);
  SHA256(buf, 64, d);
  d[31] &= 0x3f;
  std::array<uint8_t, 32> dd;
  std::copy(d, d + 32, dd.begin());
  const Fr pair[2] = {a, b};
  EXPECT_EQ(sha256_node_hash(pair), fr_from_bytes_le(dd));
}

TEST(GadgetsFilecoinTest, Sha256HasherCircuitsEqualNative) {
  auto rng = test::make_rng();
  const Fr a = Fr::random(rng), b = Fr::random(rng);
  const Fr pair[2] = {a, b};
  const Fr want = sha256_node_hash(pair);
  {
    r1cs::TestChecker cs;
    auto an = AllocatedNum::alloc(cs, a), bn = AllocatedNum::alloc(cs, b);
    EXPECT_EQ(sha256_hash2_circuit(cs, an, bn).value, want);
    const AllocatedNum leaves[2] = {an, bn};
    EXPECT_EQ(sha256_hash_multi_leaf_circuit(cs, leaves).value, want);
    EXPECT_TRUE(cs.is_satisfied()) << *cs.first_unsatisfied();
  }
  {
    // The node hash of two 256-bit nodes given as allocated bits (cuzk-bench sha256-node).
    r1cs::TestChecker cs;
    std::vector<Boolean> l, r;
    const auto ab = fr_to_bytes_le(a), bb = fr_to_bytes_le(b);
    for (int i = 0; i < 256; i++) l.emplace_back(AllocatedBit::alloc(cs, (ab[i / 8] >> (i % 8)) & 1));
    for (int i = 0; i < 256; i++) r.emplace_back(AllocatedBit::alloc(cs, (bb[i / 8] >> (i % 8)) & 1));
    const size_t base = cs.num_constraints();
    EXPECT_EQ(sha256_hash_leaf_bits_circuit(cs, l, r).value, want);
    EXPECT_EQ(cs.num_constraints() - base, 44874u + 1u);  // sha256 of 512 bits, then one packing constraint
    EXPECT_TRUE(cs.is_satisfied());
  }
}

TEST(GadgetsFilecoinTest, PoseidonNodeHashCircuitEqualsNative) {
  auto rng = test::make_rng();
  for (size_t arity : {2, 4, 8}) {
    r1cs::TestChecker cs;
    std::vector<Fr> v;
    std::vector<AllocatedNum> n;
    for (size_t i = 0; i < arity; i++) {
      v.push_back(Fr::random(rng));
      n.push_back(AllocatedNum::alloc(cs, v.back()));
    }
    EXPECT_EQ(poseidon_hash_multi_leaf_circuit(cs, n).value, poseidon_node_hash(v));
    EXPECT_TRUE(cs.is_satisfied());
  }
}

void check_por(const PorTreeShape& shape, bool private_root) {
  auto rng = test::make_rng();
  for (int rep = 0; rep < 2; rep++) {
    PorWitness w = por_random_witness(shape, rng);
    PorCircuit circuit(shape, w, private_root);
    r1cs::TestChecker cs;
    circuit.synthesize(cs);
    ASSERT_TRUE(cs.is_satisfied()) << shape.name() << ": " << *cs.first_unsatisfied();
    auto expect = por_public_inputs(shape, w, private_root);
    ASSERT_EQ(cs.inputs().size(), 1 + expect.size());
    for (size_t i = 0; i < expect.size(); i++) EXPECT_EQ(cs.inputs()[1 + i], expect[i]);
    // A wrong root breaks exactly the root equality.
    PorWitness bad = w;
    bad.root += Fr::one();
    r1cs::TestChecker cs2;
    PorCircuit(shape, bad, private_root).synthesize(cs2);
    ASSERT_FALSE(cs2.is_satisfied());
    EXPECT_EQ(cs2.first_unsatisfied()->rfind("enforce root is correct", 0), 0u) << *cs2.first_unsatisfied();
  }
}

TEST(GadgetsFilecoinTest, PorSha256BinaryTree) {
  PorTreeShape shape{TreeHasher::kSha256, 2, 3, 0, 0};
  check_por(shape, false);
  check_por(shape, true);
  // Per level: 1 index bit, 2 x 256 to_bits_le, insert 2, SHA-256 of 512 bits with 2 constant
  // pad bits (computed below), 1 pack; then 1 path packing, 1 root equality, 1 inputize.
  r1cs::ShapeRecorder rec;
  auto rng = test::make_rng();
  PorCircuit(shape, por_random_witness(shape, rng)).synthesize(rec);
  r1cs::ShapeRecorder one_level;
  PorTreeShape s1{TreeHasher::kSha256, 2, 1, 0, 0};
  PorCircuit(s1, por_random_witness(s1, rng)).synthesize(one_level);
  EXPECT_EQ(rec.num_constraints() - 3, 3 * (one_level.num_constraints() - 3));
}

TEST(GadgetsFilecoinTest, PorPoseidonTrees) {
  check_por(PorTreeShape{TreeHasher::kPoseidon, 8, 3, 0, 0}, false);
  check_por(PorTreeShape{TreeHasher::kPoseidon, 8, 2, 8, 0}, false);
  check_por(PorTreeShape{TreeHasher::kPoseidon, 8, 2, 8, 2}, true);
  check_por(PorTreeShape{TreeHasher::kPoseidon, 2, 4, 4, 0}, false);
  // Count: per base level 3 index bits + 22 (insert 8) + 505 (Poseidon arity 8).
  auto rng = test::make_rng();
  PorTreeShape shape{TreeHasher::kPoseidon, 8, 3, 0, 0};
  r1cs::TestChecker cs;
  PorCircuit(shape, por_random_witness(shape, rng)).synthesize(cs);
  EXPECT_EQ(cs.num_constraints(), 3 * (3 + 22 + 505) + 3u);
  EXPECT_THROW((PorTreeShape{TreeHasher::kPoseidon, 16, 1, 0, 0}.validate()), std::invalid_argument);
  EXPECT_THROW((PorTreeShape{TreeHasher::kPoseidon, 8, 1, 0, 2}.validate()), std::invalid_argument);
}

// storage-proofs-core tests/por_circuit.rs: trees of 64 leaves per base tree, counts with the
// root public (3 inputs with ONE) and private (2 inputs).
TEST(GadgetsFilecoinTest, PorCountsOfRustFilProofs) {
  struct Case {
    PorTreeShape shape;
    bool private_root;
    size_t constraints;
  };
  const TreeHasher S = TreeHasher::kSha256, P = TreeHasher::kPoseidon;
  const Case cases[] = {
      {{S, 2, 6, 0, 0}, false, 272295}, {{S, 4, 3, 0, 0}, false, 216258}, {{S, 8, 2, 0, 0}, false, 250987},
      {{P, 2, 6, 0, 0}, false, 1887},   {{P, 4, 3, 0, 0}, false, 1164},   {{P, 8, 2, 0, 0}, false, 1063},
      {{P, 8, 2, 2, 0}, false, 1377},   {{P, 8, 2, 4, 2}, false, 1764},   {{P, 8, 2, 8, 0}, false, 1593},
      {{P, 8, 2, 8, 2}, false, 1907},   {{P, 8, 2, 2, 4}, false, 1764},   {{P, 2, 6, 0, 0}, true, 1886},
      {{P, 4, 3, 0, 0}, true, 1163},    {{P, 8, 2, 0, 0}, true, 1062},
  };
  auto rng = test::make_rng();
  for (const Case& c : cases) {
    r1cs::TestChecker cs;
    PorWitness w = por_random_witness(c.shape, rng);
    PorCircuit(c.shape, w, c.private_root).synthesize(cs);
    EXPECT_TRUE(cs.is_satisfied()) << c.shape.name();
    EXPECT_EQ(cs.num_constraints(), c.constraints) << c.shape.name() << (c.private_root ? " private" : "");
    EXPECT_EQ(cs.num_inputs(), c.private_root ? 2u : 3u);
  }
}

TEST(GadgetsFilecoinTest, CreateLabelCountAndValue) {
  auto rng = test::make_rng();
  std::array<uint8_t, 32> id = fr_to_bytes_le(Fr::random(rng));
  std::vector<std::array<uint8_t, 32>> parents(kLabelParents);
  for (auto& p : parents) p = fr_to_bytes_le(Fr::random(rng));
  const uint32_t layer = 3;
  const uint64_t node = 22;
  r1cs::TestChecker cs;
  std::vector<std::vector<Boolean>> parent_bits;
  for (size_t i = 0; i < parents.size(); i++) {
    r1cs::Namespace ns(cs, "parents " + std::to_string(i));
    parent_bits.push_back(bytes_into_boolean_vec_be(cs, parents[i].data(), 32));
  }
  std::vector<Boolean> id_bits;
  {
    r1cs::Namespace ns(cs, "id");
    id_bits = bytes_into_boolean_vec_be(cs, id.data(), 32);
  }
  AllocatedNum out;
  {
    r1cs::Namespace ns(cs, "create_label");
    out = create_label_circuit(cs, id_bits, parent_bits, UInt32::constant(layer), UInt64::constant(node));
  }
  EXPECT_TRUE(cs.is_satisfied()) << *cs.first_unsatisfied();
  EXPECT_EQ(cs.num_constraints(), 532025u);
  EXPECT_EQ(out.value, create_label(id, layer, node, parents));
}

TEST(GadgetsFilecoinTest, CreateLabelWithAllocatedNodeAndBadWitness) {
  auto rng = test::make_rng();
  std::array<uint8_t, 32> id = fr_to_bytes_le(Fr::random(rng));
  std::vector<std::array<uint8_t, 32>> parents(kLabelParents);
  for (auto& p : parents) p = fr_to_bytes_le(Fr::random(rng));
  const uint64_t node = rng() >> 20;
  // Corrupt aux 300: the id takes aux 0..255, so this is bit 44 of the first parent.
  test::CorruptingChecker cs(300);
  auto id_bits = bytes_into_boolean_vec_be(cs, id.data(), 32);
  std::vector<std::vector<Boolean>> parent_bits;
  for (const auto& p : parents) parent_bits.push_back(bytes_into_boolean_vec_be(cs, p.data(), 32));
  auto node_word = UInt64::alloc(cs, node);
  auto out = create_label_circuit(cs, id_bits, parent_bits, UInt32::constant(7), node_word);
  EXPECT_EQ(out.value, create_label(id, 7, node, parents));
  ASSERT_FALSE(cs.checker().is_satisfied());
  EXPECT_EQ(*cs.checker().first_unsatisfied(), "bit 44/boolean constraint (constraint #300)");
}

TEST(GadgetsFilecoinTest, EncodeDecode) {
  auto rng = test::make_rng();
  r1cs::TestChecker cs;
  auto key = AllocatedNum::alloc(cs, Fr::random(rng));
  auto value = AllocatedNum::alloc(cs, Fr::random(rng));
  auto enc = encode(cs, key, value);
  EXPECT_EQ(enc.value, key.value + value.value);
  auto dec = decode(cs, key, enc);
  EXPECT_EQ(dec.value, value.value);
  EXPECT_TRUE(cs.is_satisfied());
  EXPECT_EQ(cs.num_constraints(), 2u);
}

}  // namespace
}  // namespace cuzk::gadgets

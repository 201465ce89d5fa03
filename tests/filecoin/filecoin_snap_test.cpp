// The SnapDeals (EmptySectorUpdate) circuit and its Poseidon variant: the parameters of every
// sector size, rust-fil-proofs' challenge test vectors (storage-proofs-update challenges.rs, which
// pin the gen-randomness domain tag), the shapes of the blank test-size circuits and of the
// gen_challenge_bits gadget against the published counts (tests/circuit.rs, gadgets.rs), and a
// 2 KiB update of a real sealed sector: its vanilla proofs round-trip through bincode byte for
// byte, verify, and satisfy every partition's circuit with the verifier's public inputs; tampered
// inputs are refused. Sparse updates (generators/sparse_sector_update.hpp): at 2 KiB and 8 MiB the same bytes as
// the full generator over the same replica, every partition verifying, the first and last
// satisfying the circuit; at 32 GiB and 64 GiB generated in milliseconds and verifying. Both
// variants synthesize their challenges into a proving assignment in parallel sections exactly as
// serially (2 KiB, generated and sparse). The 32 GiB counts, 8 MiB of a real sealed sector (and
// its sections), a 32 GiB sparse partition's circuit and Groth16 are in filecoin_snap_slow_test.cpp.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <tbb/parallel_for.h>
#include <vector>

#include <gtest/gtest.h>

#include "filecoin/common/bincode.hpp"
#include "filecoin/generators/sparse_sector_update.hpp"
#include "filecoin/generators/test_sector.hpp"
#include "filecoin/generators/test_sector_update.hpp"
#include "filecoin/snap/challenges.hpp"
#include "filecoin/snap/circuit.hpp"
#include "filecoin/snap/gadgets.hpp"
#include "filecoin/snap/public_inputs.hpp"
#include "filecoin/snap/registered_proofs.hpp"
#include "filecoin/snap/vanilla_proof.hpp"
#include "r1cs/proving_assignment.hpp"
#include "r1cs/shape.hpp"
#include "serial_only_cs.hpp"
#include "snap_satisfaction.hpp"

namespace cuzk::filecoin {
namespace {

using Params = EmptySectorUpdateParams;
using test::snap::satisfaction_error;
constexpr uint64_t KiB = 1024, MiB = KiB * 1024, GiB = MiB * 1024;

TEST(FilecoinSnapTest, RegisteredUpdateProofsAndParameters) {
  ASSERT_EQ(update_proofs().size(), 5u);
  const uint64_t sizes[5] = {2 * KiB, 8 * MiB, 512 * MiB, 32 * GiB, 64 * GiB};
  const size_t partitions[5] = {1, 4, 16, 16, 16}, challenges[5] = {10, 10, 86, 86, 86};
  const size_t h[5] = {1, 10, 10, 10, 10}, apex[5] = {8, 128, 128, 128, 128};
  const uint64_t k_and_h_select_k0[5] = {1, 32, 128, 128, 128};
  const char* trees[5] = {"8-0-0", "8-0-0", "8-0-0", "8-8-0", "8-8-2"};
  for (size_t i = 0; i < 5; i++) {
    const UpdateProofInfo& info = update_proof_info_by_id(i);
    const Params& p = info.params;
    EXPECT_EQ(info.sector_size, sizes[i]);
    EXPECT_EQ(&update_proof_info(info.name), &info);
    EXPECT_EQ(p.partition_count, partitions[i]) << info.name;
    EXPECT_EQ(p.challenge_count, challenges[i]) << info.name;
    EXPECT_EQ(p.h_default, h[i]) << info.name;
    EXPECT_EQ(p.apex_leaf_count, apex[i]) << info.name;
    EXPECT_EQ(p.tree_r.leaves(), sizes[i] / 32) << info.name;
    EXPECT_EQ(p.tree_d.leaves(), sizes[i] / 32) << info.name;
    EXPECT_NE(tree_r_display(p.tree_r).find(trees[i]), std::string::npos) << info.name;
    EXPECT_EQ(empty_sector_update_k_and_h_select(p, 0, p.h_default), Fr::from_u64(k_and_h_select_k0[i]));
    EXPECT_EQ(empty_sector_update_k_and_h_select(p, p.partition_count - 1, p.h_default),
              Fr::from_u64(k_and_h_select_k0[i] + p.partition_count - 1));
    // The published file names exist for the standard circuit.
    EXPECT_TRUE(published_parameter_manifest().contains(p.parameter_id().vk_name())) << info.name;
  }
  EXPECT_THROW(update_proof_info_by_id(5), std::invalid_argument);
  EXPECT_THROW(Params::from_sector_size(64 * KiB), std::invalid_argument);
  EXPECT_THROW(empty_sector_update_k_and_h_select(update_proof_info_by_id(1).params, 4, 10), std::invalid_argument);
  EXPECT_THROW(empty_sector_update_k_and_h_select(update_proof_info_by_id(1).params, 0, 13), std::invalid_argument);
  // Poseidon variant: one partition of all challenges, tree D of tree R's shape.
  const Params q = Params::from_sector_size_poseidon(32 * GiB);
  EXPECT_EQ(q.partition_count, 1u);
  EXPECT_EQ(q.challenge_count, 86u * 16);
  EXPECT_EQ(q.apex_leaf_count, 0u);
  EXPECT_EQ(q.tree_d.name(), q.tree_r.name());
}

// rand_xorshift 0.3 XorShiftRng and the two ways blstrs has drawn a random Scalar, to rebuild
// challenges.rs' comm_r_new from storage-proofs-core TEST_SEED.
struct XorShift {
  uint32_t x, y, z, w;
  explicit XorShift(const uint8_t seed[16]) {
    auto le = [&](int i) {
      return uint32_t(seed[i]) | seed[i + 1] << 8 | seed[i + 2] << 16 | uint32_t(seed[i + 3]) << 24;
    };
    x = le(0), y = le(4), z = le(8), w = le(12);
  }
  uint32_t next_u32() {
    const uint32_t t = x ^ (x << 11);
    x = y, y = z, z = w;
    w = w ^ (w >> 19) ^ (t ^ (t >> 8));
    return w;
  }
  uint64_t next_u64() {
    const uint64_t lo = next_u32();
    return uint64_t(next_u32()) << 32 | lo;
  }
};
constexpr uint8_t kTestSeed[16] = {0x59, 0x62, 0xbe, 0x5d, 0x76, 0x3d, 0x31, 0x8d,
                                   0x17, 0xdb, 0x37, 0x32, 0x54, 0x06, 0xbc, 0xe5};

// blstrs >= 0.5: eight u64 read as a 512-bit little-endian integer, reduced mod r.
Fr random_wide(XorShift& rng) {
  const Fr two64 = Fr::from_u64(uint64_t(1) << 32) * Fr::from_u64(uint64_t(1) << 32);
  Fr acc = Fr::zero(), pow = Fr::one();
  for (int i = 0; i < 8; i++) {
    acc += Fr::from_u64(rng.next_u64()) * pow;
    pow *= two64;
  }
  return acc;
}
// Older blstrs: four u64, the top bit cleared, rejected until below r.
Fr random_rejection(XorShift& rng) {
  for (;;) {
    uint8_t b[32];
    for (int i = 0; i < 4; i++) {
      uint64_t v = rng.next_u64();
      if (i == 3) v &= ~(uint64_t(1) << 63);
      for (int j = 0; j < 8; j++) b[8 * i + j] = uint8_t(v >> (8 * j));
    }
    Fr x;
    if (Fr::from_bytes_le(b, x)) return x;
  }
}

TEST(FilecoinSnapTest, ChallengesMatchRustFilProofsVectors) {
  struct Vec5 {
    uint64_t bytes;
    size_t k;
    uint32_t c[5];
  };
  // challenges.rs test_challenges_against_hardcoded (published sizes).
  const Vec5 vectors[] = {
      {2 * KiB, 0, {53, 51, 56, 3, 0}},
      {8 * MiB, 0, {36085, 32783, 44060, 10950, 3731}},
      {8 * MiB, 1, {78878, 130797, 112892, 93994, 78379}},
      {512 * MiB, 15, {16388544, 15794686, 16637142, 16319148, 16328348}},
      {32 * GiB, 0, {1019125, 27985696, 15282860, 11586600, 44651330}},
      {32 * GiB, 14, {990420169, 955146989, 968005601, 976863263, 944650706}},
      {64 * GiB, 15, {2045262457, 2036941247, 2136653521, 2091356007, 2147167623}},
      {1 * KiB, 0, {21, 7, 3, 31, 0}},
      {32 * KiB, 1, {542, 666, 955, 927, 911}},
  };
  XorShift a(kTestSeed), b(kTestSeed);
  const Fr candidates[2] = {random_wide(a), random_rejection(b)};
  size_t matched = 0;
  for (const Fr& comm_r_new : candidates) {
    bool all = true;
    for (const Vec5& v : vectors) {
      const auto c = empty_sector_update_challenges(Params::from_sector_size(v.bytes), comm_r_new, v.k);
      all = all && std::equal(v.c, v.c + 5, c.begin());
    }
    matched += all;
  }
  EXPECT_EQ(matched, 1u) << "no TEST_SEED comm_r_new reproduces challenges.rs' vectors";
  // Bucketing: partition k's challenges lie in its chunk of nodes.
  const Params p = update_proof_info(RegisteredUpdateProof::kStackedDrg32GiBV1).params;
  for (size_t k = 0; k < p.partition_count; k++) {
    for (uint32_t c : empty_sector_update_challenges(p, candidates[0], k)) EXPECT_EQ(c >> 26, k);
  }
}

size_t count_constraints(const Params& p, size_t* inputs = nullptr) {
  r1cs::ShapeCounter cs;
  EmptySectorUpdateCircuit::blank(p).synthesize(cs);
  if (inputs) *inputs = cs.num_inputs();
  return cs.num_constraints();
}

TEST(FilecoinSnapTest, TestSizeCircuitCountsOfRustFilProofs) {
  // storage-proofs-update tests/circuit.rs (2 KiB from the same file).
  const std::pair<uint64_t, size_t> expected[] = {{1 * KiB, 1248389}, {2 * KiB, 1705039},  {4 * KiB, 2165109},
                                                  {8 * KiB, 2620359}, {16 * KiB, 6300021}, {32 * KiB, 6760091}};
  for (const auto& [bytes, constraints] : expected) {
    size_t inputs = 0;
    EXPECT_EQ(count_constraints(Params::from_sector_size(bytes), &inputs), constraints) << bytes;
    EXPECT_EQ(inputs, 5u) << bytes;
  }
  // Poseidon variant: tests/circuit_poseidon.rs 1 KiB and 8 KiB.
  EXPECT_EQ(count_constraints(Params::from_sector_size_poseidon(1 * KiB)), 32164u);
  EXPECT_EQ(count_constraints(Params::from_sector_size_poseidon(8 * KiB)), 47974u);
}

TEST(FilecoinSnapTest, GenChallengeBitsGadgetCounts) {
  // gadgets.rs test_gen_challenge_bits_gadget.
  const std::pair<uint64_t, size_t> expected[] = {{8 * MiB, 568}, {512 * MiB, 4544}, {32 * GiB, 5680}, {2 * KiB, 568}};
  for (const auto& [bytes, constraints] : expected) {
    const Params p = Params::from_sector_size(bytes);
    r1cs::ShapeCounter cs;
    const auto comm_r_new = gadgets::AllocatedNum::alloc(cs, Fr::zero());
    const auto k = gadgets::AllocatedNum::alloc(cs, Fr::zero());
    const size_t before = cs.num_constraints();
    update_gadgets::gen_challenge_bits(cs, comm_r_new, k, p.challenge_count, p.random_bits_per_challenge());
    EXPECT_EQ(cs.num_constraints() - before, constraints) << bytes;
  }
}

// ---- a generated 2 KiB update ----

const TestSector& sealed_2kib() {
  static const TestSector s = [] {
    TestSectorOptions o;
    o.data = SectorData::kRandom;
    o.rng_seed = 7;
    o.mode = SectorMode::kReal;
    return generate_test_sector(seal_proof_info(RegisteredSealProof::kStackedDrg2KiBV1_1), o);
  }();
  return s;
}

const TestSectorUpdate& update_2kib(bool poseidon) {
  static const auto make = [](bool q) {
    const Params p = q ? Params::from_sector_size_poseidon(2 * KiB) : Params::from_sector_size(2 * KiB);
    return generate_test_sector_update(p, *sealed_2kib().sealed, test_update_data(p, 11));
  };
  static const TestSectorUpdate standard = make(false), pos = make(true);
  return poseidon ? pos : standard;
}

// Refused: some constraint unsatisfied, or synthesis throws (as rust-fil-proofs asserts) when the
// witness's label_r_new disagrees with the computed encoding.
bool refused(const EmptySectorUpdateCircuit& c) {
  r1cs::TestChecker cs;
  try {
    c.synthesize(cs);
  } catch (const std::invalid_argument&) {
    return true;
  }
  return !cs.is_satisfied();
}

// Synthesizes (no exception expected) and some constraint is unsatisfied.
bool unsatisfied(const EmptySectorUpdateCircuit& c) {
  r1cs::TestChecker cs;
  c.synthesize(cs);
  return !cs.is_satisfied();
}

TEST(FilecoinSnapTest, Generated2KiBUpdateRoundTripsVerifiesAndSatisfies) {
  for (bool poseidon : {false, true}) {
    SCOPED_TRACE(poseidon ? "Poseidon" : "standard");
    const TestSectorUpdate& u = update_2kib(poseidon);
    const Params& p = u.params;
    // comm_r_old is the sealed sector's comm_r.
    Fr comm_r;
    ASSERT_TRUE(Fr::from_bytes_le(sealed_2kib().comm_r.data(), comm_r));
    EXPECT_EQ(u.comm_r_old, comm_r);
    const auto bytes = u.partition_bincode();
    ASSERT_EQ(bytes.size(), p.partition_count);
    for (size_t k = 0; k < bytes.size(); k++) {
      const auto read = read_empty_sector_update_partition_proof(bytes[k], p);
      EXPECT_EQ(write_empty_sector_update_partition_proof(read, p), bytes[k]) << "partition " << k;
      EXPECT_EQ(verify_empty_sector_update_partition(p, u.public_inputs(k), read), "") << "partition " << k;
      const auto circuit = EmptySectorUpdateCircuit::from_vanilla(p, u.public_inputs(k), read);
      EXPECT_EQ(satisfaction_error(circuit), "") << "partition " << k;
      // Same number of constraints as the blank circuit (the parameters' shape).
      r1cs::ShapeCounter shape;
      circuit.synthesize(shape);
      EXPECT_EQ(shape.num_constraints(), count_constraints(p));
    }
    // One 2 KiB standard partition: comm_c, 8 apex leaves, 10 x (two tree R openings of 2 levels
    // of arity 8 and one tree D opening of 6 binary levels).
    const size_t tree_r_bytes = 4 + 64 + 8 + 2 * (8 + 7 * 32 + 8), tree_d_bytes = 4 + 64 + 8 + 6 * (8 + 32 + 8);
    const size_t expected_size =
        poseidon ? 32u + 8 + 10 * 3 * tree_r_bytes : 32u + 8 + 8 * 32 + 8 + 10 * (2 * tree_r_bytes + tree_d_bytes);
    EXPECT_EQ(bytes[0].size(), expected_size);
  }
}

TEST(FilecoinSnapTest, SparseUpdatesMatchTheFullGeneratorVerifyAndSatisfy) {
  for (uint64_t bytes : {2 * KiB, 8 * MiB}) {
    for (bool poseidon : {false, true}) {
      SCOPED_TRACE(std::to_string(bytes) + (poseidon ? " Poseidon" : " standard"));
      const Params p = poseidon ? Params::from_sector_size_poseidon(bytes) : Params::from_sector_size(bytes);
      const SparseSectorUpdate u = make_sparse_sector_update(p, 5);
      EXPECT_EQ(u.h, p.h_default);
      EXPECT_EQ(u.comm_r_new, u.comm_r_old);
      EXPECT_NE(u.comm_c, u.default_leaf);
      const auto bincode = u.partition_bincode();
      ASSERT_EQ(bincode.size(), p.partition_count);
      // The full generator over a replica of the default leaf with zero data gives the same
      // commitments and bytes (at 8 MiB only for the standard variant, which has the apex leaves
      // of several partitions: the full Poseidon tree D takes seconds).
      if (bytes == 2 * KiB || !poseidon) {
        const TestSectorUpdate full = generate_test_sector_update(p, std::vector<Fr>(p.sector_nodes, u.default_leaf),
                                                                  u.comm_c, test_update_data(p, 0, /*zeros=*/true));
        EXPECT_EQ(full.comm_r_old, u.comm_r_old);
        EXPECT_EQ(full.comm_d_new, u.comm_d_new);
        EXPECT_EQ(full.comm_r_new, u.comm_r_new);
        EXPECT_EQ(bincode, full.partition_bincode());
      }
      std::vector<EmptySectorUpdatePartitionProof> read;
      for (size_t k = 0; k < bincode.size(); k++) {
        read.push_back(read_empty_sector_update_partition_proof(bincode[k], p));
        EXPECT_EQ(write_empty_sector_update_partition_proof(read[k], p), bincode[k]) << "partition " << k;
        EXPECT_EQ(verify_empty_sector_update_partition(p, u.public_inputs(k), read[k]), "") << "partition " << k;
      }
      // The circuit at 2 KiB (an 8 MiB partition takes about 5 s: filecoin_snap_slow_test checks
      // all four, outside the sanitizer runs).
      if (bytes != 2 * KiB) continue;
      const std::vector<size_t> ks = {0};
      std::vector<std::string> errors(ks.size());
      tbb::parallel_for(size_t(0), ks.size(), [&](size_t i) {
        const size_t k = ks[i];
        errors[i] = satisfaction_error(EmptySectorUpdateCircuit::from_vanilla(p, u.public_inputs(k), read[k]));
      });
      for (size_t i = 0; i < ks.size(); i++) EXPECT_EQ(errors[i], "") << "partition " << ks[i];
    }
  }
  // Another seed gives other commitments; another allowed h the same ones (rho is multiplied by 0).
  const Params p = Params::from_sector_size(8 * MiB);
  const SparseSectorUpdate u = make_sparse_sector_update(p, 5);
  EXPECT_NE(make_sparse_sector_update(p, 6).comm_r_new, u.comm_r_new);
  const SparseSectorUpdate other_h = make_sparse_sector_update(p, 5, p.hs[0]);
  EXPECT_EQ(other_h.h, p.hs[0]);
  EXPECT_EQ(other_h.comm_r_new, u.comm_r_new);
  EXPECT_EQ(verify_empty_sector_update_partition(p, other_h.public_inputs(3), other_h.partitions[3]), "");
  EXPECT_THROW(make_sparse_sector_update(p, 5, 13), std::invalid_argument);
}

TEST(FilecoinSnapTest, Sparse32GiBAnd64GiBUpdatesVerify) {
  using clock = std::chrono::steady_clock;
  for (uint64_t bytes : {32 * GiB, 64 * GiB}) {
    for (bool poseidon : {false, true}) {
      SCOPED_TRACE(std::to_string(bytes) + (poseidon ? " Poseidon" : " standard"));
      const Params p = poseidon ? Params::from_sector_size_poseidon(bytes) : Params::from_sector_size(bytes);
      const auto start = clock::now();
      const SparseSectorUpdate u = make_sparse_sector_update(p, 7);
      const auto bincode = u.partition_bincode();
      const double s = std::chrono::duration<double>(clock::now() - start).count();
      std::printf("sparse %s update of %llu GiB: %zu partitions generated and serialized in %.3f s\n",
                  poseidon ? "Poseidon" : "standard", static_cast<unsigned long long>(bytes / GiB), bincode.size(), s);
      ASSERT_EQ(bincode.size(), p.partition_count);
      // Partitions 0 and 15 of the standard variant; the Poseidon variant's one partition (1376
      // challenges, seconds to verify) at 32 GiB only.
      if (poseidon && bytes != 32 * GiB) continue;
      for (size_t k : {size_t(0), size_t(15)}) {
        if (k >= p.partition_count) continue;
        SCOPED_TRACE("partition " + std::to_string(k));
        const auto read = read_empty_sector_update_partition_proof(bincode[k], p);
        EXPECT_EQ(write_empty_sector_update_partition_proof(read, p), bincode[k]);
        EXPECT_EQ(verify_empty_sector_update_partition(p, u.public_inputs(k), read), "");
        // Partition k's challenges lie in its chunk of nodes, so another k is refused.
        if (p.partition_count > 1) {
          auto wrong = u.public_inputs(k);
          wrong.k = (k + 1) % p.partition_count;
          EXPECT_NE(verify_empty_sector_update_partition(p, wrong, read), "");
        }
      }
    }
  }
}

// Synthesized into a proving assignment in one section per challenge and serially (SerialOnly):
// the same a, b, c, aux, inputs and densities; and so is its witness-only synthesis.
void expect_sections_equal_serial(const EmptySectorUpdateCircuit& c) {
  r1cs::ProvingAssignment serial, parallel;
  test::SerialOnly serial_cs(serial);
  c.synthesize(serial_cs);
  test::CountingSections parallel_cs(parallel);
  c.synthesize(parallel_cs);
  EXPECT_EQ(parallel_cs.opened, c.params().challenge_count);
  EXPECT_EQ(serial.num_constraints(), count_constraints(c.params()));
  test::expect_same_assignment(serial, parallel);
  test::expect_witness_path_equals_full(c);
}

TEST(FilecoinSnapTest, ParallelSectionsEqualSerialSynthesis) {
  for (bool poseidon : {false, true}) {
    SCOPED_TRACE(poseidon ? "Poseidon" : "standard");
    const TestSectorUpdate& u = update_2kib(poseidon);
    expect_sections_equal_serial(EmptySectorUpdateCircuit::from_vanilla(u.params, u.public_inputs(0), u.partitions[0]));
    const Params p = poseidon ? Params::from_sector_size_poseidon(2 * KiB) : Params::from_sector_size(2 * KiB);
    const SparseSectorUpdate s = make_sparse_sector_update(p, 5);
    expect_sections_equal_serial(EmptySectorUpdateCircuit::from_vanilla(p, s.public_inputs(0), s.partitions[0]));
  }
  // A challenge whose label_r_new disagrees is refused in sections too (the section's exception
  // reaches the caller).
  const TestSectorUpdate& u = update_2kib(false);
  EmptySectorUpdatePartitionProof bad = u.partitions[0];
  bad.challenge_proofs[3].proof_r_new.leaf += Fr::one();
  r1cs::ProvingAssignment pa;
  EXPECT_THROW(EmptySectorUpdateCircuit::from_vanilla(u.params, u.public_inputs(0), bad).synthesize(pa),
               std::invalid_argument);
}

TEST(FilecoinSnapTest, TamperedUpdatesAreRefused) {
  const TestSectorUpdate& u = update_2kib(false);
  const Params& p = u.params;
  const EmptySectorUpdatePartitionProof& proof = u.partitions[0];
  // A tampered comm_r_new: the verifier's challenges and comm_r check fail, and the circuit is
  // unsatisfied.
  {
    auto in = u.public_inputs(0);
    in.comm_r_new += Fr::one();
    EXPECT_NE(verify_empty_sector_update_partition(p, in, proof), "");
    EXPECT_TRUE(refused(EmptySectorUpdateCircuit::from_vanilla(p, in, proof)));
  }
  // A tampered comm_r_old or comm_d_new.
  {
    auto in = u.public_inputs(0);
    in.comm_d_new += Fr::one();
    EXPECT_NE(verify_empty_sector_update_partition(p, in, proof), "");
    EXPECT_TRUE(refused(EmptySectorUpdateCircuit::from_vanilla(p, in, proof)));
    in = u.public_inputs(0);
    in.comm_r_old += Fr::one();
    EXPECT_TRUE(refused(EmptySectorUpdateCircuit::from_vanilla(p, in, proof)));
  }
  // A flipped new-data byte: the update built from it has another comm_d_new; the original proof
  // with the data leaf changed is refused (the vanilla verifier, and the circuit's own check).
  {
    auto data = u.new_data;
    data[32 * 5] ^= 1;
    const auto other = generate_test_sector_update(p, *sealed_2kib().sealed, data);
    EXPECT_NE(other.comm_d_new, u.comm_d_new);
    EXPECT_NE(verify_empty_sector_update_partition(p, u.public_inputs(0), other.partitions[0]), "");
    EXPECT_TRUE(refused(EmptySectorUpdateCircuit::from_vanilla(p, u.public_inputs(0), other.partitions[0])));
    auto bad = proof;
    bad.challenge_proofs[0].proof_d_new.leaf += Fr::one();
    EXPECT_NE(verify_empty_sector_update_partition(p, u.public_inputs(0), bad), "");
    r1cs::TestChecker checker;
    EXPECT_THROW(EmptySectorUpdateCircuit::from_vanilla(p, u.public_inputs(0), bad).synthesize(checker),
                 std::invalid_argument);
    // The new leaf changed consistently (leaf_r_new too): the openings no longer reach the roots.
    const Fr phi = empty_sector_update_phi(u.comm_d_new, u.comm_r_old);
    const uint32_t c = empty_sector_update_challenges(p, u.comm_r_new, 0)[0];
    bad.challenge_proofs[0].proof_r_new.leaf += empty_sector_update_rho(phi, empty_sector_update_high(p, u.h, c));
    EXPECT_TRUE(unsatisfied(EmptySectorUpdateCircuit::from_vanilla(p, u.public_inputs(0), bad)));
  }
  // A tampered apex leaf or path sibling.
  {
    auto bad = proof;
    bad.apex_leafs[3] += Fr::one();
    EXPECT_NE(verify_empty_sector_update_partition(p, u.public_inputs(0), bad), "");
    EXPECT_TRUE(unsatisfied(EmptySectorUpdateCircuit::from_vanilla(p, u.public_inputs(0), bad)));
    bad = proof;
    bad.challenge_proofs[4].proof_r_old.base[1].hashes[2] += Fr::one();
    EXPECT_TRUE(unsatisfied(EmptySectorUpdateCircuit::from_vanilla(p, u.public_inputs(0), bad)));
  }
  // A wrong k or h: refused before synthesis (2 KiB has one partition and h = 1 only).
  {
    auto in = u.public_inputs(0);
    in.k = 1;
    EXPECT_THROW(EmptySectorUpdateCircuit::from_vanilla(p, in, proof), std::invalid_argument);
    EXPECT_NE(verify_empty_sector_update_partition(p, in, proof), "");
    in = u.public_inputs(0);
    in.h = 2;
    EXPECT_THROW(EmptySectorUpdateCircuit::from_vanilla(p, in, proof), std::invalid_argument);
  }
}

TEST(FilecoinSnapTest, MalformedBincodeIsRefusedNamingTheField) {
  const TestSectorUpdate& u = update_2kib(false);
  const Params& p = u.params;
  const auto good = u.partition_bincode()[0];
  auto message = [&](std::vector<uint8_t> b) -> std::string {
    try {
      read_empty_sector_update_partition_proof(b, p);
    } catch (const UpdateVanillaProofFormatError& e) {
      return e.what();
    }
    return "";
  };
  auto expect_has = [](const std::string& m, const std::string& what) {
    EXPECT_NE(m.find(what), std::string::npos) << "message \"" << m << "\" lacks \"" << what << "\"";
  };
  // Truncated at several points.
  expect_has(message({good.begin(), good.begin() + 20}), "comm_c: truncated");
  expect_has(message({good.begin(), good.begin() + 36}), "apex_leafs length: truncated");
  expect_has(message({good.begin(), good.begin() + 100}), "apex_leafs[1]: truncated");
  expect_has(message({good.begin(), good.end() - 1}), "challenge_proofs[9].proof_r_new");
  // Trailing bytes.
  auto longer = good;
  longer.push_back(0);
  expect_has(message(longer), "end: 1 bytes after the proof");
  // A wrong apex leaf count.
  auto b = good;
  b[32] = 9;
  expect_has(message(b), "apex_leafs: 9 elements, the apex leaf count needs 8");
  // A non-canonical comm_c.
  b = good;
  std::memset(b.data(), 0xff, 32);
  expect_has(message(b), "comm_c: not a canonical field element");
  // The first challenge proof's variant (Sub instead of Single).
  b = good;
  const size_t first_proof = 32 + 8 + 8 * 32 + 8;
  b[first_proof] = 1;
  expect_has(message(b), "challenge_proofs[0].proof_r_old.data: Sub proof, tree R");
  // Tree D's path length.
  b = good;
  const size_t tree_r_proof = 4 + 64 + 8 + 2 * (8 + 7 * 32 + 8);
  b[first_proof + tree_r_proof + 4 + 64] = 5;
  expect_has(message(b), "challenge_proofs[0].proof_d_new.data.Single.path: 5 elements, tree D needs 6");
  // An index beyond the arity.
  b = good;
  b[first_proof + 4 + 64 + 8 + 8 + 7 * 32] = 8;
  expect_has(message(b), "challenge_proofs[0].proof_r_old.data.Single.path[0].index: 8 >= arity 8");
  // The Poseidon variant has no apex leaves: the standard bytes do not parse as it.
  EXPECT_THROW(read_empty_sector_update_partition_proof(good, update_2kib(true).params), UpdateVanillaProofFormatError);
}

}  // namespace
}  // namespace cuzk::filecoin

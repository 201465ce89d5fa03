// SnapDeals, the slow part (label slow): the blank 32 GiB circuits against rust-fil-proofs'
// counts (tests/circuit.rs 81,049,499 with 5 inputs, tests/circuit_poseidon.rs 22,305,906), an
// 8 MiB update of a real sealed sector (4 partitions) satisfying every partition, and Groth16 of
// a 2 KiB update partition with a TEST setup of our own (cached in the build tree like
// filecoin_prove_test's): the proof verifies with the verifier's public inputs and not with a
// tampered one. (Filecoin publishes no 2 KiB parameters for the Poseidon variant.) Sparse updates
// (generators/sparse_sector_update.hpp): every 8 MiB partition and partition 0 of a 32 GiB one (81 M
// constraints: about a minute and 4 GiB on a 2-core machine) satisfy the circuit. 8 MiB
// partitions (generated and sparse, both variants) synthesize into a proving assignment in
// parallel sections exactly as serially; DISABLED_Sparse32GiBPartitionSerialVsSections times both
// (about 12 GB each).
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

#include <gtest/gtest.h>

#include "filecoin/generators/sparse_sector_update.hpp"
#include "filecoin/generators/test_sector.hpp"
#include "filecoin/generators/test_sector_update.hpp"
#include "filecoin/snap/circuit.hpp"
#include "filecoin/snap/registered_proofs.hpp"
#include "groth16/param_file.hpp"
#include "groth16/prover.hpp"
#include "groth16/setup.hpp"
#include "groth16/verifier.hpp"
#include "r1cs/proving_assignment.hpp"
#include "r1cs/shape.hpp"
#include "serial_only_cs.hpp"
#include "snap_satisfaction.hpp"

namespace cuzk::filecoin {
namespace {

using Params = EmptySectorUpdateParams;
using test::snap::satisfaction_error;
constexpr uint64_t KiB = 1024, MiB = KiB * 1024, GiB = MiB * 1024;

TEST(FilecoinSnapSlowTest, Blank32GiBCircuitCountsOfRustFilProofs) {
  {
    r1cs::ShapeCounter cs;
    EmptySectorUpdateCircuit::blank(Params::from_sector_size(32 * GiB)).synthesize(cs);
    EXPECT_EQ(cs.num_constraints(), 81049499u);
    EXPECT_EQ(cs.num_inputs(), 5u);
  }
  {
    r1cs::ShapeCounter cs;
    EmptySectorUpdateCircuit::blank(Params::from_sector_size_poseidon(32 * GiB)).synthesize(cs);
    EXPECT_EQ(cs.num_constraints(), 22305906u);
    EXPECT_EQ(cs.num_inputs(), 5u);
  }
}

// Synthesized into a proving assignment in one section per challenge and serially (SerialOnly):
// the same a, b, c, aux, inputs and densities.
void expect_sections_equal_serial(const EmptySectorUpdateCircuit& c) {
  r1cs::ProvingAssignment serial, parallel;
  test::SerialOnly serial_cs(serial);
  c.synthesize(serial_cs);
  test::CountingSections parallel_cs(parallel);
  c.synthesize(parallel_cs);
  EXPECT_EQ(parallel_cs.opened, c.params().challenge_count);
  test::expect_same_assignment(serial, parallel);
}

TestSectorUpdate update_of(uint64_t bytes, RegisteredSealProof seal, bool poseidon) {
  TestSectorOptions o;
  o.data = SectorData::kRandom;
  o.rng_seed = 3;
  o.mode = SectorMode::kReal;
  const TestSector s = generate_test_sector(seal_proof_info(seal), o);
  const Params p = poseidon ? Params::from_sector_size_poseidon(bytes) : Params::from_sector_size(bytes);
  return generate_test_sector_update(p, *s.sealed, test_update_data(p, 5));
}

TEST(FilecoinSnapSlowTest, Generated8MiBUpdateSatisfiesEveryPartition) {
  const TestSectorUpdate u = update_of(8 * MiB, RegisteredSealProof::kStackedDrg8MiBV1_1, false);
  ASSERT_EQ(u.partitions.size(), 4u);
  const auto bytes = u.partition_bincode();
  for (size_t k = 0; k < 4; k++) {
    const auto proof = read_empty_sector_update_partition_proof(bytes[k], u.params);
    EXPECT_EQ(write_empty_sector_update_partition_proof(proof, u.params), bytes[k]);
    EXPECT_EQ(verify_empty_sector_update_partition(u.params, u.public_inputs(k), proof), "") << k;
    const auto circuit = EmptySectorUpdateCircuit::from_vanilla(u.params, u.public_inputs(k), proof);
    ASSERT_EQ(satisfaction_error(circuit), "") << "partition " << k;
    // Partition k's proof is refused as another partition's.
    auto other = u.public_inputs(k);
    other.k = (k + 1) % 4;
    EXPECT_NE(verify_empty_sector_update_partition(u.params, other, proof), "");
    // Its challenges differ, so the encoding check throws (as rust-fil-proofs asserts) or a
    // constraint fails.
    r1cs::TestChecker wrong;
    bool refused = false;
    try {
      EmptySectorUpdateCircuit::from_vanilla(u.params, other, proof).synthesize(wrong);
      refused = !wrong.is_satisfied();
    } catch (const std::invalid_argument&) {
      refused = true;
    }
    EXPECT_TRUE(refused) << k;
  }
  // One partition of a real update in parallel sections equals its serial synthesis.
  expect_sections_equal_serial(EmptySectorUpdateCircuit::from_vanilla(u.params, u.public_inputs(2), u.partitions[2]));
}

TEST(FilecoinSnapSlowTest, Sparse8MiBPartitionsInSectionsEqualSerialSynthesis) {
  for (bool poseidon : {false, true}) {
    SCOPED_TRACE(poseidon ? "Poseidon" : "standard");
    const Params p = poseidon ? Params::from_sector_size_poseidon(8 * MiB) : Params::from_sector_size(8 * MiB);
    const auto u = make_sparse_sector_update(p, 5);
    const size_t k = p.partition_count - 1;
    expect_sections_equal_serial(EmptySectorUpdateCircuit::from_vanilla(p, u.public_inputs(k), u.partitions[k]));
  }
}

// Run by hand (--gtest_also_run_disabled_tests): one sparse 32 GiB partition into a proving
// assignment reserved for its shape, serially and in sections, one after the other (each holds
// about 10 GB), twice: the first round also pays for the fresh (huge) pages.
TEST(FilecoinSnapSlowTest, DISABLED_Sparse32GiBPartitionSerialVsSections) {
  using clock = std::chrono::steady_clock;
  const Params p = Params::from_sector_size(32 * GiB);
  const auto u = make_sparse_sector_update(p, 7);
  const auto circuit = EmptySectorUpdateCircuit::from_vanilla(p, u.public_inputs(0), u.partitions[0]);
  r1cs::ShapeCounter shape;
  EmptySectorUpdateCircuit::blank(p).synthesize(shape);
  // The shared prefix, synthesized before the sections: the circuit of one challenge less one.
  Params one = p;
  one.challenge_count = 1;
  r1cs::ShapeCounter one_shape;
  EmptySectorUpdateCircuit::blank(one).synthesize(one_shape);
  const size_t per_challenge = (shape.num_constraints() - one_shape.num_constraints()) / (p.challenge_count - 1);
  std::printf("%zu challenges of %zu constraints after a prefix of about %zu\n", p.challenge_count, per_challenge,
              one_shape.num_constraints() - per_challenge);
  for (int round = 1; round <= 2; round++) {
    size_t constraints[2] = {}, aux[2] = {};
    for (bool sections : {false, true}) {
      r1cs::ProvingAssignment pa;
      pa.reserve(shape.num_constraints() + shape.num_inputs(), shape.num_aux());
      test::SerialOnly serial(pa);
      const auto start = clock::now();
      const std::clock_t cpu = std::clock();
      circuit.synthesize(sections ? static_cast<r1cs::ConstraintSystem&>(pa) : serial);
      std::printf("round %d: 32 GiB sparse partition 0 synthesized %s in %.1f s (%.1f s CPU, %zu constraints)\n", round,
                  sections ? "in sections" : "serially", std::chrono::duration<double>(clock::now() - start).count(),
                  double(std::clock() - cpu) / CLOCKS_PER_SEC, pa.num_constraints());
      constraints[sections] = pa.num_constraints();
      aux[sections] = pa.num_aux();
    }
    EXPECT_EQ(constraints[0], 81049499u);
    EXPECT_EQ(constraints[1], constraints[0]);
    EXPECT_EQ(aux[1], aux[0]);
  }
}

TEST(FilecoinSnapSlowTest, SparseUpdatesSatisfyThe8MiBAnd32GiBCircuits) {
  using clock = std::chrono::steady_clock;
  {
    const Params p = Params::from_sector_size(8 * MiB);
    const auto u = make_sparse_sector_update(p, 5);
    for (size_t k = 0; k < p.partition_count; k++) {
      EXPECT_EQ(satisfaction_error(EmptySectorUpdateCircuit::from_vanilla(p, u.public_inputs(k), u.partitions[k])), "")
          << "partition " << k;
    }
  }
  const Params p = Params::from_sector_size(32 * GiB);
  const auto u = make_sparse_sector_update(p, 7);
  const auto read = read_empty_sector_update_partition_proof(u.partition_bincode()[0], p);
  const auto start = clock::now();
  EXPECT_EQ(satisfaction_error(EmptySectorUpdateCircuit::from_vanilla(p, u.public_inputs(0), read)), "");
  std::printf("32 GiB sparse partition 0 checked in %.1f s\n",
              std::chrono::duration<double>(clock::now() - start).count());
}

std::filesystem::path params_cache() {
  if (const char* dir = std::getenv("CUZK_PARAMS_CACHE")) return dir;
  return CUZK_TEST_PARAMS_CACHE;
}

// Our own setup of the circuit's shape, cached as "cuzk-TEST-ONLY-<published stem>.params".
groth16::Parameters test_parameters(const Params& p) {
  const auto path = params_cache() / ("cuzk-TEST-ONLY-" + p.parameter_id().stem + ".params");
  if (std::filesystem::exists(path)) {
    return groth16::ParameterFile::open(path.string()).decode(groth16::ReadMode::kUnchecked);
  }
  auto params = groth16::generate_parameters(EmptySectorUpdateCircuit::blank(p), groth16::ToxicWaste::random());
  std::filesystem::create_directories(params_cache());
  const auto tmp = path.string() + ".partial." + std::to_string(getpid());
  groth16::write_parameters(params, tmp);
  std::filesystem::rename(tmp, path);
  return params;
}

TEST(FilecoinSnapSlowTest, Groth16Of2KiBUpdateProvesAndVerifies) {
  const TestSectorUpdate u = update_of(2 * KiB, RegisteredSealProof::kStackedDrg2KiBV1_1, false);
  const auto params = test_parameters(u.params);
  const auto circuit = EmptySectorUpdateCircuit::from_vanilla(u.params, u.public_inputs(0), u.partitions[0]);
  const groth16::Proof proof = groth16::prove(params, circuit);
  const groth16::PreparedVerifyingKey pvk(params.vk);
  const auto inputs = circuit.public_input_values();
  EXPECT_TRUE(groth16::verify_proof(pvk, proof, inputs));
  for (size_t i = 0; i < 4; i++) {
    auto tampered = inputs;
    tampered[i] += Fr::one();
    EXPECT_FALSE(groth16::verify_proof(pvk, proof, tampered)) << "input " << i;
  }
  // Through the 192-byte encoding.
  const auto bytes = groth16::encode_proofs(std::vector<groth16::Proof>{proof});
  ASSERT_EQ(bytes.size(), 192u);
  EXPECT_TRUE(groth16::verify_proof(pvk, groth16::decode_proof(bytes), inputs));
}

}  // namespace
}  // namespace cuzk::filecoin

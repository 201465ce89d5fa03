// The engine's compiled circuits (engine/compiled_circuits.hpp): recorded once and written, read
// again from the file after a release, charged to the budget while resident; a circuit that
// cannot be compiled is remembered as such (its error thrown again without recording it again),
// other failures are not.
#include "engine/compiled_circuits.hpp"

#include <filesystem>
#include <stdexcept>

#include <gtest/gtest.h>

#include "circuits/synthetic.hpp"
#include "engine/budget.hpp"
#include "engine/tracker.hpp"
#include "r1cs/compiled_circuit.hpp"
#include "test_support.hpp"

namespace cuzk::engine {
namespace {

struct CompiledCircuitsTest : ::testing::Test {
  test::TempDir dir{"cuzk-compiled-test"};
  MemoryBudget budget{uint64_t(1) << 30};
  BufferTracker tracker{false, nullptr};
  CompiledCircuits circuits{std::filesystem::path(dir.path) / "compiled", budget, tracker};
  int recorded = 0;
};

TEST_F(CompiledCircuitsTest, RecordedOnceChargedWhileResidentAndReadAgainFromItsFile) {
  const circuits::SyntheticCircuit circuit(1 << 10, 4, {}, 5);
  auto record = [&](r1cs::ConstraintSystem& cs) {
    recorded++;
    circuit.synthesize(cs);
  };
  const auto first = circuits.get("set-a", record);
  ASSERT_TRUE(first);
  EXPECT_EQ(recorded, 1);
  EXPECT_EQ(circuits.bytes(), first->bytes());
  EXPECT_EQ(budget.used(), first->bytes());
  EXPECT_EQ(circuits.get("set-a", record), first) << "resident: the same circuit";
  EXPECT_EQ(recorded, 1);
  EXPECT_TRUE(
      std::filesystem::exists(CompiledCircuits::file_in(std::filesystem::path(dir.path) / "compiled", "set-a")));

  circuits.release("set-a");
  EXPECT_EQ(circuits.bytes(), 0u);
  EXPECT_EQ(budget.used(), 0u);
  const auto again = circuits.get("set-a", record);
  EXPECT_EQ(recorded, 1) << "read from its file, not recorded again";
  EXPECT_TRUE(*again == *first) << "the file holds the circuit recorded";
  EXPECT_EQ(budget.used(), again->bytes());
  circuits.release("set-a");
  EXPECT_EQ(budget.used(), 0u);
}

TEST_F(CompiledCircuitsTest, ACircuitThatCannotBeCompiledIsNotRecordedAgain) {
  const std::string why = "compiled circuit: more than 65,536 distinct coefficients";
  auto record = [&](r1cs::ConstraintSystem&) {
    recorded++;
    throw r1cs::CircuitTooLarge(why);
  };
  EXPECT_EQ(circuits.uncompilable("set-b"), "") << "nobody tried";
  EXPECT_THROW(circuits.get("set-b", record), r1cs::CircuitTooLarge);
  EXPECT_EQ(recorded, 1);
  try {
    circuits.get("set-b", record);
    ADD_FAILURE() << "no error the second time";
  } catch (const r1cs::CircuitTooLarge& e) {
    EXPECT_EQ(std::string(e.what()), why);
  }
  EXPECT_EQ(recorded, 1) << "the error remembered, not recorded again";
  EXPECT_EQ(circuits.uncompilable("set-b"), why);
  EXPECT_EQ(circuits.uncompilable("set-c"), "");
  EXPECT_EQ(budget.used(), 0u);
  EXPECT_EQ(circuits.bytes(), 0u);
}

// A job's input that fails (a length_error of its own included) says nothing of the circuit.
TEST_F(CompiledCircuitsTest, OtherFailuresAreTriedAgain) {
  auto record = [&](r1cs::ConstraintSystem&) {
    recorded++;
    if (recorded == 1) throw std::runtime_error("the partition's input could not be read");
    throw std::length_error("vector::reserve");
  };
  EXPECT_THROW(circuits.get("set-d", record), std::runtime_error);
  EXPECT_THROW(circuits.get("set-d", record), std::length_error);
  EXPECT_THROW(circuits.get("set-d", record), std::length_error);
  EXPECT_EQ(recorded, 3);
  EXPECT_EQ(circuits.uncompilable("set-d"), "");
}

}  // namespace
}  // namespace cuzk::engine

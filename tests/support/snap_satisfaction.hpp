// Whether a SnapDeals partition circuit is satisfied with the verifier's public inputs, as one
// message, for the SnapDeals tests (callable from worker threads, unlike gtest's assertions).
#pragma once

#include <string>

#include "filecoin/snap/circuit.hpp"
#include "r1cs/shape.hpp"

namespace cuzk::test::snap {

using filecoin::EmptySectorUpdateCircuit;

// "" when every constraint holds and the circuit's 4 public inputs (after the 1 wire) are the
// verifier's, else what failed.
inline std::string satisfaction_error(const EmptySectorUpdateCircuit& c) {
  r1cs::TestChecker cs;
  c.synthesize(cs);
  if (!cs.is_satisfied()) return "unsatisfied: " + *cs.first_unsatisfied();
  const auto expected = c.public_input_values();
  if (cs.inputs().size() != 5) return std::to_string(cs.inputs().size()) + " inputs";
  for (size_t i = 0; i < 4; i++) {
    if (cs.inputs()[i + 1] != expected[i]) return "input " + std::to_string(i) + " differs";
  }
  return "";
}

}  // namespace cuzk::test::snap

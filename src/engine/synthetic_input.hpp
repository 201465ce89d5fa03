// The engine's own proof kind: jobs of the synthetic PoRep-profile circuit family
// (circuits/synthetic.hpp), for the demo, tests and benchmarks. All partitions of a job share one
// shape (one parameter set, "synthetic-<constraints>-<inputs>-seed<seed>") and differ in their
// witness seed.
#pragma once

#include <memory>
#include <vector>

#include "engine/job.hpp"
#include "engine/proof_input.hpp"

namespace cuzk::engine {

// Throws EngineError(kInvalidArgument) for an unknown circuit kind, a size outside
// [2 * inputs + 3, 2^32] or partitions of different shapes.
std::shared_ptr<const ProofInput> make_synthetic_input(const std::vector<CircuitDescription>& partitions);

// The shape of a synthetic partition (constraints include the input constraints; one aux
// variable per body constraint).
CircuitShape synthetic_shape(const CircuitDescription& c);

// Checks a description as make_synthetic_input does (preloading a synthetic parameter id).
void check_synthetic_circuit(const CircuitDescription& c);

}  // namespace cuzk::engine

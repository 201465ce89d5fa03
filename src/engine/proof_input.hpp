// What the engine knows of a proof kind: a job's input, parsed once when the job is submitted,
// that says how many partitions the job has and their shape before any synthesis (for the
// memory budget), names the parameter set, synthesizes partition k, and gives the public inputs
// that verify-before-return checks the proof against. The engine's own synthetic kind is in
// synthetic_input.hpp; Filecoin's kinds (src/kinds/) plug in from above.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "ff/fr.hpp"

namespace cuzk::groth16 {
struct Parameters;
}  // namespace cuzk::groth16
namespace cuzk::r1cs {
class ConstraintSystem;
}  // namespace cuzk::r1cs

namespace cuzk::engine {

// One partition's circuit as the prover sees it (every partition of a job has the same one,
// since they share a parameter set).
struct CircuitShape {
  uint64_t constraints = 0;  // synthesized, plus the one constraint per public input (ONE included)
  uint64_t aux = 0;
  uint64_t inputs = 0;  // ONE included
  // Bytes the synthesis holds besides the assignment (the circuit's own scratch), at most.
  uint64_t scratch_bytes = 0;
};

class ProofInput {
 public:
  virtual ~ProofInput() = default;
  // The kind's name: "synthetic", "porep", ... (status, metrics and logs).
  virtual std::string kind() const = 0;
  // One line for logs, e.g. "StackedDrg32GiBV1_1, miner t01000, sector 7".
  virtual std::string describe() const = 0;
  virtual uint32_t partitions() const = 0;
  virtual CircuitShape shape() const = 0;
  // The parameter set every partition is proved with (ParameterManager id).
  virtual std::string param_id() const = 0;
  // Synthesizes partition k into the assignment (a proving assignment reserved for the shape, full
  // or witness-only, or the recorder of a compiled circuit); the engine appends the input
  // constraints. Throws on a witness that cannot be built; may run on any thread, and on several
  // partitions of one input at once.
  virtual void synthesize(uint32_t k, r1cs::ConstraintSystem& assignment) const = 0;
  // The public inputs (ONE excluded) partition k's proof must verify against, computed from the
  // request as a verifier would; nullopt: the engine takes the assignment's own (the synthetic
  // kind, whose inputs are its witness).
  virtual std::optional<std::vector<ff::Fr>> public_inputs(uint32_t k) const = 0;
  // Host bytes the parsed input holds while the job lives (the tracker's `input` class).
  virtual uint64_t input_bytes() const = 0;
};

// A parameter set as a source loaded it.
struct LoadedParameters {
  std::unique_ptr<groth16::Parameters> params;
  std::string origin;  // the file it came from (or how it was made): errors about the set name it
};

// Where parameter sets of some ids come from (EngineConfig::parameter_sources, asked in order
// before the engine's own cache directory): Filecoin's published files, a TEST setup, ...
// What a parameter source throws when it has no file for an id and may not make one: the engine
// answers NOT_FOUND (any other failure to load is FAILED_PRECONDITION).
class ParametersNotFound : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ParameterSource {
  // Whether this source serves the id.
  std::function<bool(const std::string& id)> serves;
  // The set's host bytes, known before loading (for the budget); nullopt when unknown.
  std::function<std::optional<int64_t>(const std::string& id)> expected_bytes;
  // Loads (or makes) the set; throws ParametersNotFound, or std::runtime_error naming the file and
  // the problem. recheck:
  // a proof made with this id's last set failed, so the file is checked in full again (its
  // digest, or every point) even if it passed before in this process.
  std::function<LoadedParameters(const std::string& id, bool recheck)> load;
};

}  // namespace cuzk::engine

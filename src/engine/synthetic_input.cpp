#include "engine/synthetic_input.hpp"

#include <string>

#include "circuits/synthetic.hpp"
#include "engine/engine.hpp"
#include "engine/param_manager.hpp"
#include "r1cs/proving_assignment.hpp"

namespace cuzk::engine {
namespace {

class SyntheticInput final : public ProofInput {
 public:
  explicit SyntheticInput(std::vector<CircuitDescription> parts) : parts_(std::move(parts)) {}
  std::string kind() const override { return "synthetic"; }
  std::string describe() const override {
    return "synthetic, " + std::to_string(parts_.size()) + " partition(s) of " + std::to_string(parts_[0].constraints) +
           " constraints";
  }
  uint32_t partitions() const override { return uint32_t(parts_.size()); }
  CircuitShape shape() const override { return synthetic_shape(parts_[0]); }
  std::string param_id() const override { return ParameterManager::synthetic_id(parts_[0]); }
  void synthesize(uint32_t k, r1cs::ConstraintSystem& assignment) const override {
    const CircuitDescription& c = parts_.at(k);
    circuits::SyntheticCircuit circuit(c.constraints, c.public_inputs, circuits::SyntheticProfile{}, c.seed);
    circuit.set_witness_seed(c.seed + k);
    circuit.synthesize(assignment);
  }
  // The synthetic circuit's inputs are part of its witness: the assignment's own are checked.
  std::optional<std::vector<ff::Fr>> public_inputs(uint32_t) const override { return std::nullopt; }
  uint64_t input_bytes() const override { return 0; }

 private:
  std::vector<CircuitDescription> parts_;
};

}  // namespace

void check_synthetic_circuit(const CircuitDescription& c) {
  using Code = EngineError::Code;
  if (c.kind != "synthetic") {
    throw EngineError(Code::kInvalidArgument, "unknown circuit kind '" + c.kind + "' (supported: synthetic)");
  }
  const uint64_t min_constraints = 2 * uint64_t(c.public_inputs) + 3;
  if (c.constraints < min_constraints || c.constraints > (uint64_t(1) << 32)) {
    throw EngineError(Code::kInvalidArgument, "synthetic circuit: " + std::to_string(c.constraints) +
                                                  " constraints is outside [" + std::to_string(min_constraints) +
                                                  ", 2^32] for " + std::to_string(c.public_inputs) + " public inputs");
  }
}

CircuitShape synthetic_shape(const CircuitDescription& c) {
  CircuitShape s;
  s.constraints = c.constraints;
  s.inputs = uint64_t(c.public_inputs) + 1;
  s.aux = c.constraints - (2 * uint64_t(c.public_inputs) + 1);
  s.scratch_bytes = circuits::SyntheticCircuit::synthesis_scratch_bytes(c.constraints);
  return s;
}

std::shared_ptr<const ProofInput> make_synthetic_input(const std::vector<CircuitDescription>& parts) {
  using Code = EngineError::Code;
  if (parts.empty()) throw EngineError(Code::kInvalidArgument, "the job has no partitions");
  const CircuitDescription& c = parts[0];
  check_synthetic_circuit(c);
  for (size_t i = 1; i < parts.size(); i++) {
    if (parts[i].kind != c.kind || parts[i].constraints != c.constraints || parts[i].public_inputs != c.public_inputs ||
        parts[i].seed != c.seed) {
      throw EngineError(Code::kInvalidArgument, "partition " + std::to_string(i) +
                                                    " has another circuit shape than partition 0; the partitions of a "
                                                    "job share one parameter set");
    }
  }
  return std::make_shared<SyntheticInput>(parts);
}

}  // namespace cuzk::engine

#include "groth16/backend.hpp"

namespace cuzk::groth16 {
namespace {

class CpuBackend final : public ProverBackend {
 public:
  std::string name() const override { return "cpu"; }
  bool concurrent() const override { return true; }  // stateless
  PendingProof prove_start(const Parameters& params, r1cs::ProvingAssignment& assignment, const Fr& r, const Fr& s,
                           ProveTimings* timings, const r1cs::ProvingAssignment* /*next*/) override {
    return groth16::prove_start(params, assignment, r, s, timings);
  }
};

}  // namespace

std::unique_ptr<ProverBackend> make_cpu_backend() { return std::make_unique<CpuBackend>(); }

}  // namespace cuzk::groth16

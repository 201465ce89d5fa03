#include "filecoin/porep/parameters.hpp"

#include "filecoin/porep/circuit.hpp"
#include "groth16/setup.hpp"

namespace cuzk::filecoin {

FoundParameters load_porep_parameters(const SealProofInfo& proof, const ParameterSearch& search,
                                      const ParameterLoadOptions& options) {
  auto setup = [&proof] {
    return groth16::generate_parameters(StackedCircuit::blank(proof), groth16::ToxicWaste::random());
  };
  return load_parameters(porep_parameter_id(proof), proof.name, setup, search, options);
}

}  // namespace cuzk::filecoin

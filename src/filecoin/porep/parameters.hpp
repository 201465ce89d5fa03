// The Groth16 parameters of a PoRep circuit through the parameter search (parameter_search.hpp):
// Filecoin's published file (v28-stacked-proof-of-replication-...params), else, where the search
// allows it, a TEST setup of our own for the circuit's shape, which proves and verifies against
// itself only, never on chain.
#pragma once

#include "filecoin/parameter_search.hpp"
#include "filecoin/porep/registered_proofs.hpp"

namespace cuzk::filecoin {

FoundParameters load_porep_parameters(const SealProofInfo& proof, const ParameterSearch& search,
                                      const ParameterLoadOptions& options = {});

}  // namespace cuzk::filecoin

// The Groth16 parameters of a PoRep circuit: Filecoin's published file when the parameter cache
// holds it (v28-stacked-proof-of-replication-...params, parameter_files.hpp), otherwise, when
// allowed, a setup of our own for the circuit's shape (random toxic waste), cached under a name
// that says TEST: such parameters prove and verify against themselves only, never on chain.
#pragma once

#include <filesystem>
#include <functional>
#include <string>

#include "filecoin/registered_proof.hpp"
#include "groth16/parameters.hpp"

namespace cuzk::filecoin {

struct PoRepParameterOptions {
  std::filesystem::path published_dir;              // empty: parameter_cache_dir()
  std::filesystem::path test_dir = "params-cache";  // where our own setups are cached
  bool allow_test_setup = true;
  // A published file: every point checked on the curve and in its subgroup; false: its digest
  // against parameters.json instead. Our own cached setups are checked by their digest trailer.
  bool check_points = true;
  std::function<void(const std::string&)> log;  // progress lines (setup, loading); may be empty
};

struct PoRepParameters {
  groth16::Parameters params;
  std::filesystem::path path;
  bool published = false;  // Filecoin's file; otherwise our own test setup
};

// The file name our own setup of the proof's circuit is cached under:
// "cuzk-TEST-ONLY-<published stem>.params".
std::string test_parameters_name(const SealProofInfo& proof);

// Published file first, then the cached test setup, then (allow_test_setup) a new setup, cached.
// Throws std::runtime_error naming the files looked for when none is found and no setup is
// allowed, or when a file cannot be read.
PoRepParameters load_porep_parameters(const SealProofInfo& proof, const PoRepParameterOptions& options = {});

}  // namespace cuzk::filecoin

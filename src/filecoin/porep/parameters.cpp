#include "filecoin/porep_parameters.hpp"

#include <stdexcept>
#include <string>
#include <unistd.h>

#include "filecoin/parameter_files.hpp"
#include "filecoin/stacked_circuit.hpp"
#include "groth16/param_file.hpp"
#include "groth16/setup.hpp"

namespace cuzk::filecoin {

std::string test_parameters_name(const SealProofInfo& proof) {
  return "cuzk-TEST-ONLY-" + porep_parameter_id(proof).stem + ".params";
}

PoRepParameters load_porep_parameters(const SealProofInfo& proof, const PoRepParameterOptions& options) {
  auto log = [&](const std::string& line) {
    if (options.log) options.log(line);
  };
  const ParameterId id = porep_parameter_id(proof);
  const auto published_dir = options.published_dir.empty() ? parameter_cache_dir() : options.published_dir;
  PoRepParameters out;
  if (auto path = find_parameter_file(id.params_name(), published_dir)) {
    // Used only with every point checked, or once parameters.json's digest matched.
    auto mode = groth16::ReadMode::kChecked;
    if (!options.check_points) {
      log("checking the digest of Filecoin's published parameters " + path->string() + " against parameters.json");
      verify_parameter_file(*path);  // throws naming the file, the expected and the found digest
      mode = groth16::ReadMode::kUnchecked;
    }
    log("loading Filecoin's published parameters " + path->string());
    out.params = groth16::ParameterFile::open(path->string()).decode(mode);
    out.path = *path;
    out.published = true;
    return out;
  }
  const auto test_path = options.test_dir / test_parameters_name(proof);
  if (std::filesystem::exists(test_path)) {
    log("loading TEST parameters (our own setup, not Filecoin's) " + test_path.string());
    out.params = groth16::read_own_parameters(test_path.string());
    out.path = test_path;
    return out;
  }
  if (!options.allow_test_setup) {
    throw std::runtime_error("no parameters for " + std::string(proof.name) + ": neither Filecoin's " +
                             (published_dir / id.params_name()).string() + " nor a test setup " + test_path.string() +
                             " exists (fetch the published file, e.g. with paramfetch)");
  }
  log("no published parameters " + (published_dir / id.params_name()).string() +
      ": running a TEST setup of our own for the circuit's shape (random toxic waste; proofs will not verify "
      "on chain), cached as " +
      test_path.string());
  out.params = groth16::generate_parameters(StackedCircuit::blank(proof), groth16::ToxicWaste::random());
  std::filesystem::create_directories(options.test_dir);
  // Written under a temporary name of this process and renamed, so that neither an interrupted
  // write nor two processes setting up at once leave a broken file.
  const auto tmp = test_path.string() + ".partial." + std::to_string(getpid());
  try {
    groth16::write_parameters(out.params, tmp);
    std::filesystem::rename(tmp, test_path);
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    throw;
  }
  out.path = test_path;
  return out;
}

}  // namespace cuzk::filecoin

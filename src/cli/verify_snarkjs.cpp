#include <fmt/format.h>
#include <iostream>
#include <nlohmann/json.hpp>
#include <vector>

#include "cli/exit_codes.hpp"
#include "cli/local_verification.hpp"
#include "ff/fr.hpp"
#include "interop/snarkjs/json_io.hpp"
#include "interop/snarkjs/verifier.hpp"

namespace cuzk::cli {

int verify_snarkjs(const std::string& vk_path, const std::string& public_path, const std::string& proof_path,
                   bool json) {
  bool valid = false;
  std::string why;
  try {
    const snarkjs::VerifyingKey vk = snarkjs::verifying_key_from_json(snarkjs::read_text_file(vk_path), vk_path);
    const std::vector<ff::Fr> inputs =
        snarkjs::public_signals_from_json(snarkjs::read_text_file(public_path), public_path);
    const snarkjs::Proof proof = snarkjs::proof_from_json(snarkjs::read_text_file(proof_path), proof_path);
    if (inputs.size() + 1 != vk.ic.size()) {
      throw snarkjs::FormatError(fmt::format("{} has {} public signals, {} expects {}", public_path, inputs.size(),
                                             vk_path, vk.ic.size() - 1));
    }
    valid = snarkjs::verify(vk, inputs, proof);
    if (!valid) why = "the proof does not verify against these public signals and this verification key";
  } catch (const std::exception& e) {
    if (json) {
      std::cout << nlohmann::json{{"valid", false}, {"error", e.what()}}.dump(2) << "\n";
    } else {
      std::cerr << "cuzk: " << e.what() << "\n";
    }
    return kInputError;
  }
  if (json) {
    nlohmann::json j = {
        {"valid", valid}, {"verification_key", vk_path}, {"public", public_path}, {"proof", proof_path}};
    if (!valid) j["error"] = why;
    std::cout << j.dump(2) << "\n";
  } else if (valid) {
    std::cout << fmt::format("valid     {} (snarkjs Groth16, bls12381)\nkey       {}\n", proof_path, vk_path);
  } else {
    std::cerr << fmt::format("cuzk: {} is not a valid proof: {}\n", proof_path, why);
  }
  return valid ? kOk : kProofInvalid;
}

}  // namespace cuzk::cli

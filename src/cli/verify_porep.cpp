#include <filesystem>
#include <fmt/format.h>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>

#include "cli/client_files.hpp"
#include "cli/exit_codes.hpp"
#include "cli/local_verification.hpp"
#include "cli/option_parsing.hpp"
#include "filecoin/parameter_files.hpp"
#include "filecoin/parameter_search.hpp"
#include "filecoin/porep/challenges.hpp"
#include "filecoin/porep/commit1.hpp"
#include "filecoin/porep/registered_proofs.hpp"
#include "filecoin/porep/verify.hpp"
#include "groth16/param_file.hpp"

namespace cuzk::cli {

namespace {

struct VerifyingKeyFile {
  groth16::VerifyingKey vk;
  std::string path;
  bool test = false;  // cuzk's TEST parameters: valid against themselves only, never on chain
};

// --vk, else the published .vk, then the published .params (the daemon's search: --param-cache,
// $FIL_PROOFS_PARAMETER_CACHE, /var/tmp/filecoin-proof-parameters), then our TEST parameters in
// --param-cache-dir. Throws std::runtime_error naming what was looked for where.
VerifyingKeyFile find_verifying_key(const PoRepArgs& a, const filecoin::SealProofInfo& info) {
  if (!a.vk.empty()) return {groth16::read_verifying_key(a.vk), a.vk, false};
  filecoin::ParameterSearch search;
  search.param_cache = a.param_cache;
  search.test_dir = a.param_cache_dir;
  const filecoin::ParameterId id = filecoin::porep_parameter_id(info);
  if (auto vk = search.find_published(id.vk_name()))
    return {groth16::read_verifying_key(vk->string()), vk->string(), false};
  auto decode_vk = [](const std::filesystem::path& p) {
    return groth16::ParameterFile::open(p.string()).decode_verifying_key(groth16::ReadMode::kChecked);
  };
  if (auto params = search.find_published(id.params_name())) return {decode_vk(*params), params->string(), false};
  const std::filesystem::path test = search.test_path(id);
  if (!a.param_cache_dir.empty() && std::filesystem::is_regular_file(test))
    return {decode_vk(test), test.string(), true};
  throw std::runtime_error(fmt::format(
      "no verifying key for {}: neither {} nor {} in {}{}; give --vk FILE, --param-cache DIR or --param-cache-dir DIR",
      info.name, id.vk_name(), id.params_name(), search.describe(),
      a.param_cache_dir.empty() ? "" : ", nor cuzk's TEST parameters " + test.string()));
}

}  // namespace

int verify_porep(const PoRepArgs& a, bool json) {
  uint64_t miner = 0;
  try {
    miner = parse_miner(a.miner);
  } catch (const std::invalid_argument& e) {
    std::cerr << "cuzk: " << e.what() << "\n";
    return kUsage;
  }
  filecoin::SealCommitPhase1Output c1;
  std::string proof;
  try {
    c1 = filecoin::read_seal_commit_phase1_file(a.c1);
    proof = read_file(a.proof, "proof");
  } catch (const std::exception& e) {
    std::cerr << "cuzk: " << e.what() << "\n";
    return kInputError;
  }
  const filecoin::SealProofInfo& info = filecoin::seal_proof_info(c1.registered_proof);
  if (!a.registered_proof.empty()) {
    try {
      const filecoin::SealProofInfo& given = registered_proof_arg(a.registered_proof);
      if (given.proof != info.proof) {
        std::cerr << fmt::format("cuzk: --registered-proof {} differs from the Commit1 output's {}\n", given.name,
                                 info.name);
        return kUsage;
      }
    } catch (const std::invalid_argument& e) {
      std::cerr << "cuzk: " << e.what() << "\n";
      return kUsage;
    }
  }
  if (info.feature == filecoin::SealFeature::kNonInteractive) {
    std::cerr << fmt::format(
        "cuzk: {} is non-interactive PoRep, whose proofs are SnarkPack aggregates: cuzk does not verify them\n",
        info.name);
    return kUnsupported;
  }
  VerifyingKeyFile key;
  try {
    key = find_verifying_key(a, info);
  } catch (const std::exception& e) {
    std::cerr << "cuzk: " << e.what() << "\n";
    return kInputError;
  }
  filecoin::SealVerifyInputs in;
  in.prover_id = filecoin::prover_id_from_actor_id(miner);
  in.sector_id = a.sector;
  in.ticket = c1.ticket;
  in.seed = c1.seed;
  in.comm_r = c1.comm_r;
  in.comm_d = c1.comm_d;
  bool valid = false;
  std::string why;
  try {
    const auto* bytes = reinterpret_cast<const uint8_t*>(proof.data());
    valid = filecoin::verify_seal(groth16::PreparedVerifyingKey(key.vk), info, in, {bytes, proof.size()});
    if (!valid) why = "the proof does not verify against these public inputs and this verifying key";
  } catch (const std::invalid_argument& e) {
    why = e.what();  // wrong length, a point that does not decode
  }
  if (json) {
    nlohmann::json j = {{"valid", valid},
                        {"registered_proof", info.name},
                        {"miner", miner},
                        {"sector", a.sector},
                        {"partitions", info.partitions},
                        {"verifying_key", key.path},
                        {"test_parameters", key.test}};
    if (!valid) j["error"] = why;
    std::cout << j.dump(2) << "\n";
  } else if (valid) {
    std::cout << fmt::format("valid     {} ({}, miner t0{}, sector {}, {} partition{})\nkey       {}{}\n", a.proof,
                             info.name, miner, a.sector, info.partitions, info.partitions == 1 ? "" : "s", key.path,
                             key.test ? " (cuzk's TEST parameters: such proofs never verify on chain)" : "");
  } else {
    std::cerr << fmt::format("cuzk: {} is not a valid proof for {}, miner t0{}, sector {}: {}\n", a.proof, info.name,
                             miner, a.sector, why);
  }
  return valid ? kOk : kProofInvalid;
}

}  // namespace cuzk::cli

// The Filecoin proofs, sent as Curio sends them: `cuzk prove porep | window-post | winning-post |
// snap`. Each input file is read and checked here first, so that a broken one is named.
#include <cctype>
#include <fmt/format.h>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "cli/client.hpp"
#include "cli/client_files.hpp"
#include "cli/commitment_cid.hpp"
#include "cli/curio_envelope_writers.hpp"
#include "cli/exit_codes.hpp"
#include "cli/option_parsing.hpp"
#include "filecoin/porep/registered_proofs.hpp"
#include "filecoin/post/registered_proofs.hpp"
#include "filecoin/post/vanilla_proof.hpp"
#include "filecoin/snap/registered_proofs.hpp"
#include "filecoin/snap/vanilla_proof.hpp"
#include "kinds/base64.hpp"

namespace cuzk::cli {

namespace v1 = cuzk::v1;

namespace {

// The "registered_proof" of a Commit1 output's JSON, without parsing the rest (tens of MB for
// 32 GiB): filecoin-proofs-api writes it first. Empty when absent.
std::string c1_registered_proof(std::string_view json) {
  const std::string_view key = "\"registered_proof\"";
  size_t at = json.find(key);
  if (at == std::string_view::npos) return {};
  at += key.size();
  while (at < json.size() && (std::isspace(static_cast<unsigned char>(json[at])) || json[at] == ':')) ++at;
  if (at >= json.size() || json[at] != '"') return {};
  size_t end = json.find('"', at + 1);
  if (end == std::string_view::npos) return {};
  return std::string(json.substr(at + 1, end - at - 1));
}

std::span<const uint8_t> byte_span(std::string_view bytes) {
  return {reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()};
}

// Curio's snap-vproof.json (Go's encoding/json of the [][]byte GenerateUpdateVanillaProofs
// returns: an array of base64 strings), else nullopt. Throws std::runtime_error naming the file for
// a JSON array that does not hold base64 strings.
std::optional<std::vector<std::string>> curio_snap_vanilla_json(const std::string& path, const std::string& text) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos || text[first] != '[') return std::nullopt;
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_array()) return std::nullopt;  // bincode that starts with '[' (0x5b)
  std::vector<std::string> out;
  for (size_t i = 0; i < j.size(); i++) {
    if (!j[i].is_string()) {
      throw std::runtime_error(
          fmt::format("{}: element {} of the JSON array is not a string; Curio's snap-vproof.json holds one base64 "
                      "PartitionProof per partition",
                      path, i));
    }
    try {
      out.push_back(kinds::base64_decode(j[i].get<std::string>()));
    } catch (const std::invalid_argument& e) {
      throw std::runtime_error(fmt::format("{}: element {} is not base64: {}", path, i, e.what()));
    }
  }
  return out;
}

}  // namespace

int Client::prove_porep(const PoRepArgs& a) {
  v1::SubmitProofRequest req;
  std::string c1;
  const filecoin::SealProofInfo* info = nullptr;
  try {
    req.set_miner_id(parse_miner(a.miner));
    set_priority(a.priority, req);
    if (!a.registered_proof.empty()) info = &registered_proof_arg(a.registered_proof);
  } catch (const std::invalid_argument& e) {
    std::cerr << "cuzk: " << e.what() << "\n";
    return kUsage;
  }
  try {
    c1 = read_file(a.c1, "Commit1 output");
    if (!info) {
      std::string name = c1_registered_proof(c1);
      if (name.empty()) {
        throw std::runtime_error(a.c1 +
                                 " has no registered_proof: is it a Commit1 output (SealCommitPhase1Output JSON)?");
      }
      info = &filecoin::seal_proof_info(name);
    }
  } catch (const std::exception& e) {
    std::cerr << "cuzk: " << e.what() << "\n";
    return kInputError;
  }
  req.set_request_id(a.request_id);
  req.set_proof_kind(v1::POREP_SEAL_COMMIT);
  req.set_sector_size(info->sector_size);
  req.set_registered_proof(info->id());
  req.set_sector_number(a.sector);
  req.set_vanilla_proof(curio_c1_envelope(c1, a.sector, info->sector_size));
  c1 = {};
  // The daemon reads and checks the Commit1 output before it answers (seconds for 32 GiB).
  return submit_and_wait(req, fmt::format("PoRep {}, miner t0{}, sector {}", info->name, req.miner_id(), a.sector),
                         a.out, std::chrono::seconds(600));
}

int Client::prove_post(const PoStArgs& a, bool winning) {
  const char* kind = winning ? "WinningPoSt" : "WindowPoSt";
  v1::SubmitProofRequest req;
  // Curio's levels (WinningPoStCuzk: CRITICAL, WindowPoStCuzk: HIGH); --priority changes them.
  req.set_priority(winning ? v1::CRITICAL : v1::HIGH);
  const filecoin::PoStProofInfo* info = nullptr;
  std::string randomness;
  try {
    req.set_miner_id(parse_miner(a.miner));
    set_priority(a.priority, req);
    info = &post_proof_arg(a.registered_proof, winning);
    randomness = parse_hex32(a.randomness, "--randomness");
  } catch (const std::invalid_argument& e) {
    std::cerr << "cuzk: " << e.what() << "\n";
    return kUsage;
  }
  const size_t most = winning ? 1 : info->params.sector_count;
  if (a.vanilla.empty() || a.vanilla.size() > most) {
    std::cerr << fmt::format("cuzk: {} vanilla proofs given; {} takes {}\n", a.vanilla.size(), info->name,
                             winning ? std::string("one (--vanilla FILE: the challenged sector's)")
                                     : fmt::format("1 to {} (--vanilla FILE for each sector of the partition)", most));
    return kUsage;
  }
  // Each file is checked here, so that a wrong or broken file is named; whether its openings are
  // the challenges of this randomness and partition the daemon checks when it answers.
  std::map<uint64_t, std::string> sectors;  // sector id -> its file
  try {
    for (const std::string& path : a.vanilla) {
      std::string bytes = read_file(path, "vanilla proof");
      filecoin::FallbackPoStSectorProof proof;
      try {
        proof = filecoin::read_fallback_post_sector_proof(byte_span(bytes), *info);
      } catch (const std::invalid_argument& e) {
        throw std::runtime_error(
            fmt::format("{}: not a bincode FallbackPoStSectorProof of {}: {}", path, info->name, e.what()));
      }
      if (proof.sectors.size() != 1) {
        throw std::runtime_error(fmt::format(
            "{}: holds {} sector proofs; one is expected (one sector's vanilla proof, as GenerateSingleVanillaProof "
            "writes it)",
            path, proof.sectors.size()));
      }
      if (auto [it, fresh] = sectors.emplace(proof.sector_id, path); !fresh) {
        throw std::runtime_error(fmt::format("{} and {} both prove sector {}", it->second, path, proof.sector_id));
      }
      req.add_vanilla_proofs(std::move(bytes));
    }
  } catch (const std::exception& e) {
    std::cerr << "cuzk: " << e.what() << "\n";
    return kInputError;
  }
  req.set_request_id(a.request_id);
  req.set_proof_kind(winning ? v1::WINNING_POST : v1::WINDOW_POST_PARTITION);
  req.set_sector_size(info->params.sector_size);
  req.set_registered_proof(info->id());
  req.set_randomness(randomness);
  if (!winning) req.set_partition_index(a.partition);
  const std::string what =
      winning ? fmt::format("{} {}, miner t0{}, sector {}", kind, info->name, req.miner_id(), sectors.begin()->first)
              : fmt::format("{} {}, miner t0{}, partition {}, {} sector{}", kind, info->name, req.miner_id(),
                            a.partition, sectors.size(), sectors.size() == 1 ? "" : "s");
  // The daemon checks every opening before it answers.
  return submit_and_wait(req, what, a.out, std::chrono::seconds(600));
}

int Client::prove_snap(const SnapArgs& a) {
  v1::SubmitProofRequest req;
  req.set_priority(v1::NORMAL);  // as Curio's ProveUpdateCuzk; --priority changes it
  const filecoin::UpdateProofInfo* info = nullptr;
  try {
    req.set_miner_id(parse_miner(a.miner));
    set_priority(a.priority, req);
    info = &update_proof_arg(a.registered_proof);
    req.set_comm_r_old(parse_commitment(a.comm_r_old, "--comm-r-old", true));
    req.set_comm_r_new(parse_commitment(a.comm_r_new, "--comm-r-new", true));
    req.set_comm_d_new(parse_commitment(a.comm_d_new, "--comm-d-new", false));
  } catch (const std::invalid_argument& e) {
    std::cerr << "cuzk: " << e.what() << "\n";
    return kUsage;
  }
  // The partitions in order, each named by its file (and its place in a snap-vproof.json).
  std::vector<std::pair<std::string, std::string>> parts;
  try {
    for (const std::string& path : a.vanilla) {
      std::string text = read_file(path, "vanilla proof");
      if (std::optional<std::vector<std::string>> list = curio_snap_vanilla_json(path, text)) {
        for (size_t i = 0; i < list->size(); i++) parts.emplace_back(fmt::format("{} [{}]", path, i), (*list)[i]);
      } else {
        parts.emplace_back(path, std::move(text));
      }
    }
  } catch (const std::exception& e) {
    std::cerr << "cuzk: " << e.what() << "\n";
    return kInputError;
  }
  const size_t partitions = info->params.partition_count;
  if (parts.size() != partitions) {
    std::cerr << fmt::format(
        "cuzk: {} vanilla proofs given; {} has {} partition{}: give one PartitionProof per partition in partition "
        "order (--vanilla FILE each), or Curio's snap-vproof.json\n",
        parts.size(), info->name, partitions, partitions == 1 ? "" : "s");
    return kUsage;
  }
  // Each partition is read here, so that a wrong or broken file is named; whether it fits the
  // commitments and its partition the daemon checks when it answers.
  for (size_t k = 0; k < parts.size(); k++) {
    auto& [name, bytes] = parts[k];
    try {
      filecoin::read_empty_sector_update_partition_proof(byte_span(bytes), info->params);
    } catch (const std::invalid_argument& e) {
      std::cerr << fmt::format("cuzk: {}: not a bincode PartitionProof of {} (partition {}): {}\n", name, info->name, k,
                               e.what());
      return kInputError;
    }
    req.add_vanilla_proofs(std::move(bytes));
  }
  parts = {};
  req.set_request_id(a.request_id);
  req.set_proof_kind(v1::SNAP_DEALS_UPDATE);
  req.set_sector_size(info->sector_size);
  req.set_registered_proof(info->id());
  req.set_sector_number(a.sector);
  // The daemon checks every partition as the verifier does before it answers.
  return submit_and_wait(req,
                         fmt::format("SnapDeals {}, miner t0{}, sector {}, {} partition{}", info->name, req.miner_id(),
                                     a.sector, partitions, partitions == 1 ? "" : "s"),
                         a.out, std::chrono::seconds(600));
}

}  // namespace cuzk::cli

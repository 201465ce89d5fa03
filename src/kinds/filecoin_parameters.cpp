// The parameter source of Filecoin's kinds: the published v28 files through the one parameter
// search (filecoin/parameter_search.hpp), their digest checked against parameters.json on first
// load; a TEST setup of our own only when configured.
#include <filesystem>
#include <map>
#include <spdlog/spdlog.h>

#include "filecoin/parameter_files.hpp"
#include "filecoin/parameter_search.hpp"
#include "filecoin/porep/circuit.hpp"
#include "filecoin/post/circuit.hpp"
#include "filecoin/post/registered_proofs.hpp"
#include "filecoin/snap/circuit.hpp"
#include "filecoin/snap/registered_proofs.hpp"
#include "groth16/setup.hpp"
#include "kinds/filecoin_kinds.hpp"

namespace cuzk::kinds {
namespace {

using filecoin::SealProofInfo;

// Curio's size suffix of a circuit id ("porep-32g": lib's ProofKind::circuit_id, in GiB); ours for
// the sizes below 1 GiB ("porep-2k", "porep-8m", "porep-512m").
std::string size_suffix(uint64_t bytes) {
  if (bytes >= (uint64_t(1) << 30)) return std::to_string(bytes >> 30) + "g";
  if (bytes >= (uint64_t(1) << 20)) return std::to_string(bytes >> 20) + "m";
  return std::to_string(bytes >> 10) + "k";
}

// What a served parameter id is: the circuit of one registered proof of each kind (the registered
// proofs of a size that share a circuit share its id).
struct Served {
  const SealProofInfo* porep = nullptr;
  const filecoin::PoStProofInfo* post = nullptr;
  const filecoin::UpdateProofInfo* snap = nullptr;
  filecoin::ParameterId names;
};

struct ServedIds {
  std::map<std::string, Served, std::less<>> by_stem;
  std::map<std::string, std::string, std::less<>> circuit_to_stem;
  std::vector<std::pair<std::string, std::string>> circuits;  // in kind and size order
};

const ServedIds& served_ids() {
  static const ServedIds ids = [] {
    ServedIds out;
    auto add = [&out](const std::string& circuit, Served s) {
      const std::string stem = s.names.stem;
      out.by_stem.emplace(stem, std::move(s));
      if (out.circuit_to_stem.emplace(circuit, stem).second) out.circuits.emplace_back(circuit, stem);
    };
    // PoRep: the interactive V1_1 proofs (V1 has the same circuit; non-interactive is not built).
    for (const auto& info : filecoin::seal_proofs()) {
      if (info.api_version != filecoin::ApiVersion::kV1_1_0 || info.feature != filecoin::SealFeature::kInteractive) {
        continue;
      }
      add("porep-" + size_suffix(info.sector_size),
          Served{&info, nullptr, nullptr, filecoin::porep_parameter_id(info)});
    }
    for (const auto& info : filecoin::post_proofs()) {
      const uint64_t size = info.params.sector_size;
      const bool winning = info.type == filecoin::PoStType::kWinning;
      add((winning ? "winning-" : "wpost-") + size_suffix(size),
          Served{nullptr, &info, nullptr,
                 winning ? filecoin::winning_post_parameter_id(size) : filecoin::window_post_parameter_id(size)});
    }
    for (const auto& info : filecoin::update_proofs()) {
      add("snap-" + size_suffix(info.sector_size), Served{nullptr, nullptr, &info, info.params.parameter_id()});
    }
    return out;
  }();
  return ids;
}

// The served parameter set of a stem, or null. Curio's circuit ids are not served themselves: the
// engine keys resident sets by id, and one set under two ids would be loaded twice (the daemon
// maps circuit ids to stems first, param_id_for_circuit_id).
const Served* served_of(std::string_view stem) {
  const auto& ids = served_ids();
  auto it = ids.by_stem.find(stem);
  return it == ids.by_stem.end() ? nullptr : &it->second;
}

}  // namespace

std::optional<std::string> param_id_for_circuit_id(std::string_view circuit_id) {
  const auto& ids = served_ids();
  if (auto c = ids.circuit_to_stem.find(circuit_id); c != ids.circuit_to_stem.end()) return c->second;
  if (ids.by_stem.contains(circuit_id)) return std::string(circuit_id);
  return std::nullopt;
}

const std::vector<std::pair<std::string, std::string>>& circuit_ids() { return served_ids().circuits; }

filecoin::ParameterSearch parameter_search(const FilecoinParameterOptions& options) {
  filecoin::ParameterSearch search;
  search.param_cache = options.param_cache;
  search.test_dir = options.test_dir;
  search.allow_test = options.allow_test_parameters;
  return search;
}

engine::ParameterSource filecoin_parameter_source(const FilecoinParameterOptions& options) {
  auto log = [options](const std::string& line) {
    if (options.log) {
      options.log(line);
    } else {
      spdlog::warn("{}", line);
    }
  };
  const filecoin::ParameterSearch search = parameter_search(options);
  engine::ParameterSource s;
  s.serves = [](const std::string& id) { return served_of(id) != nullptr; };
  s.expected_bytes = [search](const std::string& id) -> std::optional<int64_t> {
    const Served* served = served_of(id);
    if (!served) return std::nullopt;
    std::error_code ec;
    if (auto p = search.find_published(served->names.params_name())) {
      const auto size = std::filesystem::file_size(*p, ec);
      if (!ec) return int64_t(size);  // points take as many bytes in memory as in the file
    }
    if (search.allow_test) {
      const auto size = std::filesystem::file_size(search.test_path(served->names), ec);
      if (!ec) return int64_t(size);
    }
    return std::nullopt;
  };
  s.load = [search, options, log](const std::string& id, bool recheck) -> engine::LoadedParameters {
    const Served* found = served_of(id);
    if (!found) throw std::runtime_error("parameter id " + id + " is not one of Filecoin's published circuits");
    const Served& served = *found;
    filecoin::ParameterLoadOptions load;
    load.verify_digest = options.verify_digest;
    load.recheck = recheck;
    load.log = log;
    auto setup = [&served]() -> groth16::Parameters {
      const auto waste = groth16::ToxicWaste::random();
      if (const filecoin::PoStProofInfo* post = served.post) {
        return groth16::generate_parameters(filecoin::FallbackPoStCircuit::blank(post->params), waste);
      }
      if (const filecoin::UpdateProofInfo* snap = served.snap) {
        return groth16::generate_parameters(filecoin::EmptySectorUpdateCircuit::blank(snap->params), waste);
      }
      return groth16::generate_parameters(filecoin::StackedCircuit::blank(*served.porep), waste);
    };
    const std::string_view name = served.post   ? served.post->name
                                  : served.snap ? served.snap->name
                                                : served.porep->name;
    try {
      filecoin::FoundParameters p = filecoin::load_parameters(served.names, name, setup, search, load);
      return {std::make_unique<groth16::Parameters>(std::move(p.params)),
              p.published ? p.path.string() : p.path.string() + " (TEST setup)"};
    } catch (const filecoin::ParametersNotFound& e) {
      throw engine::ParametersNotFound(e.what());
    }
  };
  return s;
}

}  // namespace cuzk::kinds

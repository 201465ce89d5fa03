// The parameter source of Filecoin's kinds: the published v28 files found by name in the
// configured directory, $FIL_PROOFS_PARAMETER_CACHE, then /var/tmp/filecoin-proof-parameters,
// their digest checked against parameters.json on first load; a TEST setup of our own only when
// configured.
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include "filecoin/empty_sector_update_circuit.hpp"
#include "filecoin/empty_sector_update_parameters.hpp"
#include "filecoin/fallback_post_circuit.hpp"
#include "filecoin/parameter_files.hpp"
#include "filecoin/registered_post_proof.hpp"
#include "filecoin/stacked_circuit.hpp"
#include "groth16/param_file.hpp"
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

// Our own setup of a circuit's shape (as load_porep_parameters does for PoRep): the cached file in
// test_dir (used only whole, with its digest trailer), else a new setup, written under a
// temporary name and renamed.
template <class Circuit>
groth16::Parameters test_parameters(std::string_view name, const Circuit& blank, const std::filesystem::path& path,
                                    const std::function<void(const std::string&)>& log) {
  if (std::filesystem::exists(path)) {
    log("loading TEST parameters (our own setup, not Filecoin's) " + path.string());
    return groth16::read_own_parameters(path.string());
  }
  log("running a TEST setup of our own for " + std::string(name) + "'s circuit, cached as " + path.string());
  groth16::Parameters params = groth16::generate_parameters(blank, groth16::ToxicWaste::random());
  std::filesystem::create_directories(path.parent_path());
  const auto tmp = path.string() + ".partial." + std::to_string(getpid());
  try {
    groth16::write_parameters(params, tmp);
    std::filesystem::rename(tmp, path);
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    throw;
  }
  return params;
}

// The directories searched for a published file, in order.
std::vector<std::filesystem::path> search_dirs(const FilecoinParameterOptions& o) {
  std::vector<std::filesystem::path> dirs;
  if (!o.param_cache.empty()) dirs.emplace_back(o.param_cache);
  if (const char* env = std::getenv(std::string(filecoin::kParameterCacheEnv).c_str()); env && *env) {
    dirs.emplace_back(env);
  }
  dirs.emplace_back(std::string(filecoin::kDefaultParameterCacheDir));
  return dirs;
}

std::optional<std::filesystem::path> find_published(const std::string& name, const FilecoinParameterOptions& o) {
  for (const auto& dir : search_dirs(o)) {
    if (auto p = filecoin::find_parameter_file(name, dir)) return p;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> param_id_for_circuit_id(std::string_view circuit_id) {
  const auto& ids = served_ids();
  if (auto c = ids.circuit_to_stem.find(circuit_id); c != ids.circuit_to_stem.end()) return c->second;
  if (ids.by_stem.contains(circuit_id)) return std::string(circuit_id);
  return std::nullopt;
}

const std::vector<std::pair<std::string, std::string>>& circuit_ids() { return served_ids().circuits; }

engine::ParameterSource filecoin_parameter_source(const FilecoinParameterOptions& options) {
  auto log = [options](const std::string& line) {
    if (options.log) {
      options.log(line);
    } else {
      spdlog::warn("{}", line);
    }
  };
  engine::ParameterSource s;
  s.serves = [](const std::string& id) { return served_of(id) != nullptr; };
  s.expected_bytes = [options](const std::string& id) -> std::optional<int64_t> {
    const Served* served = served_of(id);
    if (!served) return std::nullopt;
    const filecoin::ParameterId& names = served->names;
    std::error_code ec;
    if (auto p = find_published(names.params_name(), options)) {
      const auto size = std::filesystem::file_size(*p, ec);
      if (!ec) return int64_t(size);  // points take as many bytes in memory as in the file
    }
    if (options.allow_test_parameters) {
      // filecoin::test_parameters_name's rule, for PoSt and SnapDeals too.
      const auto size = std::filesystem::file_size(
          std::filesystem::path(options.test_dir) / ("cuzk-TEST-ONLY-" + names.params_name()), ec);
      if (!ec) return int64_t(size);
    }
    return std::nullopt;
  };
  s.load = [options, log](const std::string& id, bool recheck) -> engine::LoadedParameters {
    const Served* found = served_of(id);
    if (!found) throw std::runtime_error("parameter id " + id + " is not one of Filecoin's published circuits");
    const Served& served = *found;
    const filecoin::ParameterId& names = served.names;
    if (auto path = find_published(names.params_name(), options)) {
      // A published file is used only once parameters.json's digest matched (once per file and
      // process: ~1 s per GB, and the files are up to ~50 GB; again after a failed proof), or,
      // with the digest check off, with every point checked on the curve and in its subgroup.
      static std::mutex mutex;
      static std::set<std::string> verified;
      groth16::ReadMode mode = groth16::ReadMode::kUnchecked;
      if (!options.verify_digest) {
        log("parameters " + path->string() +
            ": digest check off (srs.verify_digest = false): every point is checked instead");
        mode = groth16::ReadMode::kChecked;
      } else {
        bool check = false;
        {
          std::lock_guard lock(mutex);
          if (recheck) verified.erase(path->string());
          check = !verified.count(path->string());
        }
        if (check) {
          log("parameters " + path->string() + ": checking its digest against parameters.json");
          filecoin::verify_parameter_file(*path);  // throws naming the file, expected and found digest
          std::lock_guard lock(mutex);
          verified.insert(path->string());
        }
      }
      return {std::make_unique<groth16::Parameters>(groth16::ParameterFile::open(path->string()).decode(mode)),
              path->string()};
    }
    std::string searched;
    for (const auto& d : search_dirs(options)) searched += (searched.empty() ? "" : ", ") + d.string();
    if (!options.allow_test_parameters) {
      throw std::runtime_error(
          "no parameter file " + names.params_name() + " in " + searched +
          " (fetch Filecoin's published parameters, e.g. with paramfetch or `curio fetch-params`)");
    }
    log("parameters " + names.params_name() + " are not in " + searched +
        ": using a TEST setup of our own for the circuit's shape (random toxic waste); its proofs verify against "
        "its own key only, NEVER on chain");
    const auto test_path = std::filesystem::path(options.test_dir) / ("cuzk-TEST-ONLY-" + names.params_name());
    auto made = [&]() -> groth16::Parameters {
      if (const filecoin::PoStProofInfo* post = served.post) {
        return test_parameters(post->name, filecoin::FallbackPoStCircuit::blank(post->params), test_path, log);
      }
      if (const filecoin::UpdateProofInfo* snap = served.snap) {
        return test_parameters(snap->name, filecoin::EmptySectorUpdateCircuit::blank(snap->params), test_path, log);
      }
      return test_parameters(served.porep->name, filecoin::StackedCircuit::blank(*served.porep), test_path, log);
    }();
    return {std::make_unique<groth16::Parameters>(std::move(made)), test_path.string() + " (TEST setup)"};
  };
  return s;
}

}  // namespace cuzk::kinds

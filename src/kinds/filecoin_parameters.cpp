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

#include "filecoin/fallback_post_circuit.hpp"
#include "filecoin/parameter_files.hpp"
#include "filecoin/porep_parameters.hpp"
#include "filecoin/registered_post_proof.hpp"
#include "groth16/param_file.hpp"
#include "groth16/setup.hpp"
#include "kinds/filecoin_kinds.hpp"

namespace cuzk::kinds {
namespace {

using filecoin::SealProofInfo;

// The PoRep parameter ids of the published sizes (one registered proof per size: they share one
// circuit), by our id (the file stem) and by Curio's circuit id.
struct PoRepIds {
  std::map<std::string, const SealProofInfo*> by_stem;
  std::map<std::string, std::string, std::less<>> circuit_to_stem;
};

const PoRepIds& porep_ids() {
  static const PoRepIds ids = [] {
    PoRepIds out;
    static const std::map<std::string, std::string> kCircuit = {{"2KiB", "porep-2k"},
                                                                {"8MiB", "porep-8m"},
                                                                {"512MiB", "porep-512m"},
                                                                {"32GiB", "porep-32g"},
                                                                {"64GiB", "porep-64g"}};
    for (const auto& info : filecoin::seal_proofs()) {
      if (info.api_version != filecoin::ApiVersion::kV1_1_0 || info.feature != filecoin::SealFeature::kInteractive) {
        continue;
      }
      const std::string stem = filecoin::porep_parameter_id(info).stem;
      out.by_stem[stem] = &info;
      out.circuit_to_stem[kCircuit.at(std::string(info.sector_size_name()))] = stem;
    }
    return out;
  }();
  return ids;
}

// The registered proof whose circuit the id names (a stem or Curio's circuit id), or null.
const SealProofInfo* porep_of(const std::string& id) {
  const auto& ids = porep_ids();
  auto c = ids.circuit_to_stem.find(id);
  const std::string& stem = c == ids.circuit_to_stem.end() ? id : c->second;
  auto it = ids.by_stem.find(stem);
  return it == ids.by_stem.end() ? nullptr : it->second;
}

// The WinningPoSt and WindowPoSt parameter ids of the published sizes, by stem: a registered
// PoSt proof of that circuit (the API versions of a size share it).
const filecoin::PoStProofInfo* post_of(const std::string& id) {
  static const std::map<std::string, const filecoin::PoStProofInfo*> by_stem = [] {
    std::map<std::string, const filecoin::PoStProofInfo*> out;
    for (const auto& info : filecoin::post_proofs()) {
      const uint64_t size = info.params.sector_size;
      const auto pid = info.type == filecoin::PoStType::kWinning ? filecoin::winning_post_parameter_id(size)
                                                                 : filecoin::window_post_parameter_id(size);
      out.emplace(pid.stem, &info);
    }
    return out;
  }();
  auto it = by_stem.find(id);
  return it == by_stem.end() ? nullptr : it->second;
}

// The published parameter id of a served id (PoRep or PoSt).
filecoin::ParameterId served_id(const std::string& id) {
  if (const SealProofInfo* info = porep_of(id)) return filecoin::porep_parameter_id(*info);
  const filecoin::PoStProofInfo* post = post_of(id);
  const uint64_t size = post->params.sector_size;
  return post->type == filecoin::PoStType::kWinning ? filecoin::winning_post_parameter_id(size)
                                                    : filecoin::window_post_parameter_id(size);
}

// Our own setup of a PoSt circuit (as load_porep_parameters does for PoRep): the cached file in
// test_dir, else a new setup, written under a temporary name and renamed.
groth16::Parameters post_test_parameters(const filecoin::PoStProofInfo& info, const std::filesystem::path& path,
                                         const std::function<void(const std::string&)>& log) {
  if (std::filesystem::exists(path)) {
    log("loading TEST parameters (our own setup, not Filecoin's) " + path.string());
    return groth16::ParameterFile::open(path.string()).decode(groth16::ReadMode::kUnchecked);
  }
  log("running a TEST setup of our own for " + std::string(info.name) + "'s circuit, cached as " + path.string());
  groth16::Parameters params =
      groth16::generate_parameters(filecoin::FallbackPoStCircuit::blank(info.params), groth16::ToxicWaste::random());
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
  const auto& ids = porep_ids();
  if (auto c = ids.circuit_to_stem.find(circuit_id); c != ids.circuit_to_stem.end()) return c->second;
  if (ids.by_stem.count(std::string(circuit_id))) return std::string(circuit_id);
  return std::nullopt;
}

engine::ParameterSource filecoin_parameter_source(const FilecoinParameterOptions& options) {
  auto log = [options](const std::string& line) {
    if (options.log) {
      options.log(line);
    } else {
      spdlog::warn("{}", line);
    }
  };
  engine::ParameterSource s;
  s.serves = [](const std::string& id) { return porep_of(id) != nullptr || post_of(id) != nullptr; };
  s.expected_bytes = [options](const std::string& id) -> std::optional<int64_t> {
    const filecoin::ParameterId names = served_id(id);
    std::error_code ec;
    if (auto p = find_published(names.params_name(), options)) {
      const auto size = std::filesystem::file_size(*p, ec);
      if (!ec) return int64_t(size);  // points take as many bytes in memory as in the file
    }
    if (options.allow_test_parameters) {
      // filecoin::test_parameters_name's rule, for PoSt too.
      const auto size = std::filesystem::file_size(
          std::filesystem::path(options.test_dir) / ("cuzk-TEST-ONLY-" + names.params_name()), ec);
      if (!ec) return int64_t(size);
    }
    return std::nullopt;
  };
  s.load = [options, log](const std::string& id) {
    const auto names = served_id(id);
    if (auto path = find_published(names.params_name(), options)) {
      // The digest once per file and process: ~1 s per GB, and the files are up to ~50 GB.
      static std::mutex mutex;
      static std::set<std::string> verified;
      bool check = false;
      {
        std::lock_guard lock(mutex);
        check = options.verify_digest && !verified.count(path->string());
      }
      if (check) {
        log("parameters " + path->string() + ": checking its digest against parameters.json");
        filecoin::verify_parameter_file(*path);  // throws naming the file, expected and found digest
        std::lock_guard lock(mutex);
        verified.insert(path->string());
      }
      return std::make_unique<groth16::Parameters>(
          groth16::ParameterFile::open(path->string()).decode(groth16::ReadMode::kUnchecked));
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
    if (const filecoin::PoStProofInfo* post = post_of(id)) {
      return std::make_unique<groth16::Parameters>(post_test_parameters(
          *post, std::filesystem::path(options.test_dir) / ("cuzk-TEST-ONLY-" + names.params_name()), log));
    }
    const SealProofInfo* info = porep_of(id);
    filecoin::PoRepParameterOptions o;
    o.published_dir = std::filesystem::path("/nonexistent");  // the published directories were searched above
    o.test_dir = options.test_dir;
    o.allow_test_setup = true;
    o.check_points = false;  // our own file
    o.log = log;
    auto loaded = filecoin::load_porep_parameters(*info, o);
    return std::make_unique<groth16::Parameters>(std::move(loaded.params));
  };
  return s;
}

}  // namespace cuzk::kinds

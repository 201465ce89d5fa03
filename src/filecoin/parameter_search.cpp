#include "filecoin/parameter_search.hpp"

#include <cstdlib>
#include <mutex>
#include <set>
#include <unistd.h>

#include "groth16/param_file.hpp"

namespace cuzk::filecoin {

namespace {

const char* parameter_cache_env() {
  const char* env = std::getenv(std::string(kParameterCacheEnv).c_str());
  return env != nullptr && *env != '\0' ? env : nullptr;
}

// The published files whose digest matched in this process (~1 s per GB, files up to ~50 GB).
std::mutex digest_mutex;
std::set<std::string> digest_matched;

groth16::Parameters read_published(const std::filesystem::path& path, const ParameterLoadOptions& options,
                                   const std::function<void(const std::string&)>& log) {
  groth16::ReadMode mode = groth16::ReadMode::kUnchecked;
  if (!options.verify_digest) {
    log("parameters " + path.string() + ": digest check off: every point is checked instead");
    mode = groth16::ReadMode::kChecked;
  } else {
    bool check = false;
    {
      std::lock_guard lock(digest_mutex);
      if (options.recheck) digest_matched.erase(path.string());
      check = !digest_matched.count(path.string());
    }
    if (check) {
      log("parameters " + path.string() + ": checking its digest against parameters.json");
      verify_parameter_file(path);  // throws naming the file, the expected and the found digest
      std::lock_guard lock(digest_mutex);
      digest_matched.insert(path.string());
    }
  }
  return groth16::ParameterFile::open(path.string()).decode(mode);
}

// Written under a temporary name of this process and renamed, so that neither an interrupted
// write nor two processes setting up at once leave a broken file.
void write_setup(const groth16::Parameters& params, const std::filesystem::path& path) {
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
}

}  // namespace

std::vector<std::filesystem::path> ParameterSearch::published_dirs() const {
  std::vector<std::filesystem::path> dirs;
  if (!param_cache.empty()) dirs.push_back(param_cache);
  if (const char* env = parameter_cache_env()) dirs.emplace_back(env);
  dirs.emplace_back(std::string(kDefaultParameterCacheDir));
  return dirs;
}

std::string ParameterSearch::describe() const {
  std::string out;
  for (const auto& dir : published_dirs()) {
    if (!out.empty()) out += ", then ";
    out += dir.string();
    const char* env = parameter_cache_env();
    if (env != nullptr && dir == std::filesystem::path(env) && dir != param_cache) {
      out += " ($" + std::string(kParameterCacheEnv) + ")";
    }
  }
  return out;
}

std::optional<std::filesystem::path> ParameterSearch::find_published(std::string_view file_name) const {
  for (const auto& dir : published_dirs()) {
    if (auto p = find_parameter_file(file_name, dir)) return p;
  }
  return std::nullopt;
}

std::filesystem::path ParameterSearch::test_path(const ParameterId& id) const {
  return test_dir / ("cuzk-TEST-ONLY-" + id.params_name());
}

FoundParameters load_parameters(const ParameterId& id, std::string_view circuit_name,
                                const std::function<groth16::Parameters()>& setup, const ParameterSearch& search,
                                const ParameterLoadOptions& options) {
  auto log = [&](const std::string& line) {
    if (options.log) options.log(line);
  };
  FoundParameters out;
  if (auto path = search.find_published(id.params_name())) {
    out.params = read_published(*path, options, log);
    out.path = *path;
    out.published = true;
    return out;
  }
  if (!search.allow_test) {
    throw ParametersNotFound("no parameter file " + id.params_name() + " for " + std::string(circuit_name) + " in " +
                             search.describe() +
                             " (fetch Filecoin's published parameters, e.g. with paramfetch or `curio fetch-params`)");
  }
  out.path = search.test_path(id);
  if (std::filesystem::exists(out.path)) {
    log("loading TEST parameters (our own setup, not Filecoin's) " + out.path.string());
    out.params = groth16::read_own_parameters(out.path.string());
    return out;
  }
  log("parameters " + id.params_name() + " are not in " + search.describe() + ": running a TEST setup of our own for " +
      std::string(circuit_name) +
      "'s circuit (random toxic waste; its proofs verify against its own key only, NEVER on chain), cached as " +
      out.path.string());
  out.params = setup();
  write_setup(out.params, out.path);
  return out;
}

}  // namespace cuzk::filecoin

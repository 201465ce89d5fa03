// The one search for the Groth16 parameters of Filecoin's circuits, which the daemon, the client,
// the benchmarks and the tests share. Two places, two names everywhere:
//  * the parameter cache (`--param-cache`, setting `srs.param_cache`, Curio's key): Filecoin's
//    published files (parameter_files.hpp names them), looked for there, then in
//    $FIL_PROOFS_PARAMETER_CACHE, then in /var/tmp/filecoin-proof-parameters;
//  * cuzk's own cache (`--param-cache-dir`, setting `engine.param_cache_dir`): TEST setups of our
//    own for a circuit's shape (random toxic waste), as cuzk-TEST-ONLY-<stem>.params, read or made
//    only where allowed: their proofs verify against their own key only, never on chain.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "filecoin/parameter_files.hpp"
#include "groth16/parameters.hpp"

namespace cuzk::filecoin {

// No file for a circuit where the search looked, and no TEST setup allowed; the message names the
// file and the directories.
class ParametersNotFound : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ParameterSearch {
  std::filesystem::path param_cache;  // searched first for the published files; empty: skipped
  std::filesystem::path test_dir;     // cuzk's own cache of TEST setups
  bool allow_test = false;            // read TEST setups from test_dir, and make missing ones

  // param_cache (when set), $FIL_PROOFS_PARAMETER_CACHE (when set), /var/tmp/filecoin-proof-parameters.
  std::vector<std::filesystem::path> published_dirs() const;
  // "A, then B ($FIL_PROOFS_PARAMETER_CACHE), then C": for logs and errors.
  std::string describe() const;
  // The first published_dirs() entry holding the file (a plain file name: .params or .vk).
  std::optional<std::filesystem::path> find_published(std::string_view file_name) const;
  // Where our own setup of the circuit is cached: test_dir / "cuzk-TEST-ONLY-<stem>.params".
  std::filesystem::path test_path(const ParameterId& id) const;
};

struct FoundParameters {
  groth16::Parameters params;
  std::filesystem::path path;
  bool published = false;  // Filecoin's file; otherwise our own TEST setup
};

struct ParameterLoadOptions {
  // A published file is used once parameters.json's digest matched (checked once per file and
  // process: about a second per GB), or, when false, with every point checked on the curve and in
  // its subgroup. Our own setups are checked by their digest trailer.
  bool verify_digest = true;
  bool recheck = false;                         // check the digest again although it matched before in this process
  std::function<void(const std::string&)> log;  // loud lines (TEST setups, digest checks); may be empty
};

// The circuit's published file, else (search.allow_test) its cached TEST setup, else setup()'s,
// written to search.test_path(id) under a temporary name and renamed. circuit_name names it in
// logs. Throws ParametersNotFound, or std::runtime_error for a file that cannot be read or whose
// digest does not match.
FoundParameters load_parameters(const ParameterId& id, std::string_view circuit_name,
                                const std::function<groth16::Parameters()>& setup, const ParameterSearch& search,
                                const ParameterLoadOptions& options = {});

}  // namespace cuzk::filecoin

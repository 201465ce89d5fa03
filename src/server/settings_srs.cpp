// The settings table's [srs] section: Filecoin's published parameter files.
#include "server/setting_builders.hpp"

namespace cuzk::server {

void setting_builders::add_srs_settings(std::vector<Setting>& t) {
  t.push_back(text("srs", "param_cache", "--param-cache", field(&SrsConfig::param_cache),
                   "Directory of Filecoin's published parameter files (v28-*.params and .vk, as `curio "
                   "fetch-params` downloads them), searched first; then $FIL_PROOFS_PARAMETER_CACHE, then "
                   "/var/tmp/filecoin-proof-parameters"));
  t.push_back(toggle("srs", "verify_digest", "--srs-verify-digest", field(&SrsConfig::verify_digest),
                     "Check each published parameter file against its digest in parameters.json when first loaded "
                     "(about a second per GB)"));
  t.push_back(toggle("srs", "allow_test_parameters", "--allow-test-parameters",
                     field(&SrsConfig::allow_test_parameters),
                     "When a Filecoin circuit's published file is absent, prove with TEST parameters of our own setup "
                     "(cached in param_cache_dir; their proofs never verify on chain; logged loudly)"));
}

}  // namespace cuzk::server

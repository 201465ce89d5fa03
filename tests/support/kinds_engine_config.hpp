// For the tests that prove Filecoin kinds through the engine on the CPU: the parameter cache the
// build's tests share (CUZK_PARAMS_CACHE overrides it), Filecoin's parameter source over it (the
// published files when this machine has them, else TEST parameters of our own, cached there), and
// an engine configured with both.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <string>

#include "engine/config.hpp"
#include "kinds/filecoin_kinds.hpp"

namespace cuzk::test {

inline std::string params_cache() {
  if (const char* dir = std::getenv("CUZK_PARAMS_CACHE")) return dir;
  return CUZK_TEST_PARAMS_CACHE;
}

inline engine::ParameterSource parameter_source() {
  kinds::FilecoinParameterOptions o;
  o.allow_test_parameters = true;
  o.test_dir = params_cache();
  return kinds::filecoin_parameter_source(o);
}

inline engine::EngineConfig kinds_engine_config(uint64_t budget_bytes) {
  engine::EngineConfig c;
  c.budget_bytes = budget_bytes;
  c.backend = engine::BackendKind::kCpu;
  c.synthesis_workers = 2;
  c.param_cache_dir = params_cache();
  c.log_events = false;
  c.parameter_sources.push_back(parameter_source());
  return c;
}

}  // namespace cuzk::test

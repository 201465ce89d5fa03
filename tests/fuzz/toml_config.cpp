// Fuzz target: the daemon's TOML configuration reader (cuzk-daemon --config, Curio's cuzk.toml
// tables included). Oracle: no crash or UB (toml++ 3.3.0 has known UB that the reader guards
// against); a config that loads and validates prints (--print-config) to TOML that loads back to
// the same configuration, every setting's value equal.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "fuzz_check.hpp"
#include "server/config_file.hpp"
#include "server/settings.hpp"

using namespace cuzk::server;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  DaemonConfig c;
  std::vector<ConfigNote> notes;
  try {
    load_config_text(text, "fuzz.toml", c, &notes);
    validate_config(c);
  } catch (const std::invalid_argument&) {
    return 0;
  } catch (const std::runtime_error&) {  // ConfigError
    return 0;
  }
  const std::string printed = config_to_toml(c);
  DaemonConfig back;
  try {
    load_config_text(printed, "printed", back);
  } catch (const std::exception&) {
    CUZK_FUZZ_CHECK(!"the printed configuration does not load");
  }
  CUZK_FUZZ_CHECK(config_to_toml(back) == printed);
  for (const Setting& s : settings()) {
    if (s.in_file()) CUZK_FUZZ_CHECK(s.get(back) == s.get(c));  // every value loads back equal
  }
  return 0;
}

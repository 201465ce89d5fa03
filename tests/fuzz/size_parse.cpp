// Fuzz target: parse_size (flags and the TOML file). Oracle: an accepted size is at most kMaxSize
// and its plain decimal form parses back exactly; format_size (display only, rounded to 0.01 of a
// unit) parses back within that rounding.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "fuzz_check.hpp"
#include "server/size.hpp"

using namespace cuzk::server;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  uint64_t v = 0;
  try {
    v = parse_size(text);
  } catch (const std::invalid_argument&) {
    return 0;
  }
  CUZK_FUZZ_CHECK(v <= kMaxSize);
  CUZK_FUZZ_CHECK(parse_size(std::to_string(v)) == v);
  const std::string shown = format_size(v);
  try {
    uint64_t back = parse_size(shown);
    uint64_t diff = back > v ? back - v : v - back;
    CUZK_FUZZ_CHECK(diff <= v / 100 + 1);
  } catch (const std::invalid_argument&) {
    // Rounding up may pass kMaxSize ("8388608 TiB" is 2^63): only right next to the limit.
    CUZK_FUZZ_CHECK(v > kMaxSize - kMaxSize / 100);
  }
  return 0;
}

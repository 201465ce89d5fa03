#include "cli/curio_envelope_writers.hpp"

#include <fmt/format.h>

#include "kinds/base64.hpp"

namespace cuzk::cli {

std::string curio_c1_envelope(const std::string& c1_json, uint64_t sector_number, uint64_t sector_size) {
  // Phase1Out is a []byte: Go's encoding/json writes it as standard base64 with padding.
  const std::string b64 = kinds::base64_encode(c1_json);
  // Go writes SectorNum as int64 (Curio converts the sector number with int64()).
  return fmt::format("{{\"SectorNum\":{},\"Phase1Out\":\"{}\",\"SectorSize\":{}}}", int64_t(sector_number), b64,
                     sector_size);
}

}  // namespace cuzk::cli

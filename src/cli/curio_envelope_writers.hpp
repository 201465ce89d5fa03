// What the client sends in Curio's own encodings (curio lib/ffi/cuzk_funcs.go), so that the daemon
// reads them as it reads Curio's requests (kinds/porep_input.cpp reads the envelope).
#pragma once

#include <cstdint>
#include <string>

namespace cuzk::cli {

// Go's encoding/json of Curio's envelope {SectorNum int64, Phase1Out []byte, SectorSize uint64}
// (curio lib/ffi/cuzk_funcs.go wrapC1Output): compact, in that order, Phase1Out in base64.
std::string curio_c1_envelope(const std::string& c1_json, uint64_t sector_number, uint64_t sector_size);

}  // namespace cuzk::cli

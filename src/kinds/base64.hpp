// Standard base64 (RFC 4648 section 4, with padding), as Go's encoding/json writes a []byte:
// Curio sends the Commit1 output that way.
#pragma once

#include <string>
#include <string_view>

namespace cuzk::kinds {

// Throws std::invalid_argument naming the offset of the first character that is not base64, or a
// length that is not a multiple of 4.
std::string base64_decode(std::string_view text);
std::string base64_encode(std::string_view bytes);

}  // namespace cuzk::kinds

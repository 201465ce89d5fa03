// Filecoin's commitments as the client takes them: 64 hex digits or the CID go-fil-commcid writes.
#pragma once

#include <string>

namespace cuzk::cli {

// The raw 32 bytes of a commitment option (--comm-r-old ...): 64 hex digits, or a CID of
// Filecoin's commitment codecs (sealed: fil-commitment-sealed + poseidon-bls12_381-a2-fc1,
// unsealed: fil-commitment-unsealed + sha2-256-trunc254-padded), as go-fil-commcid makes them;
// either way a canonical field element. Throws std::invalid_argument naming the option.
std::string parse_commitment(const std::string& text, const std::string& option, bool sealed);

}  // namespace cuzk::cli

// The client's checks of what its options say (--miner, --priority, --registered-proof, 32-byte
// hex values), each throwing std::invalid_argument with a message naming the option.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "cuzk/v1/proving.pb.h"
#include "filecoin/porep/registered_proofs.hpp"
#include "filecoin/post/registered_proofs.hpp"
#include "filecoin/snap/registered_proofs.hpp"

namespace cuzk::cli {

// The miner's actor id from "t01000", "f01000" or "1000"; throws std::invalid_argument.
uint64_t parse_miner(const std::string& text);
// 32 bytes from 64 hex digits (an optional 0x first); throws std::invalid_argument naming the option.
std::string parse_hex32(const std::string& text, const std::string& option);
// The hex digits of text after an optional 0x; nullopt when another character is there.
std::optional<std::string_view> hex_digits(std::string_view text);

// --priority: a level name, or an integer: the order within the request's level (priority_offset;
// the level is normal unless the command sets its kind's). Throws std::invalid_argument.
void set_priority(const std::string& text, cuzk::v1::SubmitProofRequest& req);

// --registered-proof: a RegisteredSealProof name or id. Throws std::invalid_argument.
const filecoin::SealProofInfo& registered_proof_arg(const std::string& text);
// --registered-proof of `prove window-post` / `prove winning-post`: a RegisteredPoStProof name or
// id of that type. Throws std::invalid_argument.
const filecoin::PoStProofInfo& post_proof_arg(const std::string& text, bool winning);
// --registered-proof of `prove snap`: a RegisteredUpdateProof name or id. Throws
// std::invalid_argument.
const filecoin::UpdateProofInfo& update_proof_arg(const std::string& text);

}  // namespace cuzk::cli

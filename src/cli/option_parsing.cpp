#include "cli/option_parsing.hpp"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>
#include <stdexcept>

namespace cuzk::cli {

namespace v1 = cuzk::v1;

namespace {

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool all_digits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); });
}

// A registered proof's id given in decimal digits; every registry is small, so a long number is
// no id (and std::stoull cannot overflow). Throws std::invalid_argument.
uint64_t registered_proof_id(const std::string& text) {
  if (text.size() > 9) throw std::invalid_argument("no registered proof has the id " + text);
  return std::stoull(text);
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::optional<std::string_view> hex_digits(std::string_view text) {
  if (text.starts_with("0x") || text.starts_with("0X")) text.remove_prefix(2);
  if (!std::all_of(text.begin(), text.end(), [](char c) { return hex_digit(c) >= 0; })) return std::nullopt;
  return text;
}

void set_priority(const std::string& text, v1::SubmitProofRequest& req) {
  if (text.empty()) return;
  const std::string t = lower(text);
  if (t == "low") return req.set_priority(v1::LOW);
  if (t == "normal") return req.set_priority(v1::NORMAL);
  if (t == "high") return req.set_priority(v1::HIGH);
  if (t == "critical") return req.set_priority(v1::CRITICAL);
  size_t used = 0;
  long offset = 0;
  try {
    offset = std::stol(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || offset < -999 || offset > 999) {
    throw std::invalid_argument("--priority " + text +
                                ": give low, normal, high or critical, or a number from -999 to 999 (order within "
                                "the level, higher first)");
  }
  req.set_priority_offset(int32_t(offset));
}

const filecoin::SealProofInfo& registered_proof_arg(const std::string& text) {
  if (all_digits(text)) return filecoin::seal_proof_info_by_id(registered_proof_id(text));
  return filecoin::seal_proof_info(text);
}

// --registered-proof of `prove window-post` / `prove winning-post`: a RegisteredPoStProof name or
// id of that type. Throws std::invalid_argument.
const filecoin::PoStProofInfo& post_proof_arg(const std::string& text, bool winning) {
  const filecoin::PoStProofInfo* info = nullptr;
  try {
    info = all_digits(text) ? &filecoin::post_proof_info_by_id(registered_proof_id(text))
                            : &filecoin::post_proof_info(text);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("--registered-proof " + text + ": " + e.what());
  }
  if ((info->type == filecoin::PoStType::kWinning) != winning) {
    throw std::invalid_argument(fmt::format(
        "--registered-proof {}: {} is a {} proof; `cuzk prove {}` takes a {} one (e.g. {})", text, info->name,
        winning ? "WindowPoSt" : "WinningPoSt", winning ? "winning-post" : "window-post",
        winning ? "WinningPoSt" : "WindowPoSt", winning ? "StackedDrgWinning32GiBV1" : "StackedDrgWindow32GiBV1_2"));
  }
  return *info;
}

// --registered-proof of `prove snap`: a RegisteredUpdateProof name or id. Throws
// std::invalid_argument.
const filecoin::UpdateProofInfo& update_proof_arg(const std::string& text) {
  try {
    return all_digits(text) ? filecoin::update_proof_info_by_id(registered_proof_id(text))
                            : filecoin::update_proof_info(text);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("--registered-proof " + text + ": " + e.what());
  }
}

uint64_t parse_miner(const std::string& text) {
  std::string digits = text;
  if (digits.size() > 2 && (digits[0] == 't' || digits[0] == 'f') && digits[1] == '0') digits = digits.substr(2);
  bool ok = !digits.empty() && digits.size() <= 19 &&
            std::all_of(digits.begin(), digits.end(), [](unsigned char c) { return std::isdigit(c); });
  if (!ok) {
    throw std::invalid_argument("--miner " + text +
                                ": give the miner's ID address (t01000, f01000) or its actor id (1000)");
  }
  return std::stoull(digits);
}

std::string parse_hex32(const std::string& text, const std::string& option) {
  std::optional<std::string_view> digits = hex_digits(text);
  if (!digits || digits->size() != 64) {
    throw std::invalid_argument(fmt::format("{} {}: give 32 bytes as 64 hex digits{}", option, text,
                                            digits ? fmt::format(" ({} given)", digits->size()) : " (0-9, a-f)"));
  }
  std::string out(32, '\0');
  for (size_t i = 0; i < 32; i++) out[i] = char(hex_digit((*digits)[2 * i]) << 4 | hex_digit((*digits)[2 * i + 1]));
  return out;
}

}  // namespace cuzk::cli

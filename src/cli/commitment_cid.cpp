#include "cli/commitment_cid.hpp"

#include <cstdint>
#include <fmt/format.h>
#include <optional>
#include <stdexcept>
#include <string_view>

#include "cli/option_parsing.hpp"
#include "ff/fr.hpp"

namespace cuzk::cli {

namespace {

// RFC 4648 base32, lower case, without padding (multibase 'b', as CIDs are written); nullopt for
// another character or bits left over that are not zero padding.
std::optional<std::string> base32_decode(std::string_view text) {
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : text) {
    int v = c >= 'a' && c <= 'z' ? c - 'a' : c >= '2' && c <= '7' ? c - '2' + 26 : -1;
    if (v < 0) return std::nullopt;
    acc = acc << 5 | uint32_t(v);
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out += char(acc >> bits & 0xff);
      acc &= (uint32_t(1) << bits) - 1;
    }
  }
  if (bits >= 5 || acc != 0) return std::nullopt;
  return out;
}

// The digest of a commitment's CID (go-fil-commcid: CIDv1, codec fil-commitment-sealed with
// poseidon-bls12_381-a2-fc1 for a CommR, fil-commitment-unsealed with sha2-256-trunc254-padded for a
// CommD, a 32-byte digest: the raw commitment). Throws std::invalid_argument naming the option.
std::string commitment_from_cid(const std::string& text, const std::string& option, bool sealed) {
  constexpr uint64_t kSealedCodec = 0xf102, kUnsealedCodec = 0xf101, kPoseidonHash = 0xb401, kShaTruncHash = 0x1012;
  const std::string kind = sealed ? "CommR" : "CommD";
  std::optional<std::string> bytes;
  if (text.size() > 1 && text[0] == 'b') bytes = base32_decode(std::string_view(text).substr(1));
  if (!bytes) {
    throw std::invalid_argument(
        fmt::format("{} {}: give the {} as 64 hex digits (its 32 raw bytes) or as its CID ({}...)", option, text, kind,
                    sealed ? "bagboea4b5abc" : "baga6ea4seaq"));
  }
  size_t at = 0;
  auto varint = [&]() {
    uint64_t v = 0;
    for (int shift = 0; shift < 63; shift += 7) {
      if (at >= bytes->size()) throw std::invalid_argument(fmt::format("{} {}: the CID ends early", option, text));
      const uint8_t b = uint8_t((*bytes)[at++]);
      v |= uint64_t(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
    throw std::invalid_argument(fmt::format("{} {}: a CID field is longer than a varint", option, text));
  };
  const uint64_t version = varint(), codec = varint(), hash = varint(), length = varint();
  const uint64_t want_codec = sealed ? kSealedCodec : kUnsealedCodec,
                 want_hash = sealed ? kPoseidonHash : kShaTruncHash;
  if (version != 1 || codec != want_codec || hash != want_hash) {
    throw std::invalid_argument(fmt::format(
        "{} {}: a CIDv{} of codec {:#x} and hash {:#x}; a {} is a CIDv1 of {} ({:#x}) and {} ({:#x})", option, text,
        version, codec, hash, kind, sealed ? "fil-commitment-sealed" : "fil-commitment-unsealed", want_codec,
        sealed ? "poseidon-bls12_381-a2-fc1" : "sha2-256-trunc254-padded", want_hash));
  }
  if (length != 32 || bytes->size() - at != 32) {
    throw std::invalid_argument(
        fmt::format("{} {}: the CID's digest is {} bytes; a {} is 32", option, text, bytes->size() - at, kind));
  }
  return bytes->substr(at);
}

}  // namespace

std::string parse_commitment(const std::string& text, const std::string& option, bool sealed) {
  std::string raw = hex_digits(text) ? parse_hex32(text, option) : commitment_from_cid(text, option, sealed);
  ff::Fr x;
  if (!ff::Fr::from_bytes_le(reinterpret_cast<const uint8_t*>(raw.data()), x)) {
    throw std::invalid_argument(fmt::format(
        "{} {}: not a commitment: its 32 bytes, read little-endian, are not below the BLS12-381 scalar field's "
        "modulus",
        option, text));
  }
  return raw;
}

}  // namespace cuzk::cli

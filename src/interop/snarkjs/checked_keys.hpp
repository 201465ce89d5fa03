// Proving keys already read with every point checked, remembered by the SHA-256 of their file.
// Checking that each of a .zkey's points is in its prime-order subgroup costs far more than
// proving with it on the CPU (~80 k G1 and 16 k G2 checks at 2^14: 4.5 s on 2 cores, against
// ~1.5 s of MSMs); a circom user proves with one key many times. A key whose digest is recorded
// here is read with its points checked on the curve but not again for the subgroup: the digest
// of the whole file is computed on every read, so a changed byte is a new key, checked in full.
// One empty-ish file per digest; whoever can write the directory is trusted like the key itself.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace cuzk::snarkjs {

class CheckedKeys {
 public:
  explicit CheckedKeys(std::string dir) : dir_(std::move(dir)) {}

  // $CUZK_SNARKJS_CHECKED_KEYS, else $XDG_CACHE_HOME/cuzk/snarkjs-checked-keys, else
  // $HOME/.cache/cuzk/snarkjs-checked-keys; "" when none of them is set.
  static std::string default_dir();
  // Lower-case hex SHA-256 of the bytes (OpenSSL).
  static std::string digest(std::span<const uint8_t> bytes);

  const std::string& dir() const { return dir_; }
  bool contains(const std::string& digest) const;
  // Records the digest (creating the directory); returns "" or why it could not be recorded
  // (the key was read; only the next read pays the checks again).
  std::string remember(const std::string& digest, uint64_t file_size) const;

 private:
  std::string dir_;
};

}  // namespace cuzk::snarkjs

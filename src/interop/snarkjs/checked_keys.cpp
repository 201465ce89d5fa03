#include "interop/snarkjs/checked_keys.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <openssl/evp.h>
#include <stdexcept>
#include <system_error>

namespace cuzk::snarkjs {
namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

}  // namespace

std::string CheckedKeys::default_dir() {
  if (std::string d = env("CUZK_SNARKJS_CHECKED_KEYS"); !d.empty()) return d;
  if (std::string d = env("XDG_CACHE_HOME"); !d.empty()) return d + "/cuzk/snarkjs-checked-keys";
  if (std::string d = env("HOME"); !d.empty()) return d + "/.cache/cuzk/snarkjs-checked-keys";
  return "";
}

std::string CheckedKeys::digest(std::span<const uint8_t> bytes) {
  unsigned char d[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), d, &n, EVP_sha256(), nullptr) != 1 || n != 32) {
    throw std::runtime_error("OpenSSL's SHA-256 failed");
  }
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned i = 0; i < n; i++) {
    out += hex[d[i] >> 4];
    out += hex[d[i] & 15];
  }
  return out;
}

bool CheckedKeys::contains(const std::string& digest) const {
  std::error_code ec;
  return !dir_.empty() && std::filesystem::is_regular_file(std::filesystem::path(dir_) / digest, ec);
}

std::string CheckedKeys::remember(const std::string& digest, uint64_t file_size) const {
  if (dir_.empty()) return "no directory for checked keys";
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) return "cannot create " + dir_ + ": " + ec.message();
  const std::filesystem::path path = std::filesystem::path(dir_) / digest;
  const std::filesystem::path tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << "a snarkjs zkey of " << file_size
        << " bytes with this SHA-256: every point checked on the curve and in its subgroup by cuzk\n";
    if (!out.flush()) return "cannot write " + tmp.string();
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    return "cannot rename " + tmp.string() + " to " + path.string();
  }
  return "";
}

}  // namespace cuzk::snarkjs

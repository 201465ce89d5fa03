#include "filecoin/common/sha256_fast.hpp"

#include <openssl/evp.h>
#include <stdexcept>

namespace cuzk::filecoin {
namespace {

// The fetched algorithm is shared; a context is reused per thread (an EVP_MD_CTX is not
// thread-safe, and allocating one per digest costs as much as hashing 64 bytes).
const EVP_MD* sha256_md() {
  static EVP_MD* md = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  if (!md) throw std::runtime_error("SHA-256 is not available from OpenSSL (EVP_MD_fetch failed)");
  return md;
}

struct ThreadContext {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  ~ThreadContext() { EVP_MD_CTX_free(ctx); }
};

EVP_MD_CTX* thread_context() {
  thread_local ThreadContext tc;
  if (!tc.ctx) throw std::runtime_error("OpenSSL could not allocate a digest context");
  return tc.ctx;
}

}  // namespace

std::array<uint8_t, 32> sha256_digest(std::initializer_list<std::span<const uint8_t>> parts) {
  EVP_MD_CTX* ctx = thread_context();
  std::array<uint8_t, 32> out;
  unsigned len = 0;
  bool ok = EVP_DigestInit_ex2(ctx, sha256_md(), nullptr) == 1;
  for (const auto& p : parts) ok = ok && EVP_DigestUpdate(ctx, p.data(), p.size()) == 1;
  ok = ok && EVP_DigestFinal_ex(ctx, out.data(), &len) == 1 && len == 32;
  if (!ok) throw std::runtime_error("SHA-256 failed (OpenSSL)");
  return out;
}

std::array<uint8_t, 32> sha256_digest(std::span<const uint8_t> data) { return sha256_digest({data}); }

}  // namespace cuzk::filecoin

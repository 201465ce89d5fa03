#include <stdexcept>
#include <string>

#include "ec/encoding.hpp"
#include "groth16/parameters.hpp"

namespace cuzk::groth16 {

std::array<uint8_t, kProofBytes> encode_proof(const Proof& p) {
  std::array<uint8_t, kProofBytes> out{};
  ec::g1_encode_compressed(p.a, std::span<uint8_t, 48>(out.data(), 48));
  ec::g2_encode_compressed(p.b, std::span<uint8_t, 96>(out.data() + 48, 96));
  ec::g1_encode_compressed(p.c, std::span<uint8_t, 48>(out.data() + 144, 48));
  return out;
}

Proof decode_proof(std::span<const uint8_t> bytes) {
  if (bytes.size() != kProofBytes) {
    throw std::invalid_argument("proof must be " + std::to_string(kProofBytes) + " bytes, got " +
                                std::to_string(bytes.size()));
  }
  Proof p;
  auto check = [](ec::DecodeError e, const char* what) {
    if (e != ec::DecodeError::kOk) throw std::invalid_argument(std::string("proof ") + what + ": " + ec::describe(e));
  };
  check(ec::g1_decode_compressed(bytes.subspan(0, 48), p.a), "A");
  check(ec::g2_decode_compressed(bytes.subspan(48, 96), p.b), "B");
  check(ec::g1_decode_compressed(bytes.subspan(144, 48), p.c), "C");
  return p;
}

std::vector<uint8_t> encode_proofs(std::span<const Proof> proofs) {
  std::vector<uint8_t> out;
  out.reserve(proofs.size() * kProofBytes);
  for (const Proof& p : proofs) {
    auto b = encode_proof(p);
    out.insert(out.end(), b.begin(), b.end());
  }
  return out;
}

std::vector<Proof> decode_proofs(std::span<const uint8_t> bytes) {
  if (bytes.empty() || bytes.size() % kProofBytes != 0) {
    throw std::invalid_argument("proof bytes must be a non-zero multiple of " + std::to_string(kProofBytes) + ", got " +
                                std::to_string(bytes.size()));
  }
  std::vector<Proof> out;
  for (size_t i = 0; i < bytes.size(); i += kProofBytes) {
    try {
      out.push_back(decode_proof(bytes.subspan(i, kProofBytes)));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("partition " + std::to_string(i / kProofBytes) + ": " + e.what());
    }
  }
  return out;
}

}  // namespace cuzk::groth16

// Groth16 parameters and proofs in bellperson's layout.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ec/curves.hpp"
#include "pairing/pairing.hpp"

namespace cuzk::groth16 {

using ec::G1Affine;
using ec::G1Jacobian;
using ec::G2Affine;
using ec::G2Jacobian;
using ff::Fr;

struct VerifyingKey {
  G1Affine alpha_g1, beta_g1;
  G2Affine beta_g2, gamma_g2;
  G1Affine delta_g1;
  G2Affine delta_g2;
  std::vector<G1Affine> ic;  // one per public input, ONE included
  friend bool operator==(const VerifyingKey&, const VerifyingKey&) = default;
};

// The proving key. a, b_g1 and b_g2 hold entries only for variables whose polynomial is
// non-zero (inputs first, then aux in order), as bellperson writes them.
struct Parameters {
  VerifyingKey vk;
  std::vector<G1Affine> h;  // (tau^i Z(tau) / delta) G1, i < n - 1
  std::vector<G1Affine> l;  // ((beta a_i + alpha b_i + c_i) / delta) G1 per aux variable
  std::vector<G1Affine> a;
  std::vector<G1Affine> b_g1;
  std::vector<G2Affine> b_g2;
  friend bool operator==(const Parameters&, const Parameters&) = default;

  // Bytes of the proving key's bases (h, l, a, b_g1, b_g2): what a GPU backend uploads, and
  // nearly all of the set's host memory (the verifying key's ic adds its inputs' points).
  size_t base_bytes() const {
    return (h.size() + l.size() + a.size() + b_g1.size()) * sizeof(G1Affine) + b_g2.size() * sizeof(G2Affine);
  }
};

// The verifying key with its G2 points' Miller-loop lines computed once.
struct PreparedVerifyingKey {
  explicit PreparedVerifyingKey(const VerifyingKey& vk);
  G1Affine neg_alpha_g1;
  pairing::G2Prepared beta_g2, gamma_g2, delta_g2;
  std::vector<G1Affine> ic;
};

struct Proof {
  G1Affine a;
  G2Affine b;
  G1Affine c;
  friend bool operator==(const Proof&, const Proof&) = default;
};

inline constexpr size_t kProofBytes = 192;  // A (48) || B (96) || C (48), ZCash compressed

std::array<uint8_t, kProofBytes> encode_proof(const Proof& p);
// Decodes and fully checks one proof (on curve, in subgroup); throws std::invalid_argument
// naming the element and the reason.
Proof decode_proof(std::span<const uint8_t> bytes);
// Concatenated partition proofs.
std::vector<uint8_t> encode_proofs(std::span<const Proof> proofs);
std::vector<Proof> decode_proofs(std::span<const uint8_t> bytes);

}  // namespace cuzk::groth16

// snarkjs' JSON documents for Groth16 over bls12381: proof.json ({pi_a, pi_b, pi_c, protocol,
// curve}), public.json (decimal strings, outputs then public inputs) and verification_key.json
// ({protocol, curve, nPublic, vk_alpha_1, vk_beta_2, vk_gamma_2, vk_delta_2, vk_alphabeta_12, IC}).
// Numbers are decimal strings, points projective (encoding.hpp). Every point read is checked on
// the curve and in the subgroup (snarkjs' verifier checks neither), every number below its
// modulus; errors name the document, the JSON path and, for syntax errors, the byte offset.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ec/curves.hpp"
#include "ff/fr.hpp"
#include "interop/snarkjs/format_error.hpp"

namespace cuzk::snarkjs {

struct Zkey;

struct Proof {
  ec::G1Affine a;
  ec::G2Affine b;
  ec::G1Affine c;
  friend bool operator==(const Proof&, const Proof&) = default;
};

struct VerifyingKey {
  ec::G1Affine alpha_g1;
  ec::G2Affine beta_g2, gamma_g2, delta_g2;
  std::vector<ec::G1Affine> ic;  // public signals + 1
  friend bool operator==(const VerifyingKey&, const VerifyingKey&) = default;
};

VerifyingKey verifying_key_from_zkey(const Zkey& zkey);

// Documents as snarkjs writes them (JSON.stringify with one-space indentation).
std::string proof_to_json(const Proof& proof);
std::string public_signals_to_json(std::span<const ff::Fr> signals);
// With vk_alphabeta_12 as snarkjs exports it (ffjavascript's pairing: e(alpha_1, beta_2)^3).
std::string verifying_key_to_json(const VerifyingKey& vk);

// name: the file name used in messages. Throw FormatError.
Proof proof_from_json(std::string_view text, const std::string& name);
std::vector<ff::Fr> public_signals_from_json(std::string_view text, const std::string& name);
VerifyingKey verifying_key_from_json(std::string_view text, const std::string& name);

// Whole-file helpers; throw FormatError naming the path when it cannot be read or written.
std::string read_text_file(const std::string& path);
void write_text_file(const std::string& path, const std::string& text);

}  // namespace cuzk::snarkjs

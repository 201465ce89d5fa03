// The native hash: the plain permutation (add constants, S-box, multiply by M) and the optimised
// schedule the circuit follows, which tests compare and tree building uses.
#include <stdexcept>
#include <string>

#include "gadgets/poseidon.hpp"

namespace cuzk::gadgets {

using poseidon_matrix::left_apply;
using poseidon_matrix::right_apply;

namespace {

std::vector<Fr> initial_state(std::span<const Fr> preimage, const PoseidonConstants& c) {
  const size_t expect = c.hash_type == PoseidonConstants::HashType::kMerkleTree ? c.arity : c.length;
  if (preimage.size() != expect) {
    throw std::invalid_argument("poseidon: preimage of " + std::to_string(preimage.size()) + " elements, expected " +
                                std::to_string(expect));
  }
  std::vector<Fr> s(c.width, Fr::zero());
  s[0] = c.domain_tag;
  for (size_t i = 0; i < preimage.size(); i++) s[i + 1] = preimage[i];
  return s;
}

}  // namespace

Fr poseidon_hash(std::span<const Fr> preimage, const PoseidonConstants& c) {
  std::vector<Fr> s = initial_state(preimage, c);
  const size_t t = c.width, rounds = c.full_rounds + c.partial_rounds;
  for (size_t r = 0; r < rounds; r++) {
    for (size_t i = 0; i < t; i++) s[i] += c.round_constants[r * t + i];
    const bool full = r < c.half_full_rounds || r >= c.half_full_rounds + c.partial_rounds;
    if (full) {
      for (auto& x : s) x = poseidon_sbox(x);
    } else {
      s[0] = poseidon_sbox(s[0]);
    }
    s = left_apply(c.m, s);
  }
  return s[1];
}

Fr poseidon_hash_optimized(std::span<const Fr> preimage, const PoseidonConstants& c) {
  std::vector<Fr> s = initial_state(preimage, c);
  const size_t t = c.width;
  size_t off = 0;
  for (size_t i = 0; i < t; i++) s[i] += c.compressed_round_constants[off++];
  for (size_t r = 0; r < c.half_full_rounds; r++) {
    for (size_t i = 0; i < t; i++) s[i] = poseidon_sbox(s[i]) + c.compressed_round_constants[off++];
    s = right_apply(r + 1 == c.half_full_rounds ? c.pre_sparse_matrix : c.m, s);
  }
  for (const auto& sp : c.sparse_matrices) {
    s[0] = poseidon_sbox(s[0]) + c.compressed_round_constants[off++];
    std::vector<Fr> n(t);
    n[0] = Fr::zero();
    for (size_t i = 0; i < t; i++) n[0] += sp.w_hat[i] * s[i];
    for (size_t j = 1; j < t; j++) n[j] = s[j] + s[0] * sp.v_rest[j - 1];
    s = std::move(n);
  }
  for (size_t r = 1; r < c.half_full_rounds; r++) {
    for (size_t i = 0; i < t; i++) s[i] = poseidon_sbox(s[i]) + c.compressed_round_constants[off++];
    s = right_apply(c.m, s);
  }
  for (size_t i = 0; i < t; i++) s[i] = poseidon_sbox(s[i]);
  s = right_apply(c.m, s);
  return s[1];
}

}  // namespace cuzk::gadgets

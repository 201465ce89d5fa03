// Poseidon over BLS12-381 Fr exactly as neptune defines it (Standard strength):
//  - width t = arity + 1, R_F = 8, R_P from the paper's table (arity 2, 4, 8, 11: 55, 56, 57, 57);
//  - round constants from the Grain LFSR of the Poseidon paper (field 1, s-box 1, 255 bits,
//    t, R_F, R_P; 255-bit big-endian samples, rejected when not below the modulus);
//  - the Cauchy MDS matrix M[i][j] = 1 / (x_i + y_j), x = 0..t-1, y = t..2t-1;
//  - the domain tag in state[0]: 2^arity - 1 (MerkleTree) or length * 2^64 (ConstantLength);
//    the hash is state[1] after the permutation;
//  - the optimised form used in circuits: round constants pushed through the linear layers
//    ("compressed") and the partial rounds' MDS factored into sparse matrices.
// The circuit is neptune's legacy `circuit::poseidon_hash`, which rust-fil-proofs uses: hash2 of
// two numbers costs 311 constraints, the hash of 11 numbers 598.
//
// Files: poseidon_parameters.cpp (R_P, Grain, MDS), poseidon_constants.cpp (PoseidonConstants and
// its optimised form), poseidon_native.cpp (the hashes), poseidon_circuit.cpp (the gadget),
// poseidon_matrix.hpp/.cpp (the linear algebra the constants need).
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "gadgets/num.hpp"
#include "gadgets/poseidon_matrix.hpp"

namespace cuzk::gadgets {

struct PoseidonConstants {
  enum class HashType { kMerkleTree, kConstantLength };

  size_t arity = 0, width = 0;
  size_t full_rounds = 8, half_full_rounds = 4, partial_rounds = 0;
  HashType hash_type = HashType::kMerkleTree;
  size_t length = 0;  // ConstantLength only
  Fr domain_tag;
  std::vector<Fr> round_constants;             // (R_F + R_P) * t, round by round
  std::vector<Fr> compressed_round_constants;  // the optimised schedule
  Matrix m, m_inv;                             // MDS and its inverse
  Matrix pre_sparse_matrix;
  struct Sparse {
    std::vector<Fr> w_hat;   // first column of M''
    std::vector<Fr> v_rest;  // first row of M'' without its first entry
  };
  std::vector<Sparse> sparse_matrices;

  // Throws std::invalid_argument for an arity without a known R_P or a bad length.
  static PoseidonConstants create(size_t arity, HashType type = HashType::kMerkleTree, size_t length = 0);
};

// Shared, lazily built constants of the MerkleTree type (thread-safe; arities up to 16 are read
// without a lock once built).
const PoseidonConstants& poseidon_constants(size_t arity);

// Partial rounds of Standard strength for a width (t = 3, 5, 9, 12).
size_t poseidon_partial_rounds(size_t width);
std::vector<Fr> poseidon_grain_round_constants(size_t width, size_t full_rounds, size_t partial_rounds);
Matrix poseidon_mds(size_t width);

// The S-box x^5.
inline Fr poseidon_sbox(const Fr& x) {
  const Fr x2 = x.sqr();
  return x2.sqr() * x;
}

// Native hash (the plain permutation: add constants, S-box x^5, multiply by M).
Fr poseidon_hash(std::span<const Fr> preimage, const PoseidonConstants& c);
// The permutation of the optimised form (the circuit's schedule), for tests.
Fr poseidon_hash_optimized(std::span<const Fr> preimage, const PoseidonConstants& c);

// Circuit (neptune legacy circuit::poseidon_hash); preimage.size() must equal the arity.
AllocatedNum poseidon_hash_circuit(ConstraintSystem& cs, std::span<const AllocatedNum> preimage,
                                   const PoseidonConstants& c);

}  // namespace cuzk::gadgets

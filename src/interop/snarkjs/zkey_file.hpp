// snarkjs' Groth16 proving key (.zkey, zkey_new.js / zkey_utils.js), BLS12-381 only:
//   1  protocol id (1 = Groth16)
//   2  header: n8q, q, n8r, r, nVars, nPublic, domainSize, alpha1, beta1, beta2, gamma2, delta1,
//      delta2
//   3  IC: nPublic + 1 G1 points
//   4  coefficients of A and B only (C = A .* B pointwise at the prover): u32 count, then per
//      entry u32 matrix (0 = A, 1 = B), u32 constraint, u32 signal, value stored as v R^2 mod r.
//      Setup appends one A entry (coefficient 1) for each public signal and the 1 wire s at
//      constraint nConstraints + s, which makes the public part of the QAP independent.
//   5, 6, 7  A (G1), B1 (G1), B2 (G2): nVars points each
//   8  C: (beta A_i + alpha B_i + C_i) / delta for the private signals (nVars - nPublic - 1)
//   9  H: domainSize G1 points, the Lagrange points of the 2n-th roots of unity at the odd
//      indices (ffjavascript's roots: 5 generates them), divided by delta: sum over i of
//      p(w_2n^(2i+1)) H_i is p(tau)/delta for p = A B - C of degree below 2n, since p vanishes
//      on the n-th roots. So the prover multiplies the odd coset values of A B - C with these
//      points directly, without dividing by Z (which is -2 on that coset anyway, folded in).
//   10 contributions (not needed to prove).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ec/curves.hpp"
#include "ff/fr.hpp"
#include "interop/snarkjs/binary_file.hpp"
#include "interop/snarkjs/encoding.hpp"

namespace cuzk::snarkjs {

struct ZkeyCoefficient {
  uint32_t matrix = 0;  // 0: A, 1: B
  uint32_t constraint = 0;
  uint32_t signal = 0;
  ff::Fr value;
};

struct Zkey {
  uint32_t vars = 0;     // signals, the 1 wire included
  uint32_t publics = 0;  // public signals, the 1 wire excluded
  uint32_t domain_size = 0;
  G1Affine alpha_g1, beta_g1, delta_g1;
  G2Affine beta_g2, gamma_g2, delta_g2;
  std::vector<G1Affine> ic;  // publics + 1
  std::vector<ZkeyCoefficient> coefficients;
  std::vector<G1Affine> a, b_g1, c, h;
  std::vector<G2Affine> b_g2;
  unsigned log_domain_size() const;
};

struct ZkeyReadOptions {
  // The bulk sections' points (A, B1, B2, C, H) are always checked on the curve; this adds the
  // subgroup check for them too (the header and IC points are always fully checked).
  bool check_subgroup = true;
  // A CheckedKeys directory (checked_keys.hpp), "" for none: read_zkey skips the bulk subgroup
  // checks of a file whose SHA-256 is recorded there, and records a file that passes them.
  std::string checked_keys_dir;
};

// How read_zkey checked the file.
struct ZkeyReadReport {
  std::string sha256;        // of the whole file, when a checked-keys directory was given
  bool remembered = false;   // its digest was recorded: the bulk subgroup checks were skipped
  std::string not_recorded;  // why a fully checked file could not be recorded ("" when it was)
};

// Throws FormatError naming the section and offset for a malformed or truncated file, a
// protocol other than Groth16, another curve (bn128 keys are refused with their prime), section
// sizes that disagree with the header, or a point that is not on the curve or subgroup.
Zkey read_zkey(const std::string& path, const ZkeyReadOptions& options = {}, ZkeyReadReport* report = nullptr);
Zkey parse_zkey(const BinaryFile& file, const ZkeyReadOptions& options = {});

// The file as snarkjs lays out a key after `zkey contribute` (version 1, sections 1 to 10 in
// order), which parse_zkey and snarkjs read back as this key. Section 10 records no contributions
// and an all-zero circuit hash: snarkjs proves and exports keys with it, `zkey verify` refuses it.
std::vector<uint8_t> serialize_zkey(const Zkey& zkey);
// serialize_zkey into path through a temporary file beside it and a rename; throws FormatError
// naming the path when it cannot be written.
void write_zkey(const Zkey& zkey, const std::string& path);

}  // namespace cuzk::snarkjs

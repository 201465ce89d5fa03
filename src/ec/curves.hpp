// The two BLS12-381 groups as curve descriptions for the generic point types:
// G1: y^2 = x^3 + 4 over Fp; G2: y^2 = x^3 + 4(1 + u) over Fp2 (the M-type sextic twist).
#pragma once

#include <cstdint>

#include "ec/point.hpp"
#include "ff/fp2.hpp"
#include "ff/fr.hpp"

namespace cuzk::ec {

using ff::BigInt;
using ff::Fp;
using ff::Fp2;
using ff::Fr;

// The BLS parameter x = -0xd201000000010000 (negative, sparse: bits 63, 62, 60, 57, 48, 16).
inline constexpr uint64_t kBlsXAbs = 0xd201000000010000ull;
inline constexpr bool kBlsXIsNegative = true;

struct G1Curve {
  using Field = Fp;
  CUZK_HD static constexpr Field b() {
    constexpr Field v = Fp::from_u64(4);
    return v;
  }
};

struct G2Curve {
  using Field = Fp2;
  CUZK_HD static constexpr Field b() {
    constexpr Field v = {Fp::from_u64(4), Fp::from_u64(4)};
    return v;
  }
};

using G1Affine = AffinePoint<G1Curve>;
using G1Jacobian = JacobianPoint<G1Curve>;
using G1Xyzz = XyzzPoint<G1Curve>;
using G2Affine = AffinePoint<G2Curve>;
using G2Jacobian = JacobianPoint<G2Curve>;
using G2Xyzz = XyzzPoint<G2Curve>;

// Fixed generators (the ones of the ZCash / IETF BLS12-381 definition).
inline constexpr G1Affine kG1Generator = {
    Fp::from_hex("0x17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb"),
    Fp::from_hex("0x08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1")};

inline constexpr G2Affine kG2Generator = {
    {Fp::from_hex("0x024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8"),
     Fp::from_hex(
         "0x13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e")},
    {Fp::from_hex("0x0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801"),
     Fp::from_hex(
         "0x0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be")}};

// ---- G1 -------------------------------------------------------------------
// sigma(x, y) = (beta x, y) with beta = 2^((p-1)/3), a cube root of unity chosen so
// that sigma acts on G1 as multiplication by -x^2 (a cube root of unity mod r).
G1Affine g1_sigma(const G1Affine& p);
// Scott's test: P in G1 iff sigma(P) = [-x^2] P. P must be on the curve.
bool g1_is_in_subgroup(const G1Affine& p);
// [k] P for P in G1, by the GLV split k = k0 + k1 x^2 and interleaved wNAF.
G1Jacobian g1_mul(const G1Jacobian& p, const Fr& k);
G1Jacobian g1_mul(const G1Affine& p, const Fr& k);

// ---- G2 -------------------------------------------------------------------
// psi = twist o Frobenius o untwist; on G2 it acts as multiplication by x (= p mod r).
G2Affine g2_psi(const G2Affine& p);
// Scott's test: Q in G2 iff psi(Q) = [x] Q. Q must be on the curve.
bool g2_is_in_subgroup(const G2Affine& q);
// [k] Q for Q in G2, by writing k in base |x| (4 digits of 64 bits) and psi.
G2Jacobian g2_mul(const G2Jacobian& q, const Fr& k);
G2Jacobian g2_mul(const G2Affine& q, const Fr& k);

}  // namespace cuzk::ec

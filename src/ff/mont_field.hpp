// Prime fields in Montgomery form, generic over the modulus.
//
// A MontField<Config> stores a * 2^(64N) mod M in N little-endian 64-bit limbs.
// The Config names the modulus and a quadratic non-residue; every other
// constant (R, R^2, -M^-1 mod 2^64, the exponents of inversion, Legendre
// symbol and square root, the 2-adic root of unity) is derived at compile time.
//
// The arithmetic is host/device code (CUZK_HD). The portable multiplication is the
// "no-carry" CIOS variant, valid because both BLS12-381 moduli leave the top bit of
// the top limb clear; squaring uses a separate product scan and REDC. On x86-64 hosts
// with BMI2 and ADX, multiplication, squaring, addition and subtraction use the
// generated assembly of ff/x86/mont_mul_adx.hpp instead.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "ff/bigint.hpp"
#include "ff/hd.hpp"
#include "ff/pow.hpp"
#include "ff/x86/mont_mul_adx.hpp"
#if defined(__CUDACC__)
#include "ff/cuda/mont_mul_ptx.hpp"
#endif

namespace cuzk::ff {

template <class Config>
class MontField {
 public:
  static constexpr size_t N = Config::kLimbs;
  static constexpr size_t kBytes = 8 * N;
  using Limbs = BigInt<N>;

  // Constants derived from the modulus, all at compile time.
  struct Consts {
    static constexpr Limbs M = Config::kModulus;
    static_assert(M.limb[0] & 1, "modulus must be odd");
    static_assert(M.limb[N - 1] < (~uint64_t(0) >> 1) - 1, "no-carry Montgomery needs a spare top bit");
    static constexpr uint64_t INV = neg_inverse_mod_2_64(M.limb[0]);
    static constexpr Limbs R1 = pow2_mod(M, 64 * N);   // Montgomery form of 1
    static constexpr Limbs R2 = pow2_mod(M, 128 * N);  // converts into Montgomery form
    static constexpr Limbs R3 = pow2_mod(M, 192 * N);  // fixes up the binary inversion
    static constexpr size_t kBits = M.bit_length();
    static constexpr Limbs minus(uint64_t k) {
      Limbs r = M;
      r.sub_in_place(Limbs::from_u64(k));
      return r;
    }
    static constexpr Limbs kMinus2 = minus(2);
    static constexpr Limbs kMinus1Half = minus(1).shr(1);  // (M-1)/2
    static constexpr size_t two_adicity() {
      Limbs t = minus(1);
      size_t s = 0;
      while (!t.is_odd()) {
        t.shr1();
        s++;
      }
      return s;
    }
    static constexpr size_t kTwoAdicity = two_adicity();          // S with M-1 = 2^S * T
    static constexpr Limbs kOddPart = minus(1).shr(kTwoAdicity);  // T
    static constexpr Limbs odd_part_plus1_half() {
      Limbs t = kOddPart;
      t.add_in_place(Limbs::from_u64(1));
      return t.shr(1);
    }
    static constexpr Limbs kOddPartPlus1Half = odd_part_plus1_half();  // (T+1)/2
    static constexpr Limbs plus1_quarter() {
      Limbs t = M;
      t.add_in_place(Limbs::from_u64(1));
      return t.shr(2);
    }
    static constexpr Limbs kPlus1Quarter = plus1_quarter();  // (M+1)/4, used when M = 3 mod 4
  };
  // M = 2^64 - 2^32 + 1 mod 2^64 (Fr): the device product's reduction is cheaper.
  static constexpr bool kSparseLowModulus = Consts::M.limb[0] == 0xffffffff00000001ull;

  Limbs mont;  // Montgomery representation; public so that buffers stay plain data.

  // ---- construction -------------------------------------------------------
  CUZK_HD static constexpr MontField zero() { return MontField{Limbs::zero()}; }
  CUZK_HD static constexpr MontField one() {
    constexpr Limbs r1 = Consts::R1;
    return MontField{r1};
  }
  CUZK_HD static constexpr MontField from_montgomery(const Limbs& m) { return MontField{m}; }
  // a must be canonical (< M); from_bytes_* check that for untrusted input.
  CUZK_HD static constexpr MontField from_canonical(const Limbs& a) {
    constexpr Limbs r2 = Consts::R2;
    return MontField{mont_mul(a, r2)};
  }
  CUZK_HD static constexpr MontField from_u64(uint64_t v) { return from_canonical(Limbs::from_u64(v)); }
  static constexpr MontField from_hex(const char* s) { return from_canonical(Limbs::from_hex(s)); }
  CUZK_HD static constexpr Limbs modulus() {
    constexpr Limbs m = Consts::M;
    return m;
  }

  CUZK_HD constexpr Limbs to_canonical() const { return mont_mul(mont, Limbs::from_u64(1)); }

  // ---- predicates ---------------------------------------------------------
  CUZK_HD constexpr bool is_zero() const { return mont.is_zero(); }
  CUZK_HD constexpr bool is_one() const { return *this == one(); }
  CUZK_HD friend constexpr bool operator==(const MontField& a, const MontField& b) { return a.mont == b.mont; }
  CUZK_HD friend constexpr bool operator!=(const MontField& a, const MontField& b) { return !(a == b); }
  // "Lexicographically largest" as the ZCash encoding defines it: canonical value > (M-1)/2.
  CUZK_HD constexpr bool is_lexicographically_largest() const {
    constexpr Limbs half = Consts::kMinus1Half;
    Limbs c = to_canonical();
    return half < c;
  }

  // ---- additive group -----------------------------------------------------
  CUZK_HD friend constexpr MontField operator+(const MontField& a, const MontField& b) {
#if defined(CUZK_HAVE_MONT_MUL_ADX)
    if constexpr (x86::kHasKernels<N>) {
      if (!std::is_constant_evaluated()) {
        MontField r;
        x86::Kernels<N>::add(r.mont.limb, a.mont.limb, b.mont.limb, Consts::M.limb);
        return r;
      }
    }
#endif
#if defined(__CUDA_ARCH__)
    if constexpr (N == 4 || N == 6) {
      if (!std::is_constant_evaluated()) {
        constexpr Limbs m = Consts::M;
        MontField r;
        ptx::AddSubPtx<N>::add(r.mont.limb, a.mont.limb, b.mont.limb, m.limb);
        return r;
      }
    }
#endif
    Limbs s = a.mont;
    s.add_in_place(b.mont);  // cannot carry out: 2M < 2^(64N)
    return MontField{reduce_once(s)};
  }
  CUZK_HD friend constexpr MontField operator-(const MontField& a, const MontField& b) {
#if defined(CUZK_HAVE_MONT_MUL_ADX)
    if constexpr (x86::kHasKernels<N>) {
      if (!std::is_constant_evaluated()) {
        MontField r;
        x86::Kernels<N>::sub(r.mont.limb, a.mont.limb, b.mont.limb, Consts::M.limb);
        return r;
      }
    }
#endif
#if defined(__CUDA_ARCH__)
    if constexpr (N == 4 || N == 6) {
      if (!std::is_constant_evaluated()) {
        constexpr Limbs m = Consts::M;
        MontField r;
        ptx::AddSubPtx<N>::sub(r.mont.limb, a.mont.limb, b.mont.limb, m.limb);
        return r;
      }
    }
#endif
    constexpr Limbs m = Consts::M;
    Limbs d = a.mont;
    uint64_t borrow = d.sub_in_place(b.mont);
    Limbs fix = Limbs::zero();
    for (size_t i = 0; i < N; i++) fix.limb[i] = m.limb[i] & (0 - borrow);
    d.add_in_place(fix);
    return MontField{d};
  }
  CUZK_HD constexpr MontField operator-() const { return zero() - *this; }
  CUZK_HD constexpr MontField dbl() const { return *this + *this; }
  CUZK_HD constexpr MontField& operator+=(const MontField& b) { return *this = *this + b; }
  CUZK_HD constexpr MontField& operator-=(const MontField& b) { return *this = *this - b; }

  // ---- multiplicative structure -------------------------------------------
  CUZK_FORCE_INLINE CUZK_HD friend constexpr MontField operator*(const MontField& a, const MontField& b) {
    return MontField{mont_mul(a.mont, b.mont)};
  }
  CUZK_HD constexpr MontField& operator*=(const MontField& b) { return *this = *this * b; }
  // a b + c d (every field has it; the curve formulas use it). On the device for Fp, one
  // Montgomery reduction for both products (MontMul2EoPtx: 960 instructions instead of 2 x 660
  // and an addition); the same fully reduced value as a * b + c * d, which every other field
  // and the host compute.
  CUZK_FORCE_INLINE CUZK_HD static constexpr MontField sum_of_products(const MontField& a, const MontField& b,
                                                                       const MontField& c, const MontField& d) {
#if defined(__CUDA_ARCH__)
    if constexpr (N == 6) {
      if (!std::is_constant_evaluated()) {
        constexpr Limbs m = Consts::M;
        static_assert((m.limb[N - 1] >> 62) == 0, "the two-product form needs two spare top bits in M");
        MontField r;
        ptx::MontMul2EoPtx<N>::mul2(r.mont.limb, a.mont.limb, b.mont.limb, c.mont.limb, d.mont.limb, m.limb,
                                    uint32_t(Consts::INV));
        return r;
      }
    }
#endif
    return a * b + c * d;
  }
  // With the mulx/adx kernel a plain product beats the portable dedicated squaring.
  CUZK_FORCE_INLINE CUZK_HD constexpr MontField sqr() const {
#if defined(__CUDA_ARCH__)
    // On the device for Fp: each cross product once (MontSqrPtx: 456 multiply-adds against the
    // product's 588); the same fully reduced value.
    if constexpr (N == 6) {
      if (!std::is_constant_evaluated()) {
        constexpr Limbs m = Consts::M;
        static_assert((m.limb[N - 1] >> 63) == 0, "the squaring needs a spare top bit in M");
        MontField r;
        ptx::MontSqrPtx<N>::sqr(r.mont.limb, mont.limb, m.limb, uint32_t(Consts::INV));
        return r;
      }
    }
#endif
#if defined(CUZK_HAVE_MONT_MUL_ADX) || defined(__CUDA_ARCH__)
    // (On the device too: the PTX product is the fast kernel there.)
    return MontField{mont_mul(mont, mont)};
#else
    return MontField{mont_sqr(mont)};
#endif
  }

  // a^e for any exponent width.
  template <size_t K>
  CUZK_HD constexpr MontField pow(const BigInt<K>& e) const {
    return pow_square_and_multiply(*this, e);
  }
  CUZK_HD constexpr MontField pow(uint64_t e) const { return pow(BigInt<1>::from_u64(e)); }

  // Multiplicative inverse; the inverse of zero is defined as zero.
  CUZK_HD constexpr MontField inverse() const {
#if CUZK_DEVICE_CODE
    constexpr Limbs e = Consts::kMinus2;
    return pow(e);
#else
    return binary_inverse();
#endif
  }

  // 1 for a non-zero square, -1 for a non-square, 0 for zero.
  CUZK_HD constexpr int legendre() const {
    if (is_zero()) return 0;
    constexpr Limbs e = Consts::kMinus1Half;
    MontField t = pow(e);
    return t.is_one() ? 1 : -1;
  }

  // Sets out to a square root and returns true, or returns false for a non-square.
  CUZK_HD constexpr bool sqrt(MontField& out) const {
    if (is_zero()) {
      out = zero();
      return true;
    }
    MontField root;
    if constexpr ((Consts::M.limb[0] & 3) == 3) {
      constexpr Limbs e = Consts::kPlus1Quarter;
      root = pow(e);
    } else {
      root = tonelli_shanks();
    }
    if (root.sqr() != *this) return false;
    out = root;
    return true;
  }

  // Generator of the 2^S-th roots of unity: g^T with g the configured non-residue.
  CUZK_HD static constexpr MontField two_adic_root_of_unity() {
    constexpr Limbs t = Consts::kOddPart;
    return from_u64(Config::kQuadraticNonResidue).pow(t);
  }
  CUZK_HD static constexpr MontField quadratic_non_residue() { return from_u64(Config::kQuadraticNonResidue); }

  // ---- canonical bytes ----------------------------------------------------
  CUZK_HD constexpr void to_bytes_le(uint8_t* out) const {
    Limbs c = to_canonical();
    for (size_t i = 0; i < kBytes; i++) out[i] = uint8_t(c.limb[i / 8] >> (8 * (i % 8)));
  }
  CUZK_HD constexpr void to_bytes_be(uint8_t* out) const {
    Limbs c = to_canonical();
    for (size_t i = 0; i < kBytes; i++) out[kBytes - 1 - i] = uint8_t(c.limb[i / 8] >> (8 * (i % 8)));
  }
  // Reads kBytes canonical bytes; returns false when the value is not below the modulus.
  CUZK_HD static constexpr bool from_bytes_le(const uint8_t* in, MontField& out) {
    Limbs c = Limbs::zero();
    for (size_t i = 0; i < kBytes; i++) c.limb[i / 8] |= uint64_t(in[i]) << (8 * (i % 8));
    return from_limbs_checked(c, out);
  }
  CUZK_HD static constexpr bool from_bytes_be(const uint8_t* in, MontField& out) {
    Limbs c = Limbs::zero();
    for (size_t i = 0; i < kBytes; i++) c.limb[i / 8] |= uint64_t(in[kBytes - 1 - i]) << (8 * (i % 8));
    return from_limbs_checked(c, out);
  }
  CUZK_HD static constexpr bool from_limbs_checked(const Limbs& c, MontField& out) {
    constexpr Limbs m = Consts::M;
    if (!(c < m)) return false;
    out = from_canonical(c);
    return true;
  }

  // Uniform sampling by rejection; Rng returns uniformly random 64-bit words.
  template <class Rng>
  static MontField random(Rng& rng) {
    constexpr size_t top_bits = Consts::kBits - 64 * (N - 1);
    constexpr uint64_t top_mask = top_bits == 64 ? ~uint64_t(0) : (uint64_t(1) << top_bits) - 1;
    for (;;) {
      Limbs c;
      for (size_t i = 0; i < N; i++) c.limb[i] = uint64_t(rng());
      c.limb[N - 1] &= top_mask;
      MontField r;
      if (from_limbs_checked(c, r)) return r;
    }
  }

  // ---- raw Montgomery kernels ---------------------------------------------
  // a * b * R^-1 mod M for a, b < M: the mulx/adx kernel on x86-64 hosts that have it,
  // the portable kernel otherwise (and at compile time).
  CUZK_FORCE_INLINE CUZK_HD static constexpr Limbs mont_mul(const Limbs& a, const Limbs& b) {
#if defined(CUZK_HAVE_MONT_MUL_ADX)
    if constexpr (x86::kHasKernels<N>) {
      if (!std::is_constant_evaluated()) {
        Limbs r;
        x86::Kernels<N>::mul(r.limb, a.limb, b.limb, Consts::M.limb, Consts::INV);
        return reduce_once(r);
      }
    }
#endif
#if defined(__CUDA_ARCH__)
    // On the device: 32-bit words with PTX carry chains (several times fewer instructions
    // than 64-bit products emulated with __umul64hi); same fully reduced result. The
    // even/odd-accumulator form has two independent carry chains per row instead of one; for
    // a modulus = 2^64 - 2^32 + 1 mod 2^64 (Fr) its q and q's products with M's low words are
    // additions (28 multiply-adds a row instead of 33).
    if constexpr (N == 4 || N == 6) {
      if (!std::is_constant_evaluated()) {
        constexpr Limbs m = Consts::M;
        Limbs r;
        if constexpr (N == 6) {
          static_assert((m.limb[N - 1] >> 63) == 0, "the even/odd product needs a spare top bit in M");
          ptx::MontMulEoPtx<N>::mul(r.limb, a.limb, b.limb, m.limb, uint32_t(Consts::INV));
        } else if constexpr (kSparseLowModulus) {
          static_assert((m.limb[N - 1] >> 63) == 0, "the even/odd product needs a spare top bit in M");
          ptx::MontMulEoSparseLowPtx<N>::mul(r.limb, a.limb, b.limb, m.limb, uint32_t(Consts::INV));
        } else {
          ptx::MontMulPtx<N>::mul(r.limb, a.limb, b.limb, m.limb, uint32_t(Consts::INV));
        }
        return r;
      }
    }
#endif
    return mont_mul_portable(a, b);
  }

  // The portable no-carry CIOS kernel (host and device); the reference for the assembly.
  CUZK_HD static constexpr Limbs mont_mul_portable(const Limbs& a, const Limbs& b) {
    constexpr Limbs m = Consts::M;
    constexpr uint64_t inv = Consts::INV;
    Limbs t = Limbs::zero();
    CUZK_UNROLL
    for (size_t i = 0; i < N; i++) {
      uint64_t A = 0;
      t.limb[0] = mul_add_carry(a.limb[0], b.limb[i], t.limb[0], A);
      uint64_t q = t.limb[0] * inv;
      uint64_t C = 0;
      (void)mul_add_carry(q, m.limb[0], t.limb[0], C);
      CUZK_UNROLL
      for (size_t j = 1; j < N; j++) {
        t.limb[j] = mul_add_carry(a.limb[j], b.limb[i], t.limb[j], A);
        t.limb[j - 1] = mul_add_carry(q, m.limb[j], t.limb[j], C);
      }
      t.limb[N - 1] = C + A;
    }
    return reduce_once(t);
  }

  // a^2 * R^-1 mod M: off-diagonal products once, doubled, plus squares, then REDC.
  CUZK_HD static constexpr Limbs mont_sqr(const Limbs& a) {
    constexpr Limbs m = Consts::M;
    constexpr uint64_t inv = Consts::INV;
    uint64_t w[2 * N] = {};
    CUZK_UNROLL
    for (size_t i = 0; i < N; i++) {
      uint64_t c = 0;
      CUZK_UNROLL
      for (size_t j = i + 1; j < N; j++) w[i + j] = mul_add_carry(a.limb[i], a.limb[j], w[i + j], c);
      w[i + N] = c;
    }
    w[2 * N - 1] = w[2 * N - 2] >> 63;
    CUZK_UNROLL
    for (size_t k = 2 * N - 2; k > 0; k--) w[k] = (w[k] << 1) | (w[k - 1] >> 63);
    w[0] <<= 1;
    uint64_t c = 0;
    CUZK_UNROLL
    for (size_t i = 0; i < N; i++) {
      uint64_t hi = 0;
      uint64_t lo = mul_add_carry(a.limb[i], a.limb[i], 0, hi);
      w[2 * i] = add_with_carry(w[2 * i], lo, c);
      w[2 * i + 1] = add_with_carry(w[2 * i + 1], hi, c);
    }
    uint64_t hi_carry = 0;
    CUZK_UNROLL
    for (size_t i = 0; i < N; i++) {
      uint64_t q = w[i] * inv;
      uint64_t cc = 0;
      CUZK_UNROLL
      for (size_t j = 0; j < N; j++) w[i + j] = mul_add_carry(q, m.limb[j], w[i + j], cc);
      uint64_t k = hi_carry;
      w[i + N] = add_with_carry(w[i + N], cc, k);
      hi_carry = k;
    }
    Limbs r;
    CUZK_UNROLL
    for (size_t i = 0; i < N; i++) r.limb[i] = w[N + i];
    return reduce_once(r);
  }

  // t < 2M -> t mod M, without a data-dependent branch (public for the device's lazy Fp,
  // ff/cuda/lazy_mont.hpp, whose values are below 2M).
  CUZK_HD static constexpr Limbs reduce_once(const Limbs& t) {
    constexpr Limbs m = Consts::M;
    Limbs d = t;
    uint64_t borrow = d.sub_in_place(m);
    uint64_t keep = 0 - borrow;  // all ones when t < M
    Limbs r;
    for (size_t i = 0; i < N; i++) r.limb[i] = (t.limb[i] & keep) | (d.limb[i] & ~keep);
    return r;
  }

 private:
  // x <- x / 2^k mod M for 1 <= k <= 63 and x < M: add the multiple m M (m < 2^k) that clears
  // the low k bits, shift, and reduce once ((x + m M) / 2^k < 2M).
  static constexpr void div_pow2_mod(Limbs& x, unsigned k) {
    constexpr Limbs m = Consts::M;
    const uint64_t q = (x.limb[0] * Consts::INV) & ((uint64_t(1) << k) - 1);
    BigInt<N + 1> t = BigInt<N + 1>::zero();
    uint64_t carry = 0;
    for (size_t j = 0; j < N; j++) t.limb[j] = mul_add_carry(q, m.limb[j], x.limb[j], carry);
    t.limb[N] = carry;
    t = t.shr(k);
    for (size_t j = 0; j < N; j++) x.limb[j] = t.limb[j];
    if (x >= m) x.sub_in_place(m);
  }

  // Removes the factors of two of u (odd afterwards) and divides x by as many, mod M.
  static constexpr void strip_twos(Limbs& u, Limbs& x) {
    size_t k = 0;
    while (u.limb[k / 64] == 0) k += 64;  // u is never zero here
    k += size_t(std::countr_zero(u.limb[k / 64]));
    if (k == 0) return;
    u = u.shr(k);
    for (; k > 63; k -= 63) div_pow2_mod(x, 63);
    div_pow2_mod(x, unsigned(k));
  }

  // Binary extended Euclid on the Montgomery value A = aR, giving A^-1 = a^-1 R^-1; one
  // multiplication by R^3 then gives a^-1 R. Invariants: x1 A = u, x2 A = v (mod M). Each
  // step removes all factors of two at once. Variable time: fine for public data.
  constexpr MontField binary_inverse() const {
    if (is_zero()) return zero();
    constexpr Limbs m = Consts::M;
    constexpr Limbs r3 = Consts::R3;
    const Limbs one_int = Limbs::from_u64(1);
    Limbs u = mont, v = m, x1 = one_int, x2 = Limbs::zero();
    auto sub_mod = [&](Limbs& x, const Limbs& y) {
      if (x.sub_in_place(y)) x.add_in_place(m);
    };
    strip_twos(u, x1);
    while (u != one_int && v != one_int) {
      // u and v are odd here; their difference is even and non-zero (gcd(u, v) = 1).
      if (u >= v) {
        u.sub_in_place(v);
        sub_mod(x1, x2);
        strip_twos(u, x1);
      } else {
        v.sub_in_place(u);
        sub_mod(x2, x1);
        strip_twos(v, x2);
      }
    }
    Limbs inv = (u == one_int) ? x1 : x2;
    return MontField{mont_mul(inv, r3)};
  }

  // Tonelli-Shanks for moduli with large 2-adicity (Fr: M - 1 = 2^32 * T).
  CUZK_HD constexpr MontField tonelli_shanks() const {
    constexpr Limbs t_half = Consts::kOddPartPlus1Half;
    constexpr Limbs t = Consts::kOddPart;
    size_t m_exp = Consts::kTwoAdicity;
    MontField c = two_adic_root_of_unity();
    MontField x = pow(t_half);
    MontField b = pow(t);
    while (!b.is_one()) {
      size_t i = 0;
      MontField b2 = b;
      while (!b2.is_one()) {
        b2 = b2.sqr();
        if (++i == m_exp) return zero();  // non-square; caller's check rejects it
      }
      MontField g = c;
      for (size_t k = 0; k + i + 1 < m_exp; k++) g = g.sqr();
      x *= g;
      c = g.sqr();
      b *= c;
      m_exp = i;
    }
    return x;
  }
};

// Inverts every non-zero element of xs in place with one field inversion
// (Montgomery's trick); zeros stay zero. scratch must hold n elements.
template <class F>
void batch_inverse(F* xs, size_t n, F* scratch) {
  F acc = F::one();
  for (size_t i = 0; i < n; i++) {
    scratch[i] = acc;
    if (!xs[i].is_zero()) acc *= xs[i];
  }
  F inv = acc.inverse();
  for (size_t i = n; i-- > 0;) {
    if (xs[i].is_zero()) continue;
    F next = inv * xs[i];
    xs[i] = inv * scratch[i];
    inv = next;
  }
}

}  // namespace cuzk::ff

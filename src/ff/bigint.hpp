// Fixed-width unsigned integers of N 64-bit limbs (little-endian limb order)
// and the carry primitives the Montgomery fields are built on.
//
// Everything here is constexpr so that field constants (R, R^2, -p^-1, the
// exponents used by inversion and square roots) are derived from the modulus
// at compile time instead of being typed in by hand.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "ff/hd.hpp"

namespace cuzk::ff {

// a + b + carry_in; carry_out in {0, 1}.
CUZK_HD_INLINE constexpr uint64_t add_with_carry(uint64_t a, uint64_t b, uint64_t& carry) {
#if CUZK_DEVICE_CODE
  uint64_t s = a + b;
  uint64_t c = s < a;
  uint64_t t = s + carry;
  carry = c | (t < s);
  return t;
#else
  unsigned __int128 t = (unsigned __int128)a + b + carry;
  carry = (uint64_t)(t >> 64);
  return (uint64_t)t;
#endif
}

// a - b - borrow_in; borrow_out in {0, 1}.
CUZK_HD_INLINE constexpr uint64_t sub_with_borrow(uint64_t a, uint64_t b, uint64_t& borrow) {
#if CUZK_DEVICE_CODE
  uint64_t d = a - b;
  uint64_t c = a < b;
  uint64_t t = d - borrow;
  borrow = c | (d < borrow);
  return t;
#else
  unsigned __int128 t = (unsigned __int128)a - b - borrow;
  borrow = (uint64_t)(t >> 64) & 1;
  return (uint64_t)t;
#endif
}

// a * b + c + carry_in -> low word; carry_out = high word. Never overflows 128 bits.
// On the device __umul64hi is not constexpr, so constant evaluation (curve constants that device
// code can see) takes the 128-bit path, which nvcc also supports.
CUZK_HD_INLINE constexpr uint64_t mul_add_carry(uint64_t a, uint64_t b, uint64_t c, uint64_t& carry) {
#if CUZK_DEVICE_CODE
  if (!std::is_constant_evaluated()) {
    uint64_t lo = a * b;
    uint64_t hi = __umul64hi(a, b);
    lo += c;
    hi += lo < c;
    lo += carry;
    hi += lo < carry;
    carry = hi;
    return lo;
  }
#endif
  unsigned __int128 t = (unsigned __int128)a * b + c + carry;
  carry = (uint64_t)(t >> 64);
  return (uint64_t)t;
}

template <size_t N>
struct BigInt {
  static constexpr size_t kLimbs = N;
  static constexpr size_t kBits = 64 * N;
  uint64_t limb[N];

  CUZK_HD static constexpr BigInt zero() {
    BigInt r{};
    for (size_t i = 0; i < N; i++) r.limb[i] = 0;
    return r;
  }
  CUZK_HD static constexpr BigInt from_u64(uint64_t v) {
    BigInt r = zero();
    r.limb[0] = v;
    return r;
  }

  // Parses "0x..." or plain hex at compile time; digits beyond N limbs are an error.
  static constexpr BigInt from_hex(const char* s) {
    BigInt r = zero();
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s += 2;
    size_t len = 0;
    while (s[len]) len++;
    if (len > 16 * N) throw "BigInt::from_hex: literal wider than the integer";
    for (size_t i = 0; i < len; i++) {
      char c = s[len - 1 - i];
      uint64_t d = (c >= '0' && c <= '9')   ? uint64_t(c - '0')
                   : (c >= 'a' && c <= 'f') ? uint64_t(c - 'a' + 10)
                   : (c >= 'A' && c <= 'F') ? uint64_t(c - 'A' + 10)
                                            : throw "BigInt::from_hex: not a hex digit";
      r.limb[i / 16] |= d << (4 * (i % 16));
    }
    return r;
  }

  CUZK_HD constexpr bool is_zero() const {
    uint64_t acc = 0;
    for (size_t i = 0; i < N; i++) acc |= limb[i];
    return acc == 0;
  }
  CUZK_HD constexpr bool bit(size_t i) const { return (limb[i / 64] >> (i % 64)) & 1; }
  CUZK_HD constexpr bool is_odd() const { return limb[0] & 1; }

  // Index of the highest set bit plus one; 0 for zero.
  CUZK_HD constexpr size_t bit_length() const {
    for (size_t i = N; i-- > 0;) {
      if (limb[i]) {
        size_t b = 64;
        while (!((limb[i] >> (b - 1)) & 1)) b--;
        return 64 * i + b;
      }
    }
    return 0;
  }

  // Returns the carry out.
  CUZK_HD constexpr uint64_t add_in_place(const BigInt& b) {
    uint64_t c = 0;
    for (size_t i = 0; i < N; i++) limb[i] = add_with_carry(limb[i], b.limb[i], c);
    return c;
  }
  // Returns the borrow out.
  CUZK_HD constexpr uint64_t sub_in_place(const BigInt& b) {
    uint64_t c = 0;
    for (size_t i = 0; i < N; i++) limb[i] = sub_with_borrow(limb[i], b.limb[i], c);
    return c;
  }
  CUZK_HD constexpr void shr1(uint64_t top_in = 0) {
    for (size_t i = 0; i + 1 < N; i++) limb[i] = (limb[i] >> 1) | (limb[i + 1] << 63);
    limb[N - 1] = (limb[N - 1] >> 1) | (top_in << 63);
  }
  CUZK_HD constexpr uint64_t shl1() {
    uint64_t out = limb[N - 1] >> 63;
    for (size_t i = N - 1; i > 0; i--) limb[i] = (limb[i] << 1) | (limb[i - 1] >> 63);
    limb[0] <<= 1;
    return out;
  }
  CUZK_HD constexpr BigInt shr(size_t k) const {
    BigInt r = zero();
    size_t w = k / 64, b = k % 64;
    for (size_t i = 0; i + w < N; i++) {
      r.limb[i] = limb[i + w] >> b;
      if (b && i + w + 1 < N) r.limb[i] |= limb[i + w + 1] << (64 - b);
    }
    return r;
  }

  CUZK_HD friend constexpr bool operator==(const BigInt& a, const BigInt& b) {
    uint64_t acc = 0;
    for (size_t i = 0; i < N; i++) acc |= a.limb[i] ^ b.limb[i];
    return acc == 0;
  }
  CUZK_HD friend constexpr bool operator!=(const BigInt& a, const BigInt& b) { return !(a == b); }
  CUZK_HD friend constexpr bool operator<(const BigInt& a, const BigInt& b) {
    for (size_t i = N; i-- > 0;) {
      if (a.limb[i] != b.limb[i]) return a.limb[i] < b.limb[i];
    }
    return false;
  }
  CUZK_HD friend constexpr bool operator>=(const BigInt& a, const BigInt& b) { return !(a < b); }

  // Small-divisor division; returns the remainder.
  constexpr uint64_t div_small_in_place(uint64_t d) {
    unsigned __int128 rem = 0;
    for (size_t i = N; i-- > 0;) {
      unsigned __int128 cur = (rem << 64) | limb[i];
      limb[i] = (uint64_t)(cur / d);
      rem = cur % d;
    }
    return (uint64_t)rem;
  }
};

// -m^-1 mod 2^64 for odd m, by Newton iteration (each step doubles the correct bits).
constexpr uint64_t neg_inverse_mod_2_64(uint64_t m) {
  uint64_t inv = 1;
  for (int i = 0; i < 7; i++) inv *= 2 - m * inv;
  return ~inv + 1;
}

// 2^k mod m for an N-limb modulus m with at least one spare top bit.
template <size_t N>
constexpr BigInt<N> pow2_mod(const BigInt<N>& m, size_t k) {
  BigInt<N> r = BigInt<N>::from_u64(1);
  for (size_t i = 0; i < k; i++) {
    uint64_t out = r.shl1();
    if (out || r >= m) r.sub_in_place(m);
  }
  return r;
}

}  // namespace cuzk::ff

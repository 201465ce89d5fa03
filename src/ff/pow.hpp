// Exponentiation shared by every field of the tower.
#pragma once

#include <cstddef>

#include "ff/bigint.hpp"
#include "ff/hd.hpp"

namespace cuzk::ff {

// base^e by left-to-right square-and-multiply; F needs one(), sqr() and operator*.
// Variable time in e (exponents here are public constants or public test inputs).
template <class F, size_t K>
CUZK_HD constexpr F pow_square_and_multiply(const F& base, const BigInt<K>& e) {
  F r = F::one();
  for (size_t i = e.bit_length(); i-- > 0;) {
    r = r.sqr();
    if (e.bit(i)) r = r * base;
  }
  return r;
}

}  // namespace cuzk::ff

// A Montgomery field element kept in [0, 2M) instead of [0, M), for device code.
//
// Products leave out their final conditional subtraction (MontMulEoLazyPtx, MontMul2EoLazyPtx,
// MontSqrLazyPtx: for operands below 2M the result is below 2M when 8M < 2^(64N)); additions
// and subtractions reduce by 2M instead of M. That saves 26 of ~660 instructions per product,
// about 4% of a point addition's; the MSM's accumulation, bound by the IMAD pipe rather than by
// issue, gained 2.3% (docs/perf-history.md, ninth pass). Values are not unique (x and x + M are the
// same element), so only is_zero() compares; canonical() gives the fully reduced MontField (host
// and device). Fp only (6 limbs: the PTX forms exist for it).
#pragma once

#include <cstdint>

#include "ff/bigint.hpp"
#include "ff/hd.hpp"
#include "ff/mont_field.hpp"
#if defined(__CUDACC__)
#include "ff/cuda/mont_mul_ptx.hpp"
#endif

namespace cuzk::ff {

template <class Field>
struct LazyMont {
  static constexpr size_t N = Field::N;
  using Limbs = typename Field::Limbs;
  static_assert(N == 6, "the lazy PTX products exist for 6 limbs (Fp)");

  struct Consts {
    static constexpr Limbs M = Field::Consts::M;
    static constexpr Limbs twice(Limbs m) {
      m.add_in_place(Field::Consts::M);
      return m;
    }
    static constexpr Limbs M2 = twice(M);
    // The two-product form's bound 8M < 2^(64N), i.e. three spare top bits.
    static_assert((M.limb[N - 1] >> 61) == 0, "lazy Montgomery products need M < 2^(64N - 3)");
    static constexpr uint32_t INV = uint32_t(Field::Consts::INV);
  };

  Limbs mont;  // below 2M; congruent to the Montgomery form of the value

  CUZK_HD static constexpr LazyMont zero() { return {Limbs::zero()}; }
  CUZK_HD static constexpr LazyMont one() { return {Field::one().mont}; }
  CUZK_HD static constexpr LazyMont from(const Field& f) { return {f.mont}; }

  // The fully reduced element (mont - M when mont >= M).
  CUZK_HD constexpr Field canonical() const { return Field::from_montgomery(Field::reduce_once(mont)); }
  // (M is copied to a local: device code cannot bind a static member to a reference.)
  CUZK_HD constexpr bool is_zero() const {
    constexpr Limbs m = Consts::M;
    return mont.is_zero() || mont == m;
  }

#if defined(__CUDACC__)
  __device__ __forceinline__ friend LazyMont operator+(const LazyMont& a, const LazyMont& b) {
    constexpr Limbs m2 = Consts::M2;
    LazyMont r;
    ptx::AddSubPtx<N>::add(r.mont.limb, a.mont.limb, b.mont.limb, m2.limb);  // a + b < 4M < 2^(64N)
    return r;
  }
  __device__ __forceinline__ friend LazyMont operator-(const LazyMont& a, const LazyMont& b) {
    constexpr Limbs m2 = Consts::M2;
    LazyMont r;
    ptx::AddSubPtx<N>::sub(r.mont.limb, a.mont.limb, b.mont.limb, m2.limb);
    return r;
  }
  __device__ __forceinline__ LazyMont operator-() const { return zero() - *this; }
  __device__ __forceinline__ LazyMont dbl() const { return *this + *this; }
  __device__ __forceinline__ LazyMont& operator+=(const LazyMont& b) { return *this = *this + b; }
  __device__ __forceinline__ LazyMont& operator-=(const LazyMont& b) { return *this = *this - b; }

  __device__ __forceinline__ friend LazyMont operator*(const LazyMont& a, const LazyMont& b) {
    constexpr Limbs m = Consts::M;
    LazyMont r;
    ptx::MontMulEoLazyPtx<N>::mul(r.mont.limb, a.mont.limb, b.mont.limb, m.limb, Consts::INV);
    return r;
  }
  __device__ __forceinline__ LazyMont& operator*=(const LazyMont& b) { return *this = *this * b; }
  // a b + c d with one reduction.
  __device__ __forceinline__ static LazyMont sum_of_products(const LazyMont& a, const LazyMont& b, const LazyMont& c,
                                                             const LazyMont& d) {
    constexpr Limbs m = Consts::M;
    LazyMont r;
    ptx::MontMul2EoLazyPtx<N>::mul2(r.mont.limb, a.mont.limb, b.mont.limb, c.mont.limb, d.mont.limb, m.limb,
                                    Consts::INV);
    return r;
  }
  __device__ __forceinline__ LazyMont sqr() const {
    constexpr Limbs m = Consts::M;
    LazyMont r;
    ptx::MontSqrLazyPtx<N>::sqr(r.mont.limb, mont.limb, m.limb, Consts::INV);
    return r;
  }
#endif
};

}  // namespace cuzk::ff

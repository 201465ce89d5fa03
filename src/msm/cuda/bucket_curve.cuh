// The curve the GPU MSM's buckets are summed on (part of the one translation unit msm.cu).
#pragma once

#include "ec/curves.hpp"
#include "ec/point.hpp"
#include "ff/cuda/lazy_mont.hpp"
#include "ff/fp.hpp"

namespace cuzk::msm::cuda {
namespace {

// The curve the buckets are summed on. G1's additions run on the lazy Fp (values in [0, 2p),
// ff/cuda/lazy_mont.hpp: no conditional subtraction after each product), and the sums are made
// canonical when they come back to the host; G2 keeps its Fp2. The kernels that hold XYZZ
// points (accumulate.cuh, reduce.cuh) are instantiated with this curve, B.
struct LazyG1Curve {
  using Field = ff::LazyMont<ff::Fp>;
};
template <class Curve>
struct BucketCurveOf {
  using type = Curve;
};
template <>
struct BucketCurveOf<ec::G1Curve> {
  using type = LazyG1Curve;
};
template <class Curve>
using BucketCurve = typename BucketCurveOf<Curve>::type;

// An affine term in the buckets' field: the same words (a canonical value is a lazy one).
__device__ __forceinline__ ec::AffinePoint<LazyG1Curve> to_bucket_field(const ec::G1Affine& p) {
  return {{p.x.mont}, {p.y.mont}};
}
template <class Curve>
__device__ __forceinline__ const ec::AffinePoint<Curve>& to_bucket_field(const ec::AffinePoint<Curve>& p) {
  return p;
}
template <class B, class Curve>
__device__ __forceinline__ void add_term(ec::XyzzPoint<B>& acc, const ec::AffinePoint<Curve>& p) {
  acc = acc.add_mixed(to_bucket_field(p));
}
template <class B>
__device__ __forceinline__ void add_term(ec::XyzzPoint<B>& acc, const ec::XyzzPoint<B>& p) {
  acc = acc + p;
}

// A bucket sum downloaded from the device, fully reduced.
ec::G1Xyzz canonical(const ec::XyzzPoint<LazyG1Curve>& p) {
  return {p.X.canonical(), p.Y.canonical(), p.ZZ.canonical(), p.ZZZ.canonical()};
}
template <class Curve>
const ec::XyzzPoint<Curve>& canonical(const ec::XyzzPoint<Curve>& p) {
  return p;
}

}  // namespace
}  // namespace cuzk::msm::cuda

// Random points of G1 and G2 for tests and benchmarks.
#pragma once

#include <cstddef>
#include <type_traits>
#include <vector>

#include "ec/curves.hpp"

namespace cuzk::ec {

// [k] G for a uniformly random k.
template <class Curve, class Rng>
JacobianPoint<Curve> random_subgroup_point(Rng& rng) {
  if constexpr (std::is_same_v<Curve, G1Curve>) {
    return g1_mul(kG1Generator, Fr::random(rng));
  } else {
    return g2_mul(kG2Generator, Fr::random(rng));
  }
}

// n distinct subgroup points P + i Q (P, Q random) in affine form: one addition each, so
// millions are cheap. Their discrete logarithms are related, which MSM timings do not mind.
template <class Curve, class Rng>
std::vector<AffinePoint<Curve>> pseudo_random_subgroup_points(size_t n, Rng& rng) {
  using J = JacobianPoint<Curve>;
  J p = random_subgroup_point<Curve>(rng);
  const J q = random_subgroup_point<Curve>(rng);
  std::vector<J> jac(n);
  for (size_t i = 0; i < n; i++) {
    jac[i] = p;
    p += q;
  }
  std::vector<AffinePoint<Curve>> out(n);
  std::vector<typename Curve::Field> scratch(n);
  batch_to_affine(jac.data(), out.data(), n, scratch.data());
  return out;
}

}  // namespace cuzk::ec

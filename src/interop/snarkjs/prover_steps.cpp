// The backend-independent steps of the snarkjs prover: witness checks, the constraint
// evaluations from section 4 and the assembly of the proof.
#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>

#include "ff/os_rng.hpp"
#include "interop/snarkjs/odd_coset.hpp"
#include "interop/snarkjs/prover.hpp"

namespace cuzk::snarkjs {

Proof Prover::prove(const Zkey& zkey, std::span<const ff::Fr> witness, ProveTimings* timings) {
  ff::OsRng rng;
  const ff::Fr r = ff::Fr::random(rng);
  const ff::Fr s = ff::Fr::random(rng);
  return prove(zkey, witness, r, s, timings);
}

std::vector<ff::Fr> public_signals(const Zkey& zkey, std::span<const ff::Fr> witness) {
  detail::check_witness(zkey, witness);
  return std::vector<ff::Fr>(witness.begin() + 1, witness.begin() + 1 + zkey.publics);
}

namespace detail {

void check_witness(const Zkey& zkey, std::span<const ff::Fr> witness) {
  if (witness.size() != zkey.vars) {
    throw std::invalid_argument("the witness has " + std::to_string(witness.size()) + " values, the proving key " +
                                std::to_string(zkey.vars) + " signals (a witness of another circuit?)");
  }
  if (witness[0] != ff::Fr::one()) {
    throw std::invalid_argument("the witness's first value (the constant wire) is not 1");
  }
}

void ab_evaluations(const Zkey& zkey, std::span<const ff::Fr> witness, const OddCoset& coset, std::span<ff::Fr> a,
                    std::span<ff::Fr> b) {
  const size_t n = coset.size();
  if (a.size() != n || b.size() != n) {
    throw std::invalid_argument("constraint evaluations: vectors must have the domain's size");
  }
  tbb::parallel_for(size_t(0), n, [&](size_t i) { a[i] = b[i] = ff::Fr::zero(); });
  const std::span<const ZkeyCoefficient> terms(zkey.coefficients);
  const auto accumulate = [&](size_t begin, size_t end) {
    for (size_t t = begin; t < end; t++) {
      const ZkeyCoefficient& k = terms[t];
      (k.matrix == 0 ? a : b)[coset.our_index(k.constraint)] += k.value * witness[k.signal];
    }
  };
  // snarkjs lists section 4 by constraint (each constraint's A terms, then its B terms): chunks cut
  // where the constraint changes write disjoint rows, so they run in parallel. Another order is
  // summed in one pass.
  const bool by_constraint = tbb::parallel_reduce(
      tbb::blocked_range<size_t>(1, std::max<size_t>(terms.size(), 1)), true,
      [&](const tbb::blocked_range<size_t>& r, bool sorted) {
        for (size_t t = r.begin(); sorted && t < r.end(); t++) sorted = terms[t - 1].constraint <= terms[t].constraint;
        return sorted;
      },
      std::logical_and<>());
  if (!by_constraint) {
    accumulate(0, terms.size());
  } else {
    constexpr size_t kChunk = size_t(1) << 14;
    const auto chunk_start = [&](size_t chunk) {  // the first term of its constraint at or after chunk * kChunk
      size_t t = std::min(chunk * kChunk, terms.size());
      while (t > 0 && t < terms.size() && terms[t - 1].constraint == terms[t].constraint) t++;
      return t;
    };
    const size_t chunks = (terms.size() + kChunk - 1) / kChunk;
    tbb::parallel_for(size_t(0), chunks, [&](size_t i) { accumulate(chunk_start(i), chunk_start(i + 1)); });
  }
}

void constraint_evaluations(const Zkey& zkey, std::span<const ff::Fr> witness, const OddCoset& coset,
                            std::span<ff::Fr> a, std::span<ff::Fr> b, std::span<ff::Fr> c) {
  if (c.size() != coset.size()) {
    throw std::invalid_argument("constraint evaluations: vectors must have the domain's size");
  }
  ab_evaluations(zkey, witness, coset, a, b);
  tbb::parallel_for(size_t(0), c.size(), [&](size_t i) { c[i] = a[i] * b[i]; });
}

Proof assemble(const Zkey& zkey, const MsmResults& m, const ff::Fr& r, const ff::Fr& s) {
  using ec::G1Jacobian;
  using ec::G2Jacobian;
  const G1Jacobian delta1 = G1Jacobian::from_affine(zkey.delta_g1);
  const G1Jacobian pi_a = m.a + G1Jacobian::from_affine(zkey.alpha_g1) + ec::g1_mul(delta1, r);
  const G2Jacobian pi_b = m.b_g2 + G2Jacobian::from_affine(zkey.beta_g2) + ec::g2_mul(zkey.delta_g2, s);
  const G1Jacobian b1 = m.b_g1 + G1Jacobian::from_affine(zkey.beta_g1) + ec::g1_mul(delta1, s);
  const G1Jacobian pi_c = m.c + m.h + ec::g1_mul(pi_a, s) + ec::g1_mul(b1, r) + ec::g1_mul(delta1, -(r * s));
  return Proof{pi_a.to_affine(), pi_b.to_affine(), pi_c.to_affine()};
}

}  // namespace detail
}  // namespace cuzk::snarkjs

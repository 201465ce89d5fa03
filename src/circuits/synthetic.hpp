// A synthetic, satisfiable circuit family with the shape of a Filecoin PoRep partition, for
// tests and benchmarks at any size from 2^10 to 2^27 constraints.
//
// Every constraint allocates one aux variable, one of four kinds:
//   bit     v (1 - v) = 0                   v in A and B, value 0 or 1
//   copy    v * 1 = u  (u an earlier bit)    v in A only, value 0 or 1
//   mix     v * 1 = c1 u1 + c2 u2 + c3 u3 + c  (earlier variables)  v in A only
//   sink    (u1 + u2) * 1 = v                v in C only
// The shares are chosen so that the A-side aux density, the B-side aux density and the share
// of 0/1 values match the requested profile (default: PoRep's 99.7% / 25.4%, and 75% of the
// values in {0, 1}). Earlier variables are taken from a window of the last 64 within the same
// 4096-constraint block, so blocks are independent: witnesses are computed in parallel.
#pragma once

#include <cstddef>
#include <cstdint>

#include "r1cs/constraint_system.hpp"

namespace cuzk::circuits {

struct SyntheticProfile {
  double a_density = 0.997;      // share of aux variables occurring in A
  double b_density = 0.254;      // share of aux variables occurring in B
  double zero_one_share = 0.75;  // share of aux values equal to 0 or 1 (must be >= b_density)
};

class SyntheticCircuit final : public r1cs::Circuit {
 public:
  // constraints: the total after the prover adds one constraint per input (ONE included), so a
  // power of two fills its domain exactly. public_inputs excludes ONE.
  SyntheticCircuit(size_t constraints, size_t public_inputs = 8, SyntheticProfile profile = {}, uint64_t seed = 1);

  void synthesize(r1cs::ConstraintSystem& cs) const override;

  // The free bits' values come from this seed (default: the shape seed), so that many
  // instances share one shape, and so one parameter set, with different witnesses: the
  // partitions of one job.
  void set_witness_seed(uint64_t witness_seed) { witness_seed_ = witness_seed; }

  // Bytes synthesize() holds besides the constraint system, for the engine's memory estimate:
  // the shapes and values of one window of blocks (it streams the body), or of one section per
  // thread when the system takes parallel sections, whichever is more.
  static size_t synthesis_scratch_bytes(size_t constraints);

  size_t num_constraints() const { return constraints_; }
  size_t num_public_inputs() const { return inputs_; }
  size_t num_aux() const { return body_; }
  const SyntheticProfile& profile() const { return profile_; }

 private:
  size_t constraints_, inputs_, body_;
  SyntheticProfile profile_;
  uint64_t seed_, witness_seed_;
};

}  // namespace cuzk::circuits

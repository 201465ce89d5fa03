#include "circuits/synthetic.hpp"

#include <stdexcept>
#include <string>
#include <tbb/parallel_for.h>
#include <vector>

namespace cuzk::circuits {
namespace {

using ff::Fr;
using r1cs::LC;
using r1cs::Variable;

constexpr size_t kBlock = 4096;
constexpr size_t kWindow = 64;

enum class Kind : uint8_t { kBit, kCopy, kMix, kSink };

// SplitMix64 of (seed, index): the circuit's shape and witness are a pure function of both.
uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

struct Step {
  Kind kind;
  uint32_t src[3];  // earlier aux indices (absolute)
  Fr coeff[3];
  Fr constant;
};

double unit(uint64_t r) { return double(r >> 11) / double(uint64_t(1) << 53); }

// The shape of constraint i (aux variable i); never refers outside its block.
Step make_step(uint64_t seed, size_t i, const SyntheticProfile& p, const std::vector<uint8_t>& is_bit) {
  uint64_t r = mix64(seed ^ mix64(i));
  const size_t block_start = i - i % kBlock;
  const size_t window = std::min(kWindow, i - block_start);
  Step s{};
  const double u = unit(r);
  const double sink = 1 - p.a_density, copy = p.zero_one_share - p.b_density;
  if (window == 0 || u < p.b_density) {
    s.kind = Kind::kBit;
    return s;
  }
  auto pick = [&](uint64_t k) { return uint32_t(i - 1 - mix64(r + k) % window); };
  if (u < p.b_density + sink) {
    s.kind = Kind::kSink;
    s.src[0] = pick(1);
    s.src[1] = pick(2);
    return s;
  }
  if (u < p.b_density + sink + copy) {
    // Copy the most recent bit in the window (there is one unless the window is all mixes).
    for (size_t back = 1; back <= window; back++) {
      if (is_bit[i - back]) {
        s.kind = Kind::kCopy;
        s.src[0] = uint32_t(i - back);
        return s;
      }
    }
  }
  s.kind = Kind::kMix;
  for (int k = 0; k < 3; k++) {
    s.src[k] = pick(uint64_t(k) + 3);
    s.coeff[k] = Fr::from_u64(mix64(r + 10 + uint64_t(k)) >> 1);
  }
  s.constant = Fr::from_u64(mix64(r + 20));
  return s;
}

}  // namespace

SyntheticCircuit::SyntheticCircuit(size_t constraints, size_t public_inputs, SyntheticProfile profile, uint64_t seed)
    : constraints_(constraints), inputs_(public_inputs), body_(0), profile_(profile), seed_(seed), witness_seed_(seed) {
  const auto in01 = [](double x) { return x >= 0 && x <= 1; };
  if (!in01(profile.a_density) || !in01(profile.b_density) || !in01(profile.zero_one_share) ||
      profile.zero_one_share < profile.b_density || profile.b_density + (1 - profile.a_density) > 1) {
    throw std::invalid_argument(
        "synthetic circuit: densities must lie in [0, 1], with zero_one_share >= b_density and "
        "b_density + (1 - a_density) <= 1");
  }
  // Body constraints + one per public input (input = some aux) + the prover's input constraints.
  const size_t overhead = 2 * public_inputs + 1;
  if (constraints < overhead + 2) {
    throw std::invalid_argument("synthetic circuit: " + std::to_string(constraints) + " constraints is too few for " +
                                std::to_string(public_inputs) + " public inputs");
  }
  if (constraints > (size_t(1) << 32)) throw std::invalid_argument("synthetic circuit: more than 2^32 constraints");
  body_ = constraints - overhead;
}

size_t SyntheticCircuit::synthesis_scratch_bytes(size_t constraints) {
  // steps, value, is_bit and the variables, one each per body constraint.
  return constraints * (sizeof(Step) + sizeof(Fr) + sizeof(uint8_t) + sizeof(Variable));
}

void SyntheticCircuit::synthesize(r1cs::ConstraintSystem& cs) const {
  const size_t n = body_;
  // Shapes and witness per block, in parallel; then the constraints, in order.
  std::vector<uint8_t> is_bit(n, 0);
  std::vector<Step> steps(n);
  std::vector<Fr> value(n);
  tbb::parallel_for(size_t(0), (n + kBlock - 1) / kBlock, [&](size_t b) {
    const size_t end = std::min(n, (b + 1) * kBlock);
    for (size_t i = b * kBlock; i < end; i++) {
      Step s = make_step(seed_, i, profile_, is_bit);
      switch (s.kind) {
        case Kind::kBit:
          is_bit[i] = 1;
          value[i] = Fr::from_u64(mix64(witness_seed_ + 0x5bd1e995 * (i + 1)) & 1);
          break;
        case Kind::kCopy:
          value[i] = value[s.src[0]];
          break;
        case Kind::kSink:
          value[i] = value[s.src[0]] + value[s.src[1]];
          break;
        case Kind::kMix:
          value[i] = s.constant;
          for (int k = 0; k < 3; k++) value[i] += s.coeff[k] * value[s.src[k]];
          break;
      }
      steps[i] = s;
    }
  });

  // Public inputs first (as aux copies of the last few body values).
  std::vector<Variable> inputs;
  for (size_t k = 0; k < inputs_; k++) inputs.push_back(cs.alloc_input("input", value[n - 1 - k % n]));
  std::vector<Variable> vars(n);
  for (size_t i = 0; i < n; i++) {
    const Step& s = steps[i];
    vars[i] = cs.alloc("v", cs.has_values() ? value[i] : Fr::zero());
    switch (s.kind) {
      case Kind::kBit:
        cs.enforce("bit", vars[i], LC(Variable::one()).sub(vars[i]), LC::zero());
        break;
      case Kind::kCopy:
        cs.enforce("copy", vars[i], Variable::one(), vars[s.src[0]]);
        break;
      case Kind::kSink:
        cs.enforce("sink", LC(vars[s.src[0]]).add(vars[s.src[1]]), Variable::one(), vars[i]);
        break;
      case Kind::kMix: {
        LC c = LC::constant(s.constant);
        for (int k = 0; k < 3; k++) c.add(vars[s.src[k]], s.coeff[k]);
        cs.enforce("mix", vars[i], Variable::one(), c);
        break;
      }
    }
  }
  for (size_t k = 0; k < inputs_; k++) cs.enforce("input", inputs[k], Variable::one(), vars[n - 1 - k % n]);
}

}  // namespace cuzk::circuits

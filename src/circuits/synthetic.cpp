#include "circuits/synthetic.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
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

// The shape of constraint i (aux variable i); never refers outside its block. is_bit holds the
// kinds of the variables from index `offset` on (at least those of i's block before i).
Step make_step(uint64_t seed, size_t offset, size_t i, const SyntheticProfile& p, const std::vector<uint8_t>& is_bit) {
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
      if (is_bit[i - back - offset]) {
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

namespace {

// Blocks whose shapes and witness are held at once: synthesize() streams the body in windows of
// this many blocks (1 M constraints, ~190 MB), so that its scratch does not grow with the circuit
// (2^27 constraints held whole took 22 GiB, more than a/b/c and aux together).
constexpr size_t kBlocksPerWindow = 256;
// Blocks of one section of a parallel synthesis (ConstraintSystem::open_sections): 2^16
// constraints, ~12 MB of shapes and values, one per thread at a time.
constexpr size_t kBlocksPerSection = 16;

// Shapes and witness values of the body constraints [begin, end) (whole blocks, or the body's
// end), computed block by block in parallel; indices are relative to begin.
struct Window {
  size_t begin = 0;
  std::vector<uint8_t> is_bit;
  std::vector<Step> steps;
  std::vector<Fr> value;

  // parallel: the blocks on all cores (else on this thread: a section, already one of many).
  void compute(size_t first, size_t last, uint64_t seed, uint64_t witness_seed, const SyntheticProfile& profile,
               bool parallel) {
    begin = first;
    const size_t count = last - first;
    is_bit.assign(count, 0);
    steps.resize(count);
    value.resize(count);
    auto block = [&](size_t b) {
      const size_t end = std::min(last, first + (b + 1) * kBlock);
      for (size_t i = first + b * kBlock; i < end; i++) {
        // make_step reads is_bit of earlier variables of the same block, all in this window.
        Step s = make_step(seed, first, i, profile, is_bit);
        const size_t j = i - first;
        switch (s.kind) {
          case Kind::kBit:
            is_bit[j] = 1;
            value[j] = Fr::from_u64(mix64(witness_seed + 0x5bd1e995 * (i + 1)) & 1);
            break;
          case Kind::kCopy:
            value[j] = value[s.src[0] - first];
            break;
          case Kind::kSink:
            value[j] = value[s.src[0] - first] + value[s.src[1] - first];
            break;
          case Kind::kMix:
            value[j] = s.constant;
            for (int k = 0; k < 3; k++) value[j] += s.coeff[k] * value[s.src[k] - first];
            break;
        }
        steps[j] = s;
      }
    };
    const size_t blocks = (count + kBlock - 1) / kBlock;
    if (parallel) {
      tbb::parallel_for(size_t(0), blocks, block);
    } else {
      for (size_t b = 0; b < blocks; b++) block(b);
    }
  }
};

}  // namespace

size_t SyntheticCircuit::synthesis_scratch_bytes(size_t constraints) {
  // One window of steps, values, is_bit and variables (serial), or one section per thread
  // (parallel), whichever is more.
  const size_t threads = size_t(std::max(1, tbb::this_task_arena::max_concurrency()));
  const size_t held = std::max(kBlocksPerWindow, threads * kBlocksPerSection) * kBlock;
  return std::min(constraints, held) * (sizeof(Step) + sizeof(Fr) + sizeof(uint8_t) + sizeof(Variable));
}

void SyntheticCircuit::synthesize(r1cs::ConstraintSystem& cs) const {
  const size_t n = body_;
  // The public inputs come first, as copies of the last body values (index n - 1 - k mod n),
  // so the blocks holding those are computed ahead (blocks are independent).
  const size_t tail = n - std::min(inputs_, n);
  std::vector<Variable> inputs;
  {
    Window window;
    window.compute(tail - tail % kBlock, n, seed_, witness_seed_, profile_, /*parallel=*/true);
    for (size_t k = 0; k < inputs_; k++) {
      inputs.push_back(cs.alloc_input("input", window.value[n - 1 - k % n - window.begin]));
    }
  }
  std::vector<Variable> tail_vars(n - tail);
  // The constraints of body variables [first, last) (whole blocks) into `out`, in order.
  auto enforce_range = [&](r1cs::ConstraintSystem& out, const Window& window, size_t first, size_t last,
                           std::vector<Variable>& vars) {
    vars.resize(last - first);
    for (size_t i = first; i < last; i++) {
      const size_t j = i - first;
      const Step& s = window.steps[i - window.begin];
      auto var = [&](uint32_t src) { return vars[src - first]; };
      vars[j] = out.alloc("v", out.has_values() ? window.value[i - window.begin] : Fr::zero());
      if (i >= tail) tail_vars[i - tail] = vars[j];
      switch (s.kind) {
        case Kind::kBit:
          out.enforce("bit", vars[j], LC(Variable::one()).sub(vars[j]), LC::zero());
          break;
        case Kind::kCopy:
          out.enforce("copy", vars[j], Variable::one(), var(s.src[0]));
          break;
        case Kind::kSink:
          out.enforce("sink", LC(var(s.src[0])).add(var(s.src[1])), Variable::one(), vars[j]);
          break;
        case Kind::kMix: {
          LC c = LC::constant(s.constant);
          for (int k = 0; k < 3; k++) c.add(var(s.src[k]), s.coeff[k]);
          out.enforce("mix", vars[j], Variable::one(), c);
          break;
        }
      }
    }
  };
  // Where the system can take them, sections of kBlocksPerSection blocks are synthesized in
  // parallel (each its own shapes, witness and constraints: blocks are independent); otherwise
  // the body goes one window of blocks at a time, shapes and witness in parallel, the
  // constraints in order.
  const size_t section = kBlocksPerSection * kBlock;
  std::vector<r1cs::SectionShape> shapes;
  for (size_t first = 0; first < n; first += section) {
    const size_t count = std::min(n, first + section) - first;
    shapes.push_back({count, count});
  }
  auto sections = cs.open_sections(shapes);
  if (!sections.empty() && sections.size() != shapes.size()) {
    throw std::logic_error("synthetic circuit: the constraint system opened " + std::to_string(sections.size()) +
                           " sections for " + std::to_string(shapes.size()));
  }
  if (!sections.empty()) {
    tbb::parallel_for(size_t(0), sections.size(), [&](size_t k) {
      const size_t first = k * section, last = std::min(n, first + section);
      Window window;  // one section per thread at a time: its blocks on this thread
      window.compute(first, last, seed_, witness_seed_, profile_, /*parallel=*/false);
      std::vector<Variable> vars;
      enforce_range(*sections[k], window, first, last, vars);
      sections[k]->close();
    });
    sections.clear();
  } else {
    Window window;
    std::vector<Variable> vars;
    for (size_t first = 0; first < n; first += kBlocksPerWindow * kBlock) {
      const size_t last = std::min(n, first + kBlocksPerWindow * kBlock);
      window.compute(first, last, seed_, witness_seed_, profile_, /*parallel=*/true);
      enforce_range(cs, window, first, last, vars);
    }
  }
  for (size_t k = 0; k < inputs_; k++) {
    cs.enforce("input", inputs[k], Variable::one(), tail_vars[n - 1 - k % n - tail]);
  }
}

}  // namespace cuzk::circuits

// cuzk-bench synth: the Filecoin gadgets as small circuits, for inspection (--info: constraints,
// public inputs, aux variables) and for witness-plus-assignment synthesis throughput into a
// ProvingAssignment, on one core and on all cores (independent instances, one per thread).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

#include "bench/commands.hpp"
#include "circuits/synthetic.hpp"
#include "gadgets/hashers.hpp"
#include "gadgets/label.hpp"
#include "gadgets/por.hpp"
#include "gadgets/poseidon.hpp"
#include "gadgets/sha256.hpp"
#include "r1cs/proving_assignment.hpp"
#include "r1cs/shape.hpp"
#include "util/elapsed.hpp"

namespace cuzk::bench {
namespace {

using gadgets::AllocatedBit;
using gadgets::AllocatedNum;
using gadgets::Boolean;
using r1cs::ConstraintSystem;
using Clock = std::chrono::steady_clock;

// A circuit given by a function of the constraint system (inputs drawn at construction).
class FnCircuit final : public r1cs::Circuit {
 public:
  explicit FnCircuit(std::function<void(ConstraintSystem&)> fn) : fn_(std::move(fn)) {}
  void synthesize(ConstraintSystem& cs) const override { fn_(cs); }

 private:
  std::function<void(ConstraintSystem&)> fn_;
};

std::vector<bool> random_bits(std::mt19937_64& rng, size_t n) {
  std::vector<bool> b(n);
  for (size_t i = 0; i < n; i++) b[i] = rng() & 1;
  return b;
}

std::vector<Boolean> alloc_bits(ConstraintSystem& cs, const std::vector<bool>& bits) {
  std::vector<Boolean> out;
  out.reserve(bits.size());
  for (bool b : bits) out.emplace_back(AllocatedBit::alloc(cs, b));
  return out;
}

std::vector<AllocatedNum> alloc_nums(ConstraintSystem& cs, const std::vector<ff::Fr>& v) {
  std::vector<AllocatedNum> out;
  for (const auto& x : v) out.push_back(AllocatedNum::alloc(cs, x));
  return out;
}

// 32 GiB sector trees: 2^30 leaves.
gadgets::PorTreeShape por_shape(const std::string& name) {
  if (name == "por-sha256") return {gadgets::TreeHasher::kSha256, 2, 30, 0, 0};
  return {gadgets::TreeHasher::kPoseidon, 8, 9, 8, 0};
}

}  // namespace

const std::vector<std::string>& synth_circuit_names() {
  static const std::vector<std::string> names = {"sha256-block", "sha256-512",         "sha256-node",
                                                 "poseidon2",    "column11",           "label",
                                                 "por-sha256",   "por-poseidon-8-8-0", "synthetic-22"};
  return names;
}

namespace {

std::unique_ptr<r1cs::Circuit> make_circuit(const std::string& name, uint64_t seed) {
  std::mt19937_64 rng(seed);
  if (name == "sha256-block" || name == "sha256-512") {
    auto bits = random_bits(rng, 512);
    const bool block = name == "sha256-block";
    return std::make_unique<FnCircuit>([bits, block](ConstraintSystem& cs) {
      auto in = alloc_bits(cs, bits);
      if (block) {
        gadgets::sha256_block_no_padding(cs, in);
      } else {
        gadgets::sha256(cs, in);
      }
    });
  }
  if (name == "sha256-node") {
    auto l = random_bits(rng, 256), r = random_bits(rng, 256);
    return std::make_unique<FnCircuit>([l, r](ConstraintSystem& cs) {
      auto lb = alloc_bits(cs, l);
      auto rb = alloc_bits(cs, r);
      gadgets::sha256_hash_leaf_bits_circuit(cs, lb, rb);
    });
  }
  if (name == "poseidon2" || name == "column11") {
    const size_t arity = name == "poseidon2" ? 2 : 11;
    std::vector<ff::Fr> v;
    for (size_t i = 0; i < arity; i++) v.push_back(ff::Fr::random(rng));
    const auto& constants = gadgets::poseidon_constants(arity);
    return std::make_unique<FnCircuit>([v, &constants](ConstraintSystem& cs) {
      auto nums = alloc_nums(cs, v);
      gadgets::poseidon_hash_circuit(cs, nums, constants);
    });
  }
  if (name == "label") {
    std::vector<bool> id = random_bits(rng, 256);
    std::vector<std::vector<bool>> parents;
    for (size_t i = 0; i < gadgets::kLabelParents; i++) parents.push_back(random_bits(rng, 256));
    return std::make_unique<FnCircuit>([id, parents](ConstraintSystem& cs) {
      std::vector<std::vector<Boolean>> pb;
      for (const auto& p : parents) pb.push_back(alloc_bits(cs, p));
      auto ib = alloc_bits(cs, id);
      gadgets::create_label_circuit(cs, ib, pb, gadgets::UInt32::constant(3), gadgets::UInt64::constant(22));
    });
  }
  if (name == "por-sha256" || name == "por-poseidon-8-8-0") {
    auto shape = por_shape(name);
    return std::make_unique<gadgets::PorCircuit>(shape, gadgets::por_random_witness(shape, rng));
  }
  if (name == "synthetic-22") {  // the engine's PoRep-profile circuit (its witness runs on all cores)
    return std::make_unique<circuits::SyntheticCircuit>(size_t(1) << 22, 8, circuits::SyntheticProfile{}, seed);
  }
  throw std::invalid_argument("cuzk-bench synth: unknown circuit '" + name + "'");
}

// Synthesizes `reps` proving assignments of the circuit, with capacity reserved from the known
// shape (as a prover does); returns constraints per synthesis.
size_t synthesize_reps(const r1cs::Circuit& c, const r1cs::ShapeRecorder& shape, unsigned reps) {
  size_t n = 0;
  for (unsigned i = 0; i < reps; i++) {
    r1cs::ProvingAssignment pa;
    pa.reserve(shape.num_constraints(), shape.num_aux());
    c.synthesize(pa);
    n = pa.num_constraints();
  }
  return n;
}

}  // namespace

int run_synth_bench(const SynthBenchArgs& args) {
  std::unique_ptr<r1cs::Circuit> circuit;
  try {
    circuit = make_circuit(args.circuit, args.seed);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  r1cs::ShapeRecorder shape;
  circuit->synthesize(shape);
  if (args.info) {
    std::printf("circuit        %s\n", args.circuit.c_str());
    if (args.circuit.rfind("por-", 0) == 0) std::printf("tree           %s\n", por_shape(args.circuit).name().c_str());
    std::printf("constraints    %zu (synthesized; the prover adds one per public input)\n", shape.num_constraints());
    std::printf("public inputs  %zu (ONE included)\n", shape.num_inputs());
    std::printf("aux variables  %zu\n", shape.num_aux());
    return 0;
  }
  const size_t constraints = shape.num_constraints();
  // Repetitions: enough for about half a second on one core.
  unsigned reps = args.reps;
  if (reps == 0) {
    auto t = Clock::now();
    synthesize_reps(*circuit, shape, 1);
    const double one = seconds_since(t);
    reps = unsigned(std::max(1.0, std::min(10000.0, 0.5 / std::max(one, 1e-6))));
  }
  // Both figures run on worker threads (the same allocator path), medians of three
  // measurements each (the development VM is shared).
  const unsigned threads = std::max(1u, args.threads);
  std::vector<std::unique_ptr<r1cs::Circuit>> circuits;
  for (unsigned i = 0; i < threads; i++) circuits.push_back(make_circuit(args.circuit, args.seed + 1 + i));
  auto measure = [&](unsigned n) {
    std::vector<double> times;
    for (int m = 0; m < 3; m++) {
      auto t = Clock::now();
      std::vector<std::thread> pool;
      for (unsigned i = 0; i < n; i++) pool.emplace_back([&, i] { synthesize_reps(*circuits[i], shape, reps); });
      for (auto& th : pool) th.join();
      times.push_back(seconds_since(t));
    }
    std::sort(times.begin(), times.end());
    return times[1];
  };
  const double single = measure(1);
  const double per_core = double(constraints) * reps / single;
  const double all_cores = double(constraints) * reps * threads / measure(threads);

  std::printf("%-20s %12s %6s %14s %16s %8s %16s\n", "circuit", "constraints", "reps", "ms/synthesis",
              "constraints/s/core", "threads", "constraints/s all");
  std::printf("%-20s %12zu %6u %14.3f %16.0f %8u %16.0f\n", args.circuit.c_str(), constraints, reps,
              1e3 * single / reps, per_core, threads, all_cores);
  return 0;
}

}  // namespace cuzk::bench

// Arithmetic micro-benchmarks (Google Benchmark): field multiplication as a dependent
// chain, inversion, point addition and doubling, scalar multiplication, pairings.
#include <random>

#include <benchmark/benchmark.h>

#include "ec/curves.hpp"
#include "ec/encoding.hpp"
#include "pairing/pairing.hpp"

namespace cuzk::bench {
namespace {

using namespace cuzk::ec;
using cuzk::pairing::G2Prepared;
using cuzk::pairing::PairingTerm;

std::mt19937_64& rng() {
  static std::mt19937_64 r(20261202);
  return r;
}

// Each multiplication depends on the previous result: latency, as blst's figure is quoted.
template <class F>
void BM_FieldMulChain(benchmark::State& state) {
  F x = F::random(rng()), y = F::random(rng());
  for (auto _ : state) {
    for (int i = 0; i < 100; i++) x = x * y;
    benchmark::DoNotOptimize(x);
  }
  state.SetItemsProcessed(state.iterations() * 100);
  state.counters["ns_per_op"] =
      benchmark::Counter(double(state.iterations()) * 100, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
template <class F>
void BM_FieldSqrChain(benchmark::State& state) {
  F x = F::random(rng());
  for (auto _ : state) {
    for (int i = 0; i < 100; i++) x = x.sqr();
    benchmark::DoNotOptimize(x);
  }
  state.counters["ns_per_op"] =
      benchmark::Counter(double(state.iterations()) * 100, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
template <class F>
void BM_FieldAddChain(benchmark::State& state) {
  F x = F::random(rng()), y = F::random(rng());
  for (auto _ : state) {
    for (int i = 0; i < 100; i++) x = x + y;
    benchmark::DoNotOptimize(x);
  }
  state.counters["ns_per_op"] =
      benchmark::Counter(double(state.iterations()) * 100, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
template <class F>
void BM_FieldInverse(benchmark::State& state) {
  F x = F::random(rng());
  for (auto _ : state) {
    x = x.inverse() + F::one();
    benchmark::DoNotOptimize(x);
  }
}

template <class J>
J random_point(const J& g) {
  if constexpr (std::is_same_v<J, G1Jacobian>) {
    return g1_mul(g, Fr::random(rng()));
  } else {
    return g2_mul(g, Fr::random(rng()));
  }
}
G1Jacobian g1() { return G1Jacobian::from_affine(kG1Generator); }
G2Jacobian g2() { return G2Jacobian::from_affine(kG2Generator); }

template <class J>
void BM_PointAdd(benchmark::State& state, J g) {
  J a = random_point(g), b = random_point(g);
  for (auto _ : state) {
    a = a + b;
    benchmark::DoNotOptimize(a);
  }
}
template <class J>
void BM_PointAddMixed(benchmark::State& state, J g) {
  J a = random_point(g);
  auto b = random_point(g).to_affine();
  for (auto _ : state) {
    a = a.add_mixed(b);
    benchmark::DoNotOptimize(a);
  }
}
template <class J>
void BM_PointDouble(benchmark::State& state, J g) {
  J a = random_point(g);
  for (auto _ : state) {
    a = a.dbl();
    benchmark::DoNotOptimize(a);
  }
}

void BM_G1ScalarMul(benchmark::State& state) {
  G1Jacobian p = random_point(g1());
  for (auto _ : state) {
    Fr k = Fr::random(rng());
    benchmark::DoNotOptimize(g1_mul(p, k));
  }
}
void BM_G2ScalarMul(benchmark::State& state) {
  G2Jacobian p = random_point(g2());
  for (auto _ : state) {
    Fr k = Fr::random(rng());
    benchmark::DoNotOptimize(g2_mul(p, k));
  }
}
void BM_G1SubgroupCheck(benchmark::State& state) {
  G1Affine p = random_point(g1()).to_affine();
  for (auto _ : state) benchmark::DoNotOptimize(g1_is_in_subgroup(p));
}
void BM_G2SubgroupCheck(benchmark::State& state) {
  G2Affine p = random_point(g2()).to_affine();
  for (auto _ : state) benchmark::DoNotOptimize(g2_is_in_subgroup(p));
}
void BM_G1DecompressChecked(benchmark::State& state) {
  uint8_t buf[kG1CompressedBytes];
  g1_encode_compressed(random_point(g1()).to_affine(), buf);
  G1Affine out;
  for (auto _ : state) benchmark::DoNotOptimize(g1_decode_compressed(buf, out));
}

void BM_Pairing(benchmark::State& state) {
  G1Affine p = random_point(g1()).to_affine();
  G2Affine q = random_point(g2()).to_affine();
  for (auto _ : state) benchmark::DoNotOptimize(pairing::ate_pairing(p, q));
}
void BM_MillerLoop(benchmark::State& state) {
  G1Affine p = random_point(g1()).to_affine();
  G2Affine q = random_point(g2()).to_affine();
  for (auto _ : state) benchmark::DoNotOptimize(pairing::miller_loop(p, q));
}
void BM_FinalExponentiation(benchmark::State& state) {
  ff::Fp12 f = ff::Fp12::random(rng());
  for (auto _ : state) benchmark::DoNotOptimize(pairing::final_exponentiation(f));
}
// Three pairs with prepared G2 points, one final exponentiation: a Groth16 verification.
void BM_MultiPairing3(benchmark::State& state) {
  G1Affine ps[3];
  G2Prepared qs[3];
  PairingTerm terms[3];
  for (int i = 0; i < 3; i++) {
    ps[i] = random_point(g1()).to_affine();
    qs[i] = G2Prepared(random_point(g2()).to_affine());
    terms[i] = {&ps[i], &qs[i]};
  }
  for (auto _ : state) benchmark::DoNotOptimize(pairing::multi_pairing(terms));
}

BENCHMARK(BM_FieldMulChain<Fp>)->Name("fp_mul");
BENCHMARK(BM_FieldSqrChain<Fp>)->Name("fp_sqr");
BENCHMARK(BM_FieldAddChain<Fp>)->Name("fp_add");
BENCHMARK(BM_FieldMulChain<Fr>)->Name("fr_mul");
BENCHMARK(BM_FieldMulChain<ff::Fp2>)->Name("fp2_mul");
BENCHMARK(BM_FieldInverse<Fp>)->Name("fp_inverse");
BENCHMARK(BM_FieldInverse<Fr>)->Name("fr_inverse");
BENCHMARK_CAPTURE(BM_PointAdd, g1_add, g1());
BENCHMARK_CAPTURE(BM_PointAddMixed, g1_add_mixed, g1());
BENCHMARK_CAPTURE(BM_PointDouble, g1_double, g1());
BENCHMARK_CAPTURE(BM_PointAdd, g2_add, g2());
BENCHMARK_CAPTURE(BM_PointAddMixed, g2_add_mixed, g2());
BENCHMARK_CAPTURE(BM_PointDouble, g2_double, g2());
BENCHMARK(BM_G1ScalarMul)->Name("g1_scalar_mul")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_G2ScalarMul)->Name("g2_scalar_mul")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_G1SubgroupCheck)->Name("g1_subgroup_check")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_G2SubgroupCheck)->Name("g2_subgroup_check")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_G1DecompressChecked)->Name("g1_decompress_checked")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_MillerLoop)->Name("miller_loop")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_FinalExponentiation)->Name("final_exponentiation")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Pairing)->Name("pairing")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_MultiPairing3)->Name("multi_pairing_3")->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace cuzk::bench

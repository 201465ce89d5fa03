// cuzk-bench porep --witness: one PoRep partition by the witness-only path (r1cs/
// compiled_circuit.hpp) beside full synthesis, checked and timed:
//   the compiled circuit: recorded once into --param-cache-dir/compiled, where the engine looks
//          (time, size), then read (time);
//   synthesis: full and witness-only on all cores, witness-only on one (unless --skip-single);
//   a/b/c: the compiled matrices times the witness on the CPU, and on the device (CUDA builds),
//          each vector compared with the full synthesis' (equal, and a digest printed);
//   proofs: prove_start on --backend for both paths with the same r, s (pseudo-random parameters
//          of the circuit's shape): byte-identical; --cpu-check also the CPU backend's.
// With --synth-only: the compiled circuit, then witness-only synthesis alone (--reps each, all
// threads and one); with --check also its aux and inputs against full synthesis' (digests).
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <openssl/evp.h>
#include <stdexcept>
#include <string>
#include <tbb/global_control.h>
#include <thread>

#include "bench/commands.hpp"
#include "bench/timing.hpp"
#include "engine/compiled_circuits.hpp"
#include "ff/os_rng.hpp"
#include "filecoin/parameter_files.hpp"
#include "filecoin/porep/circuit.hpp"
#include "filecoin/porep/commit1.hpp"
#include "filecoin/porep/registered_proofs.hpp"
#include "groth16/backend.hpp"
#include "groth16/prover.hpp"
#include "groth16/setup.hpp"
#include "r1cs/compiled_circuit_file.hpp"
#include "util/elapsed.hpp"
#ifdef CUZK_HAVE_CUDA
#include <cuda_runtime.h>

#include "cuda/check.hpp"
#include "r1cs/cuda/compiled_circuit_device.hpp"
#endif

namespace cuzk::bench {
namespace {

using Clock = std::chrono::steady_clock;
using ff::Fr;
using r1cs::FrVector;

std::string digest(const Fr* data, size_t count) {
  unsigned char md[32];
  unsigned n = 0;
  if (EVP_Digest(data, count * sizeof(Fr), md, &n, EVP_sha256(), nullptr) != 1) throw std::runtime_error("SHA-256");
  char hex[17];
  for (int i = 0; i < 8; i++) std::snprintf(hex + 2 * i, 3, "%02x", md[i]);
  return hex;
}

void expect_equal(const FrVector& got, const FrVector& want, size_t m, const char* what) {
  if (got.size() < m || want.size() < m || std::memcmp(got.data(), want.data(), m * sizeof(Fr)) != 0) {
    throw std::runtime_error(std::string(what) + " differs from the full synthesis'");
  }
}

void row(const char* what, double s, const std::string& note = {}) {
  std::printf("| %s | %.3f | %s |\n", what, s, note.c_str());
  std::fflush(stdout);
}

std::string timings(const groth16::ProveTimings& t) {
  char b[256];
  std::snprintf(b, sizeof b, "abc %.3f, h_ntt %.3f, msm h %.3f l %.3f a %.3f b_g1 %.3f b_g2 %.3f", t.abc, t.h_ntt,
                t.msm_h, t.msm_l, t.msm_a, t.msm_b_g1, t.msm_b_g2);
  return b;
}

#ifdef CUZK_HAVE_CUDA
// a, b, c from the device's products, brought back and compared with the full synthesis'.
void device_products(const r1cs::CompiledCircuit& cc, const r1cs::ProvingAssignment& witness,
                     const r1cs::ProvingAssignment& full, FrVector& scratch) {
  using cuzk::cuda::check;
  using M = r1cs::cuda::DeviceCompiledCircuit::Matrix;
  cudaStream_t stream;
  check(cudaStreamCreate(&stream), "cudaStreamCreate");
  auto t = Clock::now();
  r1cs::cuda::DeviceCompiledCircuit device(cc, stream);
  row("matrices uploaded to the device", seconds_since(t), std::to_string(device.bytes() >> 20) + " MiB");
  if (device.bytes() != r1cs::cuda::DeviceCompiledCircuit::bytes_for(cc)) {  // place_matrices predicts with it
    throw std::runtime_error("DeviceCompiledCircuit::bytes_for differs from the bytes uploaded");
  }
  const size_t m = cc.constraints, w = cc.aux + cc.inputs;
  cuzk::cuda::DeviceBuffer<Fr> z(w), out(m);
  check(cudaMemcpy(z.get(), witness.aux().data(), cc.aux * sizeof(Fr), cudaMemcpyHostToDevice), "witness upload");
  check(cudaMemcpy(z.get() + cc.aux, witness.inputs().data(), cc.inputs * sizeof(Fr), cudaMemcpyHostToDevice),
        "input upload");
  const char* names[3] = {"A z on the device", "B z on the device", "C z on the device"};
  const FrVector* want[3] = {&full.a(), &full.b(), &full.c()};
  for (int i = 0; i < 3; i++) {
    device.product(M(i), z.get(), out.get(), m, stream);  // warm
    check(cudaStreamSynchronize(stream), "product");
    t = Clock::now();
    device.product(M(i), z.get(), out.get(), m, stream);
    check(cudaStreamSynchronize(stream), "product");
    const double s = seconds_since(t);
    scratch.resize(m);
    check(cudaMemcpy(scratch.data(), out.get(), m * sizeof(Fr), cudaMemcpyDeviceToHost), "download");
    expect_equal(scratch, *want[i], m, names[i]);
    row(names[i], s, "equal to the full synthesis' (sha256 " + digest(scratch.data(), m) + ")");
  }
  cudaStreamDestroy(stream);
}
#endif

}  // namespace

int porep_witness(const filecoin::SealCommitPhase1Output& c1, const PorepBenchArgs& a) {
  const filecoin::SealProofInfo& info = filecoin::seal_proof_info(c1.registered_proof);
  const size_t k = a.partitions.empty() ? 0 : a.partitions.front();
  const filecoin::StackedCircuit circuit = filecoin::StackedCircuit::from_commit_phase1(c1, k);
  filecoin::StackedCircuit::part_shapes(info);  // counted once per process, outside the timing
  const unsigned all = std::max(1u, std::thread::hardware_concurrency());
  std::printf("%s partition %zu, witness-only path beside full synthesis; %u threads\n\n",
              std::string(info.name).c_str(), k, all);
  std::printf("| step | s | note |\n|---|---|---|\n");

  // The engine's file (engine/compiled_circuits.hpp), so that a pipeline run after this reads it.
  const std::string param_id = filecoin::porep_parameter_id(info).stem;
  const std::string id = engine::CompiledCircuits::circuit_id(param_id);
  const auto path = engine::CompiledCircuits::file_in(std::filesystem::path(a.params_dir) / "compiled", param_id);
  auto t = Clock::now();
  bool recorded = false;
  auto compiled = r1cs::load_or_compile(
      path, id,
      [&] {
        recorded = true;
        return r1cs::compile_circuit(circuit);
      },
      [](const std::string& line) { std::fprintf(stderr, "porep: %s\n", line.c_str()); });
  const r1cs::CompiledCircuit& cc = *compiled;
  char shape[200];
  std::snprintf(shape, sizeof shape, "%zu constraints, nonzeros A %zu B %zu C %zu, %zu coefficients, %.2f GiB",
                cc.constraints, cc.a.nonzeros(), cc.b.nonzeros(), cc.c.nonzeros(), cc.coefficients.size(),
                double(cc.bytes()) / double(1 << 30));
  row(recorded ? "compiled circuit recorded (all threads) and written" : "compiled circuit read", seconds_since(t),
      shape);
  if (recorded && std::filesystem::exists(path)) {
    t = Clock::now();
    r1cs::read_compiled_circuit(path, id);
    row("compiled circuit read again", seconds_since(t), path.string());
  }

  if (a.synth_only) {  // witness-only synthesis timed alone, on all threads and on one
    for (unsigned threads : {all, 1u}) {
      if (threads == 1 && (all == 1 || a.skip_single)) continue;
      tbb::global_control limit(tbb::global_control::max_allowed_parallelism, threads);
      for (unsigned rep = 0; rep < std::max(1u, a.reps); rep++) {
        t = Clock::now();
        groth16::synthesize_witness(circuit, compiled);
        row(("witness-only synthesis, " + std::to_string(threads) + " threads").c_str(), seconds_since(t));
      }
    }
    if (a.check) {  // its witness against full synthesis', one after the other (a small host's memory)
      std::string want;
      {
        const auto w = groth16::synthesize_witness(circuit, compiled);
        want = digest(w.aux().data(), w.num_aux()) + " " + digest(w.inputs().data(), w.num_inputs());
      }
      compiled.reset();
      const auto f = groth16::synthesize(circuit);
      const std::string got = digest(f.aux().data(), f.num_aux()) + " " + digest(f.inputs().data(), f.num_inputs());
      if (got != want) throw std::runtime_error("witness-only aux or inputs differ from full synthesis'");
      row("witness-only aux and inputs equal full synthesis'", 0, "sha256 " + want);
    }
    return 0;
  }
  t = Clock::now();
  r1cs::ProvingAssignment full = groth16::synthesize(circuit);
  row("full synthesis, all threads", seconds_since(t),
      std::to_string(double(full.bytes().total()) / double(1 << 30)) + " GiB held");
  t = Clock::now();
  r1cs::ProvingAssignment witness = groth16::synthesize_witness(circuit, compiled);
  row("witness-only synthesis, all threads", seconds_since(t),
      std::to_string(double(witness.bytes().total()) / double(1 << 30)) + " GiB held");
  if (!a.skip_single) {
    tbb::global_control one(tbb::global_control::max_allowed_parallelism, 1);
    t = Clock::now();
    groth16::synthesize_witness(circuit, compiled);
    row("witness-only synthesis, one thread", seconds_since(t));
  }
  if (full.aux() != witness.aux() || full.inputs() != witness.inputs()) {
    throw std::runtime_error("the witness-only synthesis' aux or inputs differ from the full synthesis'");
  }

  {
    FrVector ca, cb, cc_out;
    t = Clock::now();
    cc.evaluate(witness.inputs(), std::span<const Fr>(witness.aux().data(), cc.aux), ca, cb, cc_out);
    const double s = seconds_since(t);
    expect_equal(ca, full.a(), cc.constraints, "A z on the CPU");
    expect_equal(cb, full.b(), cc.constraints, "B z on the CPU");
    expect_equal(cc_out, full.c(), cc.constraints, "C z on the CPU");
    row("A z, B z, C z on the CPU", s,
        "equal to the full synthesis' (sha256 " + digest(ca.data(), cc.constraints) + ", " +
            digest(cb.data(), cc.constraints) + ", " + digest(cc_out.data(), cc.constraints) + ")");
#ifdef CUZK_HAVE_CUDA
    if (a.backend == "cuda") device_products(cc, witness, full, ca);
#endif
  }

  size_t n = 1;
  while (n < full.num_constraints()) n <<= 1;
  t = Clock::now();
  const groth16::Parameters params = groth16::pseudo_random_parameters(full, n, 1);
  row("pseudo-random parameters", seconds_since(t));
  auto backend = a.backend == "cuda" ? groth16::make_cuda_backend(0) : groth16::make_cpu_backend();
  ff::OsRng rng;
  const Fr r = Fr::random(rng), s = Fr::random(rng);
  groth16::ProveTimings tf, tw, tw2;
  t = Clock::now();
  backend->prepare_assignment(full);
  const auto pending_full = backend->prove_start(params, full, r, s, &tf);
  row(("prove_start, full synthesis, " + backend->name()).c_str(), seconds_since(t), timings(tf));
  t = Clock::now();
  backend->prepare_assignment(witness);
  const auto pending_witness = backend->prove_start(params, witness, r, s, &tw);
  row(("prove_start, witness-only (first), " + backend->name()).c_str(), seconds_since(t), timings(tw));
  auto again = groth16::synthesize_witness(circuit, compiled);
  t = Clock::now();
  backend->prepare_assignment(again);
  const auto pending_again = backend->prove_start(params, again, r, s, &tw2);
  row(("prove_start, witness-only (again), " + backend->name()).c_str(), seconds_since(t), timings(tw2));
  const auto proof_full = groth16::encode_proof(groth16::prove_finish(params, full, pending_full));
  const auto proof_witness = groth16::encode_proof(groth16::prove_finish(params, witness, pending_witness));
  const auto proof_again = groth16::encode_proof(groth16::prove_finish(params, again, pending_again));
  if (proof_full != proof_witness || proof_again != proof_witness) {
    throw std::runtime_error("the witness-only proof differs from the full synthesis' proof");
  }
  std::printf("\nproofs with the same r, s: full synthesis and witness-only on %s are byte-identical\n",
              backend->name().c_str());
  if (a.cpu_check && a.backend != "cpu") {
    auto cpu = groth16::make_cpu_backend();
    auto on_cpu = groth16::synthesize(circuit);
    groth16::ProveTimings tc;
    t = Clock::now();
    const auto pending_cpu = cpu->prove_start(params, on_cpu, r, s, &tc);
    row("prove_start, full synthesis, cpu", seconds_since(t), timings(tc));
    if (groth16::encode_proof(groth16::prove_finish(params, on_cpu, pending_cpu)) != proof_witness) {
      throw std::runtime_error("the CPU backend's proof differs from " + backend->name() + "'s");
    }
    std::printf("the CPU backend's proof (full synthesis) is byte-identical too\n");
  }
  std::printf("peak RSS %.2f GiB\n", peak_rss_gib());
  return 0;
}

}  // namespace cuzk::bench

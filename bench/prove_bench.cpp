// cuzk-bench setup / prove / verify on the synthetic PoRep-profile circuit; prove runs
// prove_start on the chosen backend (cpu, or cuda on device 0).
// Parameters come from a real setup with random toxic waste, cached on disk by size; with
// --pseudo-params from pseudo-random points of the circuit's shape instead (speed only).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <future>
#include <memory>
#include <optional>
#include <sys/resource.h>
#include <system_error>

#include "bench/commands.hpp"
#include "bench/timing.hpp"
#include "circuits/synthetic.hpp"
#include "ff/os_rng.hpp"
#include "groth16/backend.hpp"
#include "groth16/param_file.hpp"
#include "groth16/prover.hpp"
#include "groth16/setup.hpp"
#include "groth16/verifier.hpp"
#include "r1cs/shape.hpp"
#include "util/elapsed.hpp"

namespace cuzk::bench {
namespace {

using Clock = std::chrono::steady_clock;
std::string params_path(const ProveBenchArgs& a) {
  return (std::filesystem::path(a.params_dir) /
          ("synthetic-" + std::to_string(a.constraints) + "-" + std::to_string(a.public_inputs) + "-seed" +
           std::to_string(a.seed) + ".params"))
      .string();
}

circuits::SyntheticCircuit make_circuit(const ProveBenchArgs& a) {
  return circuits::SyntheticCircuit(a.constraints, a.public_inputs, {}, a.seed);
}

// Loads the cached parameters or runs the setup and caches them.
groth16::Parameters load_or_setup(const ProveBenchArgs& a, double* setup_s, double* load_s) {
  const std::string path = params_path(a);
  if (std::filesystem::exists(path)) {
    auto t = Clock::now();
    auto p = groth16::ParameterFile::open(path).decode(groth16::ReadMode::kUnchecked);
    *load_s = seconds_since(t);
    return p;
  }
  std::fprintf(stderr, "setup: no cached parameters at %s, running the setup (random toxic waste)...\n", path.c_str());
  auto t = Clock::now();
  auto p = groth16::generate_parameters(make_circuit(a), groth16::ToxicWaste::random());
  *setup_s = seconds_since(t);
  std::filesystem::create_directories(a.params_dir);
  groth16::write_parameters(p, path);
  return p;
}

size_t domain_size(size_t constraints) {
  size_t n = 1;
  while (n < constraints) n <<= 1;
  return n;
}

std::vector<ff::Fr> public_inputs(const circuits::SyntheticCircuit& c) {
  r1cs::TestChecker checker;
  c.synthesize(checker);
  return std::vector<ff::Fr>(checker.inputs().begin() + 1, checker.inputs().end());
}

}  // namespace

int run_setup_bench(const ProveBenchArgs& a) {
  double setup_s = 0, load_s = 0;
  const std::string path = params_path(a);
  std::filesystem::remove(path);
  auto p = load_or_setup(a, &setup_s, &load_s);
  std::printf("| constraints | setup s | parameters file | size MiB | peak RSS GiB |\n|---|---|---|---|---|\n");
  std::printf("| %zu | %.2f | %s | %.1f | %.2f |\n", a.constraints, setup_s, path.c_str(),
              double(groth16::parameters_file_size(p)) / (1 << 20), peak_rss_gib());
  return 0;
}

int run_prove_bench(const ProveBenchArgs& a) {
  std::unique_ptr<groth16::ProverBackend> backend;
  try {
    backend = a.backend == "cuda" ? groth16::make_cuda_backend(
                                        0, {.h_copies = a.h_copies, .device_memory_bytes = a.device_memory_mib << 20})
                                  : groth16::make_cpu_backend();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cuzk-bench prove: %s\n", e.what());
    return 2;
  }
  auto circuit = make_circuit(a);
  const auto inputs = public_inputs(circuit);
  double setup_s = 0, load_s = 0, first_synth = 0;
  std::optional<r1cs::ProvingAssignment> witness;  // --pseudo-params: synthesized once, copied per rep
  groth16::Parameters params;
  if (a.pseudo_params) {
    auto t = Clock::now();
    witness.emplace(groth16::synthesize(circuit));
    first_synth = seconds_since(t);
    t = Clock::now();
    params = groth16::pseudo_random_parameters(*witness, domain_size(witness->num_constraints()), a.seed);
    setup_s = seconds_since(t);
  } else {
    params = load_or_setup(a, &setup_s, &load_s);
  }
  const double rss_params = peak_rss_gib();
  // The backend gets the parameters ready (pinned, bases on the device) before the timed proofs.
  auto t_ready = Clock::now();
  backend->load_parameters(params);
  const double ready_s = seconds_since(t_ready);
  groth16::PreparedVerifyingKey pvk(params.vk);

  std::printf(
      "backend %s, synthetic PoRep-profile circuit (A 99.7%%, B 25.4%%, 75%% 0/1 values), %u CPU thread(s)%s\n\n",
      backend->name().c_str(), a.threads,
      a.pseudo_params ? "; PSEUDO-RANDOM parameters: speed only, proofs are not checked" : "");
  std::printf(
      "| constraints | synth s | a/b/c prepare s (GB kept) | H/NTT s | MSM H s | MSM L s | MSM A s | MSM B_G1 s | B_G2 "
      "s | "
      "prove_start s | assemble s | total s | a/b/c free (mode) s | verified | peak RSS GiB |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (unsigned rep = 0; rep < a.reps; rep++) {
    ff::OsRng rng;
    auto t0 = Clock::now();
    double synth = first_synth;
    // Declared before the assignment, so that they outlive it and its sink, which refers to them.
    std::future<double> freed;
    std::shared_ptr<r1cs::ReleasedAbc> parked;
    std::optional<r1cs::ProvingAssignment> fresh;
    if (witness) {
      fresh.emplace(*witness);  // prove_start consumes a/b/c
    } else {
      fresh.emplace(groth16::synthesize(circuit));
      synth = seconds_since(t0);
    }
    r1cs::ProvingAssignment& pa = *fresh;
    // As in the engine (its deallocation thread), a/b/c are freed off prove_start's path, the
    // moment they are released, by a thread of their own, beside the rest of the proof (their
    // page-lock's release and the unmapping take a while, and they share the driver and the
    // memory system with the prover); the free is timed. For comparison: "whole" frees each
    // vector in one call (one unmap, which holds the address-space lock throughout); "unpin"
    // drops only the preparation beside the proof (a/b/c's own page-locks; the CUDA backend
    // keeps the compact copies locked for the next rep) and frees the vectors after it; "after"
    // waits until prove_finish has returned (the prover's time alone).
    const std::string& free_mode = a.free_modes[rep % a.free_modes.size()];
    pa.set_abc_sink([&](r1cs::ReleasedAbc&& abc) {
      parked = std::make_shared<r1cs::ReleasedAbc>(std::move(abc));
      if (free_mode == "after") return;
      const bool whole = free_mode == "whole", unpin = free_mode == "unpin";
      try {
        if (unpin) {
          freed = std::async(std::launch::async, [abc = parked] {
            auto t = Clock::now();
            abc->preparation.reset();
            return seconds_since(t);
          });
          return;
        }
        freed = std::async(std::launch::async, [abc = std::move(parked), whole]() mutable {
          auto t = Clock::now();
          if (!whole) r1cs::free_gradually(std::move(*abc));
          abc.reset();
          return seconds_since(t);
        });
      } catch (const std::system_error&) {
        // No thread to be had: they were freed here, with the lambda that held them.
      }
    });
    // As the engine's synthesis workers do: the backend may compact and page-lock a/b/c for
    // its upload (the CUDA backend's first rep makes and locks the compact copies, later reps
    // refill them).
    auto t_prepare = Clock::now();
    backend->prepare_assignment(pa);
    const double prepare = seconds_since(t_prepare);
    char prepared[48] = " (not prepared)";
    if (pa.abc_prepared()) std::snprintf(prepared, sizeof prepared, " (%.2f)", double(pa.bytes().abc_prepared) / 1e9);
    groth16::ProveTimings t;
    auto t1 = Clock::now();
    auto pending = backend->prove_start(params, pa, ff::Fr::random(rng), ff::Fr::random(rng), &t);
    const double start = seconds_since(t1);
    auto proof = groth16::prove_finish(params, pa, pending, &t);
    const double total = synth + prepare + seconds_since(t1);
    double free_s = freed.valid() ? freed.get() : 0.0;
    if (parked) {  // "after", "unpin" (the vectors), or no thread was to be had
      auto t_free = Clock::now();
      r1cs::free_gradually(std::move(*parked));
      parked.reset();
      free_s += seconds_since(t_free);
    }
    pa.set_abc_sink(nullptr);
    const char* verified = "n/a";
    if (!a.pseudo_params) {
      if (!groth16::verify_proof(pvk, proof, inputs)) {
        std::printf("| %zu | proof NOT verified |\n", a.constraints);
        return 1;
      }
      verified = "yes";
    }
    std::printf(
        "| %zu | %.2f | %.2f%s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.3f | %.2f | %.2f (%s) | %s | %.2f "
        "|\n",
        a.constraints, synth, prepare, prepared, t.h_ntt, t.msm_h, t.msm_l, t.msm_a, t.msm_b_g1, t.msm_b_g2, start,
        t.finish, total, free_s, free_mode.c_str(), verified, peak_rss_gib());
  }
  if (a.pseudo_params) {
    std::printf("\nparameters: pseudo-random, %.1f GiB made in %.2f s (RSS then %.2f GiB)",
                double(params.base_bytes()) / double(1 << 30), setup_s, rss_params);
  } else {
    std::printf("\nparameters: %s (%s %.2f s; RSS after loading %.2f GiB)", params_path(a).c_str(),
                setup_s > 0 ? "setup" : "load", setup_s > 0 ? setup_s : load_s, rss_params);
  }
  std::printf("; ready on %s in %.2f s (pin + upload, domain tables)\n", backend->name().c_str(), ready_s);
  return 0;
}

int run_verify_bench(const ProveBenchArgs& a) {
  double setup_s = 0, load_s = 0;
  auto params = load_or_setup(a, &setup_s, &load_s);
  groth16::PreparedVerifyingKey pvk(params.vk);
  auto circuit = make_circuit(a);
  const auto inputs = public_inputs(circuit);
  std::vector<groth16::Proof> proofs;
  std::vector<std::vector<ff::Fr>> all_inputs;
  for (unsigned i = 0; i < std::max(1u, a.reps); i++) {
    proofs.push_back(groth16::prove(params, circuit));
    all_inputs.push_back(inputs);
  }
  auto t = Clock::now();
  bool ok = true;
  for (const auto& p : proofs) ok = ok && groth16::verify_proof(pvk, p, inputs);
  const double single = seconds_since(t) / double(proofs.size());
  t = Clock::now();
  const bool batch_ok = groth16::verify_proofs_batch(pvk, proofs, all_inputs);
  const double batch = seconds_since(t);
  std::printf(
      "| proofs | verify one ms | batch verify all ms | per proof ms | all accepted |\n|---|---|---|---|---|\n");
  std::printf("| %zu | %.2f | %.2f | %.2f | %s |\n", proofs.size(), single * 1e3, batch * 1e3,
              batch * 1e3 / double(proofs.size()), ok && batch_ok ? "yes" : "NO");
  return ok && batch_ok ? 0 : 1;
}

}  // namespace cuzk::bench

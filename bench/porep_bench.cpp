// cuzk-bench porep: Filecoin's PoRep Commit2 (StackedDRG) circuit.
//   --proof NAME --info       one partition's constraints, inputs, aux variables and A/B/C nonzeros
//                             (counted, not stored), the domain, and the parameter files;
//   --c1 FILE                 a Commit1 output: checked natively, each partition synthesized,
//                             proved (--backend cpu|cuda) and verified against the public inputs
//                             computed from the C1's comm_r, comm_d, replica_id and seed;
//   --proof NAME              the same with a generated test sector (filecoin/generators/test_sector.hpp);
//   --synth-only              synthesis alone, timed: constraints/s on one core and on all.
// Parameters: Filecoin's published file in $FIL_PROOFS_PARAMETER_CACHE when present, else a TEST
// setup of our own, cached in --param-cache-dir (filecoin/porep/parameters.hpp); --pseudo-params: bases
// of the circuit's shape made of pseudo-random points (speed only, proofs not checked).
#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <sys/resource.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <thread>

#include "bench/commands.hpp"
#include "bench/timing.hpp"
#include "ff/os_rng.hpp"
#include "filecoin/generators/test_sector.hpp"
#include "filecoin/parameter_files.hpp"
#include "filecoin/parameter_search.hpp"
#include "filecoin/porep/challenges.hpp"
#include "filecoin/porep/circuit.hpp"
#include "filecoin/porep/commit1.hpp"
#include "filecoin/porep/commit1_check.hpp"
#include "filecoin/porep/graph.hpp"
#include "filecoin/porep/parameters.hpp"
#include "filecoin/porep/public_inputs.hpp"
#include "groth16/backend.hpp"
#include "groth16/prover.hpp"
#include "groth16/setup.hpp"
#include "groth16/verifier.hpp"
#include "r1cs/proving_assignment.hpp"
#include "r1cs/shape.hpp"
#include "util/elapsed.hpp"

namespace cuzk::bench {
namespace {

using Clock = std::chrono::steady_clock;
using filecoin::SealCommitPhase1Output;
using filecoin::SealProofInfo;
using filecoin::StackedCircuit;

int porep_info(const SealProofInfo& info) {
  std::printf("proof            %s (id %llu, porep_id %02x..., API %s)\n", std::string(info.name).c_str(),
              (unsigned long long)info.id(), info.porep_id()[0],
              std::string(filecoin::api_version_name(info.api_version)).c_str());
  std::printf("sector           %s: %llu nodes, %zu layers, tree R/C %s, tree D binary SHA-256 (%zu levels)\n",
              std::string(info.sector_size_name()).c_str(), (unsigned long long)info.nodes, info.layers,
              filecoin::tree_r_display(info.tree_r).c_str(), info.tree_d.base_levels);
  std::printf("partitions       %zu x %zu challenges\n", info.partitions, info.challenges_per_partition);
  std::fflush(stdout);
  auto t = Clock::now();
  r1cs::ShapeCounter cs;
  StackedCircuit::blank(info).synthesize(cs);
  const auto synthesized = cs.counts();
  cs.enforce_input_constraints();
  const auto proved = cs.counts();
  size_t domain = 1;
  while (domain < proved.constraints) domain <<= 1;
  std::printf("\n| one partition | constraints | inputs (ONE incl.) | aux | nonzeros A | nonzeros B | nonzeros C |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  std::printf("| synthesized | %zu | %zu | %zu | %llu | %llu | %llu |\n", synthesized.constraints, synthesized.inputs,
              synthesized.aux, (unsigned long long)synthesized.a, (unsigned long long)synthesized.b,
              (unsigned long long)synthesized.c);
  std::printf("| as the prover counts it (+ one constraint per input) | %zu | %zu | %zu | %llu | %llu | %llu |\n",
              proved.constraints, proved.inputs, proved.aux, (unsigned long long)proved.a, (unsigned long long)proved.b,
              (unsigned long long)proved.c);
  std::printf("\ndomain 2^%d; counted in %.1f s; terms of one variable cancelling in a combination: %llu\n",
              std::countr_zero(domain), seconds_since(t), (unsigned long long)proved.cancelled);
  const auto id = filecoin::porep_parameter_id(info);
  const filecoin::ParameterSearch search;  // the daemon's search without a configured cache
  const auto published = search.find_published(id.params_name());
  std::printf("parameters       %s (%s)\n", id.params_name().c_str(),
              published ? ("present: " + published->string()).c_str() : ("absent from " + search.describe()).c_str());
  std::printf("verifying key    %s\n", id.vk_name().c_str());
  return 0;
}

// a[i] * b[i] = c[i] for every constraint of a synthesized partition (on all cores): what the
// proof's H polynomial needs, checked without a prover.
void check_abc(const r1cs::ProvingAssignment& pa, size_t k) {
  auto t = Clock::now();
  const auto &a = pa.a(), &b = pa.b(), &c = pa.c();
  const size_t n = pa.num_constraints();
  std::atomic<size_t> first_bad{n};
  tbb::parallel_for(tbb::blocked_range<size_t>(0, n, size_t(1) << 16), [&](const auto& r) {
    for (size_t i = r.begin(); i < r.end(); i++) {
      if (a[i] * b[i] != c[i]) {
        size_t cur = first_bad.load();
        while (i < cur && !first_bad.compare_exchange_weak(cur, i)) {
        }
        return;
      }
    }
  });
  if (first_bad.load() != n) {
    throw std::runtime_error("partition " + std::to_string(k) + ": constraint " + std::to_string(first_bad.load()) +
                             " is not satisfied (a * b != c)");
  }
  std::fprintf(stderr, "porep: partition %zu: a * b = c holds for all %zu constraints (checked in %.2f s)\n", k, n,
               seconds_since(t));
}

// --synth-only: each partition synthesized `reps` times on all threads, then once with one thread.
int porep_synth(const SealCommitPhase1Output& c1, const PorepBenchArgs& a) {
  const SealProofInfo& info = filecoin::seal_proof_info(c1.registered_proof);
  std::printf(
      "| partition | constraints | threads | synthesis s | constraints/s | per core | assignment GiB | peak RSS GiB "
      "|\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  const unsigned all = std::max(1u, std::thread::hardware_concurrency());
  for (size_t k : a.partitions.empty() ? std::vector<size_t>{0} : a.partitions) {
    const StackedCircuit circuit = StackedCircuit::from_commit_phase1(c1, k);
    StackedCircuit::part_shapes(info);  // counted once per process, outside the timing
    for (unsigned threads : {all, 1u}) {
      if (threads == 1 && (all == 1 || a.skip_single)) continue;
      tbb::global_control limit(tbb::global_control::max_allowed_parallelism, threads);
      for (unsigned rep = 0; rep < std::max(1u, a.reps); rep++) {
        auto t = Clock::now();
        r1cs::ProvingAssignment pa = groth16::synthesize(circuit);
        const double s = seconds_since(t);
        if (a.check && rep == 0 && threads == all) check_abc(pa, k);
        std::printf("| %zu | %zu | %u | %.2f | %.2f M | %.2f M | %.2f | %.2f |\n", k, pa.num_constraints(), threads, s,
                    double(pa.num_constraints()) / s / 1e6, double(pa.num_constraints()) / s / 1e6 / threads,
                    double(pa.bytes().total()) / double(1 << 30), peak_rss_gib());
        std::fflush(stdout);
      }
    }
  }
  return 0;
}

int porep_prove(const SealCommitPhase1Output& c1, const PorepBenchArgs& a) {
  const SealProofInfo& info = filecoin::seal_proof_info(c1.registered_proof);
  std::unique_ptr<groth16::ProverBackend> backend =
      a.backend == "cuda" ? groth16::make_cuda_backend(0) : groth16::make_cpu_backend();
  auto log = [](const std::string& line) { std::fprintf(stderr, "porep: %s\n", line.c_str()); };
  std::optional<filecoin::FoundParameters> loaded;
  groth16::Parameters pseudo;
  const groth16::Parameters* params = nullptr;
  double params_s = 0;
  auto t = Clock::now();
  if (!a.pseudo_params) {
    filecoin::ParameterSearch search;
    search.param_cache = a.param_cache;
    search.test_dir = a.params_dir;
    search.allow_test = true;
    filecoin::ParameterLoadOptions opts;
    opts.log = log;  // a published file: its digest against parameters.json, as the daemon checks it
    loaded = filecoin::load_porep_parameters(info, search, opts);
    params = &loaded->params;
    params_s = seconds_since(t);
  }
  const filecoin::StackedBucketGraph graph(info);
  filecoin::Bytes32 replica_id;
  c1.replica_id.to_bytes_le(replica_id.data());
  std::printf("%s, backend %s, parameters: %s\n\n", std::string(info.name).c_str(), backend->name().c_str(),
              a.pseudo_params     ? "PSEUDO-RANDOM (speed only, proofs not checked)"
              : loaded->published ? ("Filecoin's published " + loaded->path.string()).c_str()
                                  : ("TEST setup of our own " + loaded->path.string()).c_str());
  std::printf(
      "| partition | constraints | synthesis s | prove_start s | prove_finish s | verify ms | verified | peak RSS GiB "
      "|\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  bool all_ok = true;
  std::vector<size_t> partitions = a.partitions;
  if (partitions.empty()) {
    for (size_t k = 0; k < info.partitions; k++) partitions.push_back(k);
  }
  std::optional<groth16::PreparedVerifyingKey> vk;
  if (params) vk.emplace(params->vk);
  for (size_t k : partitions) {
    auto t0 = Clock::now();
    r1cs::ProvingAssignment pa = groth16::synthesize(StackedCircuit::from_commit_phase1(c1, k));
    const double synth = seconds_since(t0);
    const size_t constraints = pa.num_constraints();
    if (a.pseudo_params && !params) {
      size_t n = 1;
      while (n < pa.num_constraints()) n <<= 1;
      pseudo = groth16::pseudo_random_parameters(pa, n, 1);
      params = &pseudo;
    }
    ff::OsRng rng;
    auto t1 = Clock::now();
    backend->prepare_assignment(pa);
    auto pending = backend->prove_start(*params, pa, ff::Fr::random(rng), ff::Fr::random(rng));
    const double start = seconds_since(t1);
    auto t2 = Clock::now();
    const auto proof = groth16::prove_finish(*params, pa, pending);
    const double finish = seconds_since(t2);
    const char* verified = "n/a";
    double verify_ms = 0;
    if (!a.pseudo_params) {
      auto t3 = Clock::now();
      const auto inputs = filecoin::porep_public_inputs(info, graph, replica_id, c1.comm_d, c1.comm_r, c1.seed, k);
      const bool ok = groth16::verify_proof(*vk, proof, inputs);
      verify_ms = seconds_since(t3) * 1e3;
      verified = ok ? "yes" : "NO";
      all_ok = all_ok && ok;
    }
    std::printf("| %zu | %zu | %.2f | %.2f | %.2f | %.1f | %s | %.2f |\n", k, constraints, synth, start, finish,
                verify_ms, verified, peak_rss_gib());
    std::fflush(stdout);
  }
  if (loaded) std::printf("\nparameters loaded or set up in %.1f s\n", params_s);
  return all_ok ? 0 : 1;
}

}  // namespace

namespace {

// A generated test sector's Commit1 (filecoin/generators/test_sector.hpp) for --proof without --c1.
filecoin::TestSector make_test_sector(const PorepBenchArgs& a) {
  const SealProofInfo& info = filecoin::seal_proof_info(a.proof);
  filecoin::TestSectorOptions opts;
  opts.miner_actor_id = a.miner.value_or(1000);
  opts.sector_id = a.sector;
  opts.rng_seed = a.seed;
  for (size_t i = 0; i < 32; i++) {
    opts.ticket[i] = uint8_t(a.seed * 131 + i);
    opts.seed[i] = uint8_t(a.seed * 71 + 3 * i + 1);
  }
  opts.ticket[31] &= 0x3f;
  opts.seed[31] &= 0x3f;
  opts.data = a.random_data ? filecoin::SectorData::kRandom : filecoin::SectorData::kZeros;
  auto t = Clock::now();
  filecoin::TestSector s = filecoin::generate_test_sector(info, opts);
  std::fprintf(stderr, "porep: generated a %s test sector of %s (miner t0%llu, sector %llu) in %.2f s\n",
               s.sparse ? "SPARSE (challenged nodes and parents only)" : "fully sealed", std::string(info.name).c_str(),
               (unsigned long long)opts.miner_actor_id, (unsigned long long)opts.sector_id, seconds_since(t));
  return s;
}

}  // namespace

int run_c1_bench(const PorepBenchArgs& a) {
  try {
    if (a.proof.empty() || a.out.empty()) throw std::invalid_argument("give --proof NAME and --out FILE");
    const filecoin::TestSector s = make_test_sector(a);
    const std::string json = filecoin::write_seal_commit_phase1(s.c1);
    std::FILE* f = std::fopen(a.out.c_str(), "wb");
    if (!f) throw std::runtime_error("cannot write " + a.out + ": " + std::strerror(errno));
    const bool written = std::fwrite(json.data(), 1, json.size(), f) == json.size();
    if (std::fclose(f) != 0 || !written) {
      throw std::runtime_error("cannot write " + a.out + ": " + std::strerror(errno));
    }
    std::printf("wrote %s: %s, %.1f MB (prove it with: cuzk-bench porep --c1 %s --miner %llu --sector %llu)\n",
                a.out.c_str(), std::string(filecoin::seal_proof_info(s.c1.registered_proof).name).c_str(),
                double(json.size()) / 1e6, a.out.c_str(), (unsigned long long)a.miner.value_or(1000),
                (unsigned long long)a.sector);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cuzk-bench c1: %s\n", e.what());
    return 2;
  }
}

int run_porep_bench(const PorepBenchArgs& a) {
  try {
    if (a.info) {
      if (a.proof.empty()) throw std::invalid_argument("--info needs --proof NAME (e.g. StackedDrg32GiBV1_1)");
      return porep_info(filecoin::seal_proof_info(a.proof));
    }
    if (a.c1.empty() == a.proof.empty()) {
      throw std::invalid_argument("give --c1 FILE (a Commit1 output) or --proof NAME (a generated test sector)");
    }
    SealCommitPhase1Output c1;
    std::optional<filecoin::SealCommitIdentity> identity;
    if (!a.c1.empty()) {
      auto t = Clock::now();
      c1 = filecoin::read_seal_commit_phase1_file(a.c1);
      std::fprintf(stderr, "porep: %s read in %.2f s\n", a.c1.c_str(), seconds_since(t));
      if (a.miner) identity = filecoin::SealCommitIdentity{filecoin::prover_id_from_actor_id(*a.miner), a.sector};
    } else {
      filecoin::TestSector s = make_test_sector(a);
      identity = filecoin::SealCommitIdentity{s.prover_id, s.sector_id};
      c1 = std::move(s.c1);
    }
    const SealProofInfo& info = filecoin::seal_proof_info(c1.registered_proof);
    for (size_t k : a.partitions) {
      if (k >= info.partitions) {
        throw std::invalid_argument("--partitions: " + std::to_string(k) + ", but the partitions of " +
                                    std::string(info.name) + " are 0.." + std::to_string(info.partitions - 1));
      }
    }
    auto t = Clock::now();
    filecoin::check_seal_commit_phase1(c1, identity);
    std::fprintf(
        stderr, "porep: checked in %.2f s%s\n", seconds_since(t),
        identity ? " (replica_id recomputed from the miner and sector)" : " (no --miner: replica_id as given)");
    if (a.witness) return porep_witness(c1, a);
    return a.synth_only ? porep_synth(c1, a) : porep_prove(c1, a);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cuzk-bench porep: %s\n", e.what());
    return 2;
  }
}

}  // namespace cuzk::bench

// cuzk-bench pipeline: the engine end to end on synthetic PoRep-profile jobs (or, with --proof,
// PoRep C2 jobs of generated test sectors or PoSt jobs of sparse sectors), once per
// scheduling policy (and synthesis worker count), one table row each: seconds per job, the
// prover's busy fraction, peak RSS, peak synthesized partitions waiting for the prover, and
// the budget. Shows what the budget policy bounds and the older designs do not. With --urgent,
// WinningPoSt jobs at CRITICAL priority beside them, and their latency alone and under load.
#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <spdlog/spdlog.h>
#include <string>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
#include <thread>
#include <unistd.h>

#include "bench/commands.hpp"
#include "circuits/synthetic.hpp"
#include "engine/compiled_circuits.hpp"
#include "engine/engine.hpp"
#include "filecoin/generators/sparse_post_sector.hpp"
#include "filecoin/generators/sparse_sector_update.hpp"
#include "filecoin/generators/test_sector.hpp"
#include "filecoin/porep/commit1.hpp"
#include "filecoin/post/vanilla_proof.hpp"
#include "groth16/prover.hpp"
#include "groth16/setup.hpp"
#include "kinds/filecoin_kinds.hpp"
#include "r1cs/compiled_circuit_file.hpp"
#include "r1cs/proving_assignment.hpp"
#include "util/elapsed.hpp"

namespace cuzk::bench {
namespace {

using Clock = std::chrono::steady_clock;
using Inputs = std::vector<std::shared_ptr<const engine::ProofInput>>;
double gib(int64_t b) { return double(b) / double(int64_t(1) << 30); }

// --urgent: WinningPoSt latencies (submission to proof), alone and during the run.
struct UrgentRow {
  double alone_first = 0, alone = 0;  // the first one pays its set's first use on the device
  std::vector<double> loaded;
};

struct Row {
  double seconds_per_job = 0, busy = 0, peak_rss = 0, peak_tracked = 0, peak_budget_used = 0, budget = 0;
  // Once every job has ended: the budget's use beyond the parameter sets' host bytes, and the
  // page-locked a/b/c bytes (both 0 when the engine holds nothing for later partitions).
  double idle_budget_beyond_params = 0, idle_pinned_abc = 0;
  int64_t peak_waiting = 0;
  unsigned failed = 0;
  double steady_seconds_per_job = 0;  // between the first and the last job's end (0 for one job)
};

// PoSt jobs of sparse sectors (generators/sparse_post_sector.hpp), each with its own randomness: WinningPoSt
// one sector each, WindowPoSt one full partition each (sector ids numbered per job).
Inputs post_inputs(const filecoin::PoStProofInfo& info, unsigned jobs, uint64_t seed) {
  Inputs out;
  const auto t0 = Clock::now();
  const bool winning = info.type == filecoin::PoStType::kWinning;
  for (unsigned j = 0; j < jobs; j++) {
    filecoin::Bytes32 randomness{};
    for (size_t i = 0; i < randomness.size(); i++) randomness[i] = uint8_t(seed * 7 + j * 13 + i);
    randomness[31] &= 0x3f;
    const size_t sectors = winning ? 1 : info.params.sector_count;
    std::vector<std::vector<uint8_t>> bytes(sectors);
    tbb::parallel_for(size_t(0), sectors, [&](size_t i) {
      const uint64_t id = uint64_t(j) * 1'000'000 + i + 1;  // ascending: sector i is the verifier's i-th
      bytes[i] = filecoin::write_fallback_post_sector_proof(
          filecoin::sparse_post_vanilla_proof(info, randomness, id, i, seed));
    });
    kinds::PoStRequest r;
    r.winning = winning;
    for (const auto& b : bytes) r.vanilla_proofs.emplace_back(reinterpret_cast<const char*>(b.data()), b.size());
    r.registered_proof = info.id();
    r.miner_id = 1000;
    r.randomness = std::string_view(reinterpret_cast<const char*>(randomness.data()), randomness.size());
    r.sector_size = info.params.sector_size;
    out.push_back(kinds::make_post_input(r));
  }
  std::fprintf(stderr, "inputs: %u %s job(s) of sparse sectors (%zu sector(s) each) made and checked in %.1f s\n", jobs,
               std::string(info.name).c_str(), winning ? size_t(1) : info.params.sector_count, seconds_since(t0));
  return out;
}

bool is_post_proof(const std::string& name) {
  for (const auto& p : filecoin::post_proofs()) {
    if (p.name == name) return true;
  }
  return false;
}

// --update: SnapDeals jobs of sparse updates (generators/sparse_sector_update.hpp), one seed each.
Inputs snap_inputs(const filecoin::UpdateProofInfo& info, unsigned jobs, uint64_t seed) {
  Inputs out;
  const auto t0 = Clock::now();
  for (unsigned j = 0; j < jobs; j++) {
    const auto u = filecoin::make_sparse_sector_update(info.params, seed + j);
    const auto bytes = u.partition_bincode();
    auto raw = [](const ff::Fr& x) {
      std::string s(32, '\0');
      x.to_bytes_le(reinterpret_cast<uint8_t*>(s.data()));
      return s;
    };
    const std::string comm_r_old = raw(u.comm_r_old), comm_r_new = raw(u.comm_r_new), comm_d_new = raw(u.comm_d_new);
    kinds::SnapRequest r;
    for (const auto& b : bytes) r.vanilla_proofs.emplace_back(reinterpret_cast<const char*>(b.data()), b.size());
    r.registered_proof = info.id();
    r.comm_r_old = comm_r_old;
    r.comm_r_new = comm_r_new;
    r.comm_d_new = comm_d_new;
    out.push_back(kinds::make_snap_input(r));
  }
  std::fprintf(stderr, "inputs: %u SnapDeals %s job(s) of sparse updates made and checked in %.1f s\n", jobs,
               std::string(info.name).c_str(), seconds_since(t0));
  return out;
}

// --proof: one PoRep C2 job per generated test sector (sector numbers 1, 2, ...: each its own
// challenges), or PoSt jobs; --update: SnapDeals jobs; made before the timed run.
Inputs proof_inputs(const PipelineBenchArgs& a) {
  if (!a.update.empty()) return snap_inputs(filecoin::update_proof_info(a.update), a.jobs, a.seed);
  if (is_post_proof(a.proof)) return post_inputs(filecoin::post_proof_info(a.proof), a.jobs, a.seed);
  const auto& info = filecoin::seal_proof_info(a.proof);
  Inputs out;
  const auto t0 = Clock::now();
  for (unsigned j = 0; j < a.jobs; j++) {
    filecoin::TestSectorOptions o;
    o.miner_actor_id = 1000;
    o.sector_id = j + 1;
    o.rng_seed = a.seed + j;
    for (size_t i = 0; i < 31; i++) o.ticket[i] = uint8_t(a.seed + i), o.seed[i] = uint8_t(a.seed * 3 + i + j);
    const auto sector = filecoin::generate_test_sector(info, o);
    const std::string json = filecoin::write_seal_commit_phase1(sector.c1);
    out.push_back(kinds::make_porep_input({json, info.id(), o.miner_actor_id, o.sector_id, info.sector_size}));
  }
  std::fprintf(stderr, "inputs: %u %s test sector(s) generated and checked in %.1f s\n", a.jobs,
               std::string(info.name).c_str(), std::chrono::duration<double>(Clock::now() - t0).count());
  return out;
}

// --pseudo-params: what the engine's parameter manager gets instead of a setup for c's id:
// pseudo-random points of the shape of c's partitions (all share one shape), from one partition
// synthesized here. Made inside each run's preload (not timed; again for every policy and
// worker count, since each run's engine owns its set), handed over without a copy.
std::unique_ptr<groth16::Parameters> make_pseudo_parameters(const engine::CircuitDescription& c) {
  const auto t0 = Clock::now();
  circuits::SyntheticCircuit circuit(c.constraints, c.public_inputs, circuits::SyntheticProfile{}, c.seed);
  circuit.set_witness_seed(c.seed);
  auto params = [&] {
    const auto witness = groth16::synthesize(circuit);
    return groth16::pseudo_random_parameters(witness, std::bit_ceil(witness.num_constraints()), c.seed);
  }();
  std::fprintf(stderr,
               "parameters: pseudo-random, %.1f GiB, made in %.1f s (one partition synthesized for the shape)\n",
               gib(int64_t(params.base_bytes())), std::chrono::duration<double>(Clock::now() - t0).count());
  return std::make_unique<groth16::Parameters>(std::move(params));
}

// Pseudo-random points of a kind's circuit shape, from its partition 0 synthesized here.
std::unique_ptr<groth16::Parameters> pseudo_parameters_of(const engine::ProofInput& input) {
  const auto t0 = Clock::now();
  groth16::PseudoParameterShape shape;
  {
    r1cs::ProvingAssignment pa;
    input.synthesize(0, pa);
    pa.enforce_input_constraints();
    shape = groth16::pseudo_parameter_shape(pa, std::bit_ceil(pa.num_constraints()));
  }
  // The counts are all the points need: the partition (16.7 GiB at 32 GiB) goes before the set is
  // made (the process's peak, 62.8 GB on the H200 with a/b/c beside it, is a 48 GiB budget's).
  auto params = groth16::pseudo_random_parameters(shape, 1);
  std::fprintf(stderr, "parameters %s: pseudo-random, %.1f GiB, made in %.1f s\n", input.kind().c_str(),
               gib(int64_t(params.base_bytes())), seconds_since(t0));
  return std::make_unique<groth16::Parameters>(std::move(params));
}

Row run_one(const PipelineBenchArgs& a, engine::Policy policy, unsigned workers, const std::string& timeline,
            const Inputs& porep, const Inputs& urgent, UrgentRow* urgent_row) {
  engine::EngineConfig cfg;
  cfg.backend = engine::parse_backend(a.backend);
  cfg.policy = policy;
  cfg.synthesis_workers = workers;
  cfg.budget_bytes = a.budget_mib ? uint64_t(a.budget_mib) << 20 : 0;
  cfg.device_memory_limit = uint64_t(a.device_memory_mib) << 20;
  cfg.param_cache_dir = a.params_dir;
  cfg.witness_synthesis = engine::parse_witness_synthesis(a.witness_synthesis);
  cfg.release_host_parameters = a.release_host_parameters;
  cfg.kept_witnesses = a.kept_witnesses;
  cfg.compiled_dir = (std::filesystem::path(a.params_dir) / "compiled").string();  // kept for pseudo-random runs too
  cfg.timeline_path = timeline;
  cfg.log_events = a.log_events;
  cfg.verify_before_return = a.verify && !a.pseudo_params;
  cfg.urgent_admission = engine::parse_urgent_admission(a.urgent_admission);
  cfg.urgent_lane_memory = a.urgent_lane_mib << 20;
  engine::CircuitDescription c;
  c.constraints = a.constraints;
  c.public_inputs = uint32_t(a.public_inputs);
  c.seed = a.seed;
  const std::string param_id = porep.empty() ? engine::default_param_id(c) : porep[0]->param_id();
  if (a.pseudo_params) {
    // A directory that holds nothing, so that a cached set of the same id is not used instead.
    cfg.param_cache_dir =
        (std::filesystem::temp_directory_path() / ("cuzk-bench-pseudo-" + std::to_string(::getpid()))).string();
    cfg.allow_synthetic_setup = false;
    if (porep.empty()) {
      cfg.make_parameters = [c](const std::string& id) -> std::unique_ptr<groth16::Parameters> {
        return id == engine::default_param_id(c) ? make_pseudo_parameters(c) : nullptr;
      };
    } else {
      std::map<std::string, std::shared_ptr<const engine::ProofInput>> shapes{{param_id, porep[0]}};
      if (!urgent.empty()) shapes.emplace(urgent[0]->param_id(), urgent[0]);
      cfg.make_parameters = [shapes](const std::string& id) -> std::unique_ptr<groth16::Parameters> {
        auto it = shapes.find(id);
        return it == shapes.end() ? nullptr : pseudo_parameters_of(*it->second);
      };
    }
  } else if (!porep.empty() || !urgent.empty()) {
    kinds::FilecoinParameterOptions o;
    o.allow_test_parameters = a.test_params;
    o.test_dir = a.params_dir;
    cfg.parameter_sources.push_back(kinds::filecoin_parameter_source(o));
  }
  engine::Engine eng(cfg);
  eng.preload_params(param_id);  // not part of the measurement
  Row row;
  std::atomic<unsigned> urgent_failed{0};
  auto prove_urgent = [&]() -> double {
    engine::JobRequest r;
    r.input = urgent[0];
    r.priority = 4000;  // CRITICAL, as the daemon gives WinningPoSt
    const auto t = Clock::now();
    const auto id = eng.submit(std::move(r));
    const auto res = eng.await(id, std::chrono::hours(1));
    if (!res || res->state != engine::JobState::kSucceeded) {
      urgent_failed++;
      std::fprintf(stderr, "urgent job %s: %s\n", id.c_str(), res ? res->error.c_str() : "timed out");
    }
    return seconds_since(t);
  };
  if (!urgent.empty()) {
    eng.preload_params(urgent[0]->param_id());
    urgent_row->alone_first = prove_urgent();
    urgent_row->alone = prove_urgent();
  }

  const auto t0 = Clock::now();
  const double busy_before = eng.snapshot().gpu_busy_seconds;  // the urgent jobs alone
  std::vector<std::string> ids;
  for (unsigned j = 0; j < a.jobs; j++) {
    engine::JobRequest r;
    if (porep.empty()) {
      r.partitions.assign(a.partitions, c);
    } else {
      r.input = porep[j];
    }
    ids.push_back(eng.submit(std::move(r)));
  }
  std::atomic<bool> all_ended{false};
  std::thread urgent_thread;
  if (!urgent.empty()) {
    urgent_thread = std::thread([&] {
      for (;;) {
        const auto due = Clock::now() + std::chrono::duration<double>(a.urgent_every_s);
        while (!all_ended && Clock::now() < due) std::this_thread::sleep_for(std::chrono::milliseconds(10));
        if (all_ended) return;
        urgent_row->loaded.push_back(prove_urgent());
      }
    });
  }
  std::vector<double> ends;
  for (const auto& id : ids) {
    auto res = eng.await(id, std::chrono::hours(24));
    ends.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
    if (!res || res->state != engine::JobState::kSucceeded) {
      row.failed++;
      std::fprintf(stderr, "job %s: %s\n", id.c_str(), res ? res->error.c_str() : "timed out");
    }
  }
  const double wall = seconds_since(t0);
  all_ended = true;
  if (urgent_thread.joinable()) urgent_thread.join();
  row.failed += urgent_failed;
  std::sort(ends.begin(), ends.end());
  if (ends.size() > 1) row.steady_seconds_per_job = (ends.back() - ends.front()) / double(ends.size() - 1);
  const auto s = eng.snapshot();
  row.seconds_per_job = wall / double(a.jobs);
  row.busy = (s.gpu_busy_seconds - busy_before) / (wall * double(std::max(1u, s.gpu_workers)));
  row.peak_rss = gib(s.buffers.peak_rss_bytes);
  row.peak_tracked = gib(s.buffers.peak_tracked_bytes);
  row.peak_budget_used = gib(s.buffers.peak_budget_used);
  row.budget = gib(s.buffers.budget_total);
  row.peak_waiting = s.buffers.peak_waiting_gpu;
  row.idle_budget_beyond_params = gib(s.buffers.budget_used) - gib(s.buffers.parameters_host_bytes);
  row.idle_pinned_abc = gib(s.buffers.abc_pinned_bytes);
  return row;
}

}  // namespace

// One partition's synthesis of an input as a circuit, for the recorder.
class PartitionZero final : public r1cs::Circuit {
 public:
  explicit PartitionZero(const engine::ProofInput& input) : input_(input) {}
  void synthesize(r1cs::ConstraintSystem& cs) const override { input_.synthesize(0, cs); }

 private:
  const engine::ProofInput& input_;
};

// Where the engine reads the kind's compiled circuit, and the id the file must name.
struct CompiledFile {
  std::filesystem::path path;
  std::string id;
};
CompiledFile compiled_file_of(const PipelineBenchArgs& a, const engine::ProofInput& input) {
  const std::string param_id = input.param_id();
  return {engine::CompiledCircuits::file_in(std::filesystem::path(a.params_dir) / "compiled", param_id),
          engine::CompiledCircuits::circuit_id(param_id)};
}

// --compile-only: the kind's compiled circuit recorded where the engine reads it, in parallel
// sections (all threads) and serially, checked equal, and read again.
int compile_only(const PipelineBenchArgs& a, const engine::ProofInput& input) {
  const auto [path, id] = compiled_file_of(a, input);
  const PartitionZero circuit(input);
  std::printf("compiled circuit of %s (%s), %u threads\n\n| step | s | note |\n|---|---|---|\n",
              input.describe().c_str(), input.kind().c_str(), tbb::this_task_arena::max_concurrency());
  auto t = Clock::now();
  const r1cs::CompiledCircuit sections = r1cs::compile_circuit(circuit);
  const double in_sections = seconds_since(t);
  char shape[200];
  std::snprintf(shape, sizeof shape, "%zu constraints, %zu aux, nonzeros A %zu B %zu C %zu, %zu coefficients, %.2f GiB",
                sections.constraints, sections.aux, sections.a.nonzeros(), sections.b.nonzeros(), sections.c.nonzeros(),
                sections.coefficients.size(), double(sections.bytes()) / double(1 << 30));
  std::printf("| recorded in parallel sections | %.3f | %s |\n", in_sections, shape);
  std::fflush(stdout);
  t = Clock::now();
  std::filesystem::create_directories(path.parent_path());
  r1cs::write_compiled_circuit(path, id, sections);
  std::printf("| written | %.3f | %s |\n", seconds_since(t), path.string().c_str());
  t = Clock::now();
  bool same = false;
  {
    const r1cs::CompiledCircuit read = r1cs::read_compiled_circuit(path, id);
    std::printf("| read again (checksum, every index checked) | %.3f | |\n", seconds_since(t));
    same = read == sections;
  }
  std::fflush(stdout);
  t = Clock::now();
  const r1cs::CompiledCircuit serial = r1cs::compile_circuit(circuit, /*parallel_sections=*/false);
  const double serially = seconds_since(t);
  same = same && serial == sections;
  std::printf("| recorded serially (one thread's work) | %.3f | %s |\n", serially,
              same ? "equal to the parallel recording and to the file" : "DIFFERS");
  return same ? 0 : 1;
}

// --read-compiled: the kind's compiled circuit read from where --compile-only recorded it (the
// engine's load at each process start), on every thread and on one, three times each.
int read_compiled(const PipelineBenchArgs& a, const engine::ProofInput& input) {
  const auto [path, id] = compiled_file_of(a, input);
  if (!std::filesystem::exists(path)) {
    std::fprintf(stderr, "cuzk-bench pipeline: no %s (record it first with --compile-only)\n", path.string().c_str());
    return 2;
  }
  const unsigned all = unsigned(tbb::this_task_arena::max_concurrency());
  std::printf("compiled circuit of %s (%s), %.2f GiB file\n\n| read | threads | s |\n|---|---|---|\n",
              input.describe().c_str(), input.kind().c_str(),
              double(std::filesystem::file_size(path)) / double(1 << 30));
  for (const unsigned threads : {all, 1u}) {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, threads);
    for (int rep = 0; rep < 3; rep++) {
      const auto t = Clock::now();
      const r1cs::CompiledCircuit cc = r1cs::read_compiled_circuit(path, id);
      std::printf("| %d (digest checked, every index checked) | %u | %.3f |\n", rep + 1, threads, seconds_since(t));
      std::fflush(stdout);
    }
  }
  return 0;
}

int run_pipeline_bench(const PipelineBenchArgs& a) {
  if (!a.log_events) spdlog::set_level(spdlog::level::warn);
  std::vector<engine::Policy> policies;
  if (a.policy == "all") {
    policies = {engine::Policy::kBudget, engine::Policy::kSemaphoreReleaseAfterSynth,
                engine::Policy::kSemaphoreHoldUntilDelivered, engine::Policy::kChannelCapacityWorkers};
  } else {
    policies = {engine::parse_policy(a.policy)};
  }
  Inputs porep, urgent;
  try {
    if (!a.proof.empty() && !a.update.empty()) throw std::invalid_argument("give --proof or --update, not both");
    if (!a.proof.empty() || !a.update.empty()) porep = proof_inputs(a);
    if (!a.urgent.empty()) {
      const auto& info = filecoin::post_proof_info(a.urgent);
      if (info.type != filecoin::PoStType::kWinning) throw std::invalid_argument("--urgent takes a WinningPoSt proof");
      urgent = post_inputs(info, 1, a.seed + 1000);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cuzk-bench pipeline: %s\n", e.what());
    return 2;
  }
  if (a.compile_only) {
    if (porep.empty()) {
      std::fprintf(stderr, "cuzk-bench pipeline: --compile-only takes --proof or --update\n");
      return 2;
    }
    return compile_only(a, *porep[0]);
  }
  if (a.read_compiled) {
    if (porep.empty()) {
      std::fprintf(stderr, "cuzk-bench pipeline: --read-compiled takes --proof or --update\n");
      return 2;
    }
    return read_compiled(a, *porep[0]);
  }
  if (!porep.empty()) {
    std::printf("engine pipeline, backend %s: %u %s job(s) of %s (%u partition(s) each)%s\n\n", a.backend.c_str(),
                a.jobs, porep[0]->kind().c_str(), (a.proof + a.update).c_str(), porep[0]->partitions(),
                a.pseudo_params
                    ? "; PSEUDO-RANDOM parameters of the circuit's shape: speed only, proofs are not verified"
                    : "");
  } else {
    std::printf(
        "engine pipeline, backend %s: %u job(s) x %u partition(s) of %zu constraints (synthetic PoRep profile)%s\n\n",
        a.backend.c_str(), a.jobs, a.partitions, a.constraints,
        a.pseudo_params ? "; PSEUDO-RANDOM parameters: speed only, proofs are not verified" : "");
  }
  std::printf(
      "| policy | synth workers | s/job | steady s/job | prover busy | peak RSS GiB | peak tracked GiB | peak waiting "
      "partitions | peak budget used GiB | budget GiB | failed | after: budget beyond parameters GiB | after: locked "
      "a/b/c GiB |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  int rc = 0;
  std::vector<std::pair<std::string, UrgentRow>> urgent_rows;
  for (auto policy : policies) {
    for (unsigned w : a.workers) {
      std::string timeline;
      if (!a.timeline.empty()) {
        timeline = a.timeline;
        if (policies.size() > 1 || a.workers.size() > 1) {
          const auto p = std::filesystem::path(a.timeline);
          timeline = (p.parent_path() / (p.stem().string() + "-" + std::string(engine::policy_name(policy)) + "-w" +
                                         std::to_string(w) + p.extension().string()))
                         .string();
        }
      }
      UrgentRow u;
      Row r;
      try {
        r = run_one(a, policy, w, timeline, porep, urgent, &u);
      } catch (const std::exception& e) {  // a refused submission or preload, a backend that failed
        std::fprintf(stderr, "cuzk-bench pipeline: %s\n", e.what());
        return 1;
      }
      std::printf("| %s | %u | %.2f | %.2f | %.0f%% | %.3f | %.3f | %lld | %.3f | %.3f | %u | %.3f | %.3f |\n",
                  std::string(engine::policy_name(policy)).c_str(), w, r.seconds_per_job, r.steady_seconds_per_job,
                  100 * r.busy, r.peak_rss, r.peak_tracked, (long long)r.peak_waiting, r.peak_budget_used, r.budget,
                  r.failed, r.idle_budget_beyond_params, r.idle_pinned_abc);
      std::fflush(stdout);
      if (r.failed) rc = 1;
      if (!urgent.empty())
        urgent_rows.emplace_back(std::string(engine::policy_name(policy)) + " w" + std::to_string(w), u);
    }
  }
  if (!urgent.empty()) {
    std::printf(
        "\n%s at CRITICAL priority (urgent admission %s), submission to proof, s: alone (first; then warm), "
        "and one every %.1f s while the jobs ran\n\n| run | alone first | alone | under load: n | median | "
        "max |\n|---|---|---|---|---|---|\n",
        a.urgent.c_str(), a.urgent_admission.c_str(), a.urgent_every_s);
    for (auto& [run, u] : urgent_rows) {
      std::sort(u.loaded.begin(), u.loaded.end());
      const double median = u.loaded.empty() ? 0 : u.loaded[u.loaded.size() / 2];
      const double max = u.loaded.empty() ? 0 : u.loaded.back();
      std::printf("| %s | %.3f | %.3f | %zu | %.3f | %.3f |\n", run.c_str(), u.alone_first, u.alone, u.loaded.size(),
                  median, max);
    }
  }
  return rc;
}

}  // namespace cuzk::bench

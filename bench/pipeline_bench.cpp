// cuzk-bench pipeline: the engine end to end on synthetic PoRep-profile jobs (or, with --proof,
// PoRep C2 jobs of generated test sectors), once per
// scheduling policy (and synthesis worker count), one table row each: seconds per job, the
// prover's busy fraction, peak RSS, peak synthesized partitions waiting for the prover, and
// the budget. Shows what the budget policy bounds and the older designs do not.
#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <spdlog/spdlog.h>
#include <string>
#include <unistd.h>

#include "bench/commands.hpp"
#include "circuits/synthetic.hpp"
#include "engine/engine.hpp"
#include "filecoin/seal_commit_phase1.hpp"
#include "filecoin/test_sector.hpp"
#include "groth16/prover.hpp"
#include "groth16/setup.hpp"
#include "kinds/filecoin_kinds.hpp"
#include "r1cs/proving_assignment.hpp"

namespace cuzk::bench {
namespace {

using Clock = std::chrono::steady_clock;
double gib(int64_t b) { return double(b) / double(int64_t(1) << 30); }

struct Row {
  double seconds_per_job = 0, busy = 0, peak_rss = 0, peak_tracked = 0, peak_budget_used = 0, budget = 0;
  // Once every job has ended: the budget's use beyond the parameter sets' host bytes, and the
  // page-locked a/b/c bytes (both 0 when the engine holds nothing for later partitions).
  double idle_budget_beyond_params = 0, idle_pinned_abc = 0;
  int64_t peak_waiting = 0;
  unsigned failed = 0;
  double steady_seconds_per_job = 0;  // between the first and the last job's end (0 for one job)
};

// --proof: one PoRep C2 job per generated test sector (sector numbers 1, 2, ...: each its own
// challenges), made before the timed run.
std::vector<std::shared_ptr<const engine::ProofInput>> porep_inputs(const PipelineBenchArgs& a) {
  const auto& info = filecoin::seal_proof_info(a.proof);
  std::vector<std::shared_ptr<const engine::ProofInput>> out;
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

Row run_one(const PipelineBenchArgs& a, engine::Policy policy, unsigned workers, const std::string& timeline,
            const std::vector<std::shared_ptr<const engine::ProofInput>>& porep) {
  engine::EngineConfig cfg;
  cfg.backend = engine::parse_backend(a.backend);
  cfg.policy = policy;
  cfg.synthesis_workers = workers;
  cfg.budget_bytes = a.budget_mib ? uint64_t(a.budget_mib) << 20 : 0;
  cfg.param_cache_dir = a.params_dir;
  cfg.timeline_path = timeline;
  cfg.log_events = a.log_events;
  cfg.verify_before_return = a.verify && !a.pseudo_params;
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
      // Pseudo-random points of the real circuit's shape, from its partition 0 synthesized here.
      cfg.make_parameters = [input = porep[0],
                             param_id](const std::string& id) -> std::unique_ptr<groth16::Parameters> {
        if (id != param_id) return nullptr;
        const auto t0 = Clock::now();
        r1cs::ProvingAssignment pa;
        input->synthesize(0, pa);
        pa.enforce_input_constraints();
        auto params = groth16::pseudo_random_parameters(pa, std::bit_ceil(pa.num_constraints()), 1);
        std::fprintf(stderr, "parameters: pseudo-random, %.1f GiB, made in %.1f s\n", gib(int64_t(params.base_bytes())),
                     std::chrono::duration<double>(Clock::now() - t0).count());
        return std::make_unique<groth16::Parameters>(std::move(params));
      };
    }
  } else if (!porep.empty()) {
    kinds::FilecoinParameterOptions o;
    o.allow_test_parameters = a.test_params;
    o.test_dir = a.params_dir;
    cfg.parameter_sources.push_back(kinds::filecoin_parameter_source(o));
  }
  engine::Engine eng(cfg);
  eng.preload_params(param_id);  // not part of the measurement

  const auto t0 = Clock::now();
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
  Row row;
  std::vector<double> ends;
  for (const auto& id : ids) {
    auto res = eng.await(id, std::chrono::hours(24));
    ends.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
    if (!res || res->state != engine::JobState::kSucceeded) {
      row.failed++;
      std::fprintf(stderr, "job %s: %s\n", id.c_str(), res ? res->error.c_str() : "timed out");
    }
  }
  std::sort(ends.begin(), ends.end());
  if (ends.size() > 1) row.steady_seconds_per_job = (ends.back() - ends.front()) / double(ends.size() - 1);
  const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
  const auto s = eng.snapshot();
  row.seconds_per_job = wall / double(a.jobs);
  row.busy = s.gpu_busy_seconds / (wall * double(std::max(1u, s.gpu_workers)));
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

int run_pipeline_bench(const PipelineBenchArgs& a) {
  if (!a.log_events) spdlog::set_level(spdlog::level::warn);
  std::vector<engine::Policy> policies;
  if (a.policy == "all") {
    policies = {engine::Policy::kBudget, engine::Policy::kSemaphoreReleaseAfterSynth,
                engine::Policy::kSemaphoreHoldUntilDelivered, engine::Policy::kChannelCapacityWorkers};
  } else {
    policies = {engine::parse_policy(a.policy)};
  }
  std::vector<std::shared_ptr<const engine::ProofInput>> porep;
  if (!a.proof.empty()) {
    try {
      porep = porep_inputs(a);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "cuzk-bench pipeline: %s\n", e.what());
      return 2;
    }
    std::printf("engine pipeline, backend %s: %u PoRep C2 job(s) of %s (%u partition(s) each)%s\n\n", a.backend.c_str(),
                a.jobs, a.proof.c_str(), porep[0]->partitions(),
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
      const Row r = run_one(a, policy, w, timeline, porep);
      std::printf("| %s | %u | %.2f | %.2f | %.0f%% | %.3f | %.3f | %lld | %.3f | %.3f | %u | %.3f | %.3f |\n",
                  std::string(engine::policy_name(policy)).c_str(), w, r.seconds_per_job, r.steady_seconds_per_job,
                  100 * r.busy, r.peak_rss, r.peak_tracked, (long long)r.peak_waiting, r.peak_budget_used, r.budget,
                  r.failed, r.idle_budget_beyond_params, r.idle_pinned_abc);
      std::fflush(stdout);
      if (r.failed) rc = 1;
    }
  }
  return rc;
}

}  // namespace cuzk::bench

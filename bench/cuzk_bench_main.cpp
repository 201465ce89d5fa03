// cuzk-bench: one binary, one subcommand per benchmark family, each printing a table.
#include <CLI/CLI.hpp>
#include <optional>
#include <tbb/global_control.h>
#include <thread>

#include <benchmark/benchmark.h>

#include "bench/commands.hpp"
#include "interop/snarkjs/checked_keys.hpp"

namespace {

int run_arith(std::vector<std::string> extra) {
  std::vector<std::string> storage = {"cuzk-bench arith"};
  storage.insert(storage.end(), extra.begin(), extra.end());
  std::vector<char*> argv;
  for (auto& s : storage) argv.push_back(s.data());
  int argc = int(argv.size());
  argv.push_back(nullptr);
  benchmark::Initialize(&argc, argv.data());
  if (benchmark::ReportUnrecognizedArguments(argc, argv.data())) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"cuzk-bench: benchmarks of the cuzk proving engine (each command prints a table)"};
  app.require_subcommand(1);
  const unsigned all = std::max(1u, std::thread::hardware_concurrency());

  auto* arith = app.add_subcommand("arith",
                                   "field, curve and pairing micro-benchmarks (Google Benchmark; "
                                   "pass its flags, e.g. --benchmark_filter=pairing)");
  arith->allow_extras();

  cuzk::bench::MsmBenchArgs msm;
  msm.threads = {1, all};
  auto* msm_cmd = app.add_subcommand("msm", "CPU multi-scalar multiplication over pseudo-random bases");
  msm_cmd->add_option("--curve", msm.curve, "g1, g2 or both")->check(CLI::IsMember({"g1", "g2", "both"}));
  msm_cmd->add_option("--log-sizes", msm.log_sizes, "sizes as powers of two")->delimiter(',');
  msm_cmd->add_option("--threads", msm.threads, "thread counts to run with")->delimiter(',');
  msm_cmd->add_option("--zero-fraction", msm.zero_fraction, "share of zero scalars")->check(CLI::Range(0.0, 1.0));
  msm_cmd->add_option("--one-fraction", msm.one_fraction, "share of one scalars")->check(CLI::Range(0.0, 1.0));
  msm_cmd->add_option("--window", msm.window_bits, "window width in bits (default: chosen by size)")
      ->check(CLI::Range(0u, 24u));
  msm_cmd->add_option("--reps", msm.reps, "repetitions (the median is printed)")->check(CLI::PositiveNumber);
  msm_cmd->add_option("--seed", msm.seed, "random seed");

  cuzk::bench::NttBenchArgs ntt;
  ntt.threads = {1, all};
  auto* ntt_cmd = app.add_subcommand("ntt", "CPU NTTs over Fr and the H polynomial");
  ntt_cmd->add_option("--log-sizes", ntt.log_sizes, "sizes as powers of two")->delimiter(',');
  ntt_cmd->add_option("--threads", ntt.threads, "thread counts to run with")->delimiter(',');
  ntt_cmd->add_option("--reps", ntt.reps, "repetitions (the median is printed)")->check(CLI::PositiveNumber);
  ntt_cmd->add_option("--seed", ntt.seed, "random seed");

  cuzk::bench::GpuNttBenchArgs gpu_ntt;
  auto* gpu_ntt_cmd = app.add_subcommand("gpu-ntt", "GPU NTTs over Fr, the H polynomial and host-to-device uploads");
  gpu_ntt_cmd->add_option("--log-sizes", gpu_ntt.log_sizes, "sizes as powers of two")->delimiter(',');
  gpu_ntt_cmd->add_option("--reps", gpu_ntt.reps, "repetitions (the median is printed)")->check(CLI::PositiveNumber);
  gpu_ntt_cmd->add_flag("!--no-uploads", gpu_ntt.uploads, "skip the host-to-device upload timings");

  cuzk::bench::ProveBenchArgs prove;
  auto add_prove_options = [&](CLI::App* cmd) {
    cmd->add_option("--constraints", prove.constraints, "constraints of the synthetic circuit (inputs included)")
        ->check(CLI::Range(size_t(32), size_t(1) << 27));
    cmd->add_option("--inputs", prove.public_inputs, "public inputs");
    cmd->add_option("--param-cache-dir", prove.params_dir, "cuzk's own parameter cache (synthetic setups)");
    cmd->add_option("--threads", prove.threads, "worker threads (0: all cores)");
    cmd->add_option("--reps", prove.reps, "repetitions")->check(CLI::PositiveNumber);
    cmd->add_option("--seed", prove.seed, "circuit seed");
  };
  auto* setup_cmd = app.add_subcommand("setup", "Groth16 setup of the synthetic circuit (written to the cache)");
  add_prove_options(setup_cmd);
  auto* prove_cmd = app.add_subcommand("prove", "synthesize, prove and verify the synthetic circuit; per-phase table");
  add_prove_options(prove_cmd);
  prove_cmd->add_option("--backend", prove.backend, "where prove_start runs: cpu or cuda (device 0)")
      ->check(CLI::IsMember({"cpu", "cuda"}));
  prove_cmd->add_flag("--pseudo-params", prove.pseudo_params,
                      "time prove_start against parameters of the circuit's shape made of pseudo-random points (no "
                      "setup, for sizes where one is impractical): measures speed only, the proofs cannot verify");
  prove_cmd->add_option("--device-memory-mib", prove.device_memory_mib,
                        "device memory the CUDA backend plans with, in MiB, as on a smaller card (0: the whole card)");
  prove_cmd->add_option("--h-copies", prove.h_copies,
                        "cuda: precomputed copies of H's bases (0: as many as device memory allows, 1: none, k: at "
                        "most k)");
  prove_cmd
      ->add_option(
          "--free", prove.free_modes,
          "how a/b/c are freed once prove_start releases them, one mode per rep in turn: gradual (beside "
          "the proof, in steps, as the engine does), whole (beside the proof, one unmap per vector), unpin "
          "(only the preparation beside the proof: a/b/c's own page-locks; the vectors after it) or after (once "
          "prove_finish has returned: the prover's time without that interference)")
      ->delimiter(',')
      ->check(CLI::IsMember({"gradual", "whole", "unpin", "after"}))
      ->capture_default_str();
  auto* verify_cmd = app.add_subcommand("verify", "single and batch verification of --reps proofs");
  add_prove_options(verify_cmd);

  cuzk::bench::PipelineBenchArgs pipe;
  auto* pipe_cmd = app.add_subcommand("pipeline", "the engine end to end on synthetic jobs, one row per policy");
  pipe_cmd->add_option("--backend", pipe.backend, "auto, cpu or cuda")->check(CLI::IsMember({"auto", "cpu", "cuda"}));
  pipe_cmd->add_option("--jobs", pipe.jobs, "jobs submitted at once")->check(CLI::PositiveNumber);
  pipe_cmd->add_option("--partitions", pipe.partitions, "partitions per job")->check(CLI::PositiveNumber);
  pipe_cmd->add_option("--constraints", pipe.constraints, "constraints per partition")
      ->check(CLI::Range(size_t(32), size_t(1) << 27));
  pipe_cmd->add_option("--inputs", pipe.public_inputs, "public inputs per partition");
  pipe_cmd
      ->add_option("--policy", pipe.policy,
                   "budget, semaphore-release-after-synth, semaphore-hold-until-delivered, channel-capacity-workers "
                   "or all")
      ->check(CLI::IsMember({"all", "budget", "semaphore-release-after-synth", "semaphore-hold-until-delivered",
                             "channel-capacity-workers"}));
  pipe_cmd->add_option("--workers", pipe.workers, "synthesis worker counts to run with")->delimiter(',');
  pipe_cmd->add_option("--budget-mib", pipe.budget_mib, "host-memory budget in MiB (0: MemTotal minus 5 GiB)");
  pipe_cmd->add_option("--device-memory-mib", pipe.device_memory_mib,
                       "device memory the CUDA backend plans with, in MiB, as on a smaller card (0: the whole card)");
  pipe_cmd->add_option("--param-cache-dir", pipe.params_dir,
                       "cuzk's own parameter cache (synthetic and TEST setups; compiled circuits in its compiled/)");
  pipe_cmd
      ->add_option("--witness-synthesis", pipe.witness_synthesis,
                   "auto (witness-only when the backend is a GPU), on or off (a/b/c on the host)")
      ->check(CLI::IsMember({"auto", "on", "off"}));
  pipe_cmd->add_flag("!--keep-host-parameters", pipe.release_host_parameters,
                     "keep each parameter set's host copy beside the device's (engine.release_host_parameters off)");
  pipe_cmd
      ->add_option("--kept-witnesses", pipe.kept_witnesses,
                   "witness memory kept (page-locked) for the next partition of the shape (engine.kept_witnesses; "
                   "0: each partition maps and locks its own)")
      ->capture_default_str();
  pipe_cmd->add_flag("--compile-only", pipe.compile_only,
                     "Only record the kind's compiled circuit (witness-only synthesis' matrices) into "
                     "--param-cache-dir/compiled, where the engine reads it: in parallel sections and serially "
                     "(times, checked equal), then read again; no proof");
  pipe_cmd->add_flag("--read-compiled", pipe.read_compiled,
                     "Only read the kind's compiled circuit from --param-cache-dir/compiled (recorded there by "
                     "--compile-only), as the engine loads it: three times on all threads and three on one; no proof");
  pipe_cmd->add_option("--timeline", pipe.timeline,
                       "write a Chrome trace (Perfetto) per run; -<policy>-w<workers> is added with several runs");
  pipe_cmd->add_flag("--log-events", pipe.log_events, "log one line per buffer-tracker event");
  pipe_cmd->add_flag("!--no-verify", pipe.verify, "skip verifying proofs before they are returned");
  pipe_cmd->add_flag("--pseudo-params", pipe.pseudo_params,
                     "parameters of the circuit's shape made of pseudo-random points instead of a setup (for sizes "
                     "whose setup is impractical; speed only: proofs are not verified)");
  pipe_cmd->add_option("--proof", pipe.proof,
                       "PoRep C2 jobs of generated test sectors of this registered seal proof (e.g. "
                       "StackedDrg32GiBV1_1), or PoSt jobs of sparse sectors of this registered PoSt proof (e.g. "
                       "StackedDrgWindow32GiBV1_2: one full partition each), instead of synthetic ones");
  pipe_cmd->add_option("--update", pipe.update,
                       "SnapDeals jobs of sparse updates (every partition) of this registered update proof (e.g. "
                       "StackedDrg32GiBV1) instead of synthetic ones");
  pipe_cmd->add_option("--urgent", pipe.urgent,
                       "also WinningPoSt jobs of this registered PoSt proof (e.g. StackedDrgWinning32GiBV1) at "
                       "CRITICAL priority: one alone first, then one every --urgent-every seconds during the jobs; "
                       "prints their latencies");
  pipe_cmd->add_option("--urgent-every", pipe.urgent_every_s, "seconds between urgent jobs during the run")
      ->check(CLI::PositiveNumber);
  pipe_cmd->add_option("--urgent-admission", pipe.urgent_admission, "beside or reserve (engine.urgent_admission)")
      ->check(CLI::IsMember({"beside", "reserve"}));
  pipe_cmd
      ->add_option("--urgent-lane-mib", pipe.urgent_lane_mib,
                   "device memory of the card's urgent lane (engine.urgent_lane_memory); 0: no lane, urgent "
                   "partitions first in the GPU queue")
      ->capture_default_str();
  pipe_cmd->add_flag("--test-params", pipe.test_params,
                     "--proof: a TEST setup of our own when Filecoin's published parameters are absent");
  pipe_cmd->add_option("--seed", pipe.seed, "circuit seed");

  cuzk::bench::SynthBenchArgs synth;
  synth.threads = all;
  auto* synth_cmd = app.add_subcommand("synth", "gadget circuits: --info shape, or synthesis throughput");
  synth_cmd->add_option("--circuit", synth.circuit, "circuit")
      ->required()
      ->check(CLI::IsMember(cuzk::bench::synth_circuit_names()));
  synth_cmd->add_flag("--info", synth.info, "print constraints, public inputs and aux variables");
  synth_cmd->add_option("--threads", synth.threads, "threads for the all-cores figure")->check(CLI::PositiveNumber);
  synth_cmd->add_option("--reps", synth.reps, "syntheses per measurement (default: about 0.5 s)");
  synth_cmd->add_option("--seed", synth.seed, "random seed of the inputs");

  cuzk::bench::PorepBenchArgs porep;
  auto* porep_cmd = app.add_subcommand(
      "porep",
      "Filecoin PoRep Commit2: --proof NAME --info (one partition's shape), or --c1 FILE: check, synthesize, "
      "prove and verify each partition (--synth-only: synthesis speed)");
  porep_cmd->add_option("--proof", porep.proof, "registered seal proof, e.g. StackedDrg32GiBV1_1");
  porep_cmd->add_option("--c1", porep.c1, "Commit1 output (SealCommitPhase1Output JSON)");
  porep_cmd->add_option("--miner", porep.miner, "miner actor id (t0<ID>): replica_id is recomputed from it");
  porep_cmd->add_option("--sector", porep.sector, "sector number (with --miner; generated sectors: default 1)");
  porep_cmd->add_flag("--info", porep.info, "print one partition's constraints, inputs, aux and A/B/C nonzeros");
  porep_cmd->add_flag("--synth-only", porep.synth_only, "time synthesis on all cores and on one, no proof");
  porep_cmd->add_flag("--skip-single", porep.skip_single, "--synth-only: no one-core run");
  porep_cmd->add_option("--partitions", porep.partitions, "partitions to run (default: all; --synth-only: 0)")
      ->delimiter(',');
  porep_cmd->add_option("--backend", porep.backend, "cpu or cuda")->check(CLI::IsMember({"cpu", "cuda"}));
  porep_cmd->add_option("--param-cache", porep.param_cache,
                        "Filecoin's published parameter files, searched first; then $FIL_PROOFS_PARAMETER_CACHE, then "
                        "/var/tmp/filecoin-proof-parameters");
  porep_cmd->add_option("--param-cache-dir", porep.params_dir,
                        "cuzk's own cache: TEST setups made when no published file is found");
  porep_cmd->add_flag("--pseudo-params", porep.pseudo_params,
                      "pseudo-random bases of the circuit's shape: speed only, proofs not checked");
  porep_cmd->add_option("--reps", porep.reps, "--synth-only: syntheses per partition and thread count")
      ->check(CLI::PositiveNumber);
  porep_cmd->add_flag("--check", porep.check, "--synth-only: check a * b = c over every constraint");
  porep_cmd->add_flag("--random-data", porep.random_data, "generated sectors (--proof): pseudo-random data");
  porep_cmd->add_option("--seed", porep.seed, "generated sectors (--proof): ticket, seed and label seed");
  porep_cmd->add_flag("--witness", porep.witness,
                      "one partition (--partitions: the first) by the witness-only path beside full synthesis: the "
                      "compiled circuit (recorded once into --param-cache-dir), syntheses, a/b/c on the CPU and the "
                      "device, proofs with the same r, s (pseudo-random parameters)");
  porep_cmd->add_flag("--cpu-check", porep.cpu_check, "--witness: the CPU backend's proof too (minutes at 32 GiB)");

  cuzk::bench::PorepBenchArgs c1_args;
  auto* c1_cmd = app.add_subcommand(
      "c1", "writes a generated test sector's Commit1 output (real seal up to 512 MiB, sparse beyond)");
  c1_cmd->add_option("--proof", c1_args.proof, "registered seal proof, e.g. StackedDrg32GiBV1_1")->required();
  c1_cmd->add_option("--out", c1_args.out, "output file (JSON)")->required();
  c1_cmd->add_option("--miner", c1_args.miner, "miner actor id (default 1000)");
  c1_cmd->add_option("--sector", c1_args.sector, "sector number (default 1)");
  c1_cmd->add_option("--seed", c1_args.seed, "ticket, seed and label seed");
  c1_cmd->add_flag("--random-data", c1_args.random_data, "pseudo-random data instead of zeros");

  cuzk::bench::PostVanillaArgs vanilla;
  auto* vanilla_cmd = app.add_subcommand(
      "post-vanilla",
      "writes one sector's PoSt vanilla proof as Curio sends it (bincode), from a sealed replica (up to 512 MiB) or "
      "a sparse test sector");
  vanilla_cmd->add_option("--proof", vanilla.proof, "registered PoSt proof, e.g. StackedDrgWindow2KiBV1_2")->required();
  vanilla_cmd->add_option("--replica", vanilla.replica, "the sealed replica file");
  vanilla_cmd->add_option("--comm-c", vanilla.comm_c, "with --replica: the sector's comm_c, 64 hex digits");
  vanilla_cmd->add_option("--comm-r", vanilla.comm_r, "with --replica: its comm_r, checked against the replica");
  vanilla_cmd->add_flag("--sparse", vanilla.sparse, "a sparse test sector of any size instead (never on chain)");
  vanilla_cmd->add_option("--sector-id", vanilla.sector_id, "the sector number")->required();
  vanilla_cmd->add_option("--sector-index", vanilla.sector_index,
                          "WindowPoSt: the sector's position among the proof's sectors (sorted by id)");
  vanilla_cmd->add_option("--randomness", vanilla.randomness, "the challenge randomness, 64 hex digits (default 0)");
  vanilla_cmd->add_option("--seed", vanilla.seed, "--sparse: the sector's leaves");
  vanilla_cmd->add_option("--out", vanilla.out, "output file (bincode)")->required();

  cuzk::bench::SnarkjsArgs sj;
  auto* sj_cmd =
      app.add_subcommand("snarkjs", "snarkjs (circom) Groth16 over bls12381: prove, verify, export-vk, setup, chain");
  sj_cmd->require_subcommand(1);
  auto* sj_prove = sj_cmd->add_subcommand(
      "prove", "prove with a .zkey and a .wtns into snarkjs' proof.json and public.json; per-phase table");
  sj_prove->add_option("zkey", sj.zkey, "the proving key (.zkey)")->required();
  sj_prove->add_option("witness", sj.wtns, "the witness (.wtns)")->required();
  sj_prove->add_option("proof", sj.proof, "where proof.json goes")->required();
  sj_prove->add_option("public", sj.public_json, "where public.json goes")->required();
  sj_prove->add_option("--backend", sj.backend, "cpu or cuda")->check(CLI::IsMember({"cpu", "cuda"}));
  sj_prove->add_option("--device", sj.device, "CUDA device (--backend cuda)");
  sj_prove->add_option("--repeat", sj.repeat, "proofs to make (one row each; the last is written)")
      ->check(CLI::PositiveNumber);
  sj_prove->add_option("--r1cs", sj.r1cs,
                       "check the witness against this .r1cs first (names the first failing "
                       "constraint)");
  sj.checked_keys = cuzk::snarkjs::CheckedKeys::default_dir();
  sj_prove
      ->add_option("--checked-keys", sj.checked_keys,
                   "directory remembering the SHA-256 of keys whose points all passed the subgroup checks, so "
                   "that later reads check them on the curve only ($CUZK_SNARKJS_CHECKED_KEYS, else "
                   "$XDG_CACHE_HOME or ~/.cache /cuzk/snarkjs-checked-keys)")
      ->capture_default_str();
  bool sj_no_checked_keys = false;
  sj_prove->add_flag("--no-checked-keys", sj_no_checked_keys,
                     "check every point of the key for its subgroup on this read, and record nothing");
  auto* sj_verify = sj_cmd->add_subcommand(
      "verify", "verify snarkjs documents: exit 0 valid, 1 invalid, 2 bad input (message on stderr)");
  sj_verify->add_option("vk", sj.vk, "verification_key.json")->required();
  sj_verify->add_option("public", sj.public_json, "public.json")->required();
  sj_verify->add_option("proof", sj.proof, "proof.json")->required();
  auto* sj_export = sj_cmd->add_subcommand("export-vk", "write a .zkey's verification_key.json as snarkjs does");
  sj_export->add_option("zkey", sj.zkey, "the proving key (.zkey)")->required();
  sj_export->add_option("vk", sj.vk, "where verification_key.json goes")->required();
  auto* sj_setup = sj_cmd->add_subcommand(
      "setup",
      "INSECURE single-party setup: a .zkey for a circom .r1cs from toxic waste this process draws and discards "
      "(whoever runs it could keep the waste and forge proofs): for tests and benchmarks, in seconds where "
      "snarkjs' phase-2 preparation takes hours");
  sj_setup->add_option("r1cs", sj.r1cs, "the circuit (.r1cs, compiled with --prime bls12381)")->required();
  sj_setup->add_option("zkey", sj.zkey, "where the proving key (.zkey) goes")->required();
  auto* sj_chain = sj_cmd->add_subcommand(
      "chain",
      "write circom's Chain(N) benchmark circuit (tests/interop/snarkjs/circuits/chain.circom) and its witness "
      "for inputs a=3, b=5, x=7, as circom and snarkjs would: for machines without node");
  sj_chain->add_option("n", sj.chain_length, "N, the chain's constraints (2^k - 4 fills a 2^k domain)")
      ->required()
      ->check(CLI::Range(uint64_t(1), (uint64_t(1) << 31) - 5));
  sj_chain->add_option("r1cs", sj.r1cs, "where the circuit (.r1cs) goes")->required();
  sj_chain->add_option("witness", sj.wtns, "where the witness (.wtns) goes")->required();

#ifdef CUZK_HAVE_CUDA_MSM
  cuzk::bench::GpuMsmBenchArgs gpu_msm;
  auto* gpu_msm_cmd = app.add_subcommand("gpu-msm", "GPU multi-scalar multiplication over pseudo-random bases");
  gpu_msm_cmd->add_option("--curve", gpu_msm.curve, "g1, g2 or both")->check(CLI::IsMember({"g1", "g2", "both"}));
  gpu_msm_cmd->add_option("--log-sizes", gpu_msm.log_sizes, "sizes as powers of two")->delimiter(',');
  gpu_msm_cmd->add_option("--windows", gpu_msm.windows, "window widths (0: by size)")->delimiter(',');
  gpu_msm_cmd->add_option("--zero-fraction", gpu_msm.zero_fraction, "share of zero scalars")
      ->check(CLI::Range(0.0, 1.0));
  gpu_msm_cmd->add_option("--one-fraction", gpu_msm.one_fraction, "share of one scalars")->check(CLI::Range(0.0, 1.0));
  gpu_msm_cmd->add_option("--precompute-copies", gpu_msm.precompute_copies,
                          "precomputed copies of the bases per size: 0 (off), a count h, or all (one per window)");
  gpu_msm_cmd->add_flag("--field-rates", gpu_msm.field_rates,
                        "first print the Fp product's rate (device 0), alone and with double-precision FMAs, int8 "
                        "tensor-core MMAs or warp shuffles issued beside each product");
  gpu_msm_cmd
      ->add_option("--workspace-mib", gpu_msm.workspace_mib,
                   "MSM workspace limits to run each size under (MiB, 0: none), as the prover's device memory "
                   "plan sets one: larger MSMs bucket a few windows a pass, or run in chunks")
      ->delimiter(',');
  gpu_msm_cmd->add_option("--device", gpu_msm.device, "CUDA device");
  gpu_msm_cmd->add_option("--reps", gpu_msm.reps, "repetitions (the median is printed)")->check(CLI::PositiveNumber);
  gpu_msm_cmd->add_option("--seed", gpu_msm.seed, "random seed");
  unsigned gpu_msm_phases = 0;
  app.add_option("--gpu-msm-phases", gpu_msm_phases,
                 "print every GPU MSM's phase times to stderr (any command): 1 the phases, 2 also each kernel of "
                 "the partial levels and the reduction")
      ->check(CLI::Range(0, 2));
#endif

  CLI11_PARSE(app, argc, argv);
#ifdef CUZK_HAVE_CUDA_MSM
  cuzk::bench::set_gpu_msm_phases(gpu_msm_phases);
#endif
  if (sj_no_checked_keys) sj.checked_keys.clear();
  if (*sj_prove) return cuzk::bench::run_snarkjs_prove(sj);
  if (*sj_setup) return cuzk::bench::run_snarkjs_setup(sj);
  if (*sj_chain) return cuzk::bench::run_snarkjs_chain(sj);
  if (*sj_verify) return cuzk::bench::run_snarkjs_verify(sj);
  if (*sj_export) return cuzk::bench::run_snarkjs_export_vk(sj);
  if (*synth_cmd) return cuzk::bench::run_synth_bench(synth);
  if (*porep_cmd) return cuzk::bench::run_porep_bench(porep);
  if (*c1_cmd) return cuzk::bench::run_c1_bench(c1_args);
  if (*vanilla_cmd) return cuzk::bench::run_post_vanilla_command(vanilla);
#ifdef CUZK_HAVE_CUDA_MSM
  if (*gpu_msm_cmd) return cuzk::bench::run_gpu_msm_bench(gpu_msm);
#endif
  std::optional<tbb::global_control> limit;
  if (prove.threads) limit.emplace(tbb::global_control::max_allowed_parallelism, prove.threads);
  if (prove.threads == 0) prove.threads = all;
  if (*setup_cmd) return cuzk::bench::run_setup_bench(prove);
  if (*prove_cmd) return cuzk::bench::run_prove_bench(prove);
  if (*verify_cmd) return cuzk::bench::run_verify_bench(prove);
  if (*arith) return run_arith(arith->remaining());
  if (*msm_cmd) {
    if (msm.zero_fraction + msm.one_fraction > 1) {
      std::fprintf(stderr, "cuzk-bench msm: --zero-fraction plus --one-fraction exceeds 1\n");
      return 2;
    }
    return cuzk::bench::run_msm_bench(msm);
  }
  if (*ntt_cmd) return cuzk::bench::run_ntt_bench(ntt);
  if (*pipe_cmd) return cuzk::bench::run_pipeline_bench(pipe);
  if (*gpu_ntt_cmd) return cuzk::bench::run_gpu_ntt_bench(gpu_ntt);
  return 0;
}

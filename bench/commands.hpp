// The cuzk-bench subcommands' arguments and entry points.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cuzk::bench {

struct MsmBenchArgs {
  std::string curve = "both";
  std::vector<unsigned> log_sizes = {12, 14, 16};
  std::vector<unsigned> threads = {1};
  double zero_fraction = 0, one_fraction = 0;
  unsigned window_bits = 0;  // 0: the library's choice
  unsigned reps = 3;
  uint64_t seed = 1;
};

struct NttBenchArgs {
  std::vector<unsigned> log_sizes = {16, 18, 20};
  std::vector<unsigned> threads = {1};
  unsigned reps = 3;
  uint64_t seed = 1;
};

struct GpuNttBenchArgs {
  std::vector<unsigned> log_sizes = {20, 22, 24, 26, 27};
  unsigned reps = 5;
  uint64_t seed = 1;
  bool uploads = true;  // also time host-to-device uploads
};

struct ProveBenchArgs {
  size_t constraints = size_t(1) << 16;
  size_t public_inputs = 8;
  std::string backend = "cpu";
  std::string params_dir = "params-cache";
  unsigned threads = 0;  // 0: all
  unsigned reps = 1;
  uint64_t seed = 1;
  bool pseudo_params = false;  // prove: pseudo-random bases of the circuit's shape, no setup
  // prove: how a/b/c are freed once prove_start releases them, one mode per rep in turn:
  // "gradual" (beside the proof, r1cs::free_gradually, as the engine), "whole" (beside the proof,
  // one unmap per vector), "unpin" (the preparation beside the proof, the vectors after it) or
  // "after" (gradually, once prove_finish has returned).
  std::vector<std::string> free_modes = {"gradual"};
  unsigned h_copies = 0;         // prove --backend cuda: groth16::CudaBackendOptions::h_copies
  size_t device_memory_mib = 0;  // prove --backend cuda: the device memory plan's card (0: all of it)
};

struct PipelineBenchArgs {
  std::string backend = "auto";
  unsigned jobs = 4, partitions = 4;
  size_t constraints = size_t(1) << 16;
  size_t public_inputs = 8;
  std::string policy = "all";
  std::vector<unsigned> workers = {2};
  uint64_t budget_mib = 0;                 // 0: auto (MemTotal minus 5 GiB)
  uint64_t device_memory_mib = 0;          // device memory the CUDA backend plans with (0: the whole card)
  std::string witness_synthesis = "auto";  // engine.witness_synthesis
  bool release_host_parameters = true;     // engine.release_host_parameters
  unsigned kept_witnesses = 2;             // engine.kept_witnesses
  std::string params_dir = "params-cache";
  std::string timeline;
  bool log_events = false;
  bool verify = true;
  uint64_t seed = 1;
  // Parameters of the circuit's shape made of pseudo-random points (one partition synthesized
  // for the shape, before the timed jobs): sizes whose setup is impractical; proofs not checked.
  bool pseudo_params = false;
  // PoRep C2 jobs of generated test sectors of this registered seal proof instead of synthetic ones;
  // parameters: Filecoin's published file, --pseudo-params, or a TEST setup with test_params.
  // Or PoSt jobs of sparse sectors: WinningPoSt, or one WindowPoSt partition of full sectors.
  std::string proof;
  // Or SnapDeals jobs of sparse updates of this registered update proof (its names repeat the
  // seal proofs': StackedDrg32GiBV1).
  std::string update;
  bool test_params = false;
  // WinningPoSt jobs of this registered PoSt proof at CRITICAL priority: one alone before the
  // jobs, then one every urgent_every_s seconds (each awaited) while they run; their latency.
  std::string urgent;
  double urgent_every_s = 5;
  std::string urgent_admission = "beside";
  uint64_t urgent_lane_mib = 0;  // engine.urgent_lane_memory; 0: no lane
  // Only the kind's compiled circuit (engine.witness_synthesis' matrices): recorded into
  // params_dir/compiled where the engine reads it (in parallel sections, and once more serially
  // to compare: time, equality), then read again; no proof.
  bool compile_only = false;
  // Only the kind's compiled circuit read from there, as the engine loads it (times).
  bool read_compiled = false;
};

int run_pipeline_bench(const PipelineBenchArgs& args);
// cuzk-bench synth: gadget circuits (bench/synth_bench.cpp).
struct SynthBenchArgs {
  std::string circuit;
  bool info = false;
  unsigned threads = 1;
  unsigned reps = 0;  // 0: about half a second per measurement
  uint64_t seed = 1;
};
const std::vector<std::string>& synth_circuit_names();
int run_synth_bench(const SynthBenchArgs& args);

struct GpuMsmBenchArgs {
  std::string curve = "g1";
  std::vector<unsigned> log_sizes = {16, 18, 20, 22, 24};
  std::vector<unsigned> windows = {0};  // 0: the library's choice
  double zero_fraction = 0, one_fraction = 0;
  std::string precompute_copies = "0";        // precomputed base copies: 0 (off), a count, or "all"
  bool field_rates = false;                   // first the Fp product's rate, alone and beside FP64/MMA/shuffles
  std::vector<unsigned> workspace_mib = {0};  // MSM workspace limits (0: none), as the prover's plan sets one
  unsigned device = 0;
  unsigned reps = 5;
  uint64_t seed = 1;
};

// cuzk-bench porep: Filecoin's PoRep circuit (bench/porep_bench.cpp).
struct PorepBenchArgs {
  std::string proof;              // registered seal proof name, e.g. StackedDrg32GiBV1_1
  std::string c1;                 // a Commit1 output (JSON)
  std::optional<uint64_t> miner;  // the miner's actor id: replica_id recomputed from it and the sector
  uint64_t sector = 1;
  bool info = false;
  bool synth_only = false;
  bool skip_single = false;        // --synth-only: no one-thread run
  std::vector<size_t> partitions;  // empty: all (synth-only: 0)
  std::string backend = "cpu";
  std::string param_cache;  // Filecoin's published files, searched first (filecoin/parameter_search.hpp)
  std::string params_dir = "params-cache";
  bool pseudo_params = false;
  bool check = false;        // --synth-only: a * b = c over every constraint
  bool random_data = false;  // generated sectors: pseudo-random data instead of zeros
  uint64_t seed = 1;         // generated sectors: ticket, seed and labels
  std::string out;           // cuzk-bench c1: where the generated Commit1 goes
  unsigned reps = 1;
  bool witness = false;    // the witness-only path against full synthesis (bench/witness_bench.cpp)
  bool cpu_check = false;  // --witness: the CPU backend's proof too
};
int run_porep_bench(const PorepBenchArgs& args);
}  // namespace cuzk::bench
namespace cuzk::filecoin {
struct SealCommitPhase1Output;
}
namespace cuzk::bench {
// porep --witness (bench/witness_bench.cpp), on a checked Commit1.
int porep_witness(const filecoin::SealCommitPhase1Output& c1, const PorepBenchArgs& args);
// cuzk-bench c1: writes a generated test sector's Commit1 output.
int run_c1_bench(const PorepBenchArgs& args);

// cuzk-bench post-vanilla: one sector's PoSt vanilla proof (bincode, as Curio sends it).
struct PostVanillaArgs {
  std::string proof;                    // registered PoSt proof name, e.g. StackedDrgWindow2KiBV1_2
  std::string replica, comm_c, comm_r;  // a sealed replica file and its comm_c (comm_r: checked)
  bool sparse = false;                  // a sparse test sector instead (any size)
  uint64_t sector_id = 0, seed = 1;     // seed: the sparse sector's leaves
  size_t sector_index = 0;              // WindowPoSt: its position among the proof's sectors
  std::string randomness;               // 64 hex digits; empty: zeros
  std::string out;
};
int run_post_vanilla_command(const PostVanillaArgs& args);

// cuzk-bench snarkjs prove / verify / export-vk (bench/snarkjs_command.cpp). Exit codes: 0
// done (valid), 1 invalid (proof, or a witness that does not satisfy --r1cs), 2 bad input.
struct SnarkjsArgs {
  std::string zkey, wtns, r1cs, vk, proof, public_json;
  std::string checked_keys;   // "" checks every key in full (snarkjs/checked_keys.hpp)
  uint64_t chain_length = 0;  // `chain`: N
  std::string backend = "cpu";
  int device = 0;
  unsigned repeat = 1;
};
int run_snarkjs_prove(const SnarkjsArgs& args);
int run_snarkjs_verify(const SnarkjsArgs& args);
int run_snarkjs_export_vk(const SnarkjsArgs& args);
int run_snarkjs_setup(const SnarkjsArgs& args);
int run_snarkjs_chain(const SnarkjsArgs& args);

int run_gpu_msm_bench(const GpuMsmBenchArgs& args);  // only with CUZK_CUDA
// Every GPU MSM of the process prints its phases' device times from now on (msm::cuda::
// set_phase_report; 0 off). Only with CUZK_CUDA.
void set_gpu_msm_phases(unsigned level);
int run_setup_bench(const ProveBenchArgs& args);
int run_prove_bench(const ProveBenchArgs& args);
int run_verify_bench(const ProveBenchArgs& args);
int run_msm_bench(const MsmBenchArgs& args);
int run_ntt_bench(const NttBenchArgs& args);
int run_gpu_ntt_bench(const GpuNttBenchArgs& args);

}  // namespace cuzk::bench

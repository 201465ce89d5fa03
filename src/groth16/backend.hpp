// Where prove_start runs. The engine keeps one ProverBackend per GPU worker: the CPU backend
// runs the H polynomial and the G1 MSMs with oneTBB; the CUDA backend runs them on one device,
// keeping each parameter set's bases resident there between proofs. prove_finish (B in G2 and
// the assembly) always runs on the CPU, off the GPU worker's path. For the same r and s every
// backend returns the same PendingProof, so proofs are byte-identical across backends.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "groth16/prover.hpp"

namespace cuzk::groth16 {

// The device a backend proves on (the daemon's status).
struct DeviceInfo {
  int ordinal = -1;           // the CUDA device, -1 for the CPU
  std::string name = "cpu";   // e.g. "NVIDIA H200"
  uint64_t memory_total = 0;  // device memory in bytes (0 for the CPU)
  uint64_t memory_free = 0;
  // The CUDA backend's device memory plan (groth16/cuda/device_memory_plan.hpp) once a parameter
  // set is placed: one line, and its bytes by use (scratch, twiddles, compact_abc,
  // bases_resident, bases_streamed, msm_workspace_limit, available). Empty on the CPU.
  std::string memory_plan;
  std::vector<std::pair<std::string, uint64_t>> memory_plan_bytes;
};

class ProverBackend {
 public:
  virtual ~ProverBackend() = default;
  // "cpu" or "cuda:<device>".
  virtual std::string name() const = 0;
  // As groth16::prove_start: a/b/c are consumed and released before it returns.
  // Throws std::invalid_argument when the assignment does not fit the parameters and
  // std::runtime_error (with the CUDA error text) when the device fails.
  // next: the assignment the caller proves next on this backend with the same parameters, when it
  // knows (it keeps it alive and unchanged until this call returns); a backend that
  // uploads_ahead() sends its witness up meanwhile. A next that never comes costs nothing.
  virtual PendingProof prove_start(const Parameters& params, r1cs::ProvingAssignment& assignment, const Fr& r,
                                   const Fr& s, ProveTimings* timings = nullptr,
                                   const r1cs::ProvingAssignment* next = nullptr) = 0;
  // Whether prove_start uses its `next` (the CUDA backend, for witness-only proofs on a card with
  // room for a second witness buffer): the engine then holds the next partition back for it.
  virtual bool uploads_ahead() const { return false; }
  // Called once an assignment is synthesized, before it waits for prove_start, on the thread that
  // synthesized it (off the GPU worker's path). The CUDA backend keeps a compact copy of each of
  // a, b and c that is mostly 0s and 1s, and page-locks the copies (or, for a vector that is not,
  // its own memory) so that prove_start uploads them by DMA (ProvingAssignment::
  // set_abc_preparation), which goes with release_abc: a, b, c are unlocked, and the compact
  // copies go back to the backend, still locked, for the next assignment (idle_host_bytes).
  // Optional and best effort: prove_start works either way, and a refused lock is not an error.
  virtual void prepare_assignment(r1cs::ProvingAssignment& assignment) {}
  // Makes the parameters ready for proving ahead of the first prove_start (the CUDA backend
  // pins their host memory, uploads the bases and makes H's precomputed copies); prove_start
  // does it itself when needed.
  virtual void load_parameters(const Parameters& params) {}
  // Witness-only proofs of these parameters (their a/b/c the compiled circuit's products with the
  // witness): the CUDA backend places the circuit's matrices on its device now, rather than in
  // the first prove_start, so that the set's memory plan counts them, and says whether its proofs
  // form a/b/c on the device: empty when they do; otherwise why not (the plan overlays the
  // witness on a/b/c), and the matrices leave the device again. prove_start would form them on the
  // CPU, in host memory the engine never charged, so the engine proves the set by full synthesis.
  // Throws as prove_start's placement would (the card cannot prove the set at all). The CPU
  // backend forms a/b/c in prove_start, on the host (witness_synthesis = on: tests): empty.
  virtual std::string place_matrices(const Parameters& params,
                                     const std::shared_ptr<const r1cs::CompiledCircuit>& compiled) {
    return {};
  }
  // The engine proves the set by full synthesis after all (another device refused what this one
  // accepted): the matrices place_matrices put on the device leave it, and the set's plan is made
  // again for full synthesis. Nothing to do where none are placed.
  virtual void let_matrices_go(const Parameters& params, const std::shared_ptr<const r1cs::CompiledCircuit>& compiled) {
  }
  // Why a witness-only proof would not have its a/b/c formed on the device now (the plan in force,
  // which another set's placement may have made again since place_matrices; read without the
  // proof lock); empty when it would.
  virtual std::string abc_off_device() const { return {}; }
  // Drops whatever the backend keeps for these parameters (device-resident bases); called
  // before the parameters are evicted. The next prove_start with them uploads them again.
  virtual void release_parameters(const Parameters& params) {}
  // Bytes of device memory held for resident parameters (0 on the CPU).
  virtual size_t resident_bytes() const { return 0; }
  // Host bytes of parameter sets given back to the OS while the device holds them
  // (CudaBackendOptions::release_host_bases); 0 on the CPU.
  virtual size_t released_host_bytes() const { return 0; }
  // Of one set: its host bytes given back now (0 while the host holds them).
  virtual size_t released_host_bytes_of(const Parameters& params) const { return 0; }
  // Whether load_parameters gives a set's host copy back once the device holds all its bases
  // (CudaBackendOptions::release_host_bases): the engine then admits a partition that loads a set
  // in two steps, the set first and the partition's own bytes once the copy is gone.
  virtual bool gives_back_host_copies() const { return false; }
  // The set's host copy stays from now on, until release_parameters: another backend reads it
  // (the card's urgent lane, which uploads the set from it). Written back from the device now
  // when it was given back.
  virtual void keep_host_copy(const Parameters& params) {}
  // Undoes keep_host_copy (the other backend could not take the set): the copy may go back at the
  // backend's next release of host copies.
  virtual void let_host_copy_go(const Parameters& params) {}
  // Page-locked host bytes: the staging buffers uploads go through, and a/b/c (or their compact
  // copies) locked by prepare_assignment and not yet unlocked (in assignments waiting for or on
  // the device, being freed, or kept idle for the next ones). The kernel can neither swap nor
  // reclaim them. 0 on the CPU.
  virtual size_t staging_bytes() const { return 0; }
  virtual size_t pinned_abc_bytes() const { return 0; }
  // Host bytes the backend keeps between assignments for later ones: the CUDA backend's compact
  // a/b/c copies, kept page-locked (unlocking waits for the device to finish its work), also
  // counted in pinned_abc_bytes. The engine charges them to its host-memory budget; trim frees
  // them (under memory pressure). 0 and nothing on the CPU.
  virtual size_t idle_host_bytes() const { return 0; }
  virtual void trim_host_memory() {}
  // The device and its free memory now (the CUDA backend asks the driver: cheap, but not free).
  virtual DeviceInfo device_info() const { return {}; }
  // Whether prove_start may run on several threads at once (several GPU workers per device);
  // the engine serialises calls to a backend that says no.
  virtual bool concurrent() const { return false; }
};

std::unique_ptr<ProverBackend> make_cpu_backend();

// CUDA devices usable by this build: 0 when built without CUDA or when no device is present.
int cuda_device_count();
// Settings of the CUDA backend.
struct CudaBackendOptions {
  // Precomputed copies of H's bases ([2^(t G c)] H_i, msm::cuda::Precompute) kept on the device
  // beside the plain ones, so that H's MSM accumulates and reduces G bucket sets instead of one
  // per window (2^24: 108 -> 92 ms with all 12 copies; 2^27: fewer, since the card must hold the
  // proof's working set too). 0: as many as fit (docs/ARCHITECTURE.md); 1: none; k: at most k.
  // Copies are made only while they leave the resident bases, a proof's working set at the
  // largest domain and a margin of device memory free, and are dropped again when another
  // parameter set needs the room. Making them costs load_parameters ~4.7 s an extra copy at 2^27.
  // (device_memory_plan.hpp places them last, where every base is resident.)
  unsigned h_copies = 0;
  // The card's memory as the device memory plan sees it (0: all of it), to leave the rest to other
  // work on the same card, and to prove as a smaller card would (tests, the benchmark): the plan
  // places the proof's buffers, the bases (streamed when they do not fit) and the copies within it.
  size_t device_memory_bytes = 0;
  // Device memory left to another backend on the same card (the urgent lane's
  // device_memory_bytes): the plans see the card and its free memory less this much, whether the
  // other backend holds it yet or not (so what it holds is counted twice: at most this much
  // lost, never taken from it).
  size_t device_memory_reserved = 0;
  // Give a parameter set's host copy back to the OS once its device holds every base, and write
  // it back from the device before anything reads it again (streaming for room, a placement
  // again after new matrices that leave no room for every base): the host then holds no copy of
  // a set the device holds (released_host_bytes). While this backend holds the set, its host
  // vectors are this backend's alone (one device: another backend reading them would read
  // zeros); after release_parameters they stay zeros for the caller to free.
  bool release_host_bases = false;
  // The card's urgent lane (msm::cuda::Lane): this backend's streams and MSMs run at the device's
  // greatest priority, beside an ordinary backend's proof on the same card, so that an urgent
  // proof (WinningPoSt) waits for no ordinary prove_start. Give it device_memory_bytes, and the
  // card's ordinary backend the same as device_memory_reserved.
  bool urgent_lane = false;
};
// Throws std::runtime_error when cuzk was built without CUDA or the device cannot be used.
std::unique_ptr<ProverBackend> make_cuda_backend(int device, const CudaBackendOptions& options = {});

}  // namespace cuzk::groth16

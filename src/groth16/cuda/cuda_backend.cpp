// The CUDA ProverBackend: prove_start on one device.
//   1. a, b, c go up once (zero-padded on the device), b first: in compact form (ntt::
//      ZeroOneVector, expanded on the device) when prepare_assignment made one, by DMA from
//      page-locked memory when it locked it, else through the pinned staging pool; they are
//      released on the host as soon as they are on the device or in pinned memory;
//   2. the H polynomial runs on the device (6 NTTs and the pointwise steps), and H's MSM reads
//      its coefficients where they are;
//   3. the aux and input scalars go up once into the same device memory (a/b/c are done with)
//      and the L, A, B_G1 and B_G2 MSMs all read them there.
// A witness-only assignment (r1cs/compiled_circuit.hpp) has no a, b, c: its witness goes up first,
// and a, b, c are the products of its compiled matrices (kept on the device) with it, made in
// place of step 1, c in b's memory (abc_products.hpp); steps 2 and 3 are the same, without the
// second upload.
// Every parameter set's host memory is pinned (page-locked, so it uploads by DMA at full speed
// and can be uploaded again quickly). A device memory plan (device_memory_plan.hpp) places the
// proof's buffers first, then the bases, which stay resident across proofs where they fit and
// are streamed from the pinned host memory to the MSMs where they do not, then H's precomputed
// copies (CudaBackendOptions::h_copies); the MSM workspace gets what is left (msm::cuda::
// set_workspace_limit). On a small card the scratch is overlaid (c over b, the witness over a
// and b once H's MSM is done). A device allocation that fails anyway (another process took
// memory) makes room (copies, workspace, resident bases) and is tried again, so a job fails for
// its own input only. prove_finish is left with the assembly. The field is exact, so the
// PendingProof, and hence the proof for the same r and s, is the CPU backend's bit for bit.
// A backend of the card's urgent lane (CudaBackendOptions::urgent_lane) is the same on streams of
// the greatest priority and the MSMs' urgent lane, beside the card's ordinary backend.
// A witness-only proof's caller may name the assignment it proves next: its witness goes up into a
// second buffer while this proof's MSMs run (witness_ahead.hpp), where the plan has room for one.
// Its parts: piece_locks.hpp (a/b/c page-locked in pieces), compact_copies.hpp (compact a/b/c
// kept locked between partitions), prepared_abc.hpp (prepare_assignment's result),
// host_pins.hpp (parameters' host memory pinned), resident_parameters.hpp (the sets on the
// device), device_memory_plan.hpp (where the device's memory goes), abc_products.hpp (a witness-only
// proof's H polynomial), witness_ahead.hpp (the next witness uploaded ahead), proof_msms.hpp (the
// MSM steps), injected_faults.hpp (the fault sites).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <cuda_runtime.h>

#include "cuda/check.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/stream.hpp"
#include "groth16/backend.hpp"
#include "groth16/cuda/abc_products.hpp"
#include "groth16/cuda/compact_copies.hpp"
#include "groth16/cuda/device_matrices.hpp"
#include "groth16/cuda/injected_faults.hpp"
#include "groth16/cuda/piece_locks.hpp"
#include "groth16/cuda/prepared_abc.hpp"
#include "groth16/cuda/proof_msms.hpp"
#include "groth16/cuda/resident_parameters.hpp"
#include "groth16/cuda/witness_ahead.hpp"
#include "msm/cuda/msm.hpp"
#include "ntt/cuda/ntt.hpp"
#include "ntt/cuda/pinned_pool.hpp"
#include "ntt/zero_one_vector.hpp"
#include "util/elapsed.hpp"

namespace cuzk::groth16 {
namespace {

using cuzk::cuda::check;
using cuzk::cuda::DeviceBuffer;
using groth16::cuda::CompactCopies;
using groth16::cuda::device_aligned;
using groth16::cuda::inject_device_oom;
using groth16::cuda::inject_launch_error;
using groth16::cuda::kMinPinnedBytes;
using groth16::cuda::PreparedAbc;
using groth16::cuda::ResidentParameters;
using groth16::cuda::ResidentSet;
using groth16::cuda::ScratchLayout;
using Clock = std::chrono::steady_clock;

// A proof's device vectors, in one scratch buffer (device_memory_plan.hpp's ScratchLayout):
// a, b, c (n each), then the witness scalars of the other MSMs (aux, inputs); overlaid, c is b
// and aux starts at a; witness-only, c is b and aux follows b.
struct ProofVectors {
  Fr *a, *b, *c, *aux, *inputs;
};

class CudaBackend final : public ProverBackend {
 public:
  CudaBackend(int device, const CudaBackendOptions& options)
      : device_(device), options_(options), resident_(device, options, backend_name(device, options)) {
    set_device();
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, device_), "cudaGetDeviceProperties");
    device_name_ = prop.name;
    device_memory_ = prop.totalGlobalMem;
    // The urgent lane's streams at the device's greatest priority.
    check(cuzk::cuda::create_stream(&stream_, options_.urgent_lane), "cudaStreamCreate");
    check(cuzk::cuda::create_stream(&upload_stream_, options_.urgent_lane), "cudaStreamCreate");
    for (auto& e : uploaded_) check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate");
    check(cudaEventCreateWithFlags(&product_done_, cudaEventDisableTiming), "cudaEventCreate");
    products_ = std::make_unique<groth16::cuda::AbcProducts>();
  }
  ~CudaBackend() override {
    msm::cuda::LaneScope lane(msm_lane());
    cudaSetDevice(device_);
    cudaStreamSynchronize(upload_stream_);
    cudaStreamSynchronize(stream_);
    resident_.clear();
    domain_.reset();
    scratch_.reset();
    ahead_.release();
    compact_.reset();
    products_.reset();
    for (auto& e : uploaded_) cudaEventDestroy(e);
    cudaEventDestroy(product_done_);
    cudaStreamDestroy(upload_stream_);
    cudaStreamDestroy(stream_);
  }

  std::string name() const override { return backend_name(device_, options_); }
  static std::string backend_name(int device, const CudaBackendOptions& options) {
    return "cuda:" + std::to_string(device) + (options.urgent_lane ? "-urgent" : "");
  }

  // Without the proof lock (status pages ask while a proof runs): the name and total read at
  // construction, the free memory asked of the driver now (on this device, the calling thread's
  // current device restored). A failed query reports 0 free bytes and throws nothing.
  DeviceInfo device_info() const override {
    DeviceInfo info{device_, device_name_, device_memory_, 0, {}, {}};
    int previous = -1;
    size_t free_bytes = 0, total_bytes = 0;
    if (cudaGetDevice(&previous) == cudaSuccess && cudaSetDevice(device_) == cudaSuccess &&
        cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess) {
      info.memory_free = free_bytes;
      info.memory_total = total_bytes;
    }
    if (previous >= 0 && previous != device_) cudaSetDevice(previous);
    cudaGetLastError();  // leave no error behind for the thread's next check
    if (const auto plan = resident_.plan(); plan.fits) {
      info.memory_plan = plan.summary();
      info.memory_plan_bytes = plan.bytes_by_use(resident_.bytes());
    }
    return info;
  }

  PendingProof prove_start(const Parameters& params, r1cs::ProvingAssignment& pa, const Fr& r, const Fr& s,
                           ProveTimings* timings, const r1cs::ProvingAssignment* next) override {
    std::lock_guard lock(mutex_);
    msm::cuda::LaneScope lane(msm_lane());
    PublishReleasedOnExit publish{resident_};
    AheadLanded landed{ahead_, upload_stream_, witness_in_use_};
    PendingProof out = prove_start_locked(params, pa, r, s, timings, next);
    landed.kept = true;
    resident_.release_host_copies();  // a set placed by this proof, or streamed no more
    return out;
  }
  bool uploads_ahead() const override { return ahead_ready_.load(); }

  void prepare_assignment(r1cs::ProvingAssignment& pa) override {
    if (pa.abc_prepared()) return;
    // Small vectors (a, b and c are equally long) go through the staging pool about as fast.
    // A witness-only assignment has no a/b/c yet: its aux is what goes up (abc_on_device).
    const size_t bytes = (pa.abc_pending() ? pa.num_aux() : pa.a().size()) * sizeof(Fr);
    if (bytes < kMinPinnedBytes) return;
    // cudaHostRegister needs the runtime on this (synthesis) thread; best effort, as documented.
    if (cudaSetDevice(device_) != cudaSuccess) {
      cudaGetLastError();
      return;
    }
    try {
      groth16::cuda::prepare_abc(pa, pinned_abc_bytes_, compact_copies_);
    } catch (const std::exception& e) {  // e.g. no memory for the copies: prove_start stages a/b/c
      static std::once_flag once;
      std::call_once(once, [&] { std::fprintf(stderr, "cuzk: could not prepare a/b/c (%s)\n", e.what()); });
    }
  }

  void load_parameters(const Parameters& params) override {
    std::lock_guard lock(mutex_);
    msm::cuda::LaneScope lane(msm_lane());
    set_device();
    release_spare_before_placing(params);
    resident_.get(params, buffers_held());
    resident_.release_host_copies();
    // The domain a proof with these parameters needs (H has n - 1 points).
    const size_t n = params.h.size() + 1;
    if (std::has_single_bit(n) && n > 1) domain_for(unsigned(std::countr_zero(n)));
  }

  std::string place_matrices(const Parameters& params,
                             const std::shared_ptr<const r1cs::CompiledCircuit>& compiled) override {
    std::lock_guard lock(mutex_);
    msm::cuda::LaneScope lane(msm_lane());
    set_device();
    PublishReleasedOnExit publish{resident_};
    if (!matrices_.has(compiled)) {  // refused before anything moves, when the plan around them would overlay
      const size_t bytes = r1cs::cuda::DeviceCompiledCircuit::bytes_for(*compiled);
      const size_t freed = matrices_.bytes_freed_by_next();
      std::string why = resident_.witness_overlaid_beside(params, buffers_held(), bytes > freed ? bytes - freed : 0);
      if (!why.empty()) return why;
    }
    with_room("the compiled circuit's matrices", [&] {
      place_matrices_locked(params, compiled);
      release_spare_before_placing(params);
      resident_.get(params, buffers_held());
    });
    std::string why = abc_off_device();
    if (!why.empty()) drop_matrices(params, compiled);  // its proofs go by full synthesis
    resident_.release_host_copies();
    return why;
  }
  void let_matrices_go(const Parameters& params,
                       const std::shared_ptr<const r1cs::CompiledCircuit>& compiled) override {
    std::lock_guard lock(mutex_);
    msm::cuda::LaneScope lane(msm_lane());
    set_device();
    PublishReleasedOnExit publish{resident_};
    // Evicted since by another circuit's matrices, the set may still plan as witness-only.
    if (!matrices_.has(compiled) && !resident_.witness_only(params)) return;
    drop_matrices(params, compiled);
    resident_.release_host_copies();
  }
  std::string abc_off_device() const override {
    const auto plan = resident_.plan();
    if (!plan.fits || plan.layout != ScratchLayout::kOverlaid) return {};
    return name() + "'s memory plan overlays the witness on a/b/c (too little device memory beside the sets' bases)";
  }

  void release_parameters(const Parameters& params) override {
    std::lock_guard lock(mutex_);
    msm::cuda::LaneScope lane(msm_lane());
    set_device();
    resident_.release(params, /*restore_host=*/false);  // the caller frees the set
  }

  // Read without the proof lock (status pages ask while a proof runs).
  size_t resident_bytes() const override { return resident_.bytes(); }
  size_t released_host_bytes() const override { return resident_.released_host_bytes(); }
  size_t released_host_bytes_of(const Parameters& params) const override {
    return resident_.released_host_bytes_of(params);
  }
  bool gives_back_host_copies() const override { return options_.release_host_bases; }
  void keep_host_copy(const Parameters& params) override {
    if (!options_.release_host_bases) return;  // nothing is ever given back
    // Marked without the proof lock: an urgent job waits for no proof unless the copy must come back.
    if (!resident_.mark_kept(params)) return;
    std::lock_guard lock(mutex_);
    set_device();
    resident_.restore_kept(params);
  }
  void let_host_copy_go(const Parameters& params) override { resident_.unmark_kept(params); }
  size_t staging_bytes() const override { return pool_.bytes(); }
  size_t pinned_abc_bytes() const override { return pinned_abc_bytes_->load(); }
  size_t idle_host_bytes() const override { return compact_copies_->idle_bytes(); }
  void trim_host_memory() override { compact_copies_->trim(); }

 private:
  // What the sets' host copies are once a call ends, failed or not, is what the engine's admission
  // reads (never a copy written back only to place a set again within the call).
  struct PublishReleasedOnExit {
    ResidentParameters& resident;
    ~PublishReleasedOnExit() { resident.publish_released_of(); }
  };
  // A witness going up ahead reads the next assignment's memory: it has landed before prove_start
  // returns (that assignment may be freed then), and is forgotten when the proof failed.
  struct AheadLanded {
    groth16::cuda::WitnessAhead& ahead;
    cudaStream_t stream;
    const Fr*& in_use;
    bool kept = false;
    ~AheadLanded() {
      if (cudaStreamSynchronize(stream) != cudaSuccess) kept = false;
      if (!kept) ahead.forget();
      in_use = nullptr;
      cudaGetLastError();
    }
  };
  // The second witness buffer goes (refused, or freed for room): its room is the MSM workspace's
  // until the set's plan is made again.
  void give_spare_to_msms() {
    ahead_.release();
    resident_.witness_ahead_refused();
    plan_ = resident_.plan();
  }
  // The set's proofs go by full synthesis: the matrices leave the device, and their room goes back
  // to the set's plan (compact a/b/c's room, no second witness buffer), made again.
  void drop_matrices(const Parameters& params, const std::shared_ptr<const r1cs::CompiledCircuit>& compiled) {
    matrices_.erase(compiled);
    resident_.set_outside_bytes(matrices_.bytes());
    resident_.set_witness_only(params, false);
    with_room("the set placed again", [&] {
      ahead_.release();
      resident_.replan(params, buffers_held());
      resident_.get(params, buffers_held());
    });
  }
  // A set about to be placed (again) gets a plan made anew: the second witness buffer's room and
  // compact a/b/c's go back first, so that the bases find it free (the new plan may give it to
  // them); a later proof takes them again where the plan has them.
  void release_spare_before_placing(const Parameters& params) {
    if (!resident_.will_place(params)) return;
    ahead_.release();
    compact_.reset();
  }
  PendingProof prove_start_locked(const Parameters& params, r1cs::ProvingAssignment& pa, const Fr& r, const Fr& s,
                                  ProveTimings* timings, const r1cs::ProvingAssignment* next) {
    ProveTimings local;
    ProveTimings& t = timings ? *timings : local;
    const size_t m = pa.num_constraints();
    const auto log_n = log_domain(m);
    const size_t n = size_t(1) << log_n;
    check_assignment(params, pa, n);
    set_device();

    PendingProof out;
    out.r = r;
    out.s = s;
    auto t0 = Clock::now();
    auto prepared = std::dynamic_pointer_cast<const PreparedAbc>(pa.abc_preparation());
    if (prepared && !prepared->made_from(pa)) prepared.reset();  // stale: a/b/c moved since
    // What the H polynomial needs, placed by the plan, before a/b/c are consumed.
    const ResidentSet* res = nullptr;
    const ntt::cuda::DeviceDomain* domain = nullptr;
    const r1cs::cuda::DeviceCompiledCircuit* matrices = nullptr;  // witness-only: a/b/c made here
    ProofVectors v{};
    uint8_t* compact_area = nullptr;
    with_room("the proof's buffers", [&] {
      if (pa.abc_pending()) matrices = &place_matrices_locked(params, pa.compiled_shared());
      if (!pa.abc_pending() && resident_.witness_only(params)) {  // its proofs go by full synthesis now
        resident_.set_witness_only(params, false);
        resident_.replan(params, buffers_held());  // compact a/b/c's room back, no second witness buffer
      }
      release_spare_before_placing(params);
      res = &resident_.get(params, buffers_held());
      plan_ = resident_.plan();
      domain = &domain_for(log_n);
      v = proof_vectors(n, pa);
      if (!ahead_.fit(plan_.witness_ahead)) give_spare_to_msms();
      compact_area = compact_area_for(prepared.get());
    });
    ahead_ready_ = ahead_.bytes() > 0;
    const bool overlaid = plan_.layout == ScratchLayout::kOverlaid;
    // The witness may have gone up ahead, in the previous proof (only a witness-only one's).
    Fr* const primary_witness = v.aux;
    Fr* const landed = ahead_.take(pa, primary_witness);
    if (landed && !overlaid) {
      v.aux = landed;
      v.inputs = landed + pa.num_aux();
    }
    witness_in_use_ = v.aux;
    if (matrices && overlaid) {
      // The overlaid layout puts the witness over a and b, which the products need beside it. The
      // engine asked (abc_off_device) before it synthesized; a plan made again since (another
      // set took the room) lands here, in host memory the engine did not charge: said each time.
      std::fprintf(stderr,
                   "cuzk: %s computes a/b/c on the CPU, in host memory outside the budget: the card's plan "
                   "overlays the witness on them\n",
                   name().c_str());
      matrices = nullptr;
      pa.compute_abc();
    }
    if (matrices) {
      abc_on_device(*domain, *matrices, pa, prepared.get(), v, /*aux_landed=*/landed && !overlaid, t);
      // The next proof's witness goes up meanwhile, beside the one the MSMs read.
      if (next) {
        const size_t primary_scalars = scratch_.size() - size_t(primary_witness - scratch_.get());
        ahead_.start(*next, v.aux, primary_witness, primary_scalars, upload_stream_);
      }
      // aux has landed; its lock stays with the assignment (AuxLock) until its memory is freed,
      // or kept by the engine for the next witness of the shape (locked still).
      prepared.reset();
      t.h_ntt = seconds_since(t0) - t.abc;
      pa.release_abc();
      t0 = Clock::now();
      out.h = with_room("H's MSM", [&] { return groth16::cuda::msm_h(*res, v.a, n); });
      t.msm_h = seconds_since(t0);
      groth16::cuda::g1_msms_on_gpu(*res, pa, v.aux, v.inputs, out, t, room_retry());
      return out;
    }
    std::future<void> witness_upload;
    try {
      const bool dma_from_locked = h_polynomial_of_abc(*domain, pa, prepared.get(), compact_area, v, overlaid);
      if (!overlaid) witness_upload = start_witness_upload(pa, v);
      // Staged, the host copies were made when upload returned; by DMA, they are read until
      // they have landed (c's went last).
      if (dma_from_locked) check(cudaEventSynchronize(uploaded_[2]), "a/b/c upload");
    } catch (...) {
      if (witness_upload.valid()) witness_upload.wait();  // it reads pa and the staging pool
      cudaStreamSynchronize(upload_stream_);              // no DMA may still read a/b/c when they are freed
      throw;
    }
    // The assignment's reference must be the last: release_abc hands the preparation to the
    // sink (the deallocation thread), whose drop unlocks a/b/c before they are freed and hands
    // the compact copies back to compact_copies_, still locked.
    prepared.reset();
    pa.release_abc();
    domain->synchronize();
    t.h_ntt = seconds_since(t0);

    // Waiting for what is left of the witness upload is charged to L, the first MSM to read it.
    t0 = Clock::now();
    try {
      out.h = with_room("H's MSM", [&] { return groth16::cuda::msm_h(*res, v.a, n); });
    } catch (...) {
      if (witness_upload.valid()) witness_upload.wait();  // it reads pa and the staging pool: let it finish first
      throw;
    }
    t.msm_h = seconds_since(t0);
    t0 = Clock::now();
    if (overlaid) {
      upload_witness(pa, v);  // over a and b, now that H's MSM has read its coefficients
    } else {
      witness_upload.get();
    }
    t.msm_l = seconds_since(t0);
    groth16::cuda::g1_msms_on_gpu(*res, pa, v.aux, v.inputs, out, t, room_retry());
    return out;
  }

  static unsigned log_domain(size_t m) {
    unsigned log_n = 0;
    while ((size_t(1) << log_n) < m) log_n++;
    if (log_n > ntt::cuda::DeviceDomain::kMaxLogSize) {
      throw std::invalid_argument("GPU prover: " + std::to_string(m) + " constraints exceed the largest GPU domain");
    }
    return log_n;
  }

  void set_device() const { check(cudaSetDevice(device_), "cudaSetDevice"); }
  // The MSM lane of this backend's calls (msm::cuda::LaneScope around each entry that reaches
  // the MSM workspace: prove_start, load_parameters, release_parameters, the destructor).
  msm::cuda::Lane msm_lane() const {
    return options_.urgent_lane ? msm::cuda::Lane::kUrgent : msm::cuda::Lane::kOrdinary;
  }

  // The domain of the last size proved (its twiddle table is 16 n bytes; kept across proofs).
  const ntt::cuda::DeviceDomain& domain_for(unsigned log_n) {
    if (!domain_ || domain_->log_size() != log_n) {
      domain_.reset();
      domain_ = std::make_unique<ntt::cuda::DeviceDomain>(log_n, stream_);
    }
    return *domain_;
  }

  // Runs f; when it runs out of device memory, the plan's optional parts make room
  // (ResidentParameters::make_room, logged) and f runs again, twice at most: a job fails for want
  // of device memory only when even streamed bases and a halved workspace do not fit.
  template <class F>
  std::invoke_result_t<F&> with_room(const char* what, F&& f) {
    for (unsigned step = 0;; step++) {
      try {
        return f();
      } catch (const std::runtime_error& e) {
        if (step >= 2 || std::string_view(e.what()).find("cudaErrorMemoryAllocation") == std::string_view::npos) {
          throw;
        }
        // The second witness buffer first (the most optional), unless this proof reads it.
        if (witness_in_use_ != ahead_.spare() && ahead_.bytes()) {
          cudaStreamSynchronize(upload_stream_);
          give_spare_to_msms();
        }
        const std::string freed = resident_.make_room(step);
        std::fprintf(stderr, "cuzk: %s ran out of device memory for %s (%s); freed %s; trying again\n", name().c_str(),
                     what, e.what(), freed.empty() ? "nothing" : freed.c_str());
      }
    }
  }

  groth16::cuda::RoomRetry room_retry() {
    return [this](const char* what, const std::function<void()>& step) { with_room(what, step); };
  }

  // Device bytes held for proofs besides the MSM workspace: scratch, compact a/b/c, twiddles.
  // (Not the compiled circuits' matrices: they stay where they are, so a plan made after them sees
  // them as taken, not as room it may divide.)
  size_t buffers_held() const {
    return scratch_.size() * sizeof(Fr) + ahead_.bytes() + compact_.size() + (domain_ ? domain_->table_bytes() : 0);
  }

  // The proof's vectors in the scratch buffer, laid out as plan_ says (a witness-only proof's c
  // over b in the separate layout). A buffer larger than the plan's (kept from an earlier plan)
  // goes back first.
  ProofVectors proof_vectors(size_t n, const r1cs::ProvingAssignment& pa) {
    const bool overlaid = plan_.layout == ScratchLayout::kOverlaid;
    const bool products = pa.abc_pending() && !overlaid;
    const size_t witness = pa.num_aux() + pa.num_inputs();
    inject_device_oom("cudaMalloc of the proof's scratch buffer");
    const size_t before = scratch_.size();
    if (scratch_.size() * sizeof(Fr) > plan_.scratch) scratch_.reset();
    ProofVectors v;
    v.a = scratch_.grow_to(overlaid ? std::max(2 * n, witness) : (products ? 2 : 3) * n + witness);
    if (scratch_.size() != before) ahead_.forget();  // a witness that went up ahead into it is gone
    v.b = v.a + n;
    v.c = overlaid || products ? v.b : v.b + n;
    v.aux = overlaid ? v.a : v.c + n;
    v.inputs = v.aux + pa.num_aux();
    return v;
  }

  // Device room for the preparation's compact copies (kept across proofs like scratch), each
  // array 256-byte aligned; null when there are none.
  uint8_t* compact_area_for(const PreparedAbc* prepared) {
    const size_t compact_bytes = prepared ? prepared->compact_device_bytes() : 0;
    if (compact_bytes == 0) {
      if (!plan_.compact_abc) compact_.reset();  // witness-only proofs: its room is the MSMs'
      return nullptr;
    }
    inject_device_oom("cudaMalloc of the compact a/b/c area");
    return compact_.grow_to(compact_bytes);
  }

  // Enqueues bytes from host memory to the device on the upload stream: one DMA per locked
  // piece when the preparation locked `from` (then dma_from_locked is set: the memory is read
  // until the copies land), else through the staging pool (the host copies are made when it
  // returns).
  void upload(void* to, const void* from, size_t bytes, const PreparedAbc* prepared, bool& dma_from_locked) {
    if (prepared && prepared->locked(from)) {  // one DMA per locked piece
      dma_from_locked = true;
      const auto* src = static_cast<const char*>(from);
      auto* dst = static_cast<char*>(to);
      groth16::cuda::for_each_pin_piece(from, bytes, [&](size_t offset, size_t piece) {
        check(cudaMemcpyAsync(dst + offset, src + offset, piece, cudaMemcpyHostToDevice, upload_stream_),
              "a/b/c upload");
      });
    } else if (bytes) {
      pool_.upload(to, from, bytes, upload_stream_);
    }
  }

  // Steps 1 and 2: a, b and c go up on their own stream, and each one's transforms start when it
  // has landed, so the later uploads overlap the earlier transforms; H's coefficients are left in
  // v.a. b goes first: the PoRep circuits' b is the most compact (all 0/1 in the synthetic
  // profile), so the device waits least for it; c, last, needs one transform (DeviceDomain::
  // h_finish). A vector prepare_assignment compacted goes up in that form (into compact_area)
  // and is expanded on the device; one it page-locked goes by DMA straight from its memory;
  // anything else through the staging pool, whose host copies take the CPU's cores
  // (docs/ARCHITECTURE.md, "Prepared a/b/c"). True when a DMA reads a/b/c's host memory.
  // Overlaid, c goes up into b's memory once a b is formed, so it cannot overlap the transforms.
  bool h_polynomial_of_abc(const ntt::cuda::DeviceDomain& domain, const r1cs::ProvingAssignment& pa,
                           const PreparedAbc* prepared, uint8_t* compact_area, const ProofVectors& v, bool overlaid) {
    const size_t n = domain.size();
    const r1cs::FrVector* sources[3] = {&pa.a(), &pa.b(), &pa.c()};
    Fr* targets[3] = {v.a, v.b, v.c};
    bool dma_from_locked = false;
    constexpr int kOrder[3] = {1, 0, 2};  // b, a, c
    for (int step = 0; step < 3; step++) {
      const int i = kOrder[step];
      const r1cs::FrVector& src = *sources[i];
      if (overlaid && step == 2) {
        check(cudaEventRecord(product_done_, stream_), "cudaEventRecord");
        check(cudaStreamWaitEvent(upload_stream_, product_done_, 0), "cudaStreamWaitEvent");
      }
      if (prepared && prepared->compact[i]) {
        const ntt::ZeroOneVector& z = prepared->compact[i]->vector;
        auto* kinds = reinterpret_cast<uint32_t*>(compact_area);
        compact_area += device_aligned(z.kinds.size() * 4);
        auto* offsets = reinterpret_cast<uint32_t*>(compact_area);
        compact_area += device_aligned(z.chunk_offsets.size() * 4);
        auto* others = reinterpret_cast<Fr*>(compact_area);
        compact_area += device_aligned(z.others.size() * sizeof(Fr));
        upload(kinds, z.kinds.data(), z.kinds.size() * 4, prepared, dma_from_locked);
        upload(offsets, z.chunk_offsets.data(), z.chunk_offsets.size() * 4, prepared, dma_from_locked);
        upload(others, z.others.data(), z.others.size() * sizeof(Fr), prepared, dma_from_locked);
        check(cudaEventRecord(uploaded_[i], upload_stream_), "cudaEventRecord");
        check(cudaStreamWaitEvent(stream_, uploaded_[i], 0), "cudaStreamWaitEvent");
        inject_launch_error("expand_zero_one");
        ntt::cuda::expand_zero_one(targets[i], n, {z.size, kinds, offsets, others}, stream_);
      } else {
        upload(targets[i], src.data(), src.size() * sizeof(Fr), prepared, dma_from_locked);
        if (src.size() < n) {
          check(cudaMemsetAsync(targets[i] + src.size(), 0, (n - src.size()) * sizeof(Fr), upload_stream_),
                "zero padding");
        }
        check(cudaEventRecord(uploaded_[i], upload_stream_), "cudaEventRecord");
        check(cudaStreamWaitEvent(stream_, uploaded_[i], 0), "cudaStreamWaitEvent");
      }
      if (step < 2) {
        inject_launch_error("coset NTT");
        domain.coset_evaluations(targets[i]);
      }
      if (step == 1) {
        inject_launch_error("h_product");
        domain.h_product(v.a, v.b);
      }
    }
    inject_launch_error("h_finish");
    domain.h_finish(v.a, v.c);
    return dma_from_locked;
  }

  // A witness-only circuit's matrices on this device, uploaded on first use. New matrices: the
  // set's plan is made again after them, so that it counts them (once a circuit): the set is
  // placed again (its bases go up again), or, when its host copy was given back, kept where the
  // new plan has room for all its bases.
  const r1cs::cuda::DeviceCompiledCircuit& place_matrices_locked(
      const Parameters& params, const std::shared_ptr<const r1cs::CompiledCircuit>& compiled) {
    if (!matrices_.has(compiled)) {
      ahead_.release();  // the set's plan is made again, with a second witness buffer where it has room
      resident_.set_witness_only(params, true);
      const bool kept = resident_.host_released(params);
      if (!kept) resident_.release(params, /*restore_host=*/true);
      inject_device_oom("cudaMalloc of the compiled circuit's matrices");
      matrices_.get(compiled, upload_stream_);
      resident_.set_outside_bytes(matrices_.bytes());
      if (kept) resident_.replan(params, buffers_held());
    }
    return matrices_.get(compiled, upload_stream_);
  }

  // Steps 1 and 2 of a witness-only assignment: the witness (aux, then the inputs) goes up once
  // (aux_landed: aux went up ahead), where the MSMs read it later, and a, b and c are its products
  // with the resident matrices (abc_products.hpp). t.abc: the upload's wall time and the products'
  // device time.
  void abc_on_device(const ntt::cuda::DeviceDomain& domain, const r1cs::cuda::DeviceCompiledCircuit& matrices,
                     r1cs::ProvingAssignment& pa, const PreparedAbc* prepared, const ProofVectors& v, bool aux_landed,
                     ProveTimings& t) {
    pa.check_matches_compiled();
    const auto t0 = Clock::now();
    upload_witness(pa, v, prepared, aux_landed);
    const double upload = seconds_since(t0);
    t.abc = upload + products_->h_polynomial(domain, matrices, v.aux, v.a, v.b);
  }

  // Step 3's upload: aux and the inputs go up once, by another thread, behind a/b/c on the upload
  // stream: while the H polynomial and H's MSM run (the copy engine and the host's cores are idle
  // then); L, A, B_G1 and B_G2 all read them there. The thread starts before a/b/c are released:
  // their free (on the deallocation thread) holds the process's address-space lock, and a
  // thread's creation (its stack is mapped) waits for it (docs/perf-history.md, "Compact a/b/c").
  std::future<void> start_witness_upload(const r1cs::ProvingAssignment& pa, const ProofVectors& v) {
    return std::async(std::launch::async, [this, &pa, v] {
      set_device();
      upload_witness(pa, v);
    });
  }
  // aux goes by DMA where prepare_assignment page-locked it (a witness-only assignment's), else
  // through the staging pool; the inputs alone when aux_landed.
  void upload_witness(const r1cs::ProvingAssignment& pa, const ProofVectors& v, const PreparedAbc* prepared = nullptr,
                      bool aux_landed = false) {
    bool dma_from_locked = false;
    if (!aux_landed) upload(v.aux, pa.aux().data(), pa.num_aux() * sizeof(Fr), prepared, dma_from_locked);
    pool_.upload(v.inputs, pa.inputs().data(), pa.num_inputs() * sizeof(Fr), upload_stream_);
    check(cudaStreamSynchronize(upload_stream_), "witness upload");
  }

  int device_;
  CudaBackendOptions options_;
  ResidentParameters resident_;
  std::string device_name_;   // cudaDeviceProp::name
  size_t device_memory_ = 0;  // cudaDeviceProp::totalGlobalMem
  // Bytes of a/b/c locked by prepare_assignment and not yet unlocked.
  std::shared_ptr<std::atomic<size_t>> pinned_abc_bytes_ = std::make_shared<std::atomic<size_t>>(0);
  // Compact a/b/c copies between partitions (kept locked; shared with the preparations that hold them).
  std::shared_ptr<CompactCopies> compact_copies_ = std::make_shared<CompactCopies>(pinned_abc_bytes_);
  cudaStream_t stream_ = nullptr;
  cudaStream_t upload_stream_ = nullptr;  // a/b/c uploads, overlapping the NTTs on stream_
  cudaEvent_t uploaded_[3] = {};          // a, b, c landed on the device
  cudaEvent_t product_done_ = nullptr;    // overlaid: a b is formed, c may go up over b
  groth16::cuda::DeviceMemoryPlan plan_;  // the plan of the proof in progress
  std::mutex mutex_;
  cuzk::cuda::PinnedStagingPool pool_;
  std::unique_ptr<ntt::cuda::DeviceDomain> domain_;
  DeviceBuffer<Fr> scratch_;           // a, b, c, then aux and inputs (proof_vectors); the largest seen, reused
  DeviceBuffer<uint8_t> compact_;      // compact a/b/c as uploaded, before their expansion
  groth16::cuda::WitnessAhead ahead_;  // the next proof's witness, uploaded meanwhile
  std::unique_ptr<groth16::cuda::AbcProducts> products_;  // made on the device, in the constructor
  std::atomic<bool> ahead_ready_{false};                  // a second witness buffer is there (uploads_ahead)
  const Fr* witness_in_use_ = nullptr;                    // where the proof in progress reads its witness
  groth16::cuda::DeviceMatrices matrices_;                // witness-only circuits' matrices on the device
};

}  // namespace

int cuda_device_count() { return ntt::cuda::device_count(); }

std::unique_ptr<ProverBackend> make_cuda_backend(int device, const CudaBackendOptions& options) {
  std::string why;
  const int count = ntt::cuda::device_count(&why);
  if (count == 0) throw std::runtime_error("the CUDA backend cannot start: " + why);
  if (device < 0 || device >= count) {
    throw std::runtime_error("the CUDA backend cannot start: device " + std::to_string(device) + " does not exist (" +
                             std::to_string(count) + " present)");
  }
  return std::make_unique<CudaBackend>(device, options);
}

}  // namespace cuzk::groth16

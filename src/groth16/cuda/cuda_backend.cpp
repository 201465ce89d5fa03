// The CUDA ProverBackend: prove_start on one device.
//   1. a, b, c go up once (zero-padded on the device), b first: in compact form (ntt::
//      ZeroOneVector, expanded on the device) when prepare_assignment made one, by DMA from
//      page-locked memory when it locked it, else through the pinned staging pool; they are
//      released on the host as soon as they are on the device or in pinned memory;
//   2. the H polynomial runs on the device (6 NTTs and the pointwise steps), and H's MSM reads
//      its coefficients where they are;
//   3. the aux and input scalars go up once into the same device memory (a/b/c are done with)
//      and the L, A, B_G1 and B_G2 MSMs all read them there.
// Every parameter set's host memory is pinned (page-locked, so it uploads by DMA at full speed
// and can be uploaded again quickly) and its G1 and G2 bases stay resident on the device
// across proofs, H's with precomputed copies where device memory allows (CudaBackendOptions::
// h_copies); prove_finish is left with the assembly. The field is exact, so the
// PendingProof, and hence the proof for the same r and s, is the CPU backend's bit for bit.
#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <cuda_runtime.h>

#include "ff/cuda/cuda_check.hpp"
#include "groth16/backend.hpp"
#include "groth16/cuda/device_memory_plan.hpp"
#include "msm/cuda/msm.hpp"
#include "msm/pippenger.hpp"
#include "ntt/cuda/ntt.hpp"
#include "ntt/cuda/pinned_pool.hpp"
#include "ntt/zero_one_vector.hpp"

namespace cuzk::groth16 {
namespace {

using cuzk::cuda::check;
using cuzk::cuda::DeviceBuffer;
using groth16::cuda::device_memory_margin;
using groth16::cuda::HCopiesPlan;
using groth16::cuda::plan_h_copies;
using groth16::cuda::proof_working_bytes;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Page-locks host ranges for as long as any holder wants them. Several backends (one per
// device) share one parameter set, and CUDA refuses to register a range twice, so the
// registrations are counted process-wide. Pinning is an optimisation: when the driver refuses
// (e.g. not enough lockable memory) the range stays pageable and uploads are slower.
class HostPins {
 public:
  static HostPins& instance() {
    static auto* pins = new HostPins;  // never destroyed: holders may outlive static destructors
    return *pins;
  }
  // True when the range is pinned after the call.
  bool pin(const void* p, size_t bytes) {
    if (!p || !bytes) return false;
    std::lock_guard lock(mutex_);
    auto& e = ranges_[p];
    if (e.holders++ == 0) {
      const cudaError_t err = cudaHostRegister(const_cast<void*>(p), bytes, cudaHostRegisterPortable);
      e.pinned = err == cudaSuccess;
      if (!e.pinned) {
        cudaGetLastError();  // not sticky, but leave no error behind for the next check
        std::fprintf(stderr, "cuzk: could not pin %zu MiB of parameters (%s); uploading them from pageable memory\n",
                     bytes >> 20, cudaGetErrorString(err));
      }
    }
    return e.pinned;
  }
  void unpin(const void* p) {
    if (!p) return;
    std::lock_guard lock(mutex_);
    auto it = ranges_.find(p);
    if (it == ranges_.end() || --it->second.holders) return;
    if (it->second.pinned) cudaHostUnregister(const_cast<void*>(p));
    ranges_.erase(it);
  }

 private:
  struct Entry {
    unsigned holders = 0;
    bool pinned = false;
  };
  std::mutex mutex_;
  std::map<const void*, Entry> ranges_;
};

// Smaller vectors may share pages with other heap blocks (CUDA registers whole pages and
// refuses overlaps) and upload quickly anyway; glibc maps blocks above 32 MiB on their own.
constexpr size_t kMinPinnedBytes = size_t(32) << 20;

// a/b/c are page-locked in pieces that end at multiples of this address (a multiple of the
// 4 KiB and 2 MiB pages; with 1 GiB pages a shared page makes the registration fail, and a/b/c
// go through the staging pool). cudaHostRegister and cudaHostUnregister hold the driver for the length of their range
// (~0.2-0.5 s for a 2^27 partition's 12.9 GB on the H200 machine), and the CUDA calls of other
// threads wait meanwhile: the prover's, when a synthesis thread locks a partition or the
// deallocation thread unlocks one (seen there: H's MSM 0.70 -> 0.90 s with a/b/c unlocked whole
// beside it, its kernels no slower). In pieces, with a pause between them so that a waiting call
// gets in, a call waits for one piece at most (a few ms). The DMAs are split at the same
// addresses, one per registration.
constexpr size_t kPinPieceBytes = size_t(64) << 20;
constexpr auto kPinPause = std::chrono::microseconds(200);

// Calls f(offset, bytes) for the pieces of [p, p + bytes) that end at multiples of
// kPinPieceBytes (as addresses): the ranges of PieceLocks' registrations.
template <class F>
void for_each_pin_piece(const void* p, size_t bytes, F&& f) {
  const auto begin = reinterpret_cast<uintptr_t>(p);
  size_t offset = 0;
  while (offset < bytes) {
    const uintptr_t next = ((begin + offset) / kPinPieceBytes + 1) * kPinPieceBytes;
    const size_t piece = std::min<size_t>(bytes - offset, next - (begin + offset));
    f(offset, piece);
    offset += piece;
  }
}

// Host ranges page-locked in pieces (for_each_pin_piece) until this object dies; counter holds
// the bytes locked by live objects (shared: they may outlive the backend that made them).
class PieceLocks {
 public:
  explicit PieceLocks(std::shared_ptr<std::atomic<size_t>> counter) : counter_(std::move(counter)) {}
  PieceLocks(const PieceLocks&) = delete;
  PieceLocks& operator=(const PieceLocks&) = delete;
  // Runs on whichever thread frees a/b/c (the engine's deallocation thread, or the prover's when
  // there is no sink): a failure is reported once and not left behind for that thread's next check.
  ~PieceLocks() {
    for (size_t i = 0; i < pieces_.size(); i++) {
      if (i) std::this_thread::sleep_for(kPinPause);
      const cudaError_t err = cudaHostUnregister(pieces_[i].first);
      *counter_ -= pieces_[i].second;
      if (err != cudaSuccess) {
        cudaGetLastError();
        static std::once_flag once;
        std::call_once(once,
                       [&] { std::fprintf(stderr, "cuzk: could not unpin a/b/c (%s)\n", cudaGetErrorString(err)); });
      }
    }
  }

  // Locks [p, p + bytes) when it is at least kMinPinnedBytes (smaller ranges may share pages
  // with other heap blocks, and upload quickly through the staging pool anyway). False when it
  // is smaller or the driver refuses; a refused range keeps no piece locked.
  bool lock(const void* p, size_t bytes) {
    if (!p || bytes < kMinPinnedBytes) return false;
    size_t count = 0;
    for_each_pin_piece(p, bytes, [&](size_t, size_t) { count++; });
    pieces_.reserve(pieces_.size() + count);  // no allocation between a registration and its record
    const size_t first = pieces_.size();
    auto* base = static_cast<char*>(const_cast<void*>(p));
    cudaError_t err = cudaSuccess;
    for_each_pin_piece(p, bytes, [&](size_t offset, size_t piece) {
      if (err != cudaSuccess) return;
      if (!pieces_.empty()) std::this_thread::sleep_for(kPinPause);
      err = cudaHostRegister(base + offset, piece, cudaHostRegisterPortable);
      if (err == cudaSuccess) {
        pieces_.push_back({base + offset, piece});
        *counter_ += piece;
      }
    });
    if (err == cudaSuccess) {
      ranges_.push_back(p);
      return true;
    }
    cudaGetLastError();  // leave no error behind for the next check
    static std::once_flag once;
    std::call_once(once, [&] {
      std::fprintf(stderr, "cuzk: could not pin a/b/c (%s); uploading them through the staging buffers\n",
                   cudaGetErrorString(err));
    });
    while (pieces_.size() > first) {
      cudaHostUnregister(pieces_.back().first);
      *counter_ -= pieces_.back().second;
      pieces_.pop_back();
    }
    cudaGetLastError();
    return false;
  }
  bool locked(const void* p) const { return std::find(ranges_.begin(), ranges_.end(), p) != ranges_.end(); }

 private:
  std::vector<std::pair<void*, size_t>> pieces_;  // the registrations and their bytes
  std::vector<const void*> ranges_;               // starts of the ranges locked whole
  std::shared_ptr<std::atomic<size_t>> counter_;  // bytes of live pieces, counted piece by piece
};

// Compact copies of a, b and c (ntt::ZeroOneVector), page-locked once and refilled by later
// preparations. cudaHostUnregister waits until the device has finished its work: beside a 2^27
// proof one unregistration blocked ~640 ms (until H's MSM ended) and the proof took 0.04 s longer
// (docs/PERF.md, "Unlocking a/b/c beside the proof"). So a preparation's copies come back here,
// still locked, when the deallocation thread drops them, and the next preparation of the same
// vector (a, b or c: their shapes differ) refills them in place. Idle copies are page-locked
// host memory: at most kIdlePerVector of each are kept (more are unlocked and freed), idle_bytes
// says how much they hold (the engine charges it to its host-memory budget) and trim() frees them.
class CompactCopies {
 public:
  struct Copy {
    ntt::ZeroOneVector vector;
    // On each array's whole capacity; declared last, so that they go first.
    std::unique_ptr<PieceLocks> kinds_lock, others_lock;
    Copy() = default;
    Copy(Copy&&) = default;
    // Assigning over a copy would free its arrays before their locks go.
    Copy& operator=(Copy&&) = delete;
    // Whether p starts one of its arrays' locked ranges.
    bool locked(const void* p) const {
      return (kinds_lock && kinds_lock->locked(p)) || (others_lock && others_lock->locked(p));
    }
  };
  static constexpr size_t kIdlePerVector = 2;

  explicit CompactCopies(std::shared_ptr<std::atomic<size_t>> counter) : counter_(std::move(counter)) {
    for (auto& idle : idle_) idle.reserve(kIdlePerVector);  // give_back does not allocate
  }

  // An idle copy of vector `which` (0 a, 1 b, 2 c), or a new empty one.
  Copy take(int which) {
    std::lock_guard lock(mutex_);
    auto& idle = idle_[which];
    if (idle.empty()) return Copy();
    Copy copy(std::move(idle.back()));
    idle.pop_back();
    idle_bytes_ -= copy.vector.bytes();
    return copy;
  }
  // Keeps the copy for a later take, unless kIdlePerVector are idle already (then it is unlocked
  // and freed here).
  void give_back(int which, Copy&& copy) {
    std::optional<Copy> dropped;  // unlocked and freed outside the lock
    {
      std::lock_guard lock(mutex_);
      auto& idle = idle_[which];
      if (idle.size() < kIdlePerVector) {
        const size_t bytes = copy.vector.bytes();
        idle.push_back(std::move(copy));
        idle_bytes_ += bytes;
        return;
      }
      dropped.emplace(std::move(copy));
    }
  }
  size_t idle_bytes() const { return idle_bytes_.load(); }
  void trim() {
    std::vector<Copy> dropped;
    {
      std::lock_guard lock(mutex_);
      for (auto& idle : idle_) {
        for (auto& copy : idle) dropped.push_back(std::move(copy));
        idle.clear();
      }
      idle_bytes_ = 0;
    }
  }

  // Fills copy with the compact form of v (false when v is not mostly 0/1), reusing its locked
  // arrays when they are large enough; an array that is not is unlocked and replaced (others with
  // room for others / 16 + one chunk more than this vector has: partitions of one circuit differ
  // a little), and locked once filled.
  bool fill(Copy& copy, std::span<const Fr> v) {
    ntt::ZeroOneVector& z = copy.vector;
    const bool compact = ntt::ZeroOneVector::compress_into(v, z, 0.5, [&](size_t words, size_t others) {
      if (words > z.kinds.capacity()) {
        copy.kinds_lock.reset();  // unlocked before the array goes
        ntt::LargeArray<uint32_t>().swap(z.kinds);
        z.kinds.reserve(words);
      }
      if (others > z.others.capacity()) {
        copy.others_lock.reset();
        ntt::LargeArray<Fr>().swap(z.others);
        z.others.reserve(others + others / 16 + ntt::ZeroOneVector::kChunk);
      }
    });
    if (compact) {
      lock(copy.kinds_lock, z.kinds.data(), z.kinds.capacity() * sizeof(uint32_t));
      lock(copy.others_lock, z.others.data(), z.others.capacity() * sizeof(Fr));
    }
    return compact;
  }

 private:
  // Locks [p, p + bytes) into held unless it holds that range already.
  void lock(std::unique_ptr<PieceLocks>& held, const void* p, size_t bytes) {
    if (held && held->locked(p)) return;
    held = std::make_unique<PieceLocks>(counter_);
    held->lock(p, bytes);
  }

  std::shared_ptr<std::atomic<size_t>> counter_;
  mutable std::mutex mutex_;
  std::vector<Copy> idle_[3];
  std::atomic<size_t> idle_bytes_{0};
};

// What prepare_assignment makes of an assignment's a, b and c, on the synthesis thread: for each
// vector that is mostly 0s and 1s its compact copy (the PoRep profile's b is all 0/1, a and c
// 75%), so that the first upload lands in ~1 ms instead of ~78 ms at 2^27 and a sixth of the
// bytes are page-locked; the other vectors' own memory is page-locked. When it goes, its
// compact copies go back to the CompactCopies they came from (still locked), and the other
// vectors' locks are released.
class PreparedAbc final : public r1cs::AbcPreparation {
 public:
  PreparedAbc(std::shared_ptr<std::atomic<size_t>> counter, std::shared_ptr<CompactCopies> copies)
      : copies_(std::move(copies)), locks(std::move(counter)) {}
  ~PreparedAbc() override {
    for (int i = 0; i < 3; i++) {
      if (compact[i]) copies_->give_back(i, std::move(*compact[i]));
    }
  }
  size_t host_bytes() const override {
    size_t bytes = 0;
    for (const auto& c : compact) bytes += c ? c->vector.bytes() : 0;
    return bytes;
  }
  // Whether p starts a range locked whole (a compact copy's array, or a vector's own memory).
  bool locked(const void* p) const {
    for (const auto& c : compact) {
      if (c && c->locked(p)) return true;
    }
    return locks.locked(p);
  }
  // Whether this was made from these vectors (prove_start checks before it trusts the copies).
  bool made_from(const r1cs::ProvingAssignment& pa) const {
    const r1cs::FrVector* vectors[3] = {&pa.a(), &pa.b(), &pa.c()};
    for (int i = 0; i < 3; i++) {
      if (vectors[i]->data() != source[i].first || vectors[i]->size() != source[i].second) return false;
    }
    return true;
  }

  std::shared_ptr<CompactCopies> copies_;
  std::pair<const Fr*, size_t> source[3];         // a, b, c as they were prepared
  std::optional<CompactCopies::Copy> compact[3];  // a, b, c's compact copies, where they pay
  PieceLocks locks;                               // on a, b, c themselves where not compact
};

// One parameter set's host vectors pinned for the lifetime of this object.
class PinnedParameters {
 public:
  explicit PinnedParameters(const Parameters& p) {
    add(p.h.data(), p.h.size() * sizeof(G1Affine));
    add(p.l.data(), p.l.size() * sizeof(G1Affine));
    add(p.a.data(), p.a.size() * sizeof(G1Affine));
    add(p.b_g1.data(), p.b_g1.size() * sizeof(G1Affine));
    add(p.b_g2.data(), p.b_g2.size() * sizeof(G2Affine));
  }
  ~PinnedParameters() {
    for (const void* p : held_) HostPins::instance().unpin(p);
  }
  PinnedParameters(const PinnedParameters&) = delete;
  PinnedParameters& operator=(const PinnedParameters&) = delete;
  size_t pinned_bytes() const { return pinned_bytes_; }

 private:
  void add(const void* p, size_t bytes) {
    if (!p || bytes < kMinPinnedBytes) return;
    held_.push_back(p);
    if (HostPins::instance().pin(p, bytes)) pinned_bytes_ += bytes;
  }
  std::vector<const void*> held_;
  size_t pinned_bytes_ = 0;
};

class CudaBackend final : public ProverBackend {
 public:
  CudaBackend(int device, const CudaBackendOptions& options) : device_(device), options_(options) {
    set_device();
    check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    check(cudaStreamCreateWithFlags(&upload_stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    for (auto& e : uploaded_) check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate");
  }
  ~CudaBackend() override {
    cudaSetDevice(device_);
    cudaStreamSynchronize(upload_stream_);
    cudaStreamSynchronize(stream_);
    resident_.clear();
    domain_.reset();
    scratch_.reset();
    compact_.reset();
    for (auto& e : uploaded_) cudaEventDestroy(e);
    cudaStreamDestroy(upload_stream_);
    cudaStreamDestroy(stream_);
  }

  std::string name() const override { return "cuda:" + std::to_string(device_); }

  PendingProof prove_start(const Parameters& params, r1cs::ProvingAssignment& pa, const Fr& r, const Fr& s,
                           ProveTimings* timings) override {
    std::lock_guard lock(mutex_);
    ProveTimings local;
    ProveTimings& t = timings ? *timings : local;
    const size_t m = pa.num_constraints();
    const auto log_n = log_domain(m);
    const size_t n = size_t(1) << log_n;
    check_assignment(params, pa, n);
    set_device();
    const Resident& res = resident_for(params);

    PendingProof out;
    out.r = r;
    out.s = s;
    auto t0 = Clock::now();
    const ntt::cuda::DeviceDomain& domain = domain_for(log_n);
    // One device buffer: a, b, c, then the witness scalars of the other MSMs (aux, inputs).
    Fr* a = scratch(3 * n + pa.num_aux() + pa.num_inputs());
    Fr* b = a + n;
    Fr* c = b + n;
    Fr* aux = c + n;
    Fr* inputs = aux + pa.num_aux();
    // a, b and c go up on their own stream; each one's transforms start when it has landed, so
    // the later uploads overlap the earlier transforms. b goes first: the PoRep circuits' b is
    // the most compact (all 0/1 in the synthetic profile), so the device waits least for it; c,
    // last, needs one transform (DeviceDomain::h_finish). A vector prepare_assignment compacted
    // goes up in that form and is expanded on the device; one it page-locked goes by DMA
    // straight from its memory; anything else through the staging pool, whose host copies take
    // the CPU's cores (34-45 GB/s on 16 cores against 55 GB/s of DMA, on the H200 machine).
    auto prepared = std::dynamic_pointer_cast<const PreparedAbc>(pa.abc_preparation());
    if (prepared && !prepared->made_from(pa)) prepared.reset();  // stale: a/b/c moved since
    const r1cs::FrVector* sources[3] = {&pa.a(), &pa.b(), &pa.c()};
    Fr* targets[3] = {a, b, c};
    bool dma_from_locked = false;  // then a/b/c's memory is read until the uploads land
    auto upload = [&](void* to, const void* from, size_t bytes) {
      if (prepared && prepared->locked(from)) {  // one DMA per locked piece
        dma_from_locked = true;
        const auto* src = static_cast<const char*>(from);
        auto* dst = static_cast<char*>(to);
        for_each_pin_piece(from, bytes, [&](size_t offset, size_t piece) {
          check(cudaMemcpyAsync(dst + offset, src + offset, piece, cudaMemcpyHostToDevice, upload_stream_),
                "a/b/c upload");
        });
      } else if (bytes) {
        pool_.upload(to, from, bytes, upload_stream_);
      }
    };
    // Device room for the compact copies, each array 256-byte aligned.
    size_t compact_bytes = 0;
    auto aligned = [](size_t bytes) { return (bytes + 255) / 256 * 256; };
    for (int i = 0; prepared && i < 3; i++) {
      if (const auto& copy = prepared->compact[i]) {
        const ntt::ZeroOneVector& v = copy->vector;
        compact_bytes +=
            aligned(v.kinds.size() * 4) + aligned(v.chunk_offsets.size() * 4) + aligned(v.others.size() * sizeof(Fr));
      }
    }
    auto* compact_area = compact_bytes ? compact_device(compact_bytes) : nullptr;
    std::future<void> witness_upload;
    try {
      constexpr int kOrder[3] = {1, 0, 2};  // b, a, c
      for (int step = 0; step < 3; step++) {
        const int i = kOrder[step];
        const r1cs::FrVector& src = *sources[i];
        if (prepared && prepared->compact[i]) {
          const ntt::ZeroOneVector& v = prepared->compact[i]->vector;
          auto* kinds = reinterpret_cast<uint32_t*>(compact_area);
          compact_area += aligned(v.kinds.size() * 4);
          auto* offsets = reinterpret_cast<uint32_t*>(compact_area);
          compact_area += aligned(v.chunk_offsets.size() * 4);
          auto* others = reinterpret_cast<Fr*>(compact_area);
          compact_area += aligned(v.others.size() * sizeof(Fr));
          upload(kinds, v.kinds.data(), v.kinds.size() * 4);
          upload(offsets, v.chunk_offsets.data(), v.chunk_offsets.size() * 4);
          upload(others, v.others.data(), v.others.size() * sizeof(Fr));
          check(cudaEventRecord(uploaded_[i], upload_stream_), "cudaEventRecord");
          check(cudaStreamWaitEvent(stream_, uploaded_[i], 0), "cudaStreamWaitEvent");
          ntt::cuda::expand_zero_one(targets[i], n, {v.size, kinds, offsets, others}, stream_);
        } else {
          upload(targets[i], src.data(), src.size() * sizeof(Fr));
          if (src.size() < n) {
            check(cudaMemsetAsync(targets[i] + src.size(), 0, (n - src.size()) * sizeof(Fr), upload_stream_),
                  "zero padding");
          }
          check(cudaEventRecord(uploaded_[i], upload_stream_), "cudaEventRecord");
          check(cudaStreamWaitEvent(stream_, uploaded_[i], 0), "cudaStreamWaitEvent");
        }
        if (step < 2) domain.coset_evaluations(targets[i]);
        if (step == 1) domain.h_product(a, b);
      }
      domain.h_finish(a, c);
      // aux and the inputs go up once, by another thread, behind a/b/c on the upload stream:
      // while the H polynomial and H's MSM run (the copy engine and the host's cores are idle
      // then); L, A, B_G1 and B_G2 all read them there. The thread starts before a/b/c are
      // released: their free (at 2^27 an unmap of 12.9 GB, on the deallocation thread) holds the
      // process's address-space lock, and a thread's creation (its stack is mapped) waits for
      // it (seen on the H200 machine: prove_start 0.09 s longer than its stages).
      witness_upload = std::async(std::launch::async, [&] {
        set_device();
        pool_.upload(aux, pa.aux().data(), pa.num_aux() * sizeof(Fr), upload_stream_);
        pool_.upload(inputs, pa.inputs().data(), pa.num_inputs() * sizeof(Fr), upload_stream_);
        check(cudaStreamSynchronize(upload_stream_), "witness upload");
      });
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
    domain.synchronize();
    t.h_ntt = seconds_since(t0);

    // Waiting for what is left of the witness upload is charged to L, the first MSM to read it.
    t0 = Clock::now();
    try {
      // H's coefficients are uniform field elements, so the window follows from n alone: a
      // fixed window also spares the MSM its counting pass and host round trip.
      // (Precomputed copies fix the window themselves.)
      const msm::MsmOptions uniform{.window_bits = res.h->window_bits() ? 0 : msm::cuda::gpu_window_bits(n - 1)};
      out.h = msm::cuda::msm(*res.h, 0, n - 1, static_cast<const Fr*>(a), uniform);
    } catch (...) {
      witness_upload.wait();  // it reads pa and the staging pool: let it finish first
      throw;
    }
    t.msm_h = seconds_since(t0);
    t0 = Clock::now();
    witness_upload.get();
    t.msm_l = seconds_since(t0);
    g1_msms_on_gpu(res, pa, aux, inputs, out, t);
    return out;
  }

  void prepare_assignment(r1cs::ProvingAssignment& pa) override {
    if (pa.abc_prepared()) return;
    // Small vectors (a, b and c are equally long) go through the staging pool about as fast.
    if (pa.a().size() * sizeof(Fr) < kMinPinnedBytes) return;
    // cudaHostRegister needs the runtime on this (synthesis) thread; best effort, as documented.
    if (cudaSetDevice(device_) != cudaSuccess) {
      cudaGetLastError();
      return;
    }
    try {
      auto prepared = std::make_shared<PreparedAbc>(pinned_abc_bytes_, compact_copies_);
      const r1cs::FrVector* vectors[3] = {&pa.a(), &pa.b(), &pa.c()};
      for (int i = 0; i < 3; i++) {
        prepared->source[i] = {vectors[i]->data(), vectors[i]->size()};
        CompactCopies::Copy copy = compact_copies_->take(i);
        if (compact_copies_->fill(copy, *vectors[i])) {
          prepared->compact[i].emplace(std::move(copy));
        } else {
          compact_copies_->give_back(i, std::move(copy));  // emptied, its memory kept for later
          prepared->locks.lock(vectors[i]->data(), vectors[i]->size() * sizeof(Fr));
        }
      }
      pa.set_abc_preparation(std::move(prepared));
    } catch (const std::exception& e) {  // e.g. no memory for the copies: prove_start stages a/b/c
      static std::once_flag once;
      std::call_once(once, [&] { std::fprintf(stderr, "cuzk: could not prepare a/b/c (%s)\n", e.what()); });
    }
  }

  void load_parameters(const Parameters& params) override {
    std::lock_guard lock(mutex_);
    set_device();
    resident_for(params);
    // The domain a proof with these parameters needs (H has n - 1 points).
    const size_t n = params.h.size() + 1;
    if (std::has_single_bit(n) && n > 1) domain_for(unsigned(std::countr_zero(n)));
  }

  void release_parameters(const Parameters& params) override {
    std::lock_guard lock(mutex_);
    auto it = resident_.find(&params);
    if (it == resident_.end()) return;
    resident_total_ -= it->second.bytes();
    set_device();
    resident_.erase(it);
  }

  // Read without the proof lock (status pages ask while a proof runs).
  size_t resident_bytes() const override { return resident_total_.load(); }
  size_t staging_bytes() const override { return pool_.bytes(); }
  size_t pinned_abc_bytes() const override { return pinned_abc_bytes_->load(); }
  size_t idle_host_bytes() const override { return compact_copies_->idle_bytes(); }
  void trim_host_memory() override { compact_copies_->trim(); }

 private:
  static unsigned log_domain(size_t m) {
    unsigned log_n = 0;
    while ((size_t(1) << log_n) < m) log_n++;
    if (log_n > ntt::cuda::DeviceDomain::kMaxLogSize) {
      throw std::invalid_argument("GPU prover: " + std::to_string(m) + " constraints exceed the largest GPU domain");
    }
    return log_n;
  }

  void set_device() const { check(cudaSetDevice(device_), "cudaSetDevice"); }

  // The domain of the last size proved (its twiddle table is 16 n bytes; kept across proofs).
  const ntt::cuda::DeviceDomain& domain_for(unsigned log_n) {
    if (!domain_ || domain_->log_size() != log_n) {
      domain_.reset();
      domain_ = std::make_unique<ntt::cuda::DeviceDomain>(log_n, stream_);
    }
    return *domain_;
  }

  // A device buffer of at least count elements, kept across proofs (grows, never shrinks).
  template <class T>
  static T* grown(DeviceBuffer<T>& buffer, size_t count) {
    if (buffer.size() < count) {
      buffer.reset();
      buffer = DeviceBuffer<T>(count);
    }
    return buffer.get();
  }
  Fr* scratch(size_t count) { return grown(scratch_, count); }
  // Device room for compact a/b/c (prepare_assignment), kept across proofs like scratch.
  uint8_t* compact_device(size_t bytes) { return grown(compact_, bytes); }

  struct Resident {
    std::unique_ptr<PinnedParameters> pinned;
    std::shared_ptr<msm::cuda::G1Bases> h, l, a, b_g1;
    std::shared_ptr<msm::cuda::G2Bases> b_g2;
    size_t bytes() const {
      return h->device_bytes() + l->device_bytes() + a->device_bytes() + b_g1->device_bytes() + b_g2->device_bytes();
    }
  };

  // Device bytes that proofs with the resident sets and `params` will still allocate: the
  // working set at the largest domain (proof_working_bytes) less what the workspace, scratch,
  // compact a/b/c and the twiddles already hold.
  size_t working_bytes_to_come(const Parameters& params) const {
    size_t n = params.h.size() + 1;
    for (const auto& [p, r] : resident_) n = std::max(n, p->h.size() + 1);
    const size_t held = msm::cuda::workspace_bytes(device_) + scratch_.size() * sizeof(Fr) + compact_.size() +
                        (domain_ ? domain_->table_bytes() : 0);
    const size_t need = proof_working_bytes(std::bit_ceil(n));
    return need > held ? need - held : 0;
  }

  // Free device memory as the copies' plan sees it: a card of options_.device_memory_bytes
  // when that is set and smaller, whose use is the card's.
  size_t free_device_memory(size_t* total = nullptr) const {
    size_t free_bytes = 0, total_bytes = 0;
    check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
    if (const size_t limit = options_.device_memory_bytes; limit && limit < total_bytes) {
      const size_t beyond = total_bytes - limit;
      free_bytes = free_bytes > beyond ? free_bytes - beyond : 0;
      total_bytes = limit;
    }
    if (total) *total = total_bytes;
    return free_bytes;
  }

  // The copies of params.h this set gets (options_.h_copies): the most whose extra memory fits
  // in what the card has free after this set's plain bases, the working set to come and the
  // margin. When not even the plain bases fit that way, the other sets' copies are dropped first.
  HCopiesPlan h_copies_for(const Parameters& params) {
    if (params.h.empty() || options_.h_copies == 1) return {};
    const size_t need = params.base_bytes() + working_bytes_to_come(params);
    size_t total = 0;
    size_t free_bytes = free_device_memory(&total);
    const size_t margin = device_memory_margin(total);
    if (free_bytes < need + margin && drop_h_copies()) free_bytes = free_device_memory();
    if (free_bytes < need + margin) return {};
    return plan_h_copies(params.h.size(), options_.h_copies, free_bytes - need - margin);
  }

  // Replaces every resident set's H copies by its plain bases (uploaded again from the pinned
  // host memory: ~0.3 s at 2^27). True when any were dropped. A set whose plain upload fails is
  // no longer resident (its next proof uploads it again) and the error goes to the caller.
  bool drop_h_copies() {
    bool dropped = false;
    for (auto it = resident_.begin(); it != resident_.end(); ++it) {
      auto& [p, r] = *it;
      if (r.h->copies() <= 1) continue;
      resident_total_ -= r.bytes();
      r.h.reset();  // first, so that the plain upload has the room
      try {
        r.h = msm::cuda::G1Bases::upload(device_, p->h);
      } catch (...) {
        resident_.erase(it);
        throw;
      }
      resident_total_ += r.bytes();
      std::fprintf(stderr, "cuzk: %s dropped the precomputed copies of H's bases (%zu points) for room\n",
                   name().c_str(), p->h.size());
      dropped = true;
    }
    return dropped;
  }

  // Pins a parameter set's host memory and uploads its bases on first use; later proofs reuse
  // them. The caller holds mutex_.
  const Resident& resident_for(const Parameters& params) {
    auto it = resident_.find(&params);
    if (it != resident_.end()) return it->second;
    const HCopiesPlan copies = h_copies_for(params);
    Resident r;
    r.pinned = std::make_unique<PinnedParameters>(params);
    // The plan rests on one reading of the free memory (other processes allocate too): when
    // the copies do not fit after all, H goes up plain.
    if (copies.copies > 1) {
      try {
        r.h =
            msm::cuda::G1Bases::upload(device_, params.h, {.window_bits = copies.window_bits, .copies = copies.copies});
        std::fprintf(stderr,
                     "cuzk: %s keeps %u copies of H's bases (%zu points, window %u, %u bucket sets, %.1f GB) made in "
                     "%.1f s\n",
                     name().c_str(), r.h->copies(), params.h.size(), r.h->window_bits(), r.h->bucket_sets(),
                     double(r.h->device_bytes()) / 1e9, (r.h->upload_ms() + r.h->precompute_ms()) / 1e3);
      } catch (const std::runtime_error& e) {
        cudaGetLastError();
        std::fprintf(stderr, "cuzk: %s could not make %u copies of H's bases (%s); keeping them plain\n",
                     name().c_str(), copies.copies, e.what());
      }
    }
    if (!r.h) r.h = msm::cuda::G1Bases::upload(device_, params.h);
    r.l = msm::cuda::G1Bases::upload(device_, params.l);
    r.a = msm::cuda::G1Bases::upload(device_, params.a);
    r.b_g1 = msm::cuda::G1Bases::upload(device_, params.b_g1);
    r.b_g2 = msm::cuda::G2Bases::upload(device_, params.b_g2);
    resident_total_ += r.bytes();
    return resident_.emplace(&params, std::move(r)).first->second;
  }

  // As g1_msms_on_cpu, over the resident bases and the witness in device memory: a and b_g1
  // hold inputs first, then aux.
  static void g1_msms_on_gpu(const Resident& res, const r1cs::ProvingAssignment& pa, const Fr* aux, const Fr* inputs,
                             PendingProof& out, ProveTimings& t) {
    auto view = [](const r1cs::DensityTracker& d) { return msm::DensityView{d.words(), d.size()}; };
    auto t0 = Clock::now();
    out.l = msm::cuda::msm(*res.l, 0, pa.num_aux(), aux);
    t.msm_l += seconds_since(t0);
    t0 = Clock::now();
    const size_t a_aux = pa.a_aux_density().count_ones();
    if (res.a->size() != pa.num_inputs() + a_aux) throw std::invalid_argument("a query does not fit the circuit");
    out.a_inputs = msm::cuda::msm(*res.a, 0, pa.num_inputs(), inputs);
    out.a_aux = msm::cuda::msm_with_density(*res.a, pa.num_inputs(), aux, view(pa.a_aux_density()));
    t.msm_a = seconds_since(t0);
    t0 = Clock::now();
    const size_t b_in = pa.b_input_density().count_ones();
    if (res.b_g1->size() != b_in + pa.b_aux_density().count_ones()) {
      throw std::invalid_argument("b_g1 query does not fit the circuit");
    }
    out.b_g1_inputs = msm::cuda::msm_with_density(*res.b_g1, 0, inputs, view(pa.b_input_density()));
    out.b_g1_aux = msm::cuda::msm_with_density(*res.b_g1, b_in, aux, view(pa.b_aux_density()));
    t.msm_b_g1 = seconds_since(t0);
    // B in G2 here too: the GPU G2 MSM beats the CPU tail 24-41x (docs/PERF.md), so
    // prove_finish is left with the assembly alone.
    t0 = Clock::now();
    if (res.b_g2->size() != res.b_g1->size()) throw std::invalid_argument("b_g2 query does not fit the circuit");
    ec::G2Jacobian b_g2 = msm::cuda::msm_with_density(*res.b_g2, 0, inputs, view(pa.b_input_density()));
    b_g2 += msm::cuda::msm_with_density(*res.b_g2, b_in, aux, view(pa.b_aux_density()));
    out.b_g2 = b_g2;
    t.msm_b_g2 = seconds_since(t0);
  }

  int device_;
  CudaBackendOptions options_;
  std::map<const Parameters*, Resident> resident_;
  std::atomic<size_t> resident_total_{0};  // device bytes of resident_, kept under mutex_
  // Bytes of a/b/c locked by prepare_assignment and not yet unlocked.
  std::shared_ptr<std::atomic<size_t>> pinned_abc_bytes_ = std::make_shared<std::atomic<size_t>>(0);
  // Compact a/b/c copies between partitions (kept locked; shared with the preparations that hold them).
  std::shared_ptr<CompactCopies> compact_copies_ = std::make_shared<CompactCopies>(pinned_abc_bytes_);
  cudaStream_t stream_ = nullptr;
  cudaStream_t upload_stream_ = nullptr;  // a/b/c uploads, overlapping the NTTs on stream_
  cudaEvent_t uploaded_[3] = {};          // a, b, c landed on the device
  std::mutex mutex_;
  cuzk::cuda::PinnedStagingPool pool_;
  std::unique_ptr<ntt::cuda::DeviceDomain> domain_;
  DeviceBuffer<Fr> scratch_;       // a, b, c (3 n), then aux and inputs; the largest seen, reused
  DeviceBuffer<uint8_t> compact_;  // compact a/b/c as uploaded, before their expansion
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

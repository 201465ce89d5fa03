// Multi-scalar multiplication on a CUDA device, over bases kept resident on that device.
// Host-callable; needs no CUDA headers. Same results (same group element) as the CPU msm.
//
// Method (see docs/ARCHITECTURE.md, "GPU MSM"): scalars leave Montgomery form on the device;
// zeros are dropped and ones keyed into one extra bucket (summed by plain mixed additions);
// the rest give signed Booth digits, one (bucket, point) pair per non-zero digit and window,
// which a CUB radix sort groups by bucket. Buckets are accumulated in XYZZ by threads that
// take equal slices of the sorted pairs (so long buckets cannot stall one thread), then each
// window's buckets are reduced (running sums over short segments, then halving steps:
// reduction_plan.hpp) and the windows combined on the host.
// G1's bucket arithmetic keeps Fp values in [0, 2p) (ff/cuda/lazy_mont.hpp) and reduces them
// fully when they reach the host.
// Bases uploaded with Precompute hold h copies [2^(t G c)] B, so windows share G = ceil(W / h)
// bucket sets (one with h = W) and fewer buckets are reduced.
//
// Every call makes the bases' device current (restoring the caller's), runs on that device's
// MSM stream with its grow-only workspace (calls on one device and lane are serialised: Lane) and returns once
// the result is on the host. set_phase_report prints per-phase device times to stderr.
// CUDA failures (no device, out of memory, launch errors) throw std::runtime_error with the CUDA
// error text; bad arguments throw std::invalid_argument (also a window_bits in the options that
// differs from the one of precomputed bases).
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>

#include "ec/curves.hpp"
#include "msm/pippenger.hpp"

namespace cuzk::msm::cuda {

// Number of CUDA devices, or 0 (with the reason in *why) when there is none or no driver.
int device_count(std::string* why = nullptr);

// Bits of a scalar the signed Booth windows cover (Fr's 255, and bit 255, always 0).
inline constexpr unsigned kScalarBits = 256;

// Precomputed multiples of resident bases. With window width c, W = ceil(256 / c) windows and
// h copies, G = ceil(W / h) bucket sets: copy t holds [2^(t G c)] B_i, and window w = t G + u
// of every scalar is keyed into bucket set u with base t of the copies, so only G bucket sets
// are accumulated and reduced (one with copies = W). The MSM must then use window c.
struct Precompute {
  unsigned window_bits = 0;  // 2..24; 0: gpu_precompute_window_bits(points, copies)
  unsigned copies = 0;       // h >= 1 (clamped to W); 0: one per window, a single bucket set
};

// Affine bases of one curve resident on one device (freed on destruction). The SRS is fixed,
// so a parameter set's bases are uploaded once and reused by every proof.
template <class Curve>
class Bases {
 public:
  using Affine = ec::AffinePoint<Curve>;

  // The points may be in host memory or in the device's own (copy 0 of other bases: a plain copy).
  static std::shared_ptr<Bases> upload(int device, std::span<const Affine> points);
  // Uploads the points and computes copies 1..h-1 on the device (doublings, then one inversion
  // per chunk of points): h times the device memory of a plain upload. copies * size must stay
  // below 2^31.
  static std::shared_ptr<Bases> upload(int device, std::span<const Affine> points, const Precompute& precompute);
  // Bases that stay in host memory, for a card that cannot hold them: each MSM uploads them chunk
  // by chunk while it runs (page-locked memory, e.g. cudaHostRegister'ed, goes up by DMA at the
  // bus's speed; pageable memory works, slower). The points must outlive the Bases.
  static std::shared_ptr<Bases> in_host_memory(int device, std::span<const Affine> points);
  ~Bases();
  Bases(const Bases&) = delete;
  Bases& operator=(const Bases&) = delete;

  int device() const { return device_; }
  size_t size() const { return size_; }
  // All copies: copies() * size() affine points (0 for bases in host memory).
  size_t device_bytes() const { return bytes_; }
  // Bases in host memory (in_host_memory): their points there, else null.
  bool streamed() const { return host_ != nullptr; }
  const Affine* host_data() const { return host_; }
  // The device array of copies() * size() affine points, copy t at t * size() (for the
  // implementation and for tests).
  const Affine* device_data() const { return data_; }
  // Wall time of the upload (allocation and copy), for the benchmark.
  double upload_ms() const { return upload_ms_; }
  // Window width fixed by the precomputation (0 for a plain upload), the number of copies h (1
  // for a plain upload), bucket sets G = ceil(W / h) and the precomputation's wall time.
  unsigned window_bits() const { return window_bits_; }
  unsigned copies() const { return copies_; }
  unsigned bucket_sets() const { return bucket_sets_; }
  double precompute_ms() const { return precompute_ms_; }

 private:
  Bases() = default;
  int device_ = 0;
  size_t size_ = 0, bytes_ = 0;
  Affine* data_ = nullptr;
  const Affine* host_ = nullptr;
  double upload_ms_ = 0, precompute_ms_ = 0;
  unsigned window_bits_ = 0, copies_ = 1, bucket_sets_ = 0;
};

using G1Bases = Bases<ec::G1Curve>;
using G2Bases = Bases<ec::G2Curve>;

// sum_{i < count} [scalars[i]] bases[offset + i]. host_scalars.size() must equal count.
template <class Curve>
ec::JacobianPoint<Curve> msm(const Bases<Curve>& bases, size_t offset, size_t count, std::span<const Fr> host_scalars,
                             const MsmOptions& options = {}, MsmStats* stats = nullptr);

// The same with the count scalars already in memory of the bases' device (e.g. H's
// coefficients from the GPU NTT). Work on the legacy default stream (e.g. a plain cudaMemcpy,
// which may return before its copy lands) is waited for; work on other streams that writes
// them must have finished (stream synchronized).
template <class Curve>
ec::JacobianPoint<Curve> msm(const Bases<Curve>& bases, size_t offset, size_t count, const Fr* device_scalars,
                             const MsmOptions& options = {}, MsmStats* stats = nullptr);

// As the CPU msm_with_density: bit i of density set means scalar i pairs with the next base,
// starting at bases[offset]; density.bits must equal the number of scalars, and
// offset + density.count_ones() must not exceed bases.size().
template <class Curve>
ec::JacobianPoint<Curve> msm_with_density(const Bases<Curve>& bases, size_t offset, std::span<const Fr> host_scalars,
                                          const DensityView& density, const MsmOptions& options = {},
                                          MsmStats* stats = nullptr);
template <class Curve>
ec::JacobianPoint<Curve> msm_with_density(const Bases<Curve>& bases, size_t offset, const Fr* device_scalars,
                                          const DensityView& density, const MsmOptions& options = {},
                                          MsmStats* stats = nullptr);

// The window width the GPU MSM uses for n bucketed (not 0/1) scalars.
unsigned gpu_window_bits(size_t n);
// The window width for precomputed bases of n points with the given copies (0: one per window).
unsigned gpu_precompute_window_bits(size_t n, unsigned copies);
// What Bases::upload(device, points, precompute) makes of n points, without a device: the window,
// the copies it keeps (at most the ones asked for: those some window uses) and the bucket sets.
// Throws std::invalid_argument where upload would (a window outside 2..24, copies * n >= 2^31).
struct PrecomputeShape {
  unsigned window_bits = 0, copies = 1, bucket_sets = 0;
};
PrecomputeShape precompute_shape(size_t n, const Precompute& precompute);

// Each device has two lanes of MSMs, each with its own workspace and streams: MSMs on one lane
// run one at a time, the two lanes beside each other. The urgent lane's streams have the
// device's greatest priority, so that the card schedules an urgent proof's blocks before the
// ordinary lane's waiting ones (a WinningPoSt beside a C2 partition's MSMs). A thread's MSMs and
// the workspace functions below use the ordinary lane unless a LaneScope says otherwise.
enum class Lane { kOrdinary, kUrgent };
class LaneScope {
 public:
  explicit LaneScope(Lane lane);
  ~LaneScope();
  LaneScope(const LaneScope&) = delete;
  LaneScope& operator=(const LaneScope&) = delete;

 private:
  Lane previous_;
};

// The MSM workspace of a device (of the calling thread's lane) is grow-only (scalars, pairs, sort buffers, buckets; ~37
// GB for one MSM of 2^27 scalars). workspace_bytes says how much it holds; release_workspace frees it (the next MSM on
// that device allocates again). Safe while no MSM runs on that device (it waits for one that does).
size_t workspace_bytes(int device);
void release_workspace(int device);
// The most device memory the workspace of a device may hold from now on (0: no limit, the
// default); what it holds beyond is freed. An MSM whose buffers would not fit is done in chunks
// of scalars (powers of two, at least 2^16), each an MSM of its own whose sum the host adds: the
// result is the same; each chunk adds one window reduction and host round trip (~1-3 ms). A limit
// below what a 2^16-scalar chunk needs (~30 MB, with bases in host memory ~60 MB) is exceeded by
// that much.
void set_workspace_limit(int device, size_t bytes);
size_t workspace_limit(int device);

// From now on, every MSM of the process prints its phases' device times to stderr (level 1: the
// upload, classify, emit, sort, accumulate, partials and reduce phases; 2: also each kernel of the
// partial levels and of the window reduction); 0 (the default) prints nothing. A tuning aid
// (`cuzk-bench --gpu-msm-phases 1|2 COMMAND`); the marks cost a few events per MSM.
void set_phase_report(unsigned level);

}  // namespace cuzk::msm::cuda

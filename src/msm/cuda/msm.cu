// The GPU MSM (see msm.hpp for the method): its host driver, the bases and the API. One nvcc
// translation unit with the kernels' headers (nvcc on 381-bit field code is slow, and the kernels
// are few); each header holds one step's kernels and their launch:
//   workspace.cuh     grow-only device memory and the streams of each device and lane
//   launch.cuh        block size and grid shapes
//   phases.cuh        per-phase device times (set_phase_report)
//   density.cuh       the density mask on the device
//   pairs.cuh         the window, (bucket, point) pairs per signed Booth digit, their radix sort
//   bucket_curve.cuh  the curve buckets are summed on (lazy Fp for G1)
//   accumulate.cuh    bucket sums over slices of the sorted pairs, then levels of partials
//   reduce.cuh        the window reduction (reduction_plan.hpp) and the host's Horner step
//   precompute.cuh    precomputed copies of the bases
//   chunks.cuh        MSMs cut into chunks to fit a workspace limit; bases streamed from the host
// (The window widths' cost models: window.cpp.)
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>

#include <cuda_runtime.h>

#include "cuda/check.hpp"
#include "cuda/device.hpp"
#include "ec/curves.hpp"
#include "msm/cuda/accumulate.cuh"
#include "msm/cuda/bucket_curve.cuh"
#include "msm/cuda/chunks.cuh"
#include "msm/cuda/density.cuh"
#include "msm/cuda/launch.cuh"
#include "msm/cuda/msm.hpp"
#include "msm/cuda/pairs.cuh"
#include "msm/cuda/phases.cuh"
#include "msm/cuda/precompute.cuh"
#include "msm/cuda/reduce.cuh"
#include "msm/cuda/workspace.cuh"

namespace cuzk::msm::cuda {
namespace {

using cuzk::cuda::check;
using cuzk::cuda::DeviceScope;

// The terms that have a base (all, or the density's set bits); throws std::invalid_argument
// when the call does not fit the bases or the options are out of range.
template <class Curve>
size_t checked_terms(const Bases<Curve>& bases, size_t offset, size_t count, const DensityView* density,
                     const MsmOptions& options) {
  size_t terms_with_base = count;
  if (density) {
    if (density->bits != count || density->words.size() * 64 < density->bits) {
      throw std::invalid_argument("GPU MSM: density describes " + std::to_string(density->bits) + " scalars, given " +
                                  std::to_string(count));
    }
    terms_with_base = density->count_ones();
  }
  if (offset > bases.size() || terms_with_base > bases.size() - offset) {
    throw std::invalid_argument("GPU MSM: bases [" + std::to_string(offset) + ", " +
                                std::to_string(offset + terms_with_base) + ") beyond the " +
                                std::to_string(bases.size()) + " resident ones");
  }
  if (terms_with_base >= (size_t(1) << 31)) throw std::invalid_argument("GPU MSM: more than 2^31 terms");
  if (options.window_bits && (options.window_bits < 2 || options.window_bits > 24)) {
    throw std::invalid_argument("GPU MSM: window width must be between 2 and 24 bits");
  }
  if (bases.window_bits() && options.window_bits && options.window_bits != bases.window_bits()) {
    throw std::invalid_argument("GPU MSM: window width " + std::to_string(options.window_bits) +
                                " asked of bases precomputed for " + std::to_string(bases.window_bits()));
  }
  return terms_with_base;
}

// Orders device scalars written on the legacy default stream before ws's stream (the MSM stream
// does not synchronise with it, and a plain cudaMemcpy from pageable memory may still be copying
// when it returns).
void wait_for_legacy_stream(Workspace& ws) {
  check(cudaEventRecord(ws.legacy_done, cudaStreamLegacy), "cudaEventRecord");
  check(cudaStreamWaitEvent(ws.stream, ws.legacy_done, 0), "cudaStreamWaitEvent");
}

// The host's sum of one pass's windows, shifted to the pass's first window (2^(c first)).
template <class Curve>
ec::JacobianPoint<Curve> shifted(ec::JacobianPoint<Curve> sum, unsigned bits) {
  for (unsigned i = 0; i < bits; i++) sum = sum.dbl();
  return sum;
}

// One MSM (or one chunk of one) on the bases' device over `points` (the bases' device array at
// the chunk's first base, or a slot of streamed bases): the scalars (and the density mask) go
// up, the window is chosen, the (bucket, point) pairs are emitted and sorted, the buckets summed
// and the windows reduced on the device, and the host combines the windows' sums. With
// windows_at_once (choose_window_group), that many windows a pass, the passes' sums added.
template <class Curve>
ec::JacobianPoint<Curve> run_one(Workspace& ws, const Bases<Curve>& bases, const ec::AffinePoint<Curve>* points,
                                 size_t count, const Fr* host_scalars, const Fr* device_scalars,
                                 const DensityView* density, size_t terms_with_base, const MsmOptions& options,
                                 MsmStats* stats, unsigned windows_at_once = 0) {
  using B = BucketCurve<Curve>;  // device bucket sums (lazy for G1: canonical() on the host)
  Phases phases(ws.stream);
  phases.mark("start");
  const Fr* scalars = device_scalars;
  if (host_scalars) {
    Fr* d = ws.scalars.get<Fr>(count);
    check(cudaMemcpyAsync(d, host_scalars, count * sizeof(Fr), cudaMemcpyHostToDevice, ws.stream), "scalar upload");
    scalars = d;
  }
  const DeviceDensity dd = density_on_device(ws, density, count);
  phases.mark("upload");

  auto* counters = ws.counters.get<unsigned long long>(kCounters);
  check(cudaMemsetAsync(counters, 0, kCounters * sizeof(unsigned long long), ws.stream), "memset");
  const Window w = choose_window(ws, phases, bases, options, scalars, count, dd, terms_with_base, counters);
  const unsigned per_pass = windows_at_once && !w.stride ? std::min(windows_at_once, w.windows) : w.windows;
  ec::JacobianPoint<Curve> sum = ec::JacobianPoint<Curve>::infinity();
  for (unsigned first = 0; first < w.windows; first += per_pass) {
    const Window g = per_pass < w.windows ? window_group(w, first, per_pass) : w;
    if (first) check(cudaMemsetAsync(counters, 0, kCounters * sizeof(unsigned long long), ws.stream), "memset");
    const Pairs pairs = emit_all_pairs(ws, scalars, count, dd, g, options.split_zero_one && first == 0, counters);
    phases.mark("emit");
    if (stats && first == 0) {
      *stats = {terms_with_base, pairs.zeros, pairs.ones, terms_with_base - pairs.zeros - pairs.ones, w.c};
    }
    ec::XyzzPoint<B>* buckets = zeroed_buckets<B>(ws, g.ones_key + 1);
    if (pairs.count) {
      const SortedPairs sorted = sort_pairs(ws, pairs, g.ones_key);
      phases.mark("sort");
      accumulate_buckets<B>(ws, phases, sorted.keys, AffineTerms<Curve>{points, sorted.vals}, pairs.count, buckets);
    }
    phases.mark("partials");
    const WindowSums<B> sums = reduce_windows<B>(ws, phases, buckets, g.sets, g.buckets, g.ones_key);
    phases.mark("reduce");
    check(cudaStreamSynchronize(ws.stream), "MSM");
    sum += shifted(combine_windows<Curve>(sums, g.sets, g.c), g.c * first);
  }
  phases.print(count, w.c);
  return sum;
}

// An MSM: whole, or in chunks when the workspace's limit or bases in host memory ask for them
// (chunks.cuh); the chunks' sums and statistics are added.
template <class Curve>
ec::JacobianPoint<Curve> run(const Bases<Curve>& bases, size_t offset, size_t count, const Fr* host_scalars,
                             const Fr* device_scalars, const DensityView* density, const MsmOptions& options,
                             MsmStats* stats) {
  const size_t terms_with_base = checked_terms(bases, offset, count, density, options);
  if (stats) *stats = {terms_with_base, 0, 0, 0, 0};
  if (count == 0 || terms_with_base == 0) return ec::JacobianPoint<Curve>::infinity();

  DeviceScope scope(bases.device());
  Workspace& ws = workspace(bases.device());
  std::lock_guard lock(ws.mutex);
  if (device_scalars) wait_for_legacy_stream(ws);
  const size_t chunk = choose_chunk(ws, bases, options, count, host_scalars != nullptr, density != nullptr);
  if (chunk >= count && !bases.streamed()) {
    return run_one(ws, bases, bases.device_data() + offset, count, host_scalars, device_scalars, density,
                   terms_with_base, options, stats);
  }
  // Too large to run whole: a few of the whole MSM's windows a pass where one fits, else chunks.
  if (const unsigned group =
          choose_window_group(ws, bases, options, count, host_scalars != nullptr, density != nullptr)) {
    return run_one(ws, bases, bases.device_data() + offset, count, host_scalars, device_scalars, density,
                   terms_with_base, options, stats, group);
  }
  const std::vector<Chunk> chunks = cut_chunks(offset, count, density, chunk);
  const MsmOptions chunk_opts = chunk_options(bases, options, chunk, count);
  std::optional<StreamedBases<Curve>> streamed;
  if (bases.streamed()) streamed.emplace(ws, bases, chunks);
  ec::JacobianPoint<Curve> sum = ec::JacobianPoint<Curve>::infinity();
  for (size_t i = 0; i < chunks.size(); i++) {
    const Chunk& c = chunks[i];
    DensityView part;
    if (density) part = {density->words.subspan(c.first / 64, (c.count + 63) / 64), c.count};
    const ec::AffinePoint<Curve>* points = streamed ? streamed->bases_of(i) : bases.device_data() + c.base;
    MsmStats s;
    sum += run_one(ws, bases, points, c.count, host_scalars ? host_scalars + c.first : nullptr,
                   device_scalars ? device_scalars + c.first : nullptr, density ? &part : nullptr, c.terms, chunk_opts,
                   &s);
    if (stats) {
      stats->zeros += s.zeros;
      stats->ones += s.ones;
      stats->bucketed += s.bucketed;
      stats->window_bits = std::max(stats->window_bits, s.window_bits);
    }
  }
  return sum;
}

// Throws std::runtime_error naming the device (and why there is none) unless it exists.
void require_device(int device) {
  std::string why;
  const int n = cuzk::cuda::device_count(&why);
  if (device < 0 || device >= n) {
    throw std::runtime_error("GPU MSM: no CUDA device " + std::to_string(device) + (why.empty() ? "" : ": " + why));
  }
}

}  // namespace

int device_count(std::string* why) { return cuzk::cuda::device_count(why); }

size_t workspace_bytes(int device) {
  Workspace* ws = existing_workspace(device);
  if (!ws) return 0;
  std::lock_guard lock(ws->mutex);
  return ws->held_bytes();
}

void release_workspace(int device) {
  Workspace* ws = existing_workspace(device);
  if (!ws) return;
  std::lock_guard lock(ws->mutex);  // waits for an MSM in progress on this device
  DeviceScope scope(device);
  check(cudaStreamSynchronize(ws->copy_stream), "release_workspace");
  check(cudaStreamSynchronize(ws->stream), "release_workspace");
  ws->for_each_buffer([](Buffer& b) { b.release(); });
}

void set_workspace_limit(int device, size_t bytes) {
  require_device(device);
  DeviceScope scope(device);  // a workspace made here has its streams on its device
  Workspace& ws = workspace(device);
  std::lock_guard lock(ws.mutex);  // waits for an MSM in progress on this device
  ws.limit = bytes;
  if (!bytes || ws.held_bytes() <= bytes) return;
  check(cudaStreamSynchronize(ws.copy_stream), "set_workspace_limit");
  check(cudaStreamSynchronize(ws.stream), "set_workspace_limit");
  ws.for_each_buffer([](Buffer& b) { b.release(); });
}

size_t workspace_limit(int device) {
  Workspace* ws = existing_workspace(device);
  if (!ws) return 0;
  std::lock_guard lock(ws->mutex);
  return ws->limit;
}

void set_phase_report(unsigned level) { phase_report_level = level; }

LaneScope::LaneScope(Lane lane) : previous_(current_lane) { current_lane = lane; }
LaneScope::~LaneScope() { current_lane = previous_; }

template <class Curve>
std::shared_ptr<Bases<Curve>> Bases<Curve>::upload(int device, std::span<const Affine> points) {
  const auto t0 = std::chrono::steady_clock::now();
  require_device(device);
  DeviceScope scope(device);
  std::shared_ptr<Bases> b(new Bases);
  b->device_ = device;
  b->size_ = points.size();
  b->bytes_ = std::max<size_t>(points.size_bytes(), 1);
  check(cudaMalloc(&b->data_, b->bytes_), "cudaMalloc of the bases");
  if (!points.empty()) {
    // Default: the points may be in host memory or already on the device (unified addressing).
    check(cudaMemcpy(b->data_, points.data(), points.size_bytes(), cudaMemcpyDefault), "bases upload");
  }
  b->upload_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return b;
}

template <class Curve>
std::shared_ptr<Bases<Curve>> Bases<Curve>::upload(int device, std::span<const Affine> points,
                                                   const Precompute& precompute) {
  const auto [c, copies, sets] = precompute_shape(points.size(), precompute);
  const auto t0 = std::chrono::steady_clock::now();
  require_device(device);
  DeviceScope scope(device);
  std::shared_ptr<Bases> b(new Bases);
  b->device_ = device;
  b->size_ = points.size();
  b->bytes_ = std::max<size_t>(copies * points.size_bytes(), 1);
  b->window_bits_ = c;
  b->copies_ = copies;
  b->bucket_sets_ = sets;
  check(cudaMalloc(&b->data_, b->bytes_), "cudaMalloc of the bases");
  const size_t n = points.size();
  if (n) check(cudaMemcpy(b->data_, points.data(), points.size_bytes(), cudaMemcpyDefault), "bases upload");
  const auto t1 = std::chrono::steady_clock::now();
  b->upload_ms_ = std::chrono::duration<double, std::milli>(t1 - t0).count();
  if (n && copies > 1) make_copies(b->data_, n, copies, sets * c);
  b->precompute_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t1).count();
  return b;
}

template <class Curve>
std::shared_ptr<Bases<Curve>> Bases<Curve>::in_host_memory(int device, std::span<const Affine> points) {
  require_device(device);
  std::shared_ptr<Bases> b(new Bases);
  b->device_ = device;
  b->size_ = points.size();
  b->host_ = points.empty() ? nullptr : points.data();
  return b;
}

template <class Curve>
Bases<Curve>::~Bases() {
  if (data_) {
    int previous = 0;
    cudaGetDevice(&previous);
    cudaSetDevice(device_);
    cudaFree(data_);
    cudaSetDevice(previous);
  }
}

template <class Curve>
ec::JacobianPoint<Curve> msm(const Bases<Curve>& bases, size_t offset, size_t count, std::span<const Fr> host_scalars,
                             const MsmOptions& options, MsmStats* stats) {
  if (host_scalars.size() != count) {
    throw std::invalid_argument("GPU MSM: " + std::to_string(host_scalars.size()) + " scalars for count " +
                                std::to_string(count));
  }
  return run<Curve>(bases, offset, count, host_scalars.data(), nullptr, nullptr, options, stats);
}

template <class Curve>
ec::JacobianPoint<Curve> msm(const Bases<Curve>& bases, size_t offset, size_t count, const Fr* device_scalars,
                             const MsmOptions& options, MsmStats* stats) {
  if (count && !device_scalars) throw std::invalid_argument("GPU MSM: null device scalars");
  return run<Curve>(bases, offset, count, nullptr, device_scalars, nullptr, options, stats);
}

template <class Curve>
ec::JacobianPoint<Curve> msm_with_density(const Bases<Curve>& bases, size_t offset, std::span<const Fr> host_scalars,
                                          const DensityView& density, const MsmOptions& options, MsmStats* stats) {
  return run<Curve>(bases, offset, host_scalars.size(), host_scalars.data(), nullptr, &density, options, stats);
}

template <class Curve>
ec::JacobianPoint<Curve> msm_with_density(const Bases<Curve>& bases, size_t offset, const Fr* device_scalars,
                                          const DensityView& density, const MsmOptions& options, MsmStats* stats) {
  if (density.bits && !device_scalars) throw std::invalid_argument("GPU MSM: null device scalars");
  return run<Curve>(bases, offset, density.bits, nullptr, device_scalars, &density, options, stats);
}

#define CUZK_INSTANTIATE_GPU_MSM(Curve)                                                                           \
  template class Bases<Curve>;                                                                                    \
  template ec::JacobianPoint<Curve> msm<Curve>(const Bases<Curve>&, size_t, size_t, std::span<const Fr>,          \
                                               const MsmOptions&, MsmStats*);                                     \
  template ec::JacobianPoint<Curve> msm<Curve>(const Bases<Curve>&, size_t, size_t, const Fr*, const MsmOptions&, \
                                               MsmStats*);                                                        \
  template ec::JacobianPoint<Curve> msm_with_density<Curve>(const Bases<Curve>&, size_t, std::span<const Fr>,     \
                                                            const DensityView&, const MsmOptions&, MsmStats*);    \
  template ec::JacobianPoint<Curve> msm_with_density<Curve>(const Bases<Curve>&, size_t, const Fr*,               \
                                                            const DensityView&, const MsmOptions&, MsmStats*);

CUZK_INSTANTIATE_GPU_MSM(ec::G1Curve)
CUZK_INSTANTIATE_GPU_MSM(ec::G2Curve)

}  // namespace cuzk::msm::cuda

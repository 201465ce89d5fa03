// How one MSM fits its device's workspace limit (set_workspace_limit) and reads bases kept in
// host memory (Bases::in_host_memory); part of the one translation unit msm.cu. An MSM over bases
// on the device whose buffers would not fit beside what the workspace holds buckets its windows a
// group at a time (choose_window_group): every scalar's digits of a few windows per pass, so it
// keeps the window of the whole MSM, and the pairs, buckets and reductions add up to the whole
// MSM's. Otherwise (streamed bases, precomputed copies, or not even one window of the whole fits)
// it is cut into chunks of scalars, each an MSM of its own over its slice of the scalars and of the
// bases (a density's ranks counted on the host), whose sums the host adds: a chunk takes the
// narrower window of its size (more pairs a scalar), one window reduction and one host round trip
// beyond its share of the work. Bases in host memory go up chunk by chunk on the workspace's copy
// stream into two slots, the next chunk's while this chunk's kernels run.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <vector>

#include <cuda_runtime.h>

#include "cuda/check.hpp"
#include "msm/cuda/accumulate.cuh"
#include "msm/cuda/bucket_curve.cuh"
#include "msm/cuda/msm.hpp"
#include "msm/cuda/pairs.cuh"
#include "msm/cuda/reduce.cuh"
#include "msm/cuda/workspace.cuh"

namespace cuzk::msm::cuda {
namespace {

using cuzk::cuda::check;

// The smallest chunk: a multiple of 64, so that a density's words split evenly, and large enough
// that a chunk's reduction stays small beside its accumulation.
constexpr size_t kMinChunk = size_t(1) << 16;
// Chunks of bases in host memory when no limit is set: ~400 MB a slot of G1 bases.
constexpr size_t kStreamedChunk = size_t(1) << 22;

using Needs = std::array<size_t, Workspace::kBuffers>;

// The options a chunk of k of an MSM's count scalars runs with. A window the caller fixed for the
// whole MSM (H's, from its size) is too wide for a chunk: its buckets would outweigh the chunk's
// pairs (2^16-scalar chunks of a 2^27 MSM spent 69 ms each reducing window-22 buckets). A chunk
// takes the window of its own size; a window fixed by precomputed bases stays.
template <class Curve>
MsmOptions chunk_options(const Bases<Curve>& bases, const MsmOptions& options, size_t k, size_t count) {
  MsmOptions o = options;
  if (o.window_bits && !bases.window_bits() && k < count) o.window_bits = gpu_window_bits(k);
  return o;
}

// Threads the card runs at once of the kernels whose grids size buffers (asked once per MSM).
template <class B, class Curve>
struct Occupancy {
  size_t level0 = resident_threads(accumulate<B, AffineTerms<Curve>>);
  size_t weigh = resident_threads(weigh_segments<B>);
};

// The most bytes each workspace buffer may take in an MSM of at most k scalars over these bases,
// sized as the MSM's steps size them (emit_all_pairs, sort_pairs, zeroed_buckets,
// accumulate_buckets, reduce_windows), for every window that up to k bucketed scalars may choose;
// with windows_at_once, for a pass that buckets at most that many windows (choose_window_group).
template <class Curve>
Needs chunk_needs(const Bases<Curve>& bases, const MsmOptions& options, size_t k, bool host_scalars, bool density,
                  const Occupancy<BucketCurve<Curve>, Curve>& occupancy, unsigned windows_at_once = 0) {
  using B = BucketCurve<Curve>;
  using Xyzz = ec::XyzzPoint<B>;
  using W = Workspace;
  size_t pairs = 0, buckets = 0, levels = 0;
  int key_bits = 0;
  auto consider = [&](size_t bucketed, unsigned c) {
    size_t windows = (kScalarBits + c - 1) / c;
    if (windows_at_once) windows = std::min<size_t>(windows, windows_at_once);
    const size_t sets = bases.window_bits() ? bases.bucket_sets() : windows;
    const size_t nb = size_t(1) << (c - 1);
    pairs = std::max(pairs, bucketed * windows + k);  // every digit non-zero, plus the ones
    buckets = std::max(buckets, sets * nb + 1);
    key_bits = std::max(key_bits, int(std::bit_width(sets * nb)));
    // A pass's last group may have fewer sets, whose reduction may take shorter segments (more
    // of them): every count of sets up to a pass's.
    for (size_t s = windows_at_once ? 1 : sets; s <= sets; s++) {
      const size_t m = std::min<size_t>(reduce_segment(s * nb, occupancy.weigh), nb);
      levels = std::max(levels, plan_reduction(nb / m, unsigned(s)).points);
    }
  };
  if (const unsigned c = bases.window_bits() ? bases.window_bits() : options.window_bits) {
    consider(k, c);
  } else {
    for (size_t b = k; b >= 1; b /= 2) consider(b, gpu_window_bits(b));
  }
  pairs = std::min(pairs, size_t(INT_MAX) - 1);
  size_t slots = 0;
  for (size_t p = pairs; p >= 1; p /= 2) {
    const size_t length = slice_length(p, occupancy.level0, level0_longest_slice(p));
    slots = std::max(slots, 2 * ((p + length - 1) / length));
  }
  const size_t words = (k + 63) / 64;
  size_t sort_bytes = 0, scan_bytes = 0, density_scan_bytes = 0;
  cub::DoubleBuffer<uint32_t> no_keys(nullptr, nullptr), no_vals(nullptr, nullptr);
  check(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, no_keys, no_vals, int(pairs), 0, key_bits), "sort size");
  check(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, static_cast<uint32_t*>(nullptr),
                                      static_cast<uint32_t*>(nullptr), slots),
        "scan size");
  if (density) {
    check(cub::DeviceScan::ExclusiveSum(nullptr, density_scan_bytes, static_cast<uint64_t*>(nullptr),
                                        static_cast<uint64_t*>(nullptr), words),
          "scan size");
  }
  Needs need{};
  need[W::kScalars] = host_scalars ? k * sizeof(Fr) : 0;
  for (size_t i : {W::kDensityWords, W::kDensityPopc, W::kDensityPrefix}) need[i] = density ? words * 8 : 0;
  need[W::kCounters] = kCounters * sizeof(unsigned long long);
  for (size_t i : {W::kKeys0, W::kKeys1, W::kVals0, W::kVals1}) need[i] = pairs * 4;
  need[W::kSortTemp] = sort_bytes;
  need[W::kBuckets] = buckets * sizeof(Xyzz);
  for (size_t i : {W::kSlotKeys, W::kFlags, W::kPositions, W::kPartKeys}) need[i] = slots * 4;
  for (size_t i : {W::kSlotVals, W::kPartVals}) need[i] = slots * sizeof(Xyzz);
  need[W::kScanTemp] = std::max(scan_bytes, density_scan_bytes);
  need[W::kLevels] = levels * sizeof(Xyzz);
  for (size_t i : {W::kStreamed0, W::kStreamed1}) need[i] = bases.streamed() ? k * sizeof(ec::AffinePoint<Curve>) : 0;
  for (size_t& n : need) n = n ? std::max<size_t>(n, 1) : 0;
  return need;
}

// The workspace's bytes once an MSM with these needs has run: buffers only grow.
size_t bytes_after(Workspace& ws, const Needs& need, bool keep_held) {
  size_t total = 0;
  const auto buffers = ws.buffers();
  for (size_t i = 0; i < Workspace::kBuffers; i++) total += std::max(keep_held ? buffers[i]->bytes() : 0, need[i]);
  return total;
}

// The largest chunk (count itself, or a power of two >= kMinChunk) whose MSM keeps the workspace
// within its limit. When freeing what the workspace holds allows a chunk more than twice as large,
// it is freed first (its buffers were sized by other MSMs). Without a limit: the whole MSM, or
// kStreamedChunk scalars at a time over bases in host memory.
template <class Curve>
size_t choose_chunk(Workspace& ws, const Bases<Curve>& bases, const MsmOptions& options, size_t count,
                    bool host_scalars, bool density) {
  if (!ws.limit) return bases.streamed() ? std::min(count, kStreamedChunk) : count;
  const Occupancy<BucketCurve<Curve>, Curve> occupancy;
  auto largest = [&](bool keep_held) {
    for (size_t k = std::bit_ceil(count);; k /= 2) {
      const size_t chunk = std::min(k, count);
      const Needs need =
          chunk_needs(bases, chunk_options(bases, options, chunk, count), chunk, host_scalars, density, occupancy);
      if (bytes_after(ws, need, keep_held) <= ws.limit || chunk <= kMinChunk) return chunk;
    }
  };
  const size_t beside = largest(true);
  if (beside >= count) return beside;  // the whole MSM fits: nothing to gain by freeing (the steady state)
  const size_t alone = largest(false);
  if (alone <= 2 * beside) return beside;
  check(cudaStreamSynchronize(ws.copy_stream), "MSM workspace");
  check(cudaStreamSynchronize(ws.stream), "MSM workspace");
  ws.for_each_buffer([](Buffer& b) { b.release(); });
  return alone;
}

// The most windows of the whole MSM over count scalars that one pass may bucket within the
// workspace's limit (at most all of them), over bases on the device without precomputed copies;
// 0 when not even one window fits (it goes in chunks then), or when there is no limit. The
// window is the whole MSM's: the options', else the widest its count may choose (a narrower one,
// chosen after the zeros and ones are counted, needs less a window). When freeing what the
// workspace holds allows more windows a pass, it is freed first.
template <class Curve>
unsigned choose_window_group(Workspace& ws, const Bases<Curve>& bases, const MsmOptions& options, size_t count,
                             bool host_scalars, bool density) {
  if (!ws.limit || bases.streamed() || bases.window_bits()) return 0;
  const Occupancy<BucketCurve<Curve>, Curve> occupancy;
  MsmOptions whole = options;
  if (!whole.window_bits) whole.window_bits = gpu_window_bits(count);
  const unsigned windows = (kScalarBits + whole.window_bits - 1) / whole.window_bits;
  auto most = [&](bool keep_held) {
    for (unsigned g = windows; g >= 1; g--) {
      const Needs need = chunk_needs(bases, whole, count, host_scalars, density, occupancy, g);
      if (bytes_after(ws, need, keep_held) <= ws.limit) return g;
    }
    return 0u;
  };
  const unsigned beside = most(true);
  if (beside == windows) return beside;
  const unsigned alone = most(false);
  if (alone <= beside) return beside;
  check(cudaStreamSynchronize(ws.copy_stream), "MSM workspace");
  check(cudaStreamSynchronize(ws.stream), "MSM workspace");
  ws.for_each_buffer([](Buffer& b) { b.release(); });
  return alone;
}

// A chunk of one MSM: scalars [first, first + count), bases [base, base + terms).
struct Chunk {
  size_t first = 0, count = 0, base = 0, terms = 0;
};

// The chunks of an MSM over count scalars from bases[offset], at most `chunk` scalars each
// (a multiple of 64 unless it is the whole).
inline std::vector<Chunk> cut_chunks(size_t offset, size_t count, const DensityView* density, size_t chunk) {
  std::vector<Chunk> chunks;
  size_t base = offset;
  for (size_t first = 0; first < count; first += chunk) {
    Chunk c{first, std::min(chunk, count - first), base, 0};
    c.terms =
        density ? DensityView{density->words.subspan(first / 64, (c.count + 63) / 64), c.count}.count_ones() : c.count;
    base += c.terms;
    if (c.terms) chunks.push_back(c);
  }
  return chunks;
}

// Bases in host memory, uploaded a chunk ahead into the workspace's two slots on its copy stream.
// The MSM stream synchronises at the end of each chunk, so the slot the next upload overwrites
// is no longer read.
template <class Curve>
class StreamedBases {
 public:
  using Affine = ec::AffinePoint<Curve>;
  StreamedBases(Workspace& ws, const Bases<Curve>& bases, const std::vector<Chunk>& chunks)
      : ws_(ws), host_(bases.host_data()), chunks_(chunks) {
    size_t most = 0;
    for (const Chunk& c : chunks) most = std::max(most, c.terms);
    for (int i = 0; i < 2; i++) slots_[i] = ws.streamed[i].get<Affine>(most);
    if (!chunks.empty()) upload(0);
  }
  // On an error no upload may still write the slots (or read host memory) after the MSM returns.
  ~StreamedBases() { cudaStreamSynchronize(ws_.copy_stream); }
  StreamedBases(const StreamedBases&) = delete;
  StreamedBases& operator=(const StreamedBases&) = delete;

  // Chunk i's bases on the device, once the MSM stream reaches them; starts chunk i + 1's upload.
  const Affine* bases_of(size_t i) {
    if (i + 1 < chunks_.size()) upload(i + 1);
    check(cudaStreamWaitEvent(ws_.stream, ws_.streamed_ready[i % 2], 0), "cudaStreamWaitEvent");
    return slots_[i % 2];
  }

 private:
  void upload(size_t i) {
    const Chunk& c = chunks_[i];
    check(cudaMemcpyAsync(slots_[i % 2], host_ + c.base, c.terms * sizeof(Affine), cudaMemcpyHostToDevice,
                          ws_.copy_stream),
          "streamed bases upload");
    check(cudaEventRecord(ws_.streamed_ready[i % 2], ws_.copy_stream), "cudaEventRecord");
  }

  Workspace& ws_;
  const Affine* host_;
  const std::vector<Chunk>& chunks_;
  Affine* slots_[2] = {};
};

}  // namespace
}  // namespace cuzk::msm::cuda

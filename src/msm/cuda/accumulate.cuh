// The GPU MSM's bucket sums (part of the one translation unit msm.cu): thread t sums the runs of
// its slice of the sorted pairs in XYZZ (level 0); runs that cross slice edges become partials,
// summed by the next level the same way until none is left. Every thread does the same work
// whatever the scalar distribution.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cub/device/device_scan.cuh>

#include <cuda_runtime.h>

#include "cuda/check.hpp"
#include "ec/point.hpp"
#include "msm/cuda/bucket_curve.cuh"
#include "msm/cuda/launch.cuh"
#include "msm/cuda/phases.cuh"
#include "msm/cuda/workspace.cuh"

namespace cuzk::msm::cuda {
namespace {

using cuzk::cuda::check;
using cuzk::cuda::check_launch;

// Level 0 of the bucket sums: the sorted pairs name affine bases (negated when the sign bit is set).
template <class Curve>
struct AffineTerms {
  using Term = ec::AffinePoint<Curve>;
  const ec::AffinePoint<Curve>* bases;
  const uint32_t* vals;
  __device__ __forceinline__ Term load(size_t j) const {
    const uint32_t v = vals[j];
    Term p = bases[v >> 1];
    if (v & 1) p = -p;
    return p;
  }
};

// Higher levels: partial sums of buckets that crossed slice boundaries.
template <class B>
struct XyzzTerms {
  using Term = ec::XyzzPoint<B>;
  const ec::XyzzPoint<B>* vals;
  __device__ __forceinline__ Term load(size_t j) const { return vals[j]; }
};

// Thread t sums the runs of equal keys in its slice [t L, t L + L) of n sorted terms. A run that
// lies inside the slice is its bucket's whole sum and is stored there; a run that continues into
// a neighbouring slice is stored as a partial in slot 2t (the slice's first run) or 2t + 1 (its
// last), flagged, to be summed by the next level.
template <class B, class Terms>
__device__ __forceinline__ void accumulate_slice(const uint32_t* keys, const Terms& terms, size_t n, unsigned L,
                                                 ec::XyzzPoint<B>* buckets, uint32_t* slot_keys,
                                                 ec::XyzzPoint<B>* slot_vals, uint32_t* flags) {
  using Xyzz = ec::XyzzPoint<B>;
  const size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const size_t start = t * L;
  if (start >= n) return;
  const size_t end = min(n, start + L);
  flags[2 * t] = 0;
  flags[2 * t + 1] = 0;
  const uint32_t before = start > 0 ? keys[start - 1] : UINT32_MAX;
  const uint32_t after = end < n ? keys[end] : UINT32_MAX;
  auto flush = [&](uint32_t key, size_t run_start, size_t run_end, const Xyzz& sum) {
    const bool open_left = run_start == start && before == key;
    const bool open_right = run_end == end && after == key;
    if (!open_left && !open_right) {
      buckets[key] = sum;
      return;
    }
    const size_t slot = 2 * t + (run_start == start ? 0 : 1);
    slot_keys[slot] = key;
    slot_vals[slot] = sum;
    flags[slot] = 1;
  };
  uint32_t current = keys[start];
  size_t run_start = start;
  Xyzz acc = Xyzz::infinity();
  for (size_t j = start; j < end; j++) {
    const uint32_t key = keys[j];
    if (key != current) {
      flush(current, run_start, j, acc);
      current = key;
      run_start = j;
      acc = Xyzz::infinity();
    }
    add_term(acc, terms.load(j));
  }
  flush(current, run_start, end, acc);
}

// Blocks of kThreads that must fit on a multiprocessor for level 0. For G1, 3 (at most 168
// registers a thread; ptxas would take 194 and fit 2 blocks, which is slower: docs/perf-history.md, GPU
// MSM, ninth pass). The partial levels (full additions, 250 registers) are left alone.
template <class B, class Terms>
constexpr int kAccumulateMinBlocks = 1;
template <class Terms>
constexpr int kAccumulateMinBlocks<LazyG1Curve, Terms> = 3;
template <>
constexpr int kAccumulateMinBlocks<LazyG1Curve, XyzzTerms<LazyG1Curve>> = 1;

template <class B, class Terms>
__global__ void __launch_bounds__(kThreads, kAccumulateMinBlocks<B, Terms>)
    accumulate(const uint32_t* keys, Terms terms, size_t n, unsigned L, ec::XyzzPoint<B>* buckets, uint32_t* slot_keys,
               ec::XyzzPoint<B>* slot_vals, uint32_t* flags) {
  accumulate_slice<B, Terms>(keys, terms, n, L, buckets, slot_keys, slot_vals, flags);
}

// The flagged slots, in order, for the next level. One thread per 16-byte word of a point, so that
// a warp reads and writes whole neighbouring points (stores a point apart were slower:
// docs/perf-history.md, GPU MSM, eleventh pass).
template <class B>
constexpr unsigned kPointWords = sizeof(ec::XyzzPoint<B>) / sizeof(uint4);

template <class B>
__global__ void compact(const uint32_t* flags, const uint32_t* positions, size_t slots, const uint32_t* slot_keys,
                        const ec::XyzzPoint<B>* slot_vals, uint32_t* keys_out, ec::XyzzPoint<B>* vals_out) {
  static_assert(sizeof(ec::XyzzPoint<B>) % sizeof(uint4) == 0, "points must be whole 16-byte words");
  const size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const size_t s = t / kPointWords<B>;
  const unsigned word = unsigned(t % kPointWords<B>);
  if (s >= slots || !flags[s]) return;
  const uint32_t at = positions[s];
  if (word == 0) keys_out[at] = slot_keys[s];
  reinterpret_cast<uint4*>(vals_out + at)[word] = reinterpret_cast<const uint4*>(slot_vals + s)[word];
}

// Terms per slice: at most `longest`, shortened so that the slices fill whole waves of the
// threads resident on the card (every thread adds about L terms, so a last wave that is half full
// costs as much as a full one: docs/perf-history.md, GPU MSM, eighth pass), but not below 8 (or
// `longest`): shorter slices leave more partials for the next level.
unsigned slice_length(size_t terms, size_t resident_threads, size_t longest) {
  if (resident_threads == 0) return unsigned(longest);
  const size_t waves = (terms + resident_threads * longest - 1) / (resident_threads * longest);
  const size_t even = (terms + resident_threads * waves - 1) / (resident_threads * waves);
  return unsigned(std::clamp<size_t>(even, std::min<size_t>(8, longest), longest));
}
// The longest level-0 slice: long enough to amortise the boundary partials, short enough to give
// the card about 2^18 threads (512 and 1024 against 256: docs/perf-history.md, GPU MSM, eleventh pass).
size_t level0_longest_slice(size_t pairs) { return std::clamp<size_t>(pairs >> 18, 8, 512); }
// Partials per thread at the levels above 0, at most (at least 4, so that each level at least
// halves the partials; 8 and 16 were no faster: docs/perf-history.md, GPU MSM, tenth pass).
constexpr unsigned kUpperSlice = 32;

// Every bucket of the MSM at infinity (ZZ = 0), on ws's stream.
template <class B>
ec::XyzzPoint<B>* zeroed_buckets(Workspace& ws, size_t count) {
  ec::XyzzPoint<B>* buckets = ws.buckets.get<ec::XyzzPoint<B>>(count);
  check(cudaMemsetAsync(buckets, 0, count * sizeof(ec::XyzzPoint<B>), ws.stream), "memset buckets");
  return buckets;
}

// Sums the sorted pairs (keys and the bases `terms` names) into their buckets: level 0, then
// levels over the partials until none is left.
template <class B, class Curve>
void accumulate_buckets(Workspace& ws, Phases& phases, const uint32_t* keys, const AffineTerms<Curve>& terms,
                        size_t pairs, ec::XyzzPoint<B>* buckets) {
  using Xyzz = ec::XyzzPoint<B>;
  cudaStream_t stream = ws.stream;
  const size_t level0_threads = resident_threads(accumulate<B, AffineTerms<Curve>>);
  unsigned L = slice_length(pairs, level0_threads, level0_longest_slice(pairs));
  size_t slices = (pairs + L - 1) / L;
  const size_t max_slots = 2 * slices;
  uint32_t* slot_keys = ws.slot_keys.get<uint32_t>(max_slots);
  Xyzz* slot_vals = ws.slot_vals.get<Xyzz>(max_slots);
  uint32_t* flags = ws.flags.get<uint32_t>(max_slots);
  uint32_t* positions = ws.positions.get<uint32_t>(max_slots);
  uint32_t* part_keys = ws.part_keys.get<uint32_t>(max_slots);
  Xyzz* part_vals = ws.part_vals.get<Xyzz>(max_slots);
  size_t scan_bytes = 0;
  check(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, flags, positions, max_slots, stream), "scan size");
  uint8_t* scan_temp = ws.scan_temp.get<uint8_t>(scan_bytes);

  accumulate<B, AffineTerms<Curve>>
      <<<blocks_for(slices), kThreads, 0, stream>>>(keys, terms, pairs, L, buckets, slot_keys, slot_vals, flags);
  check_launch("accumulate");
  phases.mark("accumulate");
  const size_t upper_threads = resident_threads(accumulate<B, XyzzTerms<B>>);
  for (;;) {
    const size_t slots = 2 * slices;
    check(cub::DeviceScan::ExclusiveSum(scan_temp, scan_bytes, flags, positions, slots, stream), "partial scan");
    uint32_t last[2];
    check(cudaMemcpyAsync(&last[0], positions + slots - 1, 4, cudaMemcpyDeviceToHost, stream), "download");
    check(cudaMemcpyAsync(&last[1], flags + slots - 1, 4, cudaMemcpyDeviceToHost, stream), "download");
    phases.detail("p-scan");
    check(cudaStreamSynchronize(stream), "partials");
    phases.detail("p-sync");
    const size_t partials = size_t(last[0]) + last[1];
    if (partials == 0) break;
    compact<B><<<blocks_for(slots * kPointWords<B>), kThreads, 0, stream>>>(flags, positions, slots, slot_keys,
                                                                            slot_vals, part_keys, part_vals);
    check_launch("compact");
    phases.detail("p-compact");
    L = slice_length(partials, upper_threads, kUpperSlice);
    slices = (partials + L - 1) / L;
    accumulate<B><<<blocks_for(slices), kThreads, 0, stream>>>(part_keys, XyzzTerms<B>{part_vals}, partials, L, buckets,
                                                               slot_keys, slot_vals, flags);
    check_launch("accumulate partials");
    phases.detail("p-level");
  }
}

}  // namespace
}  // namespace cuzk::msm::cuda

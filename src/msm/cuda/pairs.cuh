// The GPU MSM's (bucket, point) pairs: the window (with a pass that counts zeros and ones when
// it is not fixed), one pair per non-zero signed Booth digit, and their radix sort by bucket
// (part of the one translation unit msm.cu).
#pragma once

#include <algorithm>
#include <bit>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cub/device/device_radix_sort.cuh>
#include <limits>
#include <stdexcept>

#include <cuda_runtime.h>

#include "cuda/check.hpp"
#include "ff/bigint.hpp"
#include "ff/fr.hpp"
#include "msm/cuda/density.cuh"
#include "msm/cuda/launch.cuh"
#include "msm/cuda/msm.hpp"
#include "msm/cuda/phases.cuh"
#include "msm/cuda/workspace.cuh"

namespace cuzk::msm::cuda {
namespace {

using cuzk::cuda::check;
using cuzk::cuda::check_launch;
using ff::BigInt;

// Signed Booth digit of window w (width c), as the CPU msm computes it.
__device__ __forceinline__ int booth_digit(const BigInt<4>& k, unsigned w, unsigned c) {
  const int lo_bit = int(w * c) - 1;
  const unsigned start = lo_bit < 0 ? 0 : unsigned(lo_bit);
  uint64_t t = 0;
  if (start < kScalarBits) {
    const unsigned limb = start / 64, off = start % 64;
    t = k.limb[limb] >> off;
    if (off && limb + 1 < 4) t |= k.limb[limb + 1] << (64 - off);
  }
  if (lo_bit < 0) t <<= 1;
  t &= (uint64_t(1) << (c + 1)) - 1;
  const int low = int(t & 1);
  const int mid = int((t >> 1) & ((uint64_t(1) << (c - 1)) - 1));
  const int top = int((t >> c) & 1);
  return low + mid - (top << (c - 1));
}

// counter += the sum of value over the warp's lanes (one atomic per warp; every lane must call
// it). The kernels that count keep per-thread totals over a grid-stride loop and call this once
// at the end: atomics on one address serialise in L2 (docs/perf-history.md, GPU MSM, twelfth pass).
__device__ __forceinline__ void add_in_warp(unsigned long long* counter, unsigned value) {
  const unsigned n = __reduce_add_sync(0xffffffffu, value);
  if ((threadIdx.x & 31) == 0 && n) atomicAdd(counter, (unsigned long long)n);
}

// counters[0], counters[1] += the zeros and ones among the scalars that have a base.
// Grid-stride (launch one wave: stream_blocks).
__global__ void classify(const Fr* scalars, size_t count, DeviceDensity density, unsigned long long* counters) {
  unsigned zeros = 0, ones = 0;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x) {
    uint64_t base;
    if (!base_of(i, density, base)) continue;
    const BigInt<4> k = scalars[i].to_canonical();
    zeros += k.is_zero();
    ones += k == BigInt<4>::from_u64(1);
  }
  add_in_warp(&counters[0], zeros);
  add_in_warp(&counters[1], ones);
}

// One (key, value) pair per non-zero Booth digit of windows [first_window, first_window +
// windows) (first_window 0 with precomputed copies): window first_window + w, w = t sets + u (t = 0
// without precomputed copies, sets = windows) gives key = u * buckets + |digit| - 1 and value =
// (t stride + base) << 1 | sign, base t of the copies. With split_ones, a scalar 1 gives the single
// pair (ones_key, base) and a scalar 0 none. Pairs are counted at counters[3] and stored only
// below `capacity` (with a fixed window the buffer is sized before the count is known: the
// caller emits again into a larger one when the count says so). counters[4], counters[5] += the
// zeros and ones among the scalars with a base (the MSM's statistics).
// Grid-stride over blocks of kThreads consecutive scalars (launch one wave: stream_blocks). Each
// block reserves its pairs at counters[3] with one atomic and writes them window by window, the
// lanes with a digit in that window at consecutive positions (a ballot's rank), so every store
// is coalesced; the sort after it makes the order irrelevant (docs/perf-history.md, GPU MSM, sixth
// pass). A warp without a scalar to bucket skips the windows (B's scalars are all 0 or 1 in the
// PoRep profile, and its window is the narrowest: 64 windows of nothing).
__global__ void __launch_bounds__(kThreads)
    emit_pairs(const Fr* scalars, size_t count, DeviceDensity density, unsigned c, unsigned first_window,
               unsigned windows, unsigned sets, uint32_t stride, bool split_ones, size_t capacity, uint32_t* keys,
               uint32_t* vals, unsigned long long* counters) {
  __shared__ unsigned warp_offset[kThreads / 32];
  __shared__ unsigned long long block_start;
  const unsigned lane = threadIdx.x & 31, warp = threadIdx.x / 32;
  const unsigned below = (1u << lane) - 1;  // lanes before this one
  const uint32_t buckets = uint32_t(1) << (c - 1);
  const uint32_t ones_key = sets * buckets;
  unsigned zeros = 0, ones = 0;  // this thread's, for the statistics
  for (size_t first = size_t(blockIdx.x) * kThreads; first < count; first += size_t(gridDim.x) * kThreads) {
    const size_t i = first + threadIdx.x;
    BigInt<4> k = BigInt<4>::zero();  // stays 0 (no digits) unless bucketed
    uint64_t base = 0;
    unsigned n = 0;
    bool is_one = false, bucketed = false;
    if (i < count && base_of(i, density, base)) {
      const BigInt<4> canonical = scalars[i].to_canonical();
      const bool zero = canonical.is_zero(), one = canonical == BigInt<4>::from_u64(1);
      zeros += zero;
      ones += one;
      is_one = split_ones && one;
      bucketed = !zero && !is_one;
      if (is_one) n = 1;
      if (bucketed) {
        k = canonical;
        for (unsigned w = 0; w < windows; w++) n += booth_digit(k, first_window + w, c) != 0;
      }
    }
    // The block's pairs: warp totals, their offsets, one atomic.
    const unsigned total = __reduce_add_sync(0xffffffffu, n);
    if (lane == 0) warp_offset[warp] = total;
    __syncthreads();
    if (threadIdx.x == 0) {
      unsigned sum = 0;
      for (unsigned w = 0; w < kThreads / 32; w++) {
        const unsigned t = warp_offset[w];
        warp_offset[w] = sum;
        sum += t;
      }
      block_start = sum ? atomicAdd(&counters[3], (unsigned long long)sum) : 0;
    }
    __syncthreads();
    size_t pos = size_t(block_start) + warp_offset[warp];
    __syncthreads();           // read before the next round writes them
    if (total == 0) continue;  // the whole warp: no pairs
    const uint32_t v = uint32_t(base) << 1;
    const unsigned with_one = __ballot_sync(0xffffffffu, is_one);
    if (is_one) {
      const size_t at = pos + __popc(with_one & below);
      if (at < capacity) {
        keys[at] = ones_key;
        vals[at] = v;
      }
    }
    pos += __popc(with_one);
    if (!__any_sync(0xffffffffu, bucketed)) continue;
    for (unsigned w = 0, t = 0, u = 0; w < windows; w++) {
      const int d = booth_digit(k, first_window + w, c);
      const unsigned with = __ballot_sync(0xffffffffu, d != 0);
      if (d != 0) {
        const size_t at = pos + __popc(with & below);
        if (at < capacity) {
          keys[at] = u * buckets + uint32_t(d < 0 ? -d : d) - 1;
          vals[at] = (v + ((t * stride) << 1)) | uint32_t(d < 0);
        }
      }
      pos += __popc(with);
      if (++u == sets) {
        u = 0;
        t++;
      }
    }
  }
  add_in_warp(&counters[4], zeros);
  add_in_warp(&counters[5], ones);
}

// counters: [0], [1] the zeros and ones classify counts; [3] the pairs emit_pairs writes, [4],
// [5] the zeros and ones it counts.
constexpr unsigned kCounters = 6;

// One MSM's window and the bucket layout it gives (or one pass's: windows [first, first +
// windows) of the MSM's, window_group).
struct Window {
  bool fixed = false;             // by precomputed bases or the options: no classify pass
  size_t bucketed = 0, ones = 0;  // scalars with a bucket and ones (counted when not fixed)
  unsigned c = 0, first = 0, windows = 0;
  bool pass = false;    // one pass of a few windows (window_group)
  unsigned sets = 0;    // bucket sets: one per window, or G with precomputed copies (window t G + u in set u)
  uint32_t stride = 0;  // bases between copies (0 without)
  size_t buckets = 0;   // per set: 2^(c - 1)
  size_t ones_key = 0;  // the ones' bucket, after every set's
};

// The window: fixed by precomputed bases or the options, else chosen from the number of
// bucketed scalars, which a classify pass counts first when zeros and ones take no bucket
// (without the split every scalar with a base is bucketed). With a fixed window that pass and
// its host round trip are skipped (docs/perf-history.md, GPU MSM, eleventh pass): emit_sorted_pairs then
// sizes the pairs' buffers by emitting twice when needed.
template <class Curve>
Window choose_window(Workspace& ws, Phases& phases, const Bases<Curve>& bases, const MsmOptions& options,
                     const Fr* scalars, size_t count, const DeviceDensity& dd, size_t terms_with_base,
                     unsigned long long* counters) {
  cudaStream_t stream = ws.stream;
  Window w;
  w.fixed = bases.window_bits() || options.window_bits;
  w.bucketed = terms_with_base;
  if (!w.fixed && options.split_zero_one) {
    unsigned long long host_counters[kCounters];
    classify<<<stream_blocks(classify, count), kThreads, 0, stream>>>(scalars, count, dd, counters);
    check_launch("classify");
    check(cudaMemcpyAsync(host_counters, counters, sizeof(host_counters), cudaMemcpyDeviceToHost, stream), "download");
    check(cudaStreamSynchronize(stream), "classify");
    phases.mark("classify");
    w.ones = host_counters[1];
    w.bucketed = terms_with_base - host_counters[0] - w.ones;
  }
  w.c = bases.window_bits()   ? bases.window_bits()
        : options.window_bits ? options.window_bits
                              : gpu_window_bits(w.bucketed);
  w.windows = (kScalarBits + w.c - 1) / w.c;
  w.sets = bases.window_bits() ? bases.bucket_sets() : w.windows;
  w.stride = bases.window_bits() ? uint32_t(bases.size()) : 0;
  w.buckets = size_t(1) << (w.c - 1);
  w.ones_key = w.sets * w.buckets;
  return w;
}

// Windows [first, first + count) of w (no precomputed copies): one pass's buckets, one set a
// window, the ones' bucket after them (its pairs only in the first pass, split: they are the
// scalars' window 0).
inline Window window_group(const Window& w, unsigned first, unsigned count) {
  Window g = w;
  g.pass = true;
  g.first = first;
  g.windows = std::min(count, w.windows - first);
  g.sets = g.windows;
  g.ones = first == 0 ? w.ones : 0;
  g.ones_key = g.sets * g.buckets;
  return g;
}

// The emitted pairs: keys[0], vals[0] as emit_pairs wrote them, [1] the radix sort's second
// buffers; zeros and ones among the scalars with a base.
struct Pairs {
  size_t count = 0;
  uint32_t* keys[2] = {};
  uint32_t* vals[2] = {};
  size_t zeros = 0, ones = 0;
};

void require_fewer_pairs_than_int_max(size_t pairs) {
  if (pairs >= size_t(INT_MAX)) throw std::invalid_argument("GPU MSM: too many (bucket, point) pairs");
}

// Emits the pairs of w's windows into ws's buffers (split: the ones get the ones' bucket). After a
// classify pass their count is bounded beforehand;
// with a fixed window they go into the buffers as they are, and only when those hold too few
// (the first MSM of a size) are they emitted again into buffers of the counted size.
Pairs emit_all_pairs(Workspace& ws, const Fr* scalars, size_t count, const DeviceDensity& dd, const Window& w,
                     bool split, unsigned long long* counters) {
  cudaStream_t stream = ws.stream;
  size_t max_pairs = w.bucketed * w.windows + w.ones;  // a bound once the classify pass has run
  // A fixed window's pass takes the bound as it is (every scalar with a base counted bucketed),
  // within what choose_window_group planned, rather than emit again as its passes' counts grow.
  if (w.fixed && !w.pass) {
    max_pairs = std::numeric_limits<size_t>::max();
    for (Buffer* b : {&ws.keys[0], &ws.keys[1], &ws.vals[0], &ws.vals[1]}) {
      max_pairs = std::min(max_pairs, b->bytes() / sizeof(uint32_t));
    }
  } else {
    require_fewer_pairs_than_int_max(max_pairs);
  }
  Pairs p;
  unsigned long long host_counters[kCounters];
  auto emit = [&](size_t capacity) {
    p.keys[0] = ws.keys[0].get<uint32_t>(capacity);
    p.keys[1] = ws.keys[1].get<uint32_t>(capacity);
    p.vals[0] = ws.vals[0].get<uint32_t>(capacity);
    p.vals[1] = ws.vals[1].get<uint32_t>(capacity);
    emit_pairs<<<stream_blocks(emit_pairs, count), kThreads, 0, stream>>>(
        scalars, count, dd, w.c, w.first, w.windows, w.sets, w.stride, split, capacity, p.keys[0], p.vals[0], counters);
    check_launch("emit_pairs");
    check(cudaMemcpyAsync(host_counters, counters, sizeof(host_counters), cudaMemcpyDeviceToHost, stream), "download");
    check(cudaStreamSynchronize(stream), "emit_pairs");
    return size_t(host_counters[3]);
  };
  p.count = emit(max_pairs);
  if (p.count > max_pairs) {
    if (!w.fixed) throw std::runtime_error("GPU MSM: pair count overflow (internal error)");
    require_fewer_pairs_than_int_max(p.count);
    check(cudaMemsetAsync(counters + 3, 0, 3 * sizeof(unsigned long long), stream), "memset");
    max_pairs = p.count;
    p.count = emit(max_pairs);
    if (p.count != max_pairs) {
      throw std::runtime_error("GPU MSM: pair count changed between emissions (internal error)");
    }
  }
  require_fewer_pairs_than_int_max(p.count);
  p.zeros = split ? host_counters[4] : 0;
  p.ones = split ? host_counters[5] : 0;
  return p;
}

// The sorted keys and values.
struct SortedPairs {
  const uint32_t* keys;
  const uint32_t* vals;
};

// CUB's radix sort of the pairs on the keys' bits (up to the ones' bucket), on ws's stream.
SortedPairs sort_pairs(Workspace& ws, const Pairs& p, size_t ones_key) {
  cudaStream_t stream = ws.stream;
  cub::DoubleBuffer<uint32_t> dkeys(p.keys[0], p.keys[1]), dvals(p.vals[0], p.vals[1]);
  const int key_bits = std::bit_width(ones_key);
  size_t temp_bytes = 0;
  check(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, dkeys, dvals, int(p.count), 0, key_bits, stream),
        "sort size");
  check(cub::DeviceRadixSort::SortPairs(ws.sort_temp.get<uint8_t>(temp_bytes), temp_bytes, dkeys, dvals, int(p.count),
                                        0, key_bits, stream),
        "radix sort");
  return {dkeys.Current(), dvals.Current()};
}

}  // namespace
}  // namespace cuzk::msm::cuda

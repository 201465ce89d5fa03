// The GPU MSM (see msm.hpp for the method). One translation unit: nvcc on 381-bit field code is
// slow, and the kernels are few.
#include <algorithm>
#include <bit>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <limits>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "ec/curves.hpp"
#include "ff/cuda/cuda_check.hpp"
#include "ff/cuda/lazy_mont.hpp"
#include "msm/cuda/affine_rounds.hpp"
#include "msm/cuda/msm.hpp"
#include "msm/cuda/reduction_plan.hpp"

namespace cuzk::msm::cuda {
namespace {

using ff::BigInt;

constexpr unsigned kScalarBits = 256;  // Booth windows must cover bit 255 (always 0 for Fr)
constexpr unsigned kThreads = 128;

using cuzk::cuda::check;
using cuzk::cuda::check_launch;

unsigned blocks_for(size_t n) { return unsigned((n + kThreads - 1) / kThreads); }

// Makes `device` current for the scope of a call and restores the caller's device.
class DeviceScope {
 public:
  explicit DeviceScope(int device) {
    check(cudaGetDevice(&previous_), "cudaGetDevice");
    check(cudaSetDevice(device), "cudaSetDevice");
  }
  ~DeviceScope() { cudaSetDevice(previous_); }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int previous_ = 0;
};

// Device memory that only grows, so repeated MSMs of one size allocate nothing.
class Buffer {
 public:
  ~Buffer() {
    if (ptr_) cudaFree(ptr_);
  }
  template <class T>
  T* get(size_t count) {
    const size_t need = std::max<size_t>(count * sizeof(T), 1);
    if (need > bytes_) {
      if (ptr_) cudaFree(ptr_);
      ptr_ = nullptr;
      bytes_ = 0;
      check(cudaMalloc(&ptr_, need), "cudaMalloc of the MSM workspace");
      bytes_ = need;
    }
    return static_cast<T*>(ptr_);
  }
  size_t bytes() const { return bytes_; }
  void release() {
    if (ptr_) cudaFree(ptr_);
    ptr_ = nullptr;
    bytes_ = 0;
  }

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

// Scratch memory and stream of one device; MSMs on a device run one at a time (they would
// share the card anyway).
struct Workspace {
  std::mutex mutex;
  cudaStream_t stream = nullptr;
  cudaEvent_t legacy_done = nullptr;  // orders device scalars written on the legacy stream
  Buffer scalars, density_words, density_popc, density_prefix, counters;
  Buffer keys[2], vals[2], sort_temp;
  Buffer buckets, slot_keys, slot_vals, flags, positions, scan_temp, part_keys, part_vals;
  Buffer levels;
  Buffer affine_counts, affine_positions, affine_points[2];  // CUZK_GPU_MSM_AFFINE rounds

  template <class F>
  void for_each_buffer(F&& f) {
    for (Buffer* b : {&scalars,   &density_words, &density_popc,     &density_prefix,   &counters,        &keys[0],
                      &keys[1],   &vals[0],       &vals[1],          &sort_temp,        &buckets,         &slot_keys,
                      &slot_vals, &flags,         &positions,        &scan_temp,        &part_keys,       &part_vals,
                      &levels,    &affine_counts, &affine_positions, &affine_points[0], &affine_points[1]}) {
      f(*b);
    }
  }
};

std::mutex all_workspaces_mutex;
std::map<int, Workspace*> all_workspaces;  // never freed: the runtime may be gone at exit

Workspace& workspace(int device) {
  std::lock_guard lock(all_workspaces_mutex);
  Workspace*& ws = all_workspaces[device];
  if (!ws) {
    auto* fresh = new Workspace;
    cudaError_t err = cudaStreamCreateWithFlags(&fresh->stream, cudaStreamNonBlocking);
    if (err == cudaSuccess) err = cudaEventCreateWithFlags(&fresh->legacy_done, cudaEventDisableTiming);
    if (err != cudaSuccess) {
      if (fresh->stream) cudaStreamDestroy(fresh->stream);
      delete fresh;
      check(err, "cudaStreamCreate");
    }
    ws = fresh;
  }
  return *ws;
}

// ---- kernels ----------------------------------------------------------------------------------

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

// The density mask on the device: prefix[j] = set bits in words[0, j).
struct DeviceDensity {
  const uint64_t* words = nullptr;
  const uint64_t* prefix = nullptr;
};

// The base of scalar i relative to the MSM's first base; false when density bit i is clear.
__device__ __forceinline__ bool base_of(size_t i, const DeviceDensity& d, uint64_t& base) {
  if (!d.words) {
    base = i;
    return true;
  }
  const uint64_t word = d.words[i / 64];
  const unsigned bit = unsigned(i % 64);
  if (!((word >> bit) & 1)) return false;
  base = d.prefix[i / 64] + uint64_t(__popcll(word & ((uint64_t(1) << bit) - 1)));
  return true;
}

__global__ void popcount_words(const uint64_t* words, size_t n, uint64_t* out) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = uint64_t(__popcll(words[i]));
}

// counter += the sum of value over the warp's lanes (one atomic per warp; every lane must call
// it). The kernels that count keep per-thread totals over a grid-stride loop and call this once
// at the end: atomics on one address serialise in L2 (one per warp of 32 scalars, ~8 M at 2^27,
// cost ~5 ms on the H200 when most scalars were 0 or 1).
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

// One (key, value) pair per non-zero Booth digit: window w = t sets + u (t = 0 without
// precomputed copies, sets = windows) gives key = u * buckets + |digit| - 1 and value =
// (t stride + base) << 1 | sign, base t of the copies. With split_ones, a scalar 1 gives the single
// pair (ones_key, base) and a scalar 0 none. Pairs are counted at counters[3] and stored only
// below `capacity` (with a fixed window the buffer is sized before the count is known: the
// caller emits again into a larger one when the count says so). counters[4], counters[5] += the
// zeros and ones among the scalars with a base (the MSM's statistics).
// Grid-stride over blocks of kThreads consecutive scalars (launch one wave: stream_blocks). Each
// block reserves its pairs at counters[3] with one atomic and writes them window by window, the
// lanes with a digit in that window at consecutive positions (a ballot's rank), so every store
// is coalesced; the sort after it makes the order irrelevant. (Writing each scalar's pairs
// together took 4.2 ms at 2^24 with 12 windows on the H200: stores 48 bytes apart across the
// warp.) A warp without a scalar to bucket skips the windows (B's scalars are all 0 or 1 in the
// PoRep profile, and its window is the narrowest: 64 windows of nothing).
__global__ void __launch_bounds__(kThreads)
    emit_pairs(const Fr* scalars, size_t count, DeviceDensity density, unsigned c, unsigned windows, unsigned sets,
               uint32_t stride, bool split_ones, size_t capacity, uint32_t* keys, uint32_t* vals,
               unsigned long long* counters) {
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
        for (unsigned w = 0; w < windows; w++) n += booth_digit(k, w, c) != 0;
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
      const int d = booth_digit(k, w, c);
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

// The curve the buckets are summed on. G1's additions run on the lazy Fp (values in [0, 2p),
// ff/cuda/lazy_mont.hpp: no conditional subtraction after each product), and the sums are made
// canonical when they come back to the host; G2 keeps its Fp2. The kernels below that hold
// XYZZ points are instantiated with this curve, B.
struct LazyG1Curve {
  using Field = ff::LazyMont<ff::Fp>;
};
template <class Curve>
struct BucketCurveOf {
  using type = Curve;
};
template <>
struct BucketCurveOf<ec::G1Curve> {
  using type = LazyG1Curve;
};
template <class Curve>
using BucketCurve = typename BucketCurveOf<Curve>::type;

// An affine term in the buckets' field: the same words (a canonical value is a lazy one).
__device__ __forceinline__ ec::AffinePoint<LazyG1Curve> to_bucket_field(const ec::G1Affine& p) {
  return {{p.x.mont}, {p.y.mont}};
}
template <class Curve>
__device__ __forceinline__ const ec::AffinePoint<Curve>& to_bucket_field(const ec::AffinePoint<Curve>& p) {
  return p;
}
template <class B, class Curve>
__device__ __forceinline__ void add_term(ec::XyzzPoint<B>& acc, const ec::AffinePoint<Curve>& p) {
  acc = acc.add_mixed(to_bucket_field(p));
}
template <class B>
__device__ __forceinline__ void add_term(ec::XyzzPoint<B>& acc, const ec::XyzzPoint<B>& p) {
  acc = acc + p;
}

// A bucket sum downloaded from the device, fully reduced.
ec::G1Xyzz canonical(const ec::XyzzPoint<LazyG1Curve>& p) {
  return {p.X.canonical(), p.Y.canonical(), p.ZZ.canonical(), p.ZZZ.canonical()};
}
template <class Curve>
const ec::XyzzPoint<Curve>& canonical(const ec::XyzzPoint<Curve>& p) {
  return p;
}

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
// last), flagged, to be summed by the next level. With Prefetch, term j + 1 is loaded before
// term j is added (its memory latency overlaps the addition).
template <class B, class Terms, bool Prefetch>
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
  if constexpr (Prefetch) {
    typename Terms::Term next = terms.load(start);
    uint32_t next_key = current;
    for (size_t j = start; j < end; j++) {
      const typename Terms::Term term = next;
      const uint32_t key = next_key;
      if (j + 1 < end) {
        next = terms.load(j + 1);
        next_key = keys[j + 1];
      }
      if (key != current) {
        flush(current, run_start, j, acc);
        current = key;
        run_start = j;
        acc = Xyzz::infinity();
      }
      add_term(acc, term);
    }
  } else {
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
  }
  flush(current, run_start, end, acc);
}

// Blocks of kThreads that must fit on a multiprocessor for level 0. For G1, 3 (at most 168
// registers a thread): left to itself ptxas gives the lazy-Fp kernel 194 registers, and the 2
// blocks that fit then make it slower than the canonical-Fp kernel (H200, 2^24 precomputed:
// accumulation 81.1 ms with 2 blocks, 77.3 with 3 (16 bytes spilled), 79.1 before the lazy Fp).
// The partial levels (full additions, 250 registers) are left alone.
template <class B, class Terms>
constexpr int kAccumulateMinBlocks = 1;
template <class Terms>
constexpr int kAccumulateMinBlocks<LazyG1Curve, Terms> = 3;
template <>
constexpr int kAccumulateMinBlocks<LazyG1Curve, XyzzTerms<LazyG1Curve>> = 1;

template <class B, class Terms, bool Prefetch = false>
__global__ void __launch_bounds__(kThreads, kAccumulateMinBlocks<B, Terms>)
    accumulate(const uint32_t* keys, Terms terms, size_t n, unsigned L, ec::XyzzPoint<B>* buckets, uint32_t* slot_keys,
               ec::XyzzPoint<B>* slot_vals, uint32_t* flags) {
  accumulate_slice<B, Terms, Prefetch>(keys, terms, n, L, buckets, slot_keys, slot_vals, flags);
}

// The flagged slots, in order, for the next level. One thread per 16-byte word of a point, so that
// a warp reads and writes whole neighbouring points: with one thread per point (stores 192 bytes
// apart across the warp) it took 0.86 ms for 0.8 M G1 partials on the H200.
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

// Affine rounds (affine_rounds.hpp): outputs per slot, then one round over the sorted entries.
__global__ void affine_counts(const uint32_t* keys, size_t n, size_t slots, uint32_t* counts) {
  const size_t m = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (m < slots) counts[m] = affine_slot_outputs(keys, n, m);
}

template <class Curve, class Terms>
__global__ void affine_round(const uint32_t* keys, Terms terms, size_t n, size_t threads, unsigned chunk,
                             const uint32_t* positions, uint32_t* keys_out, ec::AffinePoint<Curve>* out) {
  const size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  affine_round_thread<Curve>(t, threads, chunk, keys, terms, n, positions, keys_out, out);
}

// Level 0 of the window reduction, thread (w, s): H_s = sum_{r < m} r X_w[s m + r] by a running sum
// from the top, and R_s = sum_r X_w[s m + r]. Then sum_j j X_j = sum_s H_s + m sum_s s R_s; the
// halving steps (reduction_plan.hpp) finish both sums.
template <class B>
__global__ void weigh_segments(const ec::XyzzPoint<B>* in, unsigned windows, size_t n, unsigned m, ec::XyzzPoint<B>* h,
                               ec::XyzzPoint<B>* r) {
  using Xyzz = ec::XyzzPoint<B>;
  const size_t segs = n / m;
  const size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= windows * segs) return;
  const Xyzz* x = in + (t / segs) * n + (t % segs) * m;
  Xyzz running = Xyzz::infinity(), total = Xyzz::infinity();
  for (unsigned j = m - 1; j >= 1; j--) {
    running += x[j];
    total += running;
  }
  running += x[0];
  h[t] = total;
  r[t] = running;
}

// One step of the window reduction above level 0 (reduction_plan.hpp).
template <class B>
__global__ void halve(ec::XyzzPoint<B>* data, const __grid_constant__ HalvingStep step) {
  halve_thread(data, step, size_t(blockIdx.x) * blockDim.x + threadIdx.x);
}

// out[j] = [2^doublings] in[j] in affine form, j < n: thread t doubles points [t K, t K + K) in
// Jacobian form (kept in jac) and converts them with one inversion (Montgomery's trick, running
// products in prefix). One-off work for precomputed bases.
constexpr unsigned kPrecomputeChunk = 32;

template <class Curve>
__global__ void double_to_affine(const ec::AffinePoint<Curve>* in, ec::AffinePoint<Curve>* out, size_t n,
                                 unsigned doublings, ec::JacobianPoint<Curve>* jac, typename Curve::Field* prefix) {
  using Field = typename Curve::Field;
  using Jacobian = ec::JacobianPoint<Curve>;
  const size_t lo = (size_t(blockIdx.x) * blockDim.x + threadIdx.x) * kPrecomputeChunk;
  if (lo >= n) return;
  const size_t hi = min(n, lo + kPrecomputeChunk);
  Field acc = Field::one();
  for (size_t j = lo; j < hi; j++) {
    Jacobian p = Jacobian::from_affine(in[j]);
    for (unsigned d = 0; d < doublings; d++) p = p.dbl();
    jac[j] = p;
    if (!p.is_infinity()) acc = acc * p.Z;
    prefix[j] = acc;
  }
  Field inv = acc.inverse();  // 1 / (product of the non-zero Z up to j), going down
  for (size_t j = hi; j-- > lo;) {
    const Jacobian p = jac[j];
    if (p.is_infinity()) {
      out[j] = ec::AffinePoint<Curve>::infinity();
      continue;
    }
    const Field zi = j > lo ? inv * prefix[j - 1] : inv;
    inv = inv * p.Z;
    const Field zi2 = zi.sqr();
    out[j] = ec::AffinePoint<Curve>{p.X * zi2, p.Y * (zi2 * zi)};
  }
}

// Per-phase device times, printed to stderr when CUZK_GPU_MSM_PHASES is set (for tuning);
// CUZK_GPU_MSM_PHASES=2 also times each kernel of the window reduction (detail marks).
class Phases {
 public:
  explicit Phases(cudaStream_t stream)
      : stream_(stream),
        on_(std::getenv("CUZK_GPU_MSM_PHASES") != nullptr),
        detail_(on_ && std::string(std::getenv("CUZK_GPU_MSM_PHASES")) == "2") {}
  ~Phases() {
    for (auto& [name, event] : marks_) cudaEventDestroy(event);
  }
  void mark(const char* name) {
    if (!on_) return;
    cudaEvent_t event;
    check(cudaEventCreate(&event), "cudaEventCreate");
    check(cudaEventRecord(event, stream_), "cudaEventRecord");
    marks_.emplace_back(name, event);
  }
  void detail(const char* name) {
    if (detail_) mark(name);
  }
  void print(size_t count, unsigned c) const {
    if (!on_ || marks_.size() < 2) return;
    std::fprintf(stderr, "gpu msm n=%zu c=%u:", count, c);
    for (size_t i = 1; i < marks_.size(); i++) {
      float ms = 0;
      cudaEventElapsedTime(&ms, marks_[i - 1].second, marks_[i].second);
      std::fprintf(stderr, " %s %.2f", marks_[i].first, ms);
    }
    std::fprintf(stderr, " ms\n");
  }

 private:
  cudaStream_t stream_;
  bool on_;
  bool detail_;
  std::vector<std::pair<const char*, cudaEvent_t>> marks_;
};

// ---- host driver ------------------------------------------------------------------------------

// Terms per slice: at most `longest`, shortened so that the slices fill whole waves of the
// threads resident on the card (every thread adds about L terms, so a last wave that is half full
// costs as much as a full one: at 2^24 precomputed, level 0 made 15.5 waves of L = 256 on the
// H200), but not below 8 (or `longest`): shorter slices leave more partials for the next level.
unsigned slice_length(size_t terms, size_t resident_threads, size_t longest) {
  if (resident_threads == 0) return unsigned(longest);
  const size_t waves = (terms + resident_threads * longest - 1) / (resident_threads * longest);
  const size_t even = (terms + resident_threads * waves - 1) / (resident_threads * waves);
  return unsigned(std::clamp<size_t>(even, std::min<size_t>(8, longest), longest));
}
// A power of two in [2, most] from the environment, for measurements; else the fallback.
unsigned tunable(const char* name, unsigned fallback, unsigned most = 256) {
  const char* e = std::getenv(name);
  if (!e) return fallback;
  const unsigned v = unsigned(std::atoi(e));
  return v >= 2 && v <= most && std::has_single_bit(v) ? v : fallback;
}
// The longest level-0 slice: long enough to amortise the boundary partials, short enough to give
// the card about 2^18 threads (CUZK_GPU_MSM_LEVEL0 overrides it, for measurements). At 2^24
// precomputed on the H200, 512 instead of 256 halves the partials (1.6 M to 0.8 M; partials phase
// 3.0 -> 1.6 ms) with the same accumulation time; 1024 cost 1.2 ms more accumulation than it saved.
size_t level0_longest_slice(size_t pairs) {
  static const unsigned forced = tunable("CUZK_GPU_MSM_LEVEL0", 0, 4096);
  return forced ? forced : std::clamp<size_t>(pairs >> 18, 8, 512);
}
// Partials per thread at the levels above 0, at most (CUZK_GPU_MSM_UPPER overrides it; at least
// 4, so that each level at least halves the partials: a slice of 2 can leave 2). 4, 8 and 16
// measured within ±0.5 ms of 32 at 2^20 and 2^24 on the H200, before the slices filled whole
// waves; after it, 16 within 0.2 ms of 32 and 8 slower (PERF.md, tenth pass).
unsigned upper_slice() {
  static const unsigned v = std::max(4u, tunable("CUZK_GPU_MSM_UPPER", 32));
  return v;
}
// Buckets per thread at level 0 of the window reduction (a power of two; CUZK_GPU_MSM_SEGMENT
// overrides it): 16, or 2 when segments of 16 over all `buckets` would not fill half of the
// threads the card holds at once (`resident`): such small reductions are bound by one thread's
// chain of dependent additions (~16 µs each on the H200), not by the work. On the H200, with
// halving steps above level 0: 16 within noise of 8 and 32 at 2^24; 2 instead of 16 took the
// reduction from 0.66 to 0.28 ms at 2^16 (24 windows of 2^10 buckets), 0.73 to 0.41 at 2^18,
// 0.83 to 0.58 at 2^20 precomputed (2^17 buckets); at 2^20 plain (16 × 2^15 buckets, one full
// wave with 16) 8 was slower than 16 (1.00 against 0.90 ms).
unsigned reduce_segment(size_t buckets, size_t resident) {
  static const unsigned forced = tunable("CUZK_GPU_MSM_SEGMENT", 0);
  if (forced) return forced;
  return buckets / 16 >= resident / 2 ? 16 : 2;
}

// CUZK_GPU_MSM_PREFETCH=1 makes level 0 load the next pair's base before adding the current one.
// It took 4% off the accumulation with the single-chain Fp product, but needs 222 registers
// instead of 166 (2 blocks of 128 per multiprocessor instead of 3); with today's Fp routines the 3
// blocks are faster (H200, 2^24: accumulation 94.3 -> 93.1 ms plain, 81.1 -> 79.9 ms precomputed;
// whole precomputed MSM 95.8 -> 94.3 ms), so it is off by default.
bool prefetch_bases() {
  static const bool on = [] {
    const char* e = std::getenv("CUZK_GPU_MSM_PREFETCH");
    return e && std::string(e) == "1";
  }();
  return on;
}

// Affine bucket rounds before the XYZZ accumulation (affine_rounds.hpp; docs/PERF.md, "Affine
// bucket rounds"): CUZK_GPU_MSM_AFFINE=1 turns them on; off by default until measured on a GPU.
// Read at every MSM, so that one process (the tests) can compare both. Rounds run while each
// thread has at least CUZK_GPU_MSM_AFFINE_MIN additions (default 256) to share its inversion
// (~570 multiplications) with, at most CUZK_GPU_MSM_AFFINE_CHUNK slots each (default 1024),
// about CUZK_GPU_MSM_AFFINE_THREADS threads (default 2^16), and while the round's output fits in
// free device memory. The tests set MIN=0 (rounds until no addition is left) and few threads.
struct AffineSettings {
  bool on = false;
  size_t min_additions = 256;
  unsigned max_chunk = 1024;
  size_t target_threads = size_t(1) << 16;
};
AffineSettings affine_settings() {
  AffineSettings s;
  const char* e = std::getenv("CUZK_GPU_MSM_AFFINE");
  s.on = e && std::string(e) == "1";
  if (const char* m = std::getenv("CUZK_GPU_MSM_AFFINE_MIN")) s.min_additions = size_t(std::strtoull(m, nullptr, 10));
  if (const char* k = std::getenv("CUZK_GPU_MSM_AFFINE_CHUNK")) {
    s.max_chunk = unsigned(std::clamp<unsigned long long>(std::strtoull(k, nullptr, 10), 1, 1 << 16));
  }
  if (const char* t = std::getenv("CUZK_GPU_MSM_AFFINE_THREADS")) {
    s.target_threads = size_t(std::clamp<unsigned long long>(std::strtoull(t, nullptr, 10), 1, 1ull << 30));
  }
  return s;
}
constexpr size_t kAffineMemoryMargin = size_t(512) << 20;  // left free for the rest of the MSM

// Threads of `kernel` (blocks of kThreads) that the current device runs at once.
template <class Kernel>
size_t resident_threads(Kernel kernel) {
  int device = 0, sms = 0, blocks = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, int(kThreads), 0),
        "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  return size_t(sms) * size_t(blocks) * kThreads;
}

// Blocks of a grid-stride kernel over n items: as many as the device runs at once.
template <class Kernel>
unsigned stream_blocks(Kernel kernel, size_t n) {
  return unsigned(std::min<size_t>(blocks_for(n), std::max<size_t>(1, resident_threads(kernel) / kThreads)));
}

template <class Curve>
ec::JacobianPoint<Curve> run(const Bases<Curve>& bases, size_t offset, size_t count, const Fr* host_scalars,
                             const Fr* device_scalars, const DensityView* density, const MsmOptions& options,
                             MsmStats* stats) {
  using B = BucketCurve<Curve>;
  using Xyzz = ec::XyzzPoint<B>;  // device bucket sums (lazy for G1: canonical() on the host)
  using Jacobian = ec::JacobianPoint<Curve>;
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
  if (stats) *stats = {terms_with_base, 0, 0, 0, 0};
  if (count == 0 || terms_with_base == 0) return Jacobian::infinity();

  DeviceScope scope(bases.device());
  Workspace& ws = workspace(bases.device());
  std::lock_guard lock(ws.mutex);
  cudaStream_t stream = ws.stream;

  Phases phases(stream);
  phases.mark("start");
  const Fr* scalars = device_scalars;
  if (device_scalars) {
    // The MSM stream does not synchronise with the legacy default stream, where a plain
    // cudaMemcpy from pageable memory may still be copying when it returns: wait for its work.
    check(cudaEventRecord(ws.legacy_done, cudaStreamLegacy), "cudaEventRecord");
    check(cudaStreamWaitEvent(stream, ws.legacy_done, 0), "cudaStreamWaitEvent");
  }
  if (host_scalars) {
    Fr* d = ws.scalars.get<Fr>(count);
    check(cudaMemcpyAsync(d, host_scalars, count * sizeof(Fr), cudaMemcpyHostToDevice, stream), "scalar upload");
    scalars = d;
  }
  DeviceDensity dd;
  if (density) {
    const size_t nw = (count + 63) / 64;
    uint64_t* words = ws.density_words.get<uint64_t>(nw);
    uint64_t* popc = ws.density_popc.get<uint64_t>(nw);
    uint64_t* prefix = ws.density_prefix.get<uint64_t>(nw);
    check(cudaMemcpyAsync(words, density->words.data(), nw * 8, cudaMemcpyHostToDevice, stream), "density upload");
    popcount_words<<<blocks_for(nw), kThreads, 0, stream>>>(words, nw, popc);
    check_launch("popcount_words");
    size_t temp_bytes = 0;
    check(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, popc, prefix, nw, stream), "scan size");
    check(cub::DeviceScan::ExclusiveSum(ws.scan_temp.get<uint8_t>(temp_bytes), temp_bytes, popc, prefix, nw, stream),
          "density scan");
    dd = {words, prefix};
  }

  phases.mark("upload");
  auto* counters = ws.counters.get<unsigned long long>(6);
  check(cudaMemsetAsync(counters, 0, 6 * sizeof(unsigned long long), stream), "memset");
  unsigned long long host_counters[6];
  const bool split = options.split_zero_one;
  // The window: fixed by precomputed bases or the options, else chosen from the number of
  // bucketed scalars, which a classify pass counts first when zeros and ones take no bucket
  // (without the split every scalar with a base is bucketed). With a fixed window that pass and
  // its host round trip are skipped (0.6 ms at 2^24 on the H200): the
  // pairs go into the buffers as they are, and only when they hold too few (the first MSM of a
  // size) are the pairs emitted again into buffers of the counted size.
  const bool fixed_window = bases.window_bits() || options.window_bits;
  size_t bucketed = terms_with_base, ones = 0;
  if (!fixed_window && split) {
    classify<<<stream_blocks(classify, count), kThreads, 0, stream>>>(scalars, count, dd, counters);
    check_launch("classify");
    check(cudaMemcpyAsync(host_counters, counters, sizeof(host_counters), cudaMemcpyDeviceToHost, stream), "download");
    check(cudaStreamSynchronize(stream), "classify");
    phases.mark("classify");
    ones = host_counters[1];
    bucketed = terms_with_base - host_counters[0] - ones;
  }
  const unsigned c = bases.window_bits()   ? bases.window_bits()
                     : options.window_bits ? options.window_bits
                                           : gpu_window_bits(bucketed);
  const unsigned windows = (kScalarBits + c - 1) / c;
  // Bucket sets: one per window, or G with precomputed copies (window t G + u in set u).
  const unsigned sets = bases.window_bits() ? bases.bucket_sets() : windows;
  const uint32_t stride = bases.window_bits() ? uint32_t(bases.size()) : 0;
  const size_t nb = size_t(1) << (c - 1);
  const size_t ones_key = sets * nb;

  // Pairs, sorted by bucket.
  auto too_many = [](size_t pairs) {
    if (pairs >= size_t(INT_MAX)) throw std::invalid_argument("GPU MSM: too many (bucket, point) pairs");
  };
  size_t max_pairs = bucketed * windows + ones;  // a bound once the classify pass has run
  if (fixed_window) {
    max_pairs = std::numeric_limits<size_t>::max();
    for (Buffer* b : {&ws.keys[0], &ws.keys[1], &ws.vals[0], &ws.vals[1]}) {
      max_pairs = std::min(max_pairs, b->bytes() / sizeof(uint32_t));
    }
  } else {
    too_many(max_pairs);
  }
  uint32_t *keys0, *keys1, *vals0, *vals1;
  auto emit = [&](size_t capacity) {
    keys0 = ws.keys[0].get<uint32_t>(capacity);
    keys1 = ws.keys[1].get<uint32_t>(capacity);
    vals0 = ws.vals[0].get<uint32_t>(capacity);
    vals1 = ws.vals[1].get<uint32_t>(capacity);
    emit_pairs<<<stream_blocks(emit_pairs, count), kThreads, 0, stream>>>(scalars, count, dd, c, windows, sets, stride,
                                                                          split, capacity, keys0, vals0, counters);
    check_launch("emit_pairs");
    check(cudaMemcpyAsync(host_counters, counters, sizeof(host_counters), cudaMemcpyDeviceToHost, stream), "download");
    check(cudaStreamSynchronize(stream), "emit_pairs");
    return size_t(host_counters[3]);
  };
  size_t pairs = emit(max_pairs);
  if (pairs > max_pairs) {
    if (!fixed_window) throw std::runtime_error("GPU MSM: pair count overflow (internal error)");
    too_many(pairs);
    check(cudaMemsetAsync(counters + 3, 0, 3 * sizeof(unsigned long long), stream), "memset");
    max_pairs = pairs;
    pairs = emit(max_pairs);
    if (pairs != max_pairs) throw std::runtime_error("GPU MSM: pair count changed between emissions (internal error)");
  }
  too_many(pairs);
  phases.mark("emit");
  if (stats) {
    const size_t zeros = split ? host_counters[4] : 0, ones_split = split ? host_counters[5] : 0;
    *stats = {terms_with_base, zeros, ones_split, terms_with_base - zeros - ones_split, c};
  }

  const size_t total_buckets = ones_key + 1;
  Xyzz* buckets = ws.buckets.get<Xyzz>(total_buckets);
  check(cudaMemsetAsync(buckets, 0, total_buckets * sizeof(Xyzz), stream), "memset buckets");  // ZZ = 0: infinity

  if (pairs) {
    cub::DoubleBuffer<uint32_t> dkeys(keys0, keys1), dvals(vals0, vals1);
    const int key_bits = std::bit_width(ones_key);
    size_t temp_bytes = 0;
    check(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, dkeys, dvals, int(pairs), 0, key_bits, stream),
          "sort size");
    check(cub::DeviceRadixSort::SortPairs(ws.sort_temp.get<uint8_t>(temp_bytes), temp_bytes, dkeys, dvals, int(pairs),
                                          0, key_bits, stream),
          "radix sort");
    phases.mark("sort");

    // Optional affine rounds: each halves the long buckets; the XYZZ accumulation then takes
    // the last round's (key, affine point) list instead of the sorted pairs.
    using Affine = ec::AffinePoint<Curve>;
    const uint32_t* level0_keys = dkeys.Current();
    size_t entries = pairs;
    const Affine* summed = nullptr;  // the last round's points; null when no round ran
    if (const AffineSettings affine = affine_settings(); affine.on) {
      uint32_t* keys_out[2] = {dkeys.Alternate(), dvals.Alternate()};  // free after the sort
      const size_t max_slots = (pairs + 1) / 2;
      uint32_t* counts = ws.affine_counts.get<uint32_t>(max_slots);
      uint32_t* positions = ws.affine_positions.get<uint32_t>(max_slots);
      size_t scan_bytes = 0;
      check(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, counts, positions, max_slots, stream), "scan size");
      uint8_t* scan_temp = ws.scan_temp.get<uint8_t>(scan_bytes);
      for (unsigned round = 0;; round++) {
        const AffinePlan plan = plan_affine_round(entries, affine.max_chunk, affine.target_threads);
        affine_counts<<<blocks_for(plan.slots), kThreads, 0, stream>>>(level0_keys, entries, plan.slots, counts);
        check_launch("affine_counts");
        check(cub::DeviceScan::ExclusiveSum(scan_temp, scan_bytes, counts, positions, plan.slots, stream),
              "affine scan");
        uint32_t last[2];
        check(cudaMemcpyAsync(&last[0], positions + plan.slots - 1, 4, cudaMemcpyDeviceToHost, stream), "download");
        check(cudaMemcpyAsync(&last[1], counts + plan.slots - 1, 4, cudaMemcpyDeviceToHost, stream), "download");
        check(cudaStreamSynchronize(stream), "affine counts");
        const size_t outputs = size_t(last[0]) + last[1];
        const size_t additions = entries - outputs;
        if (additions == 0 || additions < affine.min_additions * plan.threads) break;
        Buffer& buffer = ws.affine_points[round & 1];
        if (outputs * sizeof(Affine) > buffer.bytes()) {
          size_t free_bytes = 0, total_bytes = 0;
          check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
          if (free_bytes + buffer.bytes() < outputs * sizeof(Affine) + kAffineMemoryMargin) break;
        }
        Affine* out = buffer.get<Affine>(outputs);
        if (!summed) {
          affine_round<Curve><<<blocks_for(plan.threads), kThreads, 0, stream>>>(
              level0_keys, GatherTerms<Curve>{bases.device_data() + offset, dvals.Current()}, entries, plan.threads,
              plan.chunk, positions, keys_out[round & 1], out);
        } else {
          affine_round<Curve><<<blocks_for(plan.threads), kThreads, 0, stream>>>(level0_keys, ListTerms<Curve>{summed},
                                                                                 entries, plan.threads, plan.chunk,
                                                                                 positions, keys_out[round & 1], out);
        }
        check_launch("affine_round");
        level0_keys = keys_out[round & 1];
        summed = out;
        entries = outputs;
      }
      phases.mark("affine");
    }

    // Level 0 over the sorted pairs, then levels over the partials until none is left.
    const size_t level0_threads = resident_threads(prefetch_bases() ? accumulate<B, AffineTerms<Curve>, true>
                                                                    : accumulate<B, AffineTerms<Curve>, false>);
    unsigned L = slice_length(entries, level0_threads, level0_longest_slice(entries));
    size_t slices = (entries + L - 1) / L;
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

    const AffineTerms<Curve> terms{bases.device_data() + offset, dvals.Current()};
    if (summed) {
      const ListTerms<Curve> list{summed};
      if (prefetch_bases()) {
        accumulate<B, ListTerms<Curve>, true><<<blocks_for(slices), kThreads, 0, stream>>>(
            level0_keys, list, entries, L, buckets, slot_keys, slot_vals, flags);
      } else {
        accumulate<B, ListTerms<Curve>, false><<<blocks_for(slices), kThreads, 0, stream>>>(
            level0_keys, list, entries, L, buckets, slot_keys, slot_vals, flags);
      }
    } else if (prefetch_bases()) {
      accumulate<B, AffineTerms<Curve>, true><<<blocks_for(slices), kThreads, 0, stream>>>(
          level0_keys, terms, entries, L, buckets, slot_keys, slot_vals, flags);
    } else {
      accumulate<B, AffineTerms<Curve>, false><<<blocks_for(slices), kThreads, 0, stream>>>(
          level0_keys, terms, entries, L, buckets, slot_keys, slot_vals, flags);
    }
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
      L = slice_length(partials, upper_threads, upper_slice());
      slices = (partials + L - 1) / L;
      accumulate<B><<<blocks_for(slices), kThreads, 0, stream>>>(part_keys, XyzzTerms<B>{part_vals}, partials, L,
                                                                 buckets, slot_keys, slot_vals, flags);
      check_launch("accumulate partials");
      phases.detail("p-level");
    }
  }

  phases.mark("partials");
  // Window sums F_u = sum_j (j + 1) B_u[j] = H(B_u) + sum_j B_u[j] with H(X) = sum_j j X_j:
  // H(B) = sum_s H_s + m sum_s s R_s (weigh_segments), then the halving steps (plan_reduction).
  const unsigned m = unsigned(std::min<size_t>(reduce_segment(sets * nb, resident_threads(weigh_segments<B>)), nb));
  const size_t segs = nb / m;
  const ReductionPlan plan = plan_reduction(segs, sets);
  Xyzz* red = ws.levels.get<Xyzz>(plan.points);
  weigh_segments<B><<<blocks_for(sets * segs), kThreads, 0, stream>>>(buckets, sets, nb, m, red, red + sets * segs);
  check_launch("weigh_segments");
  phases.detail("weigh");
  for (const HalvingStep& step : plan.steps) {
    halve<B><<<blocks_for(size_t(step.first[step.jobs]) * sets), kThreads, 0, stream>>>(red, step);
    check_launch("halve");
    phases.detail("halve");
  }
  std::vector<Xyzz> results(sets * (2 + plan.bits) + 1);  // the last entry: the ones' bucket
  check(cudaMemcpyAsync(results.data(), red + plan.results, (results.size() - 1) * sizeof(Xyzz), cudaMemcpyDeviceToHost,
                        stream),
        "download");
  check(cudaMemcpyAsync(&results.back(), buckets + ones_key, sizeof(Xyzz), cudaMemcpyDeviceToHost, stream), "download");
  phases.mark("reduce");
  check(cudaStreamSynchronize(stream), "MSM");
  phases.print(count, c);

  // F_u = S_u + m sum_b 2^b T_u,b + total_u, then sum_u 2^(u c) F_u by Horner's rule, plus the
  // ones (with precomputed copies, the factors 2^(t G c) of windows t G + u are in the bases).
  auto slot = [&](unsigned k, unsigned w) { return canonical(results[size_t(k) * sets + w]).to_jacobian(); };
  Jacobian acc = Jacobian::infinity();
  for (unsigned w = sets; w-- > 0;) {
    for (unsigned i = 0; i < c; i++) acc = acc.dbl();
    Jacobian h = Jacobian::infinity();
    for (unsigned b = plan.bits; b-- > 0;) h = h.dbl() + slot(2 + b, w);
    for (unsigned i = 1; i < m; i <<= 1) h = h.dbl();
    acc += h + slot(0, w) + slot(1, w);
  }
  return acc + canonical(results.back()).to_jacobian();
}

}  // namespace

int device_count(std::string* why) { return cuzk::cuda::device_count(why); }

size_t workspace_bytes(int device) {
  Workspace* ws = nullptr;
  {
    std::lock_guard lock(all_workspaces_mutex);
    auto it = all_workspaces.find(device);
    if (it == all_workspaces.end()) return 0;
    ws = it->second;
  }
  std::lock_guard lock(ws->mutex);
  size_t total = 0;
  ws->for_each_buffer([&](Buffer& b) { total += b.bytes(); });
  return total;
}

void release_workspace(int device) {
  Workspace* ws = nullptr;
  {
    std::lock_guard lock(all_workspaces_mutex);
    auto it = all_workspaces.find(device);
    if (it == all_workspaces.end()) return;
    ws = it->second;
  }
  std::lock_guard lock(ws->mutex);  // waits for an MSM in progress on this device
  DeviceScope scope(device);
  check(cudaStreamSynchronize(ws->stream), "release_workspace");
  ws->for_each_buffer([](Buffer& b) { b.release(); });
}

unsigned gpu_window_bits(size_t n) {
  if (n < 64) return 4;
  // Per window: one mixed addition per pair, 1.8% of one per pair and radix-sort pass (8 key bits
  // a pass), and about 6 pairs' worth of time per bucket (its reduction, partial sums, memory).
  // Fitted on the H200 at 2^27 (c = 20: accumulation 652, sort 35.4 (3 passes), reduction 8.4 ms;
  // c = 22: 608, 42.7 (4 passes), 29.2 ms: 712 -> 695 ms in all); 6 rather than the ~3.5 that
  // fits there keeps the smaller sizes' measured choices (c = 16 at 2^20-2^22, 19 at 2^24).
  unsigned best = 4;
  double best_cost = 0;
  for (unsigned c = 4; c <= 22; c++) {
    const unsigned windows = (kScalarBits + c - 1) / c;
    const size_t buckets = size_t(1) << (c - 1);
    const unsigned sort_passes = (unsigned(std::bit_width(windows * buckets)) + 7) / 8;
    const double cost = double(windows) * (double(n) * (1.0 + 0.018 * sort_passes) + 6.0 * double(buckets));
    if (c == 4 || cost < best_cost) {
      best = c;
      best_cost = cost;
    }
  }
  return best;
}

namespace {
// Throws std::runtime_error naming the device (and why there is none) unless it exists.
void require_device(int device) {
  std::string why;
  const int n = device_count(&why);
  if (device < 0 || device >= n) {
    throw std::runtime_error("GPU MSM: no CUDA device " + std::to_string(device) + (why.empty() ? "" : ": " + why));
  }
}
}  // namespace

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
    check(cudaMemcpy(b->data_, points.data(), points.size_bytes(), cudaMemcpyHostToDevice), "bases upload");
  }
  b->upload_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return b;
}

unsigned gpu_precompute_window_bits(size_t n, unsigned copies) {
  // As gpu_window_bits, with G = ceil(W / h) bucket sets to accumulate and reduce instead of W:
  // one mixed addition per pair, and 3.5 pairs' worth of time per bucket. Fitted on the H200 to
  // 35 MSMs (2^16-2^23 with a copy per window, 2^25 and 2^27 with 3 copies; c = 14-24): the
  // per-bucket weight came out at 3.6. The choices it gives were each the fastest measured at
  // 2^16, 2^20, 2^21, 2^23, 2^25 and 2^27 (the weight 8 it replaces chose slower windows there);
  // at 2^19 it chooses 19 where 16 was 7% faster (docs/PERF.md, "Window widths of precomputed
  // bases").
  unsigned best = 4;
  double best_cost = 0;
  for (unsigned c = 4; c <= 24; c++) {
    const unsigned w = (kScalarBits + c - 1) / c;
    const unsigned h = copies == 0 ? w : std::min(copies, w);
    const unsigned sets = (w + h - 1) / h;
    const double cost = double(w) * double(n) + 3.5 * double(sets) * double(size_t(1) << (c - 1));
    if (c == 4 || cost < best_cost) {
      best = c;
      best_cost = cost;
    }
  }
  return best;
}

PrecomputeShape precompute_shape(size_t n, const Precompute& precompute) {
  const unsigned c = precompute.window_bits ? precompute.window_bits : gpu_precompute_window_bits(n, precompute.copies);
  if (c < 2 || c > 24) throw std::invalid_argument("GPU MSM: precompute window width must be between 2 and 24 bits");
  const unsigned windows = (kScalarBits + c - 1) / c;
  const unsigned asked = precompute.copies == 0 ? windows : std::min(precompute.copies, windows);
  const unsigned sets = (windows + asked - 1) / asked;
  const unsigned copies = (windows + sets - 1) / sets;  // the copies that some window uses
  if (double(copies) * double(n) >= double(size_t(1) << 31)) {
    throw std::invalid_argument("GPU MSM: " + std::to_string(copies) + " copies of " + std::to_string(n) +
                                " bases reach 2^31 points");
  }
  return {c, copies, sets};
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
  if (n) check(cudaMemcpy(b->data_, points.data(), points.size_bytes(), cudaMemcpyHostToDevice), "bases upload");
  const auto t1 = std::chrono::steady_clock::now();
  b->upload_ms_ = std::chrono::duration<double, std::milli>(t1 - t0).count();
  if (n && copies > 1) {
    // Copy t from copy t - 1 by G c doublings, in batches that bound the scratch memory.
    const size_t batch = std::min<size_t>(n, size_t(1) << 22);
    cuzk::cuda::DeviceBuffer<ec::JacobianPoint<Curve>> jac(batch);
    cuzk::cuda::DeviceBuffer<typename Curve::Field> prefix(batch);
    for (unsigned t = 1; t < copies; t++) {
      for (size_t lo = 0; lo < n; lo += batch) {
        const size_t m = std::min(batch, n - lo);
        const size_t threads = (m + kPrecomputeChunk - 1) / kPrecomputeChunk;
        double_to_affine<Curve><<<blocks_for(threads), kThreads>>>(b->data_ + (t - 1) * n + lo, b->data_ + t * n + lo,
                                                                   m, sets * c, jac.get(), prefix.get());
        check_launch("double_to_affine");
      }
    }
    check(cudaDeviceSynchronize(), "precompute");
  }
  b->precompute_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t1).count();
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

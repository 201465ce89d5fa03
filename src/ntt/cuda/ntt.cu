// GPU NTT kernels over Fr and their host driver (see ntt.hpp).
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "ntt/cuda/ntt.hpp"

namespace cuzk::ntt::cuda {
namespace {

using cuzk::cuda::check;
using cuzk::cuda::check_launch;

// Largest shared-memory block of one radix pass: 2^11 elements (64 KiB), so a 2^27 transform
// takes three passes over device memory (11 + 8 + 8 stages).
constexpr unsigned kMaxBlockLog = 11;
constexpr unsigned kThreads = 256;
// Three 64 KiB blocks fit an SM's shared memory: keep registers to that occupancy (<= 80).
constexpr unsigned kPassBlocksPerSm = 3;

// Fr product in the radix passes: (kEo) the field's product, the even/odd-accumulator form
// with Fr's sparse low words (two independent carry chains per row), or the single-chain CIOS
// product it replaced (CUZK_NTT_MUL=cios, for the radix passes only: the pointwise and scaling
// kernels use the field's product either way; same fully reduced result).
template <bool kEo>
__device__ __forceinline__ Fr mul(const Fr& a, const Fr& b) {
  if constexpr (kEo) {
    return a * b;
  } else {
    constexpr auto m = Fr::Consts::M;
    Fr r;
    ff::ptx::MontMulPtx<4>::mul(r.mont.limb, a.mont.limb, b.mont.limb, m.limb, uint32_t(Fr::Consts::INV));
    return r;
  }
}

// A twiddle factor, or its negation when neg: omega^-j = omega^(n - j) = -omega^(n/2 - j), so
// one table serves both directions and the sign goes into the butterfly's subtraction.
struct Twiddle {
  Fr w;
  bool neg;
};

__device__ __forceinline__ Twiddle twiddle(const Fr* tw, size_t idx, size_t half_n, bool inverse) {
  if (!inverse) return {tw[idx], false};
  if (idx == 0) return {Fr::one(), false};
  return {tw[half_n - idx], true};
}

// (x - y) times the twiddle: (y - x) w when the twiddle is -w (selects, no branch).
template <bool kEo>
__device__ __forceinline__ Fr diff_times(const Fr& x, const Fr& y, const Twiddle& t) {
  const Fr p = t.neg ? y : x, q = t.neg ? x : y;
  return mul<kEo>(p - q, t.w);
}

// Stages [h_low, h_low + k) of a radix-2 transform in place. Element index bits: [0, h_low)
// low, [h_low, h_low + k) mid, the rest high. A block holds all 2^k mid values for one high
// value and 2^t consecutive low values, runs the k stages in shared memory and writes back.
// kDif: decimation in frequency, stages from the top down (natural in, bit-reversed out);
// otherwise decimation in time, bottom up (bit-reversed in, natural out).
template <bool kDif, bool kInverse, bool kEo>
requires(kDif || !kInverse)  // the inverse is always decimation in frequency
    __global__ void __launch_bounds__(kThreads, kPassBlocksPerSm)
        radix_pass(Fr* __restrict__ a, const Fr* __restrict__ tw, unsigned log_n, unsigned h_low, unsigned k,
                   unsigned t, bool radix4, bool skip_one, const Fr* __restrict__ scale_lo,
                   const Fr* __restrict__ scale_hi, unsigned split, bool dif_single_first) {
  extern __shared__ uint4 smem_raw[];
  Fr* sm = reinterpret_cast<Fr*>(smem_raw);
  const unsigned elems = 1u << (k + t);
  const unsigned chunks_log = h_low - t;
  const size_t block = blockIdx.x;
  const size_t high = block >> chunks_log;
  const size_t low0 = (block & ((size_t(1) << chunks_log) - 1)) << t;
  const unsigned low_mask = (1u << t) - 1;
  auto global_index = [&](unsigned e) -> size_t {
    return (high << (h_low + k)) | (size_t(e >> t) << h_low) | (low0 + (e & low_mask));
  };
  if (scale_lo == nullptr) {
    for (unsigned e = threadIdx.x; e < elems; e += blockDim.x) sm[e] = a[global_index(e)];
  } else {
    // Bit-reversed input (first DIT pass): the element at i is scaled by lo/hi at rev(i).
    for (unsigned e = threadIdx.x; e < elems; e += blockDim.x) {
      const size_t i = global_index(e);
      const size_t r = __brevll(i) >> (64 - log_n);
      sm[e] = a[i] * (scale_lo[r & ((size_t(1) << split) - 1)] * scale_hi[r >> split]);
    }
  }
  __syncthreads();
  const size_t half_n = size_t(1) << (log_n - 1);
  // Two stages per round trip through shared memory (radix 4), one more when k is odd: the
  // pairs run from the bottom (DIT) or the top (DIF); the single stage comes last in the DIT
  // and first in the DIF (dif_single_first), so stages 0 and 1 always form a pair.
  for (unsigned step = 0; step < k;) {
    const bool single_now = kDif && dif_single_first && (k - step) % 2 == 1;
    if (radix4 && k - step >= 2 && !single_now) {
      const unsigned sl = kDif ? k - 2 - step : step;  // the lower of the two stages
      const unsigned s = h_low + sl;
      const unsigned bit = sl + t;
      const size_t m_mask = (size_t(1) << s) - 1;
      if (skip_one && s == 0) {
        // Stages 0 and 1: every twiddle is 1 except stage 1's second one, omega^(n/4) (its
        // negation in the inverse): one multiplication per four elements instead of four.
        const Fr w4 = tw[half_n >> 1];
        for (unsigned q = threadIdx.x; q < elems / 4; q += blockDim.x) {
          const unsigned e0 = ((q >> bit) << (bit + 2)) | (q & ((1u << bit) - 1));
          const unsigned e1 = e0 + (1u << bit), e2 = e0 + (2u << bit), e3 = e0 + (3u << bit);
          const Fr x0 = sm[e0], x1 = sm[e1], x2 = sm[e2], x3 = sm[e3];
          if constexpr (kDif) {
            const Fr u0 = x0 + x2, u2 = x0 - x2;
            const Fr u1 = x1 + x3, u3 = kInverse ? mul<kEo>(x3 - x1, w4) : mul<kEo>(x1 - x3, w4);
            sm[e0] = u0 + u1;
            sm[e1] = u0 - u1;
            sm[e2] = u2 + u3;
            sm[e3] = u2 - u3;
          } else {
            const Fr u0 = x0 + x1, u1 = x0 - x1, u2 = x2 + x3, u3 = x2 - x3;
            const Fr v3 = mul<kEo>(u3, w4);
            sm[e0] = u0 + u2;
            sm[e2] = u0 - u2;
            sm[e1] = u1 + v3;
            sm[e3] = u1 - v3;
          }
        }
        step += 2;
        __syncthreads();
        continue;
      }
      for (unsigned q = threadIdx.x; q < elems / 4; q += blockDim.x) {
        const unsigned e0 = ((q >> bit) << (bit + 2)) | (q & ((1u << bit) - 1));
        const unsigned e1 = e0 + (1u << bit), e2 = e0 + (2u << bit), e3 = e0 + (3u << bit);
        const size_t j = global_index(e0) & m_mask;
        // Stage s uses omega^(j n / 2^(s+1)); stage s + 1 pairs at j and j + 2^s.
        const Twiddle w1 = twiddle(tw, j << (log_n - 1 - s), half_n, kInverse);
        const Twiddle w2a = twiddle(tw, j << (log_n - 2 - s), half_n, kInverse);
        const Twiddle w2b = twiddle(tw, (j + (size_t(1) << s)) << (log_n - 2 - s), half_n, kInverse);
        Fr x0 = sm[e0], x1 = sm[e1], x2 = sm[e2], x3 = sm[e3];
        if constexpr (kDif) {
          const Fr u0 = x0 + x2, u2 = diff_times<kEo>(x0, x2, w2a);
          const Fr u1 = x1 + x3, u3 = diff_times<kEo>(x1, x3, w2b);
          sm[e0] = u0 + u1;
          sm[e1] = diff_times<kEo>(u0, u1, w1);
          sm[e2] = u2 + u3;
          sm[e3] = diff_times<kEo>(u2, u3, w1);
        } else {
          // Forward only (twiddles never negated).
          const Fr y1 = mul<kEo>(x1, w1.w), y3 = mul<kEo>(x3, w1.w);
          const Fr u0 = x0 + y1, u1 = x0 - y1, u2 = x2 + y3, u3 = x2 - y3;
          const Fr v2 = mul<kEo>(u2, w2a.w), v3 = mul<kEo>(u3, w2b.w);
          sm[e0] = u0 + v2;
          sm[e2] = u0 - v2;
          sm[e1] = u1 + v3;
          sm[e3] = u1 - v3;
        }
      }
      step += 2;
    } else {
      const unsigned sl = kDif ? k - 1 - step : step;
      const unsigned s = h_low + sl;  // global stage: butterflies (i, i + 2^s)
      const unsigned bit = sl + t;    // the same bit in the block's element index
      const size_t m_mask = (size_t(1) << s) - 1;
      const unsigned tw_shift = log_n - 1 - s;
      for (unsigned b = threadIdx.x; b < elems / 2; b += blockDim.x) {
        const unsigned e0 = ((b >> bit) << (bit + 1)) | (b & ((1u << bit) - 1));
        const unsigned e1 = e0 | (1u << bit);
        const size_t j = global_index(e0) & m_mask;
        const Twiddle w = twiddle(tw, j << tw_shift, half_n, kInverse);
        const Fr x = sm[e0], y = sm[e1];
        if (skip_one && s == 0) {  // stage 0: the twiddle is 1
          sm[e0] = x + y;
          sm[e1] = x - y;
        } else if constexpr (kDif) {
          sm[e0] = x + y;
          sm[e1] = diff_times<kEo>(x, y, w);
        } else {
          const Fr yw = mul<kEo>(y, w.w);
          sm[e0] = x + yw;
          sm[e1] = x - yw;
        }
      }
      step += 1;
    }
    __syncthreads();
  }
  for (unsigned e = threadIdx.x; e < elems; e += blockDim.x) a[global_index(e)] = sm[e];
}

// Scaling fused into a bit-reversal permutation: kScale 1: every element times s; 2: the
// element that lands at index k times lo[k mod 2^L] * hi[k >> L] (the inverse's scaling);
// 3: the element that comes from index k times the same (the coset's scaling before a DIT).
enum ScaleKind { kNoScale = 0, kScaleConst = 1, kScaleByDest = 2, kScaleBySource = 3 };

// In-place bit-reversal permutation, one swap per thread (sizes below the tiled kernel's).
template <int kScale>
__global__ void bit_reverse_kernel(Fr* a, unsigned log_n, size_t n, Fr s, const Fr* lo, const Fr* hi, unsigned split) {
  auto factor = [&](size_t k) {
    if constexpr (kScale == kScaleConst) return s;
    return lo[k & ((size_t(1) << split) - 1)] * hi[k >> split];
  };
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    const size_t j = __brevll(i) >> (64 - log_n);
    if (i < j) {
      Fr x = a[i], y = a[j];
      if constexpr (kScale == kScaleBySource) {
        x = x * factor(i);
        y = y * factor(j);
      } else if constexpr (kScale != kNoScale) {
        x = x * factor(j);
        y = y * factor(i);
      }
      a[i] = y;
      a[j] = x;
    } else if (kScale != 0 && i == j) {
      a[i] = a[i] * factor(i);
    }
  }
}

// Tiled in-place bit reversal: index bits [hi b | mid m | lo b] reverse to
// [rev(lo) | rev(mid) | rev(hi)], so the 2^2b elements of one mid value (2^b rows of 2^b
// consecutive elements) map onto those of rev(mid), transposed. A block loads the tiles of
// mid and rev(mid) (mid <= rev(mid)) into shared memory and writes each to the other's
// place, rows of 2^b elements (512 bytes) at a time, instead of one scattered 32-byte
// element per thread. Two threads per element (16 bytes each).
constexpr unsigned kTileLog = 4;
constexpr unsigned kTileSide = 1u << kTileLog;
constexpr unsigned kTileRow = 2 * (kTileSide + 1);  // uint4 per shared row, padded by one element
constexpr unsigned kBitrevThreads = 256;

__device__ __forceinline__ unsigned reverse_bits(unsigned x, unsigned bits) {
  return bits ? __brev(x) >> (32 - bits) : 0;
}

template <int kScale>
__global__ void __launch_bounds__(kBitrevThreads)
    bit_reverse_tiled_kernel(Fr* a, unsigned log_n, Fr s, const Fr* lo, const Fr* hi, unsigned split) {
  __shared__ uint4 tile[2][kTileSide * kTileRow];
  const unsigned m = log_n - 2 * kTileLog;
  const unsigned mid = blockIdx.x, rmid = reverse_bits(mid, m);
  if (mid > rmid) return;
  const unsigned tiles = mid == rmid ? 1 : 2;
  uint4* g = reinterpret_cast<uint4*>(a);
  auto index = [&](unsigned row, unsigned md, unsigned col) -> size_t {
    return (size_t(row) << (m + kTileLog)) | (size_t(md) << kTileLog) | col;
  };
  constexpr unsigned kHalves = 2 * kTileSide * kTileSide;
  for (unsigned t = 0; t < tiles; t++) {
    const unsigned md = t ? rmid : mid;
    for (unsigned x = threadIdx.x; x < kHalves; x += blockDim.x) {
      const unsigned e = x >> 1, h = x & 1, row = e >> kTileLog, col = e & (kTileSide - 1);
      tile[t][row * kTileRow + 2 * col + h] = g[2 * index(row, md, col) + h];
    }
  }
  __syncthreads();
  if constexpr (kScale != kNoScale) {
    for (unsigned t = 0; t < tiles; t++) {
      const unsigned md = t ? rmid : mid;
      for (unsigned e = threadIdx.x; e < kTileSide * kTileSide; e += blockDim.x) {
        const unsigned row = e >> kTileLog, col = e & (kTileSide - 1);
        static_assert(sizeof(Fr) == 2 * sizeof(uint4));
        Fr& v = *reinterpret_cast<Fr*>(&tile[t][row * kTileRow + 2 * col]);
        Fr f = s;
        if constexpr (kScale != kScaleConst) {
          const size_t src = index(row, md, col);
          const size_t k = kScale == kScaleBySource ? src : __brevll(src) >> (64 - log_n);
          f = lo[k & ((size_t(1) << split) - 1)] * hi[k >> split];
        }
        v = v * f;
      }
    }
    __syncthreads();
  }
  // Destination (row', md', col') takes source (rev(col'), rev(md'), rev(row')): from the other tile.
  for (unsigned t = 0; t < tiles; t++) {
    const unsigned md = t ? rmid : mid;  // destination mid; its source is tile t ^ 1 (or t)
    const unsigned src_tile = tiles == 2 ? t ^ 1 : 0;
    for (unsigned x = threadIdx.x; x < kHalves; x += blockDim.x) {
      const unsigned e = x >> 1, h = x & 1, row = e >> kTileLog, col = e & (kTileSide - 1);
      const unsigned srow = reverse_bits(col, kTileLog), scol = reverse_bits(row, kTileLog);
      g[2 * index(row, md, col) + h] = tile[src_tile][srow * kTileRow + 2 * scol + h];
    }
  }
}

// One block of kExpandThreads per ZeroOneVector chunk: in rounds of one entry per thread, each
// kOther entry's place in others is the chunk's offset plus the others before it in the chunk
// (warp ballots, then the earlier warps' counts). Reads and writes are consecutive per round.
constexpr unsigned kExpandThreads = 128;
constexpr unsigned kExpandWarps = kExpandThreads / 32;
static_assert(ZeroOneVector::kChunk % kExpandThreads == 0);

__global__ void __launch_bounds__(kExpandThreads)
    expand_zero_one_kernel(Fr* out, size_t size, const uint32_t* kinds, const uint32_t* offsets, const Fr* others,
                           Fr one) {
  __shared__ uint32_t warp_others[kExpandWarps];
  const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const size_t chunk_start = size_t(blockIdx.x) * ZeroOneVector::kChunk;
  uint32_t next = offsets[blockIdx.x];
  for (unsigned round = 0; round < ZeroOneVector::kChunk / kExpandThreads; round++) {
    const size_t i = chunk_start + round * kExpandThreads + threadIdx.x;
    const uint32_t kind =
        i < size ? (kinds[i / ZeroOneVector::kKindsPerWord] >> (2 * (i % ZeroOneVector::kKindsPerWord))) & 3 : 0;
    const bool other = kind >= ZeroOneVector::kOther;
    const uint32_t ballot = __ballot_sync(0xffffffffu, other);
    if (lane == 0) warp_others[warp] = __popc(ballot);
    __syncthreads();
    uint32_t before = 0, total = 0;
    for (unsigned w = 0; w < kExpandWarps; w++) {
      before += w < warp ? warp_others[w] : 0;
      total += warp_others[w];
    }
    if (i < size) {
      out[i] = kind == ZeroOneVector::kZero  ? Fr::zero()
               : kind == ZeroOneVector::kOne ? one
                                             : others[next + before + __popc(ballot & ((1u << lane) - 1))];
    }
    next += total;
    __syncthreads();  // warp_others is rewritten next round
  }
}

// out[i] = lo[i mod 2^L] * hi[i >> L]: expands a split power table.
__global__ void expand_powers_kernel(Fr* out, const Fr* lo, const Fr* hi, unsigned split, size_t count) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x) {
    out[i] = lo[i & ((size_t(1) << split) - 1)] * hi[i >> split];
  }
}

__global__ void scale_by_table_kernel(Fr* a, const Fr* lo, const Fr* hi, unsigned split, unsigned log_n, size_t n,
                                      bool bit_reversed) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    const size_t k = bit_reversed && log_n ? __brevll(i) >> (64 - log_n) : i;
    a[i] = a[i] * (lo[k & ((size_t(1) << split) - 1)] * hi[k >> split]);
  }
}

__global__ void scale_kernel(Fr* a, Fr s, size_t n) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    a[i] = a[i] * s;
  }
}

__global__ void multiply_kernel(Fr* a, const Fr* b, size_t n) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    a[i] = a[i] * b[i];
  }
}

// H's last pointwise step, on the bit-reversed outputs of the unscaled DIF iNTTs of a b (on the
// coset) and of c (position i holds index k = rev(i)): a[i] = a[i] - c[i] g^k, so that the final
// permutation's g^-k / (n Z(g)) gives (icoset(a b) - iNTT(c)) / Z(g).
__global__ void h_combine_kernel(Fr* a, const Fr* c, const Fr* lo, const Fr* hi, unsigned split, unsigned log_n,
                                 size_t n) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    const size_t k = log_n ? __brevll(i) >> (64 - log_n) : i;
    a[i] = a[i] - c[i] * (lo[k & ((size_t(1) << split) - 1)] * hi[k >> split]);
  }
}

unsigned grid_for(size_t n) { return unsigned(std::min<size_t>((n + kThreads - 1) / kThreads, size_t(1) << 20)); }

// base^0 .. base^(count-1) on the host, times `scale`.
std::vector<Fr> host_powers(const Fr& base, const Fr& start, size_t count) {
  std::vector<Fr> out(count);
  Fr w = start;
  for (size_t i = 0; i < count; i++) {
    out[i] = w;
    w *= base;
  }
  return out;
}

DeviceBuffer<Fr> upload(const std::vector<Fr>& v, cudaStream_t stream) {
  DeviceBuffer<Fr> d(v.size());
  check(cudaMemcpyAsync(d.get(), v.data(), v.size() * sizeof(Fr), cudaMemcpyHostToDevice, stream), "upload table");
  return d;
}

// Switches for comparing variants in one binary (read once): CUZK_NTT_RADIX2=1 runs one
// stage per shared-memory round trip; CUZK_NTT_SKIP1=0 multiplies by the twiddle 1 in stages
// 0 and 1; CUZK_NTT_BITREV=0 uses the one-swap-per-thread bit reversal at every size;
// CUZK_NTT_FUSE=0 runs the coset scalings as separate passes.
bool env_is(const char* name, char value) {
  const char* v = std::getenv(name);
  return v && v[0] == value && v[1] == 0;
}
const bool kRadix4 = !env_is("CUZK_NTT_RADIX2", '1');
const bool kSkipOne = !env_is("CUZK_NTT_SKIP1", '0');
const bool kTiledBitrev = !env_is("CUZK_NTT_BITREV", '0');
const bool kFuseScale = !env_is("CUZK_NTT_FUSE", '0');
// CUZK_NTT_DIF_ORDER=0: the DIF's single stage (odd stage counts) last, as before.
const bool kDifSingleFirst = !env_is("CUZK_NTT_DIF_ORDER", '0');
// Blocks of 2^10 elements (32 KiB, 128 threads, six per SM): measured on the H200 4% faster at
// 2^27 than 2^11 (64 KiB, 256 threads, three per SM), which CUZK_NTT_BLOCK_LOG=11 selects.
const unsigned kBlockLog = [] {
  const char* v = std::getenv("CUZK_NTT_BLOCK_LOG");
  return v && std::string(v) == "11" ? 11u : 10u;
}();
// Below the lowest stage of a pass a block spans at least 2^coalesce consecutive indices (more
// when the pass has fewer stages): 32-byte elements are full sectors; 4 make 128 bytes. With
// 2^10-element blocks 2 (64 bytes), so that 2^27 still takes three passes (10 + 8 + 9).
const unsigned kCoalesceLog = kBlockLog >= 11 ? 2 : 1;

template <int kScale>
void launch_bit_reverse(Fr* a, unsigned log_n, const Fr& s, const Fr* lo, const Fr* hi, unsigned split,
                        cudaStream_t stream) {
  if (kTiledBitrev && log_n >= 2 * kTileLog) {
    bit_reverse_tiled_kernel<kScale>
        <<<1u << (log_n - 2 * kTileLog), kBitrevThreads, 0, stream>>>(a, log_n, s, lo, hi, split);
  } else {
    const size_t n = size_t(1) << log_n;
    bit_reverse_kernel<kScale><<<grid_for(n), kThreads, 0, stream>>>(a, log_n, n, s, lo, hi, split);
  }
  check_launch("bit_reverse");
}

// The field's even/odd-accumulator product in the radix passes (more independent instructions
// per product: measured on the H200 8% faster at 2^27 with 2^10 blocks than the single-chain
// CIOS product, which CUZK_NTT_MUL=cios selects).
const bool kEoMul = [] {
  const char* v = std::getenv("CUZK_NTT_MUL");
  return !(v && std::string(v) == "cios");
}();

template <bool kDif, bool kInverse, bool kEo>
void launch_pass_impl(Fr* a, const Fr* tw, unsigned log_n, unsigned h_low, unsigned k, unsigned t, cudaStream_t stream,
                      const Fr* scale_lo, const Fr* scale_hi, unsigned split) {
  // The 64 KiB shared-memory opt-in is a per-device function attribute: set it once per device.
  static std::atomic<uint64_t> configured{0};
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  const uint64_t bit = uint64_t(1) << (unsigned(device) & 63);
  if (!(configured.load(std::memory_order_acquire) & bit)) {
    check(cudaFuncSetAttribute(radix_pass<kDif, kInverse, kEo>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               int(sizeof(Fr) << kMaxBlockLog)),
          "cudaFuncSetAttribute(radix_pass)");
    configured.fetch_or(bit, std::memory_order_release);
  }
  const unsigned elems_log = k + t;
  const size_t blocks = size_t(1) << (log_n - elems_log);
  // Two radix-4 groups per thread and step (256 threads for 2^11 elements).
  const unsigned threads = std::min(kThreads, std::max(1u, (1u << elems_log) / 8));
  radix_pass<kDif, kInverse, kEo><<<unsigned(blocks), threads, sizeof(Fr) << elems_log, stream>>>(
      a, tw, log_n, h_low, k, t, kRadix4, kSkipOne, scale_lo, scale_hi, split, kDifSingleFirst);
  check_launch("radix_pass");
}

template <bool kDif, bool kInverse>
void launch_pass(Fr* a, const Fr* tw, unsigned log_n, unsigned h_low, unsigned k, unsigned t, cudaStream_t stream,
                 const Fr* scale_lo = nullptr, const Fr* scale_hi = nullptr, unsigned split = 0) {
  if (kEoMul) {
    launch_pass_impl<kDif, kInverse, true>(a, tw, log_n, h_low, k, t, stream, scale_lo, scale_hi, split);
  } else {
    launch_pass_impl<kDif, kInverse, false>(a, tw, log_n, h_low, k, t, stream, scale_lo, scale_hi, split);
  }
}

}  // namespace

DeviceDomain::DeviceDomain(unsigned log_n, cudaStream_t stream)
    : log_n_(log_n), n_(size_t(1) << log_n), stream_(stream) {
  if (log_n > kMaxLogSize) {
    throw std::invalid_argument("GPU NTT domain 2^" + std::to_string(log_n) + " exceeds 2^" +
                                std::to_string(kMaxLogSize));
  }
  // The same constants as ntt::EvaluationDomain.
  Fr omega = Fr::two_adic_root_of_unity();
  for (unsigned i = log_n; i < 32; i++) omega = omega.sqr();
  n_inv_ = Fr::from_u64(n_).inverse();
  const Fr g = Fr::from_u64(ff::kFrMultiplicativeGenerator);
  const Fr g_inv = g.inverse();
  const Fr z_inv = (g.pow(uint64_t(n_)) - Fr::one()).inverse();  // 1 / Z on the coset

  // Passes bottom up; the DIF runs them in reverse order. The first pass takes up to kBlockLog
  // stages; the rest are shared evenly among as few passes as fit (at most kBlockLog -
  // kCoalesceLog stages each), and each block fills its 2^kBlockLog elements with consecutive
  // low indices (2^t), so no
  // pass runs small blocks (2^24 was 11 + 9 + 4 stages, with 64-element blocks in the last).
  const unsigned first = std::min(kBlockLog, log_n);
  passes_.push_back({0, first, 0});
  const unsigned rest = log_n - first;
  const unsigned max_k = kBlockLog - kCoalesceLog;
  const unsigned count = (rest + max_k - 1) / max_k;
  for (unsigned i = 0, h = first; i < count; i++) {
    const unsigned k = (rest - (h - first)) / (count - i);  // even split, larger passes last
    const unsigned t = std::min(h, kBlockLog - k);
    passes_.push_back({h, k, t});
    h += k;
  }
  if (log_n == 0) passes_.clear();

  split_ = (log_n + 1) / 2;
  const size_t lo_n = size_t(1) << split_, hi_n = size_t(1) << (log_n - split_);
  const Fr one = Fr::one();
  auto g_lo = host_powers(g, one, lo_n);
  auto ginv_lo = host_powers(g_inv, one, lo_n);
  auto g_hi = host_powers(g.pow(uint64_t(lo_n)), one, hi_n);
  auto g_hi_ninv = host_powers(g.pow(uint64_t(lo_n)), n_inv_, hi_n);
  auto ginv_hi_ninv = host_powers(g_inv.pow(uint64_t(lo_n)), n_inv_, hi_n);
  auto ginv_hi_ninv_zinv = host_powers(g_inv.pow(uint64_t(lo_n)), n_inv_ * z_inv, hi_n);
  g_lo_ = upload(g_lo, stream_);
  g_hi_ = upload(g_hi, stream_);
  g_hi_ninv_ = upload(g_hi_ninv, stream_);
  ginv_lo_ = upload(ginv_lo, stream_);
  ginv_hi_ninv_ = upload(ginv_hi_ninv, stream_);
  ginv_hi_ninv_zinv_ = upload(ginv_hi_ninv_zinv, stream_);
  if (n_ >= 2) {
    auto w_lo = host_powers(omega, one, lo_n);
    auto w_hi = host_powers(omega.pow(uint64_t(lo_n)), one, hi_n);
    auto d_lo = upload(w_lo, stream_), d_hi = upload(w_hi, stream_);
    twiddles_ = DeviceBuffer<Fr>(n_ / 2);
    expand_powers_kernel<<<grid_for(n_ / 2), kThreads, 0, stream_>>>(twiddles_.get(), d_lo.get(), d_hi.get(), split_,
                                                                     n_ / 2);
    check_launch("expand_powers");
    // The host vectors and the small device tables die here: wait for the copies.
    check(cudaStreamSynchronize(stream_), "twiddle table");
  }
  check(cudaStreamSynchronize(stream_), "domain tables");
}

size_t DeviceDomain::table_bytes() const {
  return twiddles_.bytes() + g_lo_.bytes() + g_hi_.bytes() + g_hi_ninv_.bytes() + ginv_lo_.bytes() +
         ginv_hi_ninv_.bytes() + ginv_hi_ninv_zinv_.bytes();
}

void DeviceDomain::dit(Fr* a, const Fr* scale_lo, const Fr* scale_hi) const {
  for (const Pass& p : passes_) {
    const bool first = p.h_low == 0;
    launch_pass<false, false>(a, twiddles_.get(), log_n_, p.h_low, p.k, p.t, stream_, first ? scale_lo : nullptr,
                              first ? scale_hi : nullptr, split_);
  }
}

void DeviceDomain::dif_inverse(Fr* a) const {
  for (auto p = passes_.rbegin(); p != passes_.rend(); ++p) {
    launch_pass<true, true>(a, twiddles_.get(), log_n_, p->h_low, p->k, p->t, stream_);
  }
}

void DeviceDomain::bit_reverse(Fr* a) const {
  if (n_ < 2) return;
  launch_bit_reverse<kNoScale>(a, log_n_, Fr::one(), nullptr, nullptr, 0, stream_);
}

void DeviceDomain::bit_reverse_scaled(Fr* a, const Fr& s) const {
  if (n_ < 2) return scale(a, s);
  launch_bit_reverse<kScaleConst>(a, log_n_, s, nullptr, nullptr, 0, stream_);
}

void DeviceDomain::bit_reverse_scaled(Fr* a, const Fr* lo, const Fr* hi) const {
  if (n_ < 2) return scale_by_table(a, lo, hi, false);
  launch_bit_reverse<kScaleByDest>(a, log_n_, Fr::one(), lo, hi, split_, stream_);
}

void DeviceDomain::scaled_bit_reverse(Fr* a, const Fr* lo, const Fr* hi) const {
  if (n_ < 2) return scale_by_table(a, lo, hi, false);
  launch_bit_reverse<kScaleBySource>(a, log_n_, Fr::one(), lo, hi, split_, stream_);
}

void DeviceDomain::scale_by_table(Fr* a, const Fr* lo, const Fr* hi, bool bit_reversed_index) const {
  scale_by_table_kernel<<<grid_for(n_), kThreads, 0, stream_>>>(a, lo, hi, split_, log_n_, n_, bit_reversed_index);
  check_launch("scale_by_table");
}

void DeviceDomain::scale(Fr* a, const Fr& s) const {
  scale_kernel<<<grid_for(n_), kThreads, 0, stream_>>>(a, s, n_);
  check_launch("scale");
}

void DeviceDomain::fft(Fr* a) const {
  bit_reverse(a);
  dit(a);
}

void DeviceDomain::ifft(Fr* a) const {
  dif_inverse(a);
  bit_reverse_scaled(a, n_inv_);
}

void DeviceDomain::coset_fft(Fr* a) const {
  if (kFuseScale) {
    scaled_bit_reverse(a, g_lo_.get(), g_hi_.get());  // element k times g^k, then permuted
  } else {
    scale_by_table(a, g_lo_.get(), g_hi_.get(), false);
    bit_reverse(a);
  }
  dit(a);
}

void DeviceDomain::icoset_fft(Fr* a) const {
  dif_inverse(a);
  // Coefficient k comes to index k and is scaled by g^-k / n on the way.
  bit_reverse_scaled(a, ginv_lo_.get(), ginv_hi_ninv_.get());
}

void DeviceDomain::coset_evaluations(Fr* x) const {
  // iNTT leaves coefficients bit-reversed; the coset scale (with 1/n) reads their true
  // index, and the forward DIT takes bit-reversed input: no permutation in between.
  dif_inverse(x);
  if (kFuseScale && !passes_.empty()) {
    dit(x, g_lo_.get(), g_hi_ninv_.get());  // scaled as the first pass loads
  } else {
    scale_by_table(x, g_lo_.get(), g_hi_ninv_.get(), true);
    dit(x);
  }
}

void DeviceDomain::h_product(Fr* a, const Fr* b) const {
  multiply_kernel<<<grid_for(n_), kThreads, 0, stream_>>>(a, b, n_);
  check_launch("multiply");
  dif_inverse(a);  // unscaled, bit-reversed: h_finish applies g^-k / n with the permutation
}

void DeviceDomain::h_finish(Fr* a, Fr* c) const {
  dif_inverse(c);
  h_combine_kernel<<<grid_for(n_), kThreads, 0, stream_>>>(a, c, g_lo_.get(), g_hi_.get(), split_, log_n_, n_);
  check_launch("h_combine");
  bit_reverse_scaled(a, ginv_lo_.get(), ginv_hi_ninv_zinv_.get());
}

void DeviceDomain::h_polynomial(Fr* a, Fr* b, Fr* c) const {
  coset_evaluations(a);
  coset_evaluations(b);
  h_product(a, b);
  h_finish(a, c);
}

void DeviceDomain::synchronize() const { check(cudaStreamSynchronize(stream_), "NTT"); }

void transform_on_device(std::span<Fr> a, Transform kind) {
  size_t n = a.size();
  unsigned log_n = 0;
  while ((size_t(1) << log_n) < n) log_n++;
  if (n == 0 || (size_t(1) << log_n) != n) throw std::invalid_argument("GPU NTT: size must be a power of two");
  DeviceDomain domain(log_n);
  DeviceBuffer<Fr> d(n);
  check(cudaMemcpy(d.get(), a.data(), n * sizeof(Fr), cudaMemcpyHostToDevice), "upload");
  switch (kind) {
    case Transform::kFft:
      domain.fft(d.get());
      break;
    case Transform::kIfft:
      domain.ifft(d.get());
      break;
    case Transform::kCosetFft:
      domain.coset_fft(d.get());
      break;
    case Transform::kIcosetFft:
      domain.icoset_fft(d.get());
      break;
  }
  domain.synchronize();
  check(cudaMemcpy(a.data(), d.get(), n * sizeof(Fr), cudaMemcpyDeviceToHost), "download");
}

void h_polynomial_on_device(std::span<Fr> a, std::span<Fr> b, std::span<Fr> c) {
  const size_t n = a.size();
  unsigned log_n = 0;
  while ((size_t(1) << log_n) < n) log_n++;
  if (n == 0 || (size_t(1) << log_n) != n || b.size() != n || c.size() != n) {
    throw std::invalid_argument("GPU H polynomial: a, b, c must have one power-of-two size");
  }
  DeviceDomain domain(log_n);
  DeviceBuffer<Fr> da(n), db(n), dc(n);
  check(cudaMemcpy(da.get(), a.data(), n * sizeof(Fr), cudaMemcpyHostToDevice), "upload a");
  check(cudaMemcpy(db.get(), b.data(), n * sizeof(Fr), cudaMemcpyHostToDevice), "upload b");
  check(cudaMemcpy(dc.get(), c.data(), n * sizeof(Fr), cudaMemcpyHostToDevice), "upload c");
  domain.h_polynomial(da.get(), db.get(), dc.get());
  domain.synchronize();
  check(cudaMemcpy(a.data(), da.get(), n * sizeof(Fr), cudaMemcpyDeviceToHost), "download");
}

int device_count(std::string* why) { return cuzk::cuda::device_count(why); }

void expand_zero_one(Fr* out, size_t n, const DeviceZeroOneVector& v, cudaStream_t stream) {
  if (v.size > n) throw std::invalid_argument("expand_zero_one: the vector is longer than its target");
  const size_t chunks = (v.size + ZeroOneVector::kChunk - 1) / ZeroOneVector::kChunk;
  if (chunks > 0) {
    expand_zero_one_kernel<<<unsigned(chunks), kExpandThreads, 0, stream>>>(out, v.size, v.kinds, v.chunk_offsets,
                                                                            v.others, Fr::one());
    check_launch("expand_zero_one");
  }
  if (n > v.size) check(cudaMemsetAsync(out + v.size, 0, (n - v.size) * sizeof(Fr), stream), "zero padding");
}

}  // namespace cuzk::ntt::cuda

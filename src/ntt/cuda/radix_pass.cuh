// The GPU NTT's radix pass: several radix-2 stages of a transform in one shared-memory block
// (part of the one translation unit ntt.cu; see ntt.hpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "ff/fr.hpp"

namespace cuzk::ntt::cuda {
namespace {

using ff::Fr;

// A pass's block: 2^10 elements (32 KiB of shared memory, 128 threads, six blocks per SM), so a
// 2^27 transform takes three passes over device memory (10 + 8 + 9 stages). Below a pass's lowest
// stage a block spans at least 2^kCoalesceLog consecutive indices (more when the pass has fewer
// stages): 2 elements, 64 bytes. (2^11-element blocks with 4-element runs were 4% slower at 2^27:
// docs/perf-history.md, "GPU NTT".)
constexpr unsigned kBlockLog = 10;
constexpr unsigned kCoalesceLog = 1;
constexpr unsigned kThreads = 256;
// Registers kept to three blocks of kThreads per SM (<= 80), i.e. six of the passes' 128 threads.
constexpr unsigned kPassBlocksPerSm = 3;

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
__device__ __forceinline__ Fr diff_times(const Fr& x, const Fr& y, const Twiddle& t) {
  const Fr p = t.neg ? y : x, q = t.neg ? x : y;
  return (p - q) * t.w;
}

// Stages [h_low, h_low + k) of a radix-2 transform in place. Element index bits: [0, h_low)
// low, [h_low, h_low + k) mid, the rest high. A block holds all 2^k mid values for one high
// value and 2^t consecutive low values, runs the k stages in shared memory and writes back.
// kDif: decimation in frequency, stages from the top down (natural in, bit-reversed out);
// otherwise decimation in time, bottom up (bit-reversed in, natural out).
template <bool kDif, bool kInverse>
requires(kDif || !kInverse)  // the inverse is always decimation in frequency
    __global__ void __launch_bounds__(kThreads, kPassBlocksPerSm)
        radix_pass(Fr* __restrict__ a, const Fr* __restrict__ tw, unsigned log_n, unsigned h_low, unsigned k,
                   unsigned t, const Fr* __restrict__ scale_lo, const Fr* __restrict__ scale_hi, unsigned split) {
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
  // and first in the DIF, so stages 0 and 1 always form a pair.
  for (unsigned step = 0; step < k;) {
    const bool single_now = kDif && (k - step) % 2 == 1;
    if (k - step >= 2 && !single_now) {
      const unsigned sl = kDif ? k - 2 - step : step;  // the lower of the two stages
      const unsigned s = h_low + sl;
      const unsigned bit = sl + t;
      const size_t m_mask = (size_t(1) << s) - 1;
      if (s == 0) {
        // Stages 0 and 1: every twiddle is 1 except stage 1's second one, omega^(n/4) (its
        // negation in the inverse): one multiplication per four elements instead of four.
        const Fr w4 = tw[half_n >> 1];
        for (unsigned q = threadIdx.x; q < elems / 4; q += blockDim.x) {
          const unsigned e0 = ((q >> bit) << (bit + 2)) | (q & ((1u << bit) - 1));
          const unsigned e1 = e0 + (1u << bit), e2 = e0 + (2u << bit), e3 = e0 + (3u << bit);
          const Fr x0 = sm[e0], x1 = sm[e1], x2 = sm[e2], x3 = sm[e3];
          if constexpr (kDif) {
            const Fr u0 = x0 + x2, u2 = x0 - x2;
            const Fr u1 = x1 + x3, u3 = kInverse ? (x3 - x1) * w4 : (x1 - x3) * w4;
            sm[e0] = u0 + u1;
            sm[e1] = u0 - u1;
            sm[e2] = u2 + u3;
            sm[e3] = u2 - u3;
          } else {
            const Fr u0 = x0 + x1, u1 = x0 - x1, u2 = x2 + x3, u3 = x2 - x3;
            const Fr v3 = u3 * w4;
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
          const Fr u0 = x0 + x2, u2 = diff_times(x0, x2, w2a);
          const Fr u1 = x1 + x3, u3 = diff_times(x1, x3, w2b);
          sm[e0] = u0 + u1;
          sm[e1] = diff_times(u0, u1, w1);
          sm[e2] = u2 + u3;
          sm[e3] = diff_times(u2, u3, w1);
        } else {
          // Forward only (twiddles never negated).
          const Fr y1 = x1 * w1.w, y3 = x3 * w1.w;
          const Fr u0 = x0 + y1, u1 = x0 - y1, u2 = x2 + y3, u3 = x2 - y3;
          const Fr v2 = u2 * w2a.w, v3 = u3 * w2b.w;
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
        if (s == 0) {  // stage 0: the twiddle is 1
          sm[e0] = x + y;
          sm[e1] = x - y;
        } else if constexpr (kDif) {
          sm[e0] = x + y;
          sm[e1] = diff_times(x, y, w);
        } else {
          const Fr yw = y * w.w;
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

}  // namespace
}  // namespace cuzk::ntt::cuda

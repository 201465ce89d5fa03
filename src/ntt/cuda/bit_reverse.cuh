// The GPU NTT's bit-reversal permutations, with the transforms' scalings fused in (part of the
// one translation unit ntt.cu; see ntt.hpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "ff/fr.hpp"

namespace cuzk::ntt::cuda {
namespace {

using ff::Fr;

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

}  // namespace
}  // namespace cuzk::ntt::cuda

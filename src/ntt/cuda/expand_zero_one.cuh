// The expansion of a compact mostly-0/1 vector (ntt::ZeroOneVector) on the device (part of the
// one translation unit ntt.cu; see ntt.hpp, expand_zero_one).
#pragma once

#include <cstddef>
#include <cstdint>

#include "ff/fr.hpp"
#include "ntt/zero_one_vector.hpp"

namespace cuzk::ntt::cuda {
namespace {

using ff::Fr;

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

}  // namespace
}  // namespace cuzk::ntt::cuda

// The GPU MSM's density mask on the device: scalar i's base by a prefix sum of word popcounts
// (part of the one translation unit msm.cu).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cub/device/device_scan.cuh>

#include <cuda_runtime.h>

#include "cuda/check.hpp"
#include "msm/cuda/launch.cuh"
#include "msm/cuda/workspace.cuh"
#include "msm/pippenger.hpp"

namespace cuzk::msm::cuda {
namespace {

using cuzk::cuda::check;
using cuzk::cuda::check_launch;

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

// Uploads the mask (when there is one) and computes its prefix on ws's stream.
DeviceDensity density_on_device(Workspace& ws, const DensityView* density, size_t count) {
  if (!density) return {};
  cudaStream_t stream = ws.stream;
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
  return {words, prefix};
}

}  // namespace
}  // namespace cuzk::msm::cuda

// Launch geometry of the GPU MSM's kernels (part of the one translation unit msm.cu).
#pragma once

#include <algorithm>
#include <cstddef>

#include <cuda_runtime.h>

#include "cuda/check.hpp"

namespace cuzk::msm::cuda {
namespace {

using cuzk::cuda::check;
using cuzk::cuda::check_launch;

constexpr unsigned kThreads = 128;  // threads of every block

unsigned blocks_for(size_t n) { return unsigned((n + kThreads - 1) / kThreads); }

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

}  // namespace
}  // namespace cuzk::msm::cuda

// Streams for the host side of the CUDA layers: non-blocking (no implicit order with the legacy
// default stream), at the default priority or at the device's greatest (the urgent lane's, so
// that the card schedules their blocks first).
#pragma once

#include <cuda_runtime.h>

namespace cuzk::cuda {

// On the current device; the CUDA error as cudaStreamCreate* gives it.
inline cudaError_t create_stream(cudaStream_t* stream, bool greatest_priority = false) {
  int least = 0, greatest = 0;  // the default priority is 0 (the least)
  if (greatest_priority) {
    if (cudaError_t err = cudaDeviceGetStreamPriorityRange(&least, &greatest); err != cudaSuccess) return err;
  }
  return cudaStreamCreateWithPriority(stream, cudaStreamNonBlocking, greatest);
}

}  // namespace cuzk::cuda

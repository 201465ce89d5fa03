// Devices for the host side of the CUDA layers: how many there are, and making one current for
// the length of a call.
#pragma once

#include <string>

#include <cuda_runtime.h>

#include "cuda/check.hpp"

namespace cuzk::cuda {

// Number of CUDA devices, or 0 with the reason in *why (no driver, no device).
inline int device_count(std::string* why = nullptr) {
  int n = 0;
  const cudaError_t err = cudaGetDeviceCount(&n);
  if (err != cudaSuccess) {
    cudaGetLastError();
    if (why) *why = cudaGetErrorString(err);
    return 0;
  }
  if (n == 0 && why) *why = "no CUDA device";
  return n;
}

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

}  // namespace cuzk::cuda

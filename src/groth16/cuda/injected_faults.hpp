// The CUDA backend's fault sites (groth16/fault_injection.hpp, off unless armed): at each
// device-memory request and kernel launch of prove_start (and of place_matrices, whose matrices a
// proof would upload), fail as the CUDA call there would, so that tests take the path a real
// device fault takes (the proof's job fails naming the partition and the cause). The message is
// built only when the fault fires. Host code.
#pragma once

#include <string>
#include <string_view>

#include <cuda_runtime.h>

#include "cuda/check.hpp"
#include "groth16/fault_injection.hpp"

namespace cuzk::groth16::cuda {

inline void inject_device_oom(std::string_view what, std::string_view which = {}) {
  if (fault_injection::fires(fault_injection::Fault::kDeviceOom)) {
    cuzk::cuda::check(cudaErrorMemoryAllocation, (std::string(what) + std::string(which) + " [injected]").c_str());
  }
}
inline void inject_launch_error(std::string_view kernels, std::string_view which = {}) {
  if (fault_injection::fires(fault_injection::Fault::kLaunchError)) {
    cuzk::cuda::check(cudaErrorLaunchOutOfResources,
                      (std::string(kernels) + std::string(which) + " [injected]").c_str());
  }
}

}  // namespace cuzk::groth16::cuda

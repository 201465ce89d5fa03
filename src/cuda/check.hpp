// CUDA error handling for the host side of every CUDA layer (ff, ntt, msm, groth16, the benches).
// Every CUDA failure becomes a std::runtime_error carrying the CUDA error text: the prover runs
// inside a long-lived daemon, so nothing may abort the process.
#pragma once

#include <stdexcept>
#include <string>

#include <cuda_runtime.h>

namespace cuzk::cuda {

inline void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    cudaGetLastError();  // clear a non-sticky error so the next call starts clean
    throw std::runtime_error(std::string("CUDA: ") + what + ": " + cudaGetErrorName(err) + ": " +
                             cudaGetErrorString(err));
  }
}

// Checks the launch that just happened (configuration errors show up here at once).
inline void check_launch(const char* kernel) { check(cudaGetLastError(), kernel); }

}  // namespace cuzk::cuda

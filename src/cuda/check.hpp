// CUDA error handling for the host side of every CUDA layer (ff, ntt, msm, groth16, the benches).
// Every CUDA failure becomes a std::runtime_error carrying the CUDA error text and, as sppark's
// CUDA_OK does, the file and line of the call that failed: the prover runs inside a long-lived
// daemon, so nothing may abort the process, and "out of memory" alone does not say where.
#pragma once

#include <source_location>
#include <stdexcept>
#include <string>
#include <string_view>

#include <cuda_runtime.h>

namespace cuzk::cuda {

// "CUDA: <what>: <error name>: <error text> (<file>:<line>)", the file without its directories.
inline void check(cudaError_t err, const char* what, std::source_location at = std::source_location::current()) {
  if (err != cudaSuccess) {
    cudaGetLastError();  // clear a non-sticky error so the next call starts clean
    std::string_view file = at.file_name();
    if (const size_t slash = file.rfind('/'); slash != std::string_view::npos) file.remove_prefix(slash + 1);
    throw std::runtime_error(std::string("CUDA: ") + what + ": " + cudaGetErrorName(err) + ": " +
                             cudaGetErrorString(err) + " (" + std::string(file) + ":" + std::to_string(at.line()) +
                             ")");
  }
}

// Checks the launch that just happened (configuration errors show up here at once); names the
// launch's file and line.
inline void check_launch(const char* kernel, std::source_location at = std::source_location::current()) {
  check(cudaGetLastError(), kernel, at);
}

}  // namespace cuzk::cuda

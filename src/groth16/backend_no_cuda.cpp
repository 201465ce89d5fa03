// The CUDA entry points of a build without CUDA (CUZK_CUDA=OFF or no nvcc).
#include <stdexcept>

#include "groth16/backend.hpp"

namespace cuzk::groth16 {

int cuda_device_count() { return 0; }

std::unique_ptr<ProverBackend> make_cuda_backend(int, const CudaBackendOptions&) {
  throw std::runtime_error("the CUDA backend is not available: cuzk was built without CUDA (CUZK_CUDA=OFF or no nvcc)");
}

}  // namespace cuzk::groth16

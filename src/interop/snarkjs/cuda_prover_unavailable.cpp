// make_cuda_prover in a build without CUDA.
#include <stdexcept>

#include "interop/snarkjs/prover.hpp"

namespace cuzk::snarkjs {

std::unique_ptr<Prover> make_cuda_prover(int) {
  throw std::runtime_error("cuzk was built without CUDA: the snarkjs prover's cuda backend is not available (use cpu)");
}

}  // namespace cuzk::snarkjs

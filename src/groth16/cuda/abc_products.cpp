#include "groth16/cuda/abc_products.hpp"

#include "cuda/check.hpp"
#include "groth16/cuda/injected_faults.hpp"

namespace cuzk::groth16::cuda {

using cuzk::cuda::check;
using M = r1cs::cuda::DeviceCompiledCircuit::Matrix;

AbcProducts::AbcProducts() {
  for (auto& e : marks_) check(cudaEventCreate(&e), "cudaEventCreate");
}

AbcProducts::~AbcProducts() {
  for (auto& e : marks_) cudaEventDestroy(e);
}

double AbcProducts::h_polynomial(const ntt::cuda::DeviceDomain& domain,
                                 const r1cs::cuda::DeviceCompiledCircuit& matrices, const ff::Fr* witness, ff::Fr* a,
                                 ff::Fr* b) const {
  const size_t n = domain.size();
  cudaStream_t stream = domain.stream();
  inject_launch_error("compiled circuit products");
  check(cudaEventRecord(marks_[0], stream), "cudaEventRecord");
  matrices.product(M::kB, witness, b, n, stream);
  matrices.product(M::kA, witness, a, n, stream);
  check(cudaEventRecord(marks_[1], stream), "cudaEventRecord");
  inject_launch_error("coset NTT");
  domain.coset_evaluations(b);
  domain.coset_evaluations(a);
  inject_launch_error("h_product");
  domain.h_product(a, b);
  // b's evaluations are spent: c takes its memory.
  ff::Fr* const c = b;
  check(cudaEventRecord(marks_[2], stream), "cudaEventRecord");
  matrices.product(M::kC, witness, c, n, stream);
  check(cudaEventRecord(marks_[3], stream), "cudaEventRecord");
  inject_launch_error("h_finish");
  domain.h_finish(a, c);
  domain.synchronize();
  float ab_ms = 0, c_ms = 0;
  check(cudaEventElapsedTime(&ab_ms, marks_[0], marks_[1]), "cudaEventElapsedTime");
  check(cudaEventElapsedTime(&c_ms, marks_[2], marks_[3]), "cudaEventElapsedTime");
  return (double(ab_ms) + double(c_ms)) / 1e3;
}

}  // namespace cuzk::groth16::cuda

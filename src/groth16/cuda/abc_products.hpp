// A witness-only proof's H polynomial on the device (the CUDA backend's steps 1 and 2 on that
// path): a, b and c are the products of the compiled circuit's resident matrices with the witness
// already in device memory, formed where the transforms read them, in two vectors of n: c goes
// into b's memory once the product a b is made (DeviceMemoryPlan's separate layout for
// witness-only proofs), so a proof needs 2 n scalars beside its witness, not 3 n. Host code.
#pragma once

#include <cuda_runtime.h>

#include "ff/fr.hpp"
#include "ntt/cuda/ntt.hpp"
#include "r1cs/cuda/compiled_circuit_device.hpp"

namespace cuzk::groth16::cuda {

class AbcProducts {
 public:
  AbcProducts();  // its timing events, on the current device
  ~AbcProducts();
  AbcProducts(const AbcProducts&) = delete;
  AbcProducts& operator=(const AbcProducts&) = delete;

  // On the domain's stream: b = B w, a = A w, their coset evaluations, a <- a b, then c = C w into
  // b and H into a (ntt::cuda::DeviceDomain's steps). Returns when H's n coefficients are in a,
  // with the device time of the three products (seconds).
  double h_polynomial(const ntt::cuda::DeviceDomain& domain, const r1cs::cuda::DeviceCompiledCircuit& matrices,
                      const ff::Fr* witness, ff::Fr* a, ff::Fr* b) const;

 private:
  cudaEvent_t marks_[4] = {};  // around the products of A and B, and around C's
};

}  // namespace cuzk::groth16::cuda

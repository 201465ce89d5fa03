// A compiled circuit's matrices (r1cs/compiled_circuit.hpp) resident on a device, and their
// products with a witness in device memory: a, b and c of a witness-only synthesis computed where
// the H polynomial reads them, so the host never holds them. Bit-identical to
// CompiledCircuit::evaluate (the field is exact). Host code; kernels in the .cu.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "cuda/device_buffer.hpp"
#include "r1cs/compiled_circuit.hpp"

namespace cuzk::r1cs::cuda {

class DeviceCompiledCircuit {
 public:
  enum class Matrix { kA, kB, kC };

  // Uploads cc's matrices and coefficient table to the current device; returns when they are
  // there. Throws std::runtime_error (cudaErrorMemoryAllocation in the text when the device is
  // full).
  DeviceCompiledCircuit(const CompiledCircuit& cc, cudaStream_t stream);

  size_t bytes() const;
  // What the constructor would allocate for cc: the same as bytes() after it.
  static size_t bytes_for(const CompiledCircuit& cc) {
    return cc.coefficients.size() * sizeof(Fr) + cc.a.bytes() + cc.b.bytes() + cc.c.bytes();
  }

  // Enqueues on stream out[i] = (M z)_i for i < constraints and 0 up to n, where z is the
  // witness in device memory: aux, then the inputs (ONE first), as the compiled columns number
  // them. n >= constraints.
  void product(Matrix m, const Fr* witness, Fr* out, size_t n, cudaStream_t stream) const;

 private:
  struct Rows {
    cuzk::cuda::DeviceBuffer<uint32_t> row_start, column;
    cuzk::cuda::DeviceBuffer<uint16_t> coeff;
  };
  const CompiledCircuit* source_;  // the host copy it was made from (must outlive its use)
  cuzk::cuda::DeviceBuffer<Fr> table_;
  Rows rows_[3];
};

}  // namespace cuzk::r1cs::cuda

// The compiled circuits' matrices a CUDA backend keeps on its device for witness-only proofs,
// whose a, b and c are the matrices' products with the witness, formed there: the last few
// circuits used, most recent first (a circuit's host copy, referenced here, keeps it alive).
#pragma once

#include <algorithm>
#include <memory>
#include <vector>

#include <cuda_runtime.h>

#include "r1cs/compiled_circuit.hpp"
#include "r1cs/cuda/compiled_circuit_device.hpp"

namespace cuzk::groth16::cuda {

class DeviceMatrices {
 public:
  static constexpr size_t kMaxCircuits = 4;

  bool has(const std::shared_ptr<const r1cs::CompiledCircuit>& compiled) const {
    return std::any_of(circuits_.begin(), circuits_.end(), [&](const Circuit& c) { return c.host == compiled; });
  }

  // The circuit's matrices on the current device, uploaded on `stream` first when absent (the
  // least recently used circuit leaves beyond kMaxCircuits). Throws as DeviceCompiledCircuit.
  const r1cs::cuda::DeviceCompiledCircuit& get(const std::shared_ptr<const r1cs::CompiledCircuit>& compiled,
                                               cudaStream_t stream) {
    for (auto it = circuits_.begin(); it != circuits_.end(); ++it) {
      if (it->host == compiled) {
        std::rotate(circuits_.begin(), it, it + 1);
        return *circuits_.front().device;
      }
    }
    if (circuits_.size() >= kMaxCircuits) circuits_.pop_back();
    auto device = std::make_unique<r1cs::cuda::DeviceCompiledCircuit>(*compiled, stream);
    circuits_.insert(circuits_.begin(), Circuit{compiled, std::move(device)});
    return *circuits_.front().device;
  }

  // Device bytes of the circuits held.
  size_t bytes() const {
    size_t b = 0;
    for (const Circuit& c : circuits_) b += c.device->bytes();
    return b;
  }
  // Device bytes the next new circuit's upload frees first (the least recently used one leaves).
  size_t bytes_freed_by_next() const { return circuits_.size() >= kMaxCircuits ? circuits_.back().device->bytes() : 0; }

  // Frees the circuit's matrices on the device (nothing when absent).
  void erase(const std::shared_ptr<const r1cs::CompiledCircuit>& compiled) {
    std::erase_if(circuits_, [&](const Circuit& c) { return c.host == compiled; });
  }

 private:
  struct Circuit {
    std::shared_ptr<const r1cs::CompiledCircuit> host;
    std::unique_ptr<r1cs::cuda::DeviceCompiledCircuit> device;
  };
  std::vector<Circuit> circuits_;
};

}  // namespace cuzk::groth16::cuda

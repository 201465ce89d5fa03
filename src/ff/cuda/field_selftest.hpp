// Runs the host/device field templates on the GPU, so tests can compare the device
// results with the CPU's bit for bit. Host-callable; no CUDA headers needed to use it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "ff/fp2.hpp"
#include "ff/fr.hpp"

namespace cuzk::ff::cuda {

// Number of CUDA devices, or 0 (with the reason in *why) when there is none or the
// driver is missing.
int device_count(std::string* why = nullptr);

// Results per input pair in the self-test's output.
inline constexpr size_t kFieldOps = 5;

// For each i, with k = kFieldOps: out[k i + 0] = a[i] * b[i], out[k i + 1] = a[i] + b[i],
// out[k i + 2] = a[i] - b[i], out[k i + 3] = a[i]^2, out[k i + 4] = a[i] b[i] + (a[i] + b[i])
// (a[i] - b[i]) by sum_of_products, computed on device 0. Throws std::runtime_error with the
// CUDA error text.
std::vector<Fp> fp_ops_on_device(const std::vector<Fp>& a, const std::vector<Fp>& b);
std::vector<Fr> fr_ops_on_device(const std::vector<Fr>& a, const std::vector<Fr>& b);
std::vector<Fp2> fp2_ops_on_device(const std::vector<Fp2>& a, const std::vector<Fp2>& b);

// The same five operations in the lazy Fp of the MSM (ff/cuda/lazy_mont.hpp, values in [0, 2p)),
// with a[i] entered as a[i] + p when i & 1 and b[i] as b[i] + p when i & 2 (the same elements in
// their other lazy form). The raw words come back: each must be below 2p and congruent to the
// fully reduced result (LazyMont::canonical).
std::vector<BigInt<6>> fp_lazy_ops_on_device(const std::vector<Fp>& a, const std::vector<Fp>& b);

}  // namespace cuzk::ff::cuda

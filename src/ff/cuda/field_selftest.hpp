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

}  // namespace cuzk::ff::cuda

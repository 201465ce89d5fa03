// Host-side wrappers of the GPU NTT for tests and benchmarks (see ntt.hpp): copy in, transform
// on the current device, copy back.
#include <cstddef>
#include <span>
#include <stdexcept>

#include <cuda_runtime.h>

#include "cuda/check.hpp"
#include "cuda/device_buffer.hpp"
#include "ntt/cuda/ntt.hpp"

namespace cuzk::ntt::cuda {

using cuzk::cuda::check;

void transform_on_device(std::span<Fr> a, Transform kind) {
  size_t n = a.size();
  unsigned log_n = 0;
  while ((size_t(1) << log_n) < n) log_n++;
  if (n == 0 || (size_t(1) << log_n) != n) throw std::invalid_argument("GPU NTT: size must be a power of two");
  DeviceDomain domain(log_n);
  DeviceBuffer<Fr> d(n);
  check(cudaMemcpy(d.get(), a.data(), n * sizeof(Fr), cudaMemcpyHostToDevice), "upload");
  switch (kind) {
    case Transform::kFft:
      domain.fft(d.get());
      break;
    case Transform::kIfft:
      domain.ifft(d.get());
      break;
    case Transform::kCosetFft:
      domain.coset_fft(d.get());
      break;
    case Transform::kIcosetFft:
      domain.icoset_fft(d.get());
      break;
  }
  domain.synchronize();
  check(cudaMemcpy(a.data(), d.get(), n * sizeof(Fr), cudaMemcpyDeviceToHost), "download");
}

void h_polynomial_on_device(std::span<Fr> a, std::span<Fr> b, std::span<Fr> c) {
  const size_t n = a.size();
  unsigned log_n = 0;
  while ((size_t(1) << log_n) < n) log_n++;
  if (n == 0 || (size_t(1) << log_n) != n || b.size() != n || c.size() != n) {
    throw std::invalid_argument("GPU H polynomial: a, b, c must have one power-of-two size");
  }
  DeviceDomain domain(log_n);
  DeviceBuffer<Fr> da(n), db(n), dc(n);
  check(cudaMemcpy(da.get(), a.data(), n * sizeof(Fr), cudaMemcpyHostToDevice), "upload a");
  check(cudaMemcpy(db.get(), b.data(), n * sizeof(Fr), cudaMemcpyHostToDevice), "upload b");
  check(cudaMemcpy(dc.get(), c.data(), n * sizeof(Fr), cudaMemcpyHostToDevice), "upload c");
  domain.h_polynomial(da.get(), db.get(), dc.get());
  domain.synchronize();
  check(cudaMemcpy(a.data(), da.get(), n * sizeof(Fr), cudaMemcpyDeviceToHost), "download");
}

}  // namespace cuzk::ntt::cuda

#include <stdexcept>
#include <string>

#include <cuda_runtime.h>

#include "cuda/check.hpp"
#include "cuda/device.hpp"
#include "ff/cuda/field_selftest.hpp"
#include "ff/cuda/lazy_mont.hpp"

namespace cuzk::ff::cuda {
namespace {

using cuzk::cuda::check;

template <class F>
__global__ void field_ops_kernel(const F* a, const F* b, F* out, size_t n) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  F x = a[i], y = b[i];
  out[kFieldOps * i + 0] = x * y;
  out[kFieldOps * i + 1] = x + y;
  out[kFieldOps * i + 2] = x - y;
  out[kFieldOps * i + 3] = x.sqr();
  out[kFieldOps * i + 4] = F::sum_of_products(x, y, x + y, x - y);
}

using LazyFp = LazyMont<Fp>;

__global__ void lazy_fp_ops_kernel(const Fp* a, const Fp* b, BigInt<6>* out, size_t n) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  constexpr BigInt<6> p = LazyFp::Consts::M;
  LazyFp x = LazyFp::from(a[i]), y = LazyFp::from(b[i]);
  if (i & 1) x.mont.add_in_place(p);
  if (i & 2) y.mont.add_in_place(p);
  out[kFieldOps * i + 0] = (x * y).mont;
  out[kFieldOps * i + 1] = (x + y).mont;
  out[kFieldOps * i + 2] = (x - y).mont;
  out[kFieldOps * i + 3] = x.sqr().mont;
  out[kFieldOps * i + 4] = LazyFp::sum_of_products(x, y, x + y, x - y).mont;
}

// out[kFieldOps i + k] = the k-th operation on a[i], b[i], computed on device 0 by `kernel`.
template <class F, class Out>
std::vector<Out> run(const std::vector<F>& a, const std::vector<F>& b,
                     void (*kernel)(const F*, const F*, Out*, size_t)) {
  if (a.size() != b.size()) throw std::invalid_argument("field self-test: input lengths differ");
  std::vector<Out> out(kFieldOps * a.size());
  if (a.empty()) return out;
  F *da = nullptr, *db = nullptr;
  Out* dout = nullptr;
  auto release = [&] {
    cudaFree(da);
    cudaFree(db);
    cudaFree(dout);
  };
  try {
    check(cudaMalloc(&da, a.size() * sizeof(F)), "cudaMalloc");
    check(cudaMalloc(&db, b.size() * sizeof(F)), "cudaMalloc");
    check(cudaMalloc(&dout, out.size() * sizeof(Out)), "cudaMalloc");
    check(cudaMemcpy(da, a.data(), a.size() * sizeof(F), cudaMemcpyHostToDevice), "upload");
    check(cudaMemcpy(db, b.data(), b.size() * sizeof(F), cudaMemcpyHostToDevice), "upload");
    const unsigned threads = 128;
    const unsigned blocks = unsigned((a.size() + threads - 1) / threads);
    kernel<<<blocks, threads>>>(da, db, dout, a.size());
    check(cudaGetLastError(), "kernel launch");
    check(cudaMemcpy(out.data(), dout, out.size() * sizeof(Out), cudaMemcpyDeviceToHost), "download");
  } catch (...) {
    release();
    throw;
  }
  release();
  return out;
}

}  // namespace

int device_count(std::string* why) { return cuzk::cuda::device_count(why); }

std::vector<Fp> fp_ops_on_device(const std::vector<Fp>& a, const std::vector<Fp>& b) {
  return run(a, b, field_ops_kernel<Fp>);
}
std::vector<Fr> fr_ops_on_device(const std::vector<Fr>& a, const std::vector<Fr>& b) {
  return run(a, b, field_ops_kernel<Fr>);
}
std::vector<Fp2> fp2_ops_on_device(const std::vector<Fp2>& a, const std::vector<Fp2>& b) {
  return run(a, b, field_ops_kernel<Fp2>);
}
std::vector<BigInt<6>> fp_lazy_ops_on_device(const std::vector<Fp>& a, const std::vector<Fp>& b) {
  return run(a, b, lazy_fp_ops_kernel);
}

}  // namespace cuzk::ff::cuda

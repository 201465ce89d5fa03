// Precomputed multiples of resident bases, [2^(t G c)] B for copies t >= 1, made once on the
// device (part of the one translation unit msm.cu; see msm.hpp, Precompute).
#pragma once

#include <algorithm>
#include <cstddef>

#include <cuda_runtime.h>

#include "cuda/check.hpp"
#include "cuda/device_buffer.hpp"
#include "ec/point.hpp"
#include "msm/cuda/launch.cuh"

namespace cuzk::msm::cuda {
namespace {

using cuzk::cuda::check;
using cuzk::cuda::check_launch;

// out[j] = [2^doublings] in[j] in affine form, j < n: thread t doubles points [t K, t K + K) in
// Jacobian form (kept in jac) and converts them with one inversion (Montgomery's trick, running
// products in prefix). One-off work for precomputed bases.
constexpr unsigned kPrecomputeChunk = 32;

template <class Curve>
__global__ void double_to_affine(const ec::AffinePoint<Curve>* in, ec::AffinePoint<Curve>* out, size_t n,
                                 unsigned doublings, ec::JacobianPoint<Curve>* jac, typename Curve::Field* prefix) {
  using Field = typename Curve::Field;
  using Jacobian = ec::JacobianPoint<Curve>;
  const size_t lo = (size_t(blockIdx.x) * blockDim.x + threadIdx.x) * kPrecomputeChunk;
  if (lo >= n) return;
  const size_t hi = min(n, lo + kPrecomputeChunk);
  Field acc = Field::one();
  for (size_t j = lo; j < hi; j++) {
    Jacobian p = Jacobian::from_affine(in[j]);
    for (unsigned d = 0; d < doublings; d++) p = p.dbl();
    jac[j] = p;
    if (!p.is_infinity()) acc = acc * p.Z;
    prefix[j] = acc;
  }
  Field inv = acc.inverse();  // 1 / (product of the non-zero Z up to j), going down
  for (size_t j = hi; j-- > lo;) {
    const Jacobian p = jac[j];
    if (p.is_infinity()) {
      out[j] = ec::AffinePoint<Curve>::infinity();
      continue;
    }
    const Field zi = j > lo ? inv * prefix[j - 1] : inv;
    inv = inv * p.Z;
    const Field zi2 = zi.sqr();
    out[j] = ec::AffinePoint<Curve>{p.X * zi2, p.Y * (zi2 * zi)};
  }
}

// Fills copies 1..copies-1 of the n points at `data` (copy t at data + t n) on the current
// device, copy t from copy t - 1 by `doublings` doublings, in batches that bound the scratch
// memory; returns once they are made.
template <class Curve>
void make_copies(ec::AffinePoint<Curve>* data, size_t n, unsigned copies, unsigned doublings) {
  const size_t batch = std::min<size_t>(n, size_t(1) << 22);
  cuzk::cuda::DeviceBuffer<ec::JacobianPoint<Curve>> jac(batch);
  cuzk::cuda::DeviceBuffer<typename Curve::Field> prefix(batch);
  for (unsigned t = 1; t < copies; t++) {
    for (size_t lo = 0; lo < n; lo += batch) {
      const size_t m = std::min(batch, n - lo);
      const size_t threads = (m + kPrecomputeChunk - 1) / kPrecomputeChunk;
      double_to_affine<Curve><<<blocks_for(threads), kThreads>>>(data + (t - 1) * n + lo, data + t * n + lo, m,
                                                                 doublings, jac.get(), prefix.get());
      check_launch("double_to_affine");
    }
  }
  check(cudaDeviceSynchronize(), "precompute");
}

}  // namespace
}  // namespace cuzk::msm::cuda

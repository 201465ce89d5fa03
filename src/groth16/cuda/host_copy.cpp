#include "groth16/cuda/host_copy.hpp"

#include <cstdint>
#include <stdexcept>
#include <sys/mman.h>
#include <unistd.h>

#include <cuda_runtime.h>

#include "cuda/check.hpp"

namespace cuzk::groth16::cuda {

size_t discard_host_pages(const void* data, size_t bytes) {
  static const uintptr_t page = uintptr_t(sysconf(_SC_PAGESIZE));
  const uintptr_t begin = (uintptr_t(data) + page - 1) / page * page;
  const uintptr_t end = (uintptr_t(data) + bytes) / page * page;
  if (!data || end <= begin) return 0;
  if (madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED) != 0) return 0;
  return end - begin;
}

template <class Curve>
size_t discard_host_points(const std::vector<ec::AffinePoint<Curve>>& points, const msm::cuda::Bases<Curve>& bases) {
  // Only points the device holds whole (a streamed query reads its host copy in every MSM).
  if (bases.streamed() || !bases.device_data() || bases.size() != points.size()) return 0;
  return discard_host_pages(points.data(), points.size() * sizeof(points[0]));
}

template <class Curve>
void restore_host_points(const std::vector<ec::AffinePoint<Curve>>& points, const msm::cuda::Bases<Curve>& bases) {
  if (points.empty()) return;
  if (bases.streamed() || !bases.device_data() || bases.size() != points.size()) {
    throw std::logic_error("restore_host_points: the bases are not the points' resident copy");
  }
  cuzk::cuda::check(cudaSetDevice(bases.device()), "cudaSetDevice");
  // The host vector is the set's own (const to its readers); its pages are written back whole.
  cuzk::cuda::check(cudaMemcpy(const_cast<ec::AffinePoint<Curve>*>(points.data()), bases.device_data(),
                               points.size() * sizeof(points[0]), cudaMemcpyDeviceToHost),
                    "cudaMemcpy of the parameters' bases back to host memory");
}

template size_t discard_host_points(const std::vector<ec::AffinePoint<ec::G1Curve>>&, const msm::cuda::G1Bases&);
template size_t discard_host_points(const std::vector<ec::AffinePoint<ec::G2Curve>>&, const msm::cuda::G2Bases&);
template void restore_host_points(const std::vector<ec::AffinePoint<ec::G1Curve>>&, const msm::cuda::G1Bases&);
template void restore_host_points(const std::vector<ec::AffinePoint<ec::G2Curve>>&, const msm::cuda::G2Bases&);

}  // namespace cuzk::groth16::cuda

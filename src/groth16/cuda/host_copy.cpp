#include "groth16/cuda/host_copy.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <sys/mman.h>
#include <tbb/parallel_for.h>
#include <unistd.h>

#include <cuda_runtime.h>

#include "cuda/check.hpp"

namespace cuzk::groth16::cuda {

namespace {

const uintptr_t kPage = uintptr_t(sysconf(_SC_PAGESIZE));

// The whole pages inside [data, data + bytes): [begin, end), empty when none.
struct WholePages {
  uintptr_t begin, end;
  WholePages(const void* data, size_t bytes)
      : begin((uintptr_t(data) + kPage - 1) / kPage * kPage), end((uintptr_t(data) + bytes) / kPage * kPage) {
    if (!data || end < begin) end = begin;
  }
};

}  // namespace

size_t discard_host_pages(const void* data, size_t bytes) {
  const auto [begin, end] = WholePages(data, bytes);
  if (end == begin) return 0;
  if (madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED) != 0) return 0;
  return end - begin;
}

void populate_host_pages(const void* data, size_t bytes) {
  const auto [begin, end] = WholePages(data, bytes);
  if (end == begin) return;
  // The kernel zeroes each page it maps: one core does ~1.5 GB/s, so the range is split.
  constexpr uintptr_t kChunk = uintptr_t(64) << 20;
  tbb::parallel_for(begin, end, kChunk, [&](uintptr_t at) {
    const uintptr_t stop = std::min(end, at + kChunk);
#ifdef MADV_POPULATE_WRITE
    if (madvise(reinterpret_cast<void*>(at), stop - at, MADV_POPULATE_WRITE) == 0) return;
#endif
    // Older kernels: each page's first byte written with what it holds (content unchanged).
    for (uintptr_t q = at; q < stop; q += kPage) {
      volatile char* c = reinterpret_cast<volatile char*>(q);
      *c = *c;
    }
  });
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
  // The host vector is the set's own (const to its readers); its pages are written back whole,
  // at the link's speed where the caller page-locked them (populate_host_pages first).
  cuzk::cuda::check(cudaMemcpy(const_cast<ec::AffinePoint<Curve>*>(points.data()), bases.device_data(),
                               points.size() * sizeof(points[0]), cudaMemcpyDeviceToHost),
                    "cudaMemcpy of the parameters' bases back to host memory");
}

template size_t discard_host_points(const std::vector<ec::AffinePoint<ec::G1Curve>>&, const msm::cuda::G1Bases&);
template size_t discard_host_points(const std::vector<ec::AffinePoint<ec::G2Curve>>&, const msm::cuda::G2Bases&);
template void restore_host_points(const std::vector<ec::AffinePoint<ec::G1Curve>>&, const msm::cuda::G1Bases&);
template void restore_host_points(const std::vector<ec::AffinePoint<ec::G2Curve>>&, const msm::cuda::G2Bases&);

}  // namespace cuzk::groth16::cuda

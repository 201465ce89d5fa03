#include "groth16/cuda/device_memory_plan.hpp"

#include <algorithm>

#include "ec/curves.hpp"
#include "msm/cuda/msm.hpp"

namespace cuzk::groth16::cuda {

namespace {
constexpr size_t kXyzzBytes = 4 * 48;

// Bucket bytes of an MSM over n - 1 plain bases (H's, the largest), as proof_working_bytes counts them.
size_t plain_bucket_bytes(size_t n) {
  const unsigned c = msm::cuda::gpu_window_bits(n - 1);
  const size_t windows = (256 + c - 1) / c;
  return windows * (size_t(1) << (c - 1)) * kXyzzBytes;
}
}  // namespace

size_t proof_working_bytes(size_t n) {
  const unsigned c = msm::cuda::gpu_window_bits(n - 1);
  const size_t windows = (256 + c - 1) / c;
  constexpr size_t kScalarBytes = 32;
  return n * (4 * kScalarBytes + 32 + 20 * windows) + plain_bucket_bytes(n);
}

size_t device_memory_margin(size_t total_bytes) { return total_bytes / 100 * 6; }

HCopiesPlan plan_h_copies(size_t h_points, unsigned limit, size_t room_bytes) {
  if (h_points == 0) return {};
  const size_t h_bytes = h_points * sizeof(ec::G1Affine);
  // Asking for more copies never gives fewer, so the first plan that fits is the largest.
  // At most 64 windows (c >= 4), so asking for more changes nothing.
  for (unsigned asked = limit == 0 ? 64 : std::min(limit, 64u); asked >= 2; asked--) {
    msm::cuda::PrecomputeShape shape;
    try {
      shape = msm::cuda::precompute_shape(h_points, {.copies = asked});
    } catch (const std::invalid_argument&) {
      continue;  // copies * h_points would reach 2^31: fewer may not
    }
    // The copies' wider window may need more buckets than the working set counts.
    const size_t buckets = size_t(shape.bucket_sets) * (size_t(1) << (shape.window_bits - 1)) * kXyzzBytes;
    const size_t counted = plain_bucket_bytes(h_points + 1);
    const size_t extra = (shape.copies - 1) * h_bytes + (buckets > counted ? buckets - counted : 0);
    if (shape.copies >= 2 && extra <= room_bytes) return {shape.copies, shape.window_bits, extra};
  }
  return {};
}

}  // namespace cuzk::groth16::cuda

// The GPU MSM's window widths: cost models over the window c, with weights fitted on the H200
// (docs/perf-history.md, GPU MSM), and the shape of precomputed bases. Host code.
#include <algorithm>
#include <bit>
#include <cstddef>
#include <stdexcept>
#include <string>

#include "msm/cuda/msm.hpp"

namespace cuzk::msm::cuda {

unsigned gpu_window_bits(size_t n) {
  if (n < 64) return 4;
  // Per window: one mixed addition per pair, 1.8% of one per pair and radix-sort pass (8 key bits
  // a pass), and about 6 pairs' worth of time per bucket (its reduction, partial sums, memory):
  // fitted at 2^27, with 6 rather than the ~3.5 that fits there to keep the smaller sizes'
  // measured choices (docs/perf-history.md, GPU MSM, twelfth pass).
  unsigned best = 4;
  double best_cost = 0;
  for (unsigned c = 4; c <= 22; c++) {
    const unsigned windows = (kScalarBits + c - 1) / c;
    const size_t buckets = size_t(1) << (c - 1);
    const unsigned sort_passes = (unsigned(std::bit_width(windows * buckets)) + 7) / 8;
    const double cost = double(windows) * (double(n) * (1.0 + 0.018 * sort_passes) + 6.0 * double(buckets));
    if (c == 4 || cost < best_cost) {
      best = c;
      best_cost = cost;
    }
  }
  return best;
}

unsigned gpu_precompute_window_bits(size_t n, unsigned copies) {
  // As gpu_window_bits, with G = ceil(W / h) bucket sets to accumulate and reduce instead of W:
  // one mixed addition per pair, and 3.5 pairs' worth of time per bucket, fitted to 35 MSMs
  // (docs/perf-history.md, "Window widths of precomputed bases").
  unsigned best = 4;
  double best_cost = 0;
  for (unsigned c = 4; c <= 24; c++) {
    const unsigned w = (kScalarBits + c - 1) / c;
    const unsigned h = copies == 0 ? w : std::min(copies, w);
    const unsigned sets = (w + h - 1) / h;
    const double cost = double(w) * double(n) + 3.5 * double(sets) * double(size_t(1) << (c - 1));
    if (c == 4 || cost < best_cost) {
      best = c;
      best_cost = cost;
    }
  }
  return best;
}

PrecomputeShape precompute_shape(size_t n, const Precompute& precompute) {
  const unsigned c = precompute.window_bits ? precompute.window_bits : gpu_precompute_window_bits(n, precompute.copies);
  if (c < 2 || c > 24) throw std::invalid_argument("GPU MSM: precompute window width must be between 2 and 24 bits");
  const unsigned windows = (kScalarBits + c - 1) / c;
  const unsigned asked = precompute.copies == 0 ? windows : std::min(precompute.copies, windows);
  const unsigned sets = (windows + asked - 1) / asked;
  const unsigned copies = (windows + sets - 1) / sets;  // the copies that some window uses
  if (double(copies) * double(n) >= double(size_t(1) << 31)) {
    throw std::invalid_argument("GPU MSM: " + std::to_string(copies) + " copies of " + std::to_string(n) +
                                " bases reach 2^31 points");
  }
  return {c, copies, sets};
}

}  // namespace cuzk::msm::cuda

// How the CUDA backend spends a card's memory beyond the bases: an estimate of what a proof
// allocates, the margin it keeps free, and how many precomputed copies of H's bases
// (msm::cuda::Precompute) fit in what is left. Host code without CUDA headers, so that the
// arithmetic is unit-tested on machines without a GPU.
#pragma once

#include <cstddef>

namespace cuzk::groth16::cuda {

// Device bytes one proof at domain size n holds besides the bases: scratch (a, b, c, then aux and
// the inputs: at most 4 n scalars), the twiddles and compact a/b/c (~32 B a domain element), and
// the MSM workspace, whose (bucket, point) pairs (16 B each with the sort's second buffers, one
// per window and scalar of H) and buckets (192 B) dominate. 2^27 on the H200: 58.5 GB estimated
// against 58.3 measured (workspace 37, scratch 17, compact a/b/c 2.2, twiddles 2.1 GB).
size_t proof_working_bytes(size_t n);

// Device memory kept free beyond the estimates (other processes' contexts, the CUDA libraries'
// own allocations, estimates that run short): 6% of the card, ~9 GB on an H200.
size_t device_memory_margin(size_t total_bytes);

// Precomputed copies of H's bases: the number of copies (1: none) and the MSM's window then.
struct HCopiesPlan {
  unsigned copies = 1, window_bits = 0;
  size_t extra_bytes = 0;  // the room it takes (below)
};

// The most copies of h_points bases, at most limit (0: no limit), whose extra device memory fits
// in room_bytes: (copies - 1) * h_points * 96 B, plus the buckets of their window (the one
// gpu_precompute_window_bits gives for them) beyond those proof_working_bytes counts for a plain
// MSM. copies * h_points stays below 2^31 (the MSM's 31-bit pair values).
HCopiesPlan plan_h_copies(size_t h_points, unsigned limit, size_t room_bytes);

}  // namespace cuzk::groth16::cuda

// How the CUDA backend spends a card's memory: a plan that places, in order of value, the buffers
// every proof needs (scratch for a/b/c and the witness, the NTT's twiddles, compact a/b/c and the
// MSM's workspace), then the parameter sets' bases (those that do not fit stay in host memory and
// are streamed to the MSMs), then precomputed copies of H's bases (msm::cuda::Precompute). Host
// code without CUDA headers, so that the arithmetic is unit-tested on machines without a GPU.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace cuzk::groth16::cuda {

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
// gpu_precompute_window_bits gives for them) beyond those of a plain MSM of H. copies * h_points stays below 2^31 (the
// MSM's 31-bit pair values).
HCopiesPlan plan_h_copies(size_t h_points, unsigned limit, size_t room_bytes);

// The proofs a plan is made for: the largest domain of the sets on the device, and the most aux
// and input scalars of their circuits.
struct ProofShape {
  size_t n = 0, aux = 0, inputs = 0;
};

// The bases of one parameter set, by query (their device bytes as plain uploads).
enum Query : unsigned { kQueryH, kQueryL, kQueryA, kQueryBG1, kQueryBG2 };
inline constexpr unsigned kQueries = 5;
const char* query_name(unsigned q);  // "h", "l", "a", "b_g1", "b_g2"
using QueryBytes = std::array<size_t, kQueries>;

// How a proof's vectors sit in the scratch buffer. kSeparate: a, b, c (n each), aux and inputs
// side by side, so that the witness goes up while the H polynomial runs; a witness-only proof's
// c is formed in b's memory once the product a b is made (2 n + aux + inputs). kOverlaid (small
// cards, full synthesis only): 2 n, c written over b once a b is formed, the witness over a and b
// once H's MSM has read its coefficients (max(2 n, aux + inputs) scalars).
enum class ScratchLayout { kSeparate, kOverlaid };

// The MSM workspace's floor in a plan for proofs of domain n: what chunks of up to 2^20 scalars
// need at most (G2's, with bases streamed), so that a plan never leaves the MSMs less.
size_t msm_workspace_floor(size_t n);
// What an MSM of n - 1 plain G1 bases with its scalars on the device needs in one piece: more
// room than this gives the MSMs nothing (precomputed copies are planned only beyond it).
size_t msm_workspace_whole(size_t n);

// Where one device's memory goes. All byte counts are device bytes.
struct DeviceMemoryPlan {
  bool fits = false;  // false: not even the overlaid layout and the workspace's floor fit (why says)
  std::string why;
  size_t available = 0;  // what the plan divides: the card's memory for cuzk less the margin
  ScratchLayout layout = ScratchLayout::kSeparate;
  size_t scratch = 0, twiddles = 0, compact_abc = 0;  // the buffers of a proof
  std::array<bool, kQueries> resident{};              // the set's bases that stay on the device
  size_t resident_bytes = 0, streamed_bytes = 0;      // this set's bases on the device / in host memory
  size_t others = 0;                                  // bytes of other sets' bases left resident
  size_t workspace_limit = 0;                         // the MSM workspace's limit
  size_t witness_ahead = 0;  // a second witness buffer: the next proof's witness goes up into it meanwhile
  HCopiesPlan h_copies;      // copies of H's bases (resident H only)
  bool all_resident() const;
  // One line for the log and status: "2^27 separate: scratch 17.4 GB, ... ; bases 47.4 GB resident".
  std::string summary() const;
  // Its bytes by use, for status and metrics (ProverBackend::DeviceInfo::memory_plan_bytes), with
  // the device's resident bases (every set's) as bases_resident.
  std::vector<std::pair<std::string, uint64_t>> bytes_by_use(size_t bases_resident) const;
};

// The plan for a parameter set of the given queries on a card with `available` bytes for cuzk
// (free memory plus what cuzk holds there, less the margin), beside `others` bytes of other sets'
// resident bases, for proofs of `shape`: the separate layout when it and the workspace's floor fit
// with room to spare (witness-only proofs: whenever it fits), else the overlaid one; then each
// query resident in the order h, l, a, b_g1, b_g2 while it fits beside the workspace's floor; the
// workspace gets all that is left; then, when every base is resident and the workspace keeps what
// a whole MSM of H needs: a second witness buffer in the separate layout (for witness-only
// proofs, whose witness goes up while the previous proof's MSMs run), and copies of H's bases (at
// most h_copies_limit, 0: no limit, 1: none). witness_only: the proofs are witness-only (a/b/c
// formed on the device, never uploaded), so no room for compact a/b/c, a scratch of 2 n + witness,
// and the second witness buffer where it fits.
DeviceMemoryPlan plan_device_memory(size_t available, size_t others, const ProofShape& shape, const QueryBytes& queries,
                                    size_t h_points, unsigned h_copies_limit, bool witness_only = false);

}  // namespace cuzk::groth16::cuda

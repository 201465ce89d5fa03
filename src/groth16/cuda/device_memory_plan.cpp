#include "groth16/cuda/device_memory_plan.hpp"

#include <algorithm>
#include <bit>
#include <cstdio>

#include "ec/curves.hpp"
#include "msm/cuda/msm.hpp"

namespace cuzk::groth16::cuda {

namespace {
constexpr size_t kXyzzBytes = 4 * 48;
constexpr size_t kScalarBytes = 32;
// Device bytes per domain element of the NTT's twiddles and of compact a/b/c (2.1 and 2.2 GB
// measured at 2^27 on the H200).
constexpr size_t kTwiddleBytes = 16, kCompactAbcBytes = 17;

// Bucket bytes of an MSM over n - 1 plain bases (H's, the largest), as the working set counts them.
size_t plain_bucket_bytes(size_t n) {
  const unsigned c = msm::cuda::gpu_window_bits(n - 1);
  const size_t windows = (256 + c - 1) / c;
  return windows * (size_t(1) << (c - 1)) * kXyzzBytes;
}

// The workspace of an MSM chunk of k scalars as msm/cuda/chunks.cuh sizes it, roughly: four pair
// arrays of k (W + 1) entries, the level-0 partials (two per slice of 8 to 512 pairs, each a key,
// flag, position and two points), buckets and their reduction, the streamed bases' two slots and
// the sort's temporary storage. point: bytes of a bucket point (G1's 192, G2's 384; affine bases
// are half that).
size_t chunk_workspace(size_t k, size_t point, bool streamed) {
  const unsigned c = msm::cuda::gpu_window_bits(k);
  const size_t windows = (256 + c - 1) / c;
  const size_t pairs = k * (windows + 1);
  const size_t slots = 2 * pairs / std::clamp<size_t>(pairs >> 18, 8, 512);
  return pairs * 16 + slots * (16 + 2 * point) + 2 * windows * (size_t(1) << (c - 1)) * point +
         (streamed ? k * point : 0) + (size_t(64) << 20);
}

std::string gb(size_t bytes) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f GB", double(bytes) / 1e9);
  return text;
}
}  // namespace

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

const char* query_name(unsigned q) {
  static const char* const names[kQueries] = {"h", "l", "a", "b_g1", "b_g2"};
  return q < kQueries ? names[q] : "?";
}

size_t msm_workspace_floor(size_t n) {
  return chunk_workspace(std::clamp<size_t>(n, 1, size_t(1) << 20), 2 * kXyzzBytes, true);
}

size_t msm_workspace_whole(size_t n) { return n > 1 ? chunk_workspace(n - 1, kXyzzBytes, false) : 0; }

bool DeviceMemoryPlan::all_resident() const {
  return std::all_of(resident.begin(), resident.end(), [](bool r) { return r; });
}

std::string DeviceMemoryPlan::summary() const {
  if (!fits) return "does not fit: " + why;
  std::string s = std::string(layout == ScratchLayout::kSeparate ? "separate" : "overlaid") + " scratch " +
                  gb(scratch) + ", twiddles " + gb(twiddles) + ", compact a/b/c " + gb(compact_abc) + ", bases " +
                  gb(resident_bytes) + " resident";
  if (streamed_bytes) {
    s += " (";
    bool first = true;
    for (unsigned q = 0; q < kQueries; q++) {
      if (!resident[q]) {
        s += std::string(first ? "" : ", ") + query_name(q);
        first = false;
      }
    }
    s += " streamed: " + gb(streamed_bytes) + ")";
  }
  if (witness_ahead) s += ", witness ahead " + gb(witness_ahead);
  if (h_copies.copies > 1) s += ", " + std::to_string(h_copies.copies) + " copies of H";
  if (others) s += ", other sets " + gb(others);
  return s + ", MSM workspace " + gb(workspace_limit) + " of " + gb(available);
}

std::vector<std::pair<std::string, uint64_t>> DeviceMemoryPlan::bytes_by_use(size_t bases_resident) const {
  return {{"scratch", scratch},
          {"twiddles", twiddles},
          {"compact_abc", compact_abc},
          {"bases_resident", bases_resident},
          {"bases_streamed", streamed_bytes},
          {"msm_workspace_limit", workspace_limit},
          {"witness_ahead", witness_ahead},
          {"available", available}};
}

DeviceMemoryPlan plan_device_memory(size_t available, size_t others, const ProofShape& shape, const QueryBytes& queries,
                                    size_t h_points, unsigned h_copies_limit, bool witness_only) {
  const size_t n = shape.n, witness = shape.aux + shape.inputs;
  const size_t room = available > others ? available - others : 0;
  const size_t floor = msm_workspace_floor(n);
  auto plan_for = [&](ScratchLayout layout) {
    DeviceMemoryPlan p;
    p.available = available;
    p.others = others;
    p.layout = layout;
    // Witness-only proofs form c in b's memory once the product a b is made: 2 n vectors.
    const size_t vectors = witness_only ? 2 * n : 3 * n;
    p.scratch = kScalarBytes * (layout == ScratchLayout::kSeparate ? vectors + witness : std::max(2 * n, witness));
    p.twiddles = kTwiddleBytes * n;
    p.compact_abc = witness_only ? 0 : kCompactAbcBytes * n;  // a/b/c never go up compacted
    const size_t fixed = p.scratch + p.twiddles + p.compact_abc;
    p.fits = fixed + floor <= room;
    if (!p.fits) {
      p.why = "proofs of domain 2^" + std::to_string(std::countr_zero(std::bit_ceil(std::max<size_t>(n, 1)))) +
              " need " + gb(fixed + floor) + " of device memory (scratch, twiddles, compact a/b/c and the MSM's " +
              "smallest workspace), " + gb(room) + " is there for them";
      return p;
    }
    size_t left = room - fixed - floor;
    for (unsigned q = 0; q < kQueries; q++) {
      p.resident[q] = queries[q] <= left;
      if (p.resident[q]) {
        left -= queries[q];
        p.resident_bytes += queries[q];
      } else {
        p.streamed_bytes += queries[q];
      }
    }
    p.workspace_limit = room - fixed - p.resident_bytes;
    // The second witness buffer and the copies only from room beyond an MSM of H in one piece
    // (and never below the floor). The buffer first: it spares each proof the witness's upload
    // (~0.09 s at 2^27), more than copies spare H's MSM (2^27 on the H200: 658 ms with 3, 695
    // without). Not from a smaller workspace: on the 80 GB H100 beside a C2 set the buffer took
    // 0.07 s off the witness's upload and put 0.33 s on the MSMs (docs/PERF.md).
    const size_t keep = std::max(msm_workspace_whole(n), floor);
    const size_t witness_bytes = kScalarBytes * witness;
    if (witness_only && layout == ScratchLayout::kSeparate && p.all_resident() &&
        p.workspace_limit >= keep + witness_bytes) {
      p.witness_ahead = witness_bytes;
      p.workspace_limit -= witness_bytes;
    }
    if (p.all_resident() && h_copies_limit != 1 && p.workspace_limit > keep) {
      p.h_copies = plan_h_copies(h_points, h_copies_limit, p.workspace_limit - keep);
      if (p.h_copies.copies > 1) p.workspace_limit -= (p.h_copies.copies - 1) * h_points * sizeof(ec::G1Affine);
    }
    return p;
  };
  const DeviceMemoryPlan separate = plan_for(ScratchLayout::kSeparate);
  const DeviceMemoryPlan overlaid = plan_for(ScratchLayout::kOverlaid);
  // Witness-only proofs need the separate layout (the products read the witness beside a and b),
  // and are worth more than any bases it streams: the host then holds no a/b/c. Otherwise the
  // separate layout overlaps the witness's upload with the H polynomial; streamed bases cost more
  // than that, so it is taken only when it keeps as many bases resident.
  if (separate.fits && (witness_only || separate.resident_bytes >= overlaid.resident_bytes)) return separate;
  return overlaid;
}

}  // namespace cuzk::groth16::cuda

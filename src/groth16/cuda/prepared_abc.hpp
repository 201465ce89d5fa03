// What the CUDA backend's prepare_assignment makes of an assignment's a, b and c. Host code.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <optional>
#include <utility>

#include "ff/fr.hpp"
#include "groth16/cuda/compact_copies.hpp"
#include "groth16/cuda/piece_locks.hpp"
#include "r1cs/proving_assignment.hpp"

namespace cuzk::groth16::cuda {

// Device arrays are 256-byte aligned within a shared area (the compact copies as uploaded).
inline size_t device_aligned(size_t bytes) { return (bytes + 255) / 256 * 256; }

// A witness-only assignment's aux page-locked (over its whole capacity) for as long as its memory
// lives: the assignment's hold (r1cs::WitnessHold), which goes with the memory when the engine
// keeps it for the next assignment of the shape, so that a reused witness is not locked again.
class AuxLock final : public r1cs::WitnessHold {
 public:
  explicit AuxLock(std::shared_ptr<std::atomic<size_t>> counter) : locks_(std::move(counter)) {}
  bool lock(const void* p, size_t bytes);
  // Whether [p, p + bytes) lies in the locked range (from its start).
  bool covers(const void* p, size_t bytes) const { return p && p == p_ && bytes <= bytes_; }

 private:
  PieceLocks locks_;
  const void* p_ = nullptr;
  size_t bytes_ = 0;
};

// What prepare_assignment makes of an assignment's a, b and c, on the synthesis thread: for each
// vector that is mostly 0s and 1s its compact copy (the PoRep profile's b is all 0/1, a and c
// 75%), so that the first upload lands in ~1 ms instead of a whole vector's DMA and a sixth of the
// bytes are page-locked; the other vectors' own memory is page-locked. When it goes, its
// compact copies go back to the CompactCopies they came from (still locked), and the other
// vectors' locks are released.
class PreparedAbc final : public r1cs::AbcPreparation {
 public:
  PreparedAbc(std::shared_ptr<std::atomic<size_t>> counter, std::shared_ptr<CompactCopies> copies)
      : copies_(std::move(copies)), locks(std::move(counter)) {}
  ~PreparedAbc() override;
  size_t host_bytes() const override;
  // Whether p starts a range locked whole (a compact copy's array, or a vector's own memory).
  bool locked(const void* p) const;
  // Whether this was made from these vectors (prove_start checks before it trusts the copies).
  bool made_from(const r1cs::ProvingAssignment& pa) const;
  // Device bytes of the compact copies as uploaded (each array device_aligned); 0 when none.
  size_t compact_device_bytes() const;

  std::shared_ptr<CompactCopies> copies_;
  std::pair<const Fr*, size_t> source[3];         // a, b, c as they were prepared
  std::optional<CompactCopies::Copy> compact[3];  // a, b, c's compact copies, where they pay
  PieceLocks locks;                               // on a, b, c themselves where not compact
  const void* held_aux = nullptr;                 // aux, locked by the assignment's AuxLock
};

// The preparation of pa's a, b and c (pa.set_abc_preparation): compact copies taken from
// `copies` and refilled where a vector is mostly 0/1, page-locks (counted in `counter`) on the
// others. A witness-only assignment (pa.abc_pending(): a, b and c are made on the device) has its
// aux page-locked instead (its AuxLock, kept when the assignment already holds one over it), which
// the device reads by DMA before the products. The caller has made
// the device current and checked that the vectors are worth it. Throws what the copies'
// allocation throws (then nothing is kept).
void prepare_abc(r1cs::ProvingAssignment& pa, const std::shared_ptr<std::atomic<size_t>>& counter,
                 const std::shared_ptr<CompactCopies>& copies);

}  // namespace cuzk::groth16::cuda

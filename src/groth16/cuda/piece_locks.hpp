// Host memory page-locked in pieces for the CUDA backend's uploads (a/b/c and their compact
// copies). Host code.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace cuzk::groth16::cuda {

// Smaller vectors may share pages with other heap blocks (CUDA registers whole pages and
// refuses overlaps) and upload quickly anyway; glibc maps blocks above 32 MiB on their own.
constexpr size_t kMinPinnedBytes = size_t(32) << 20;

// a/b/c are page-locked in pieces that end at multiples of this address (a multiple of the
// 4 KiB and 2 MiB pages; with 1 GiB pages a shared page makes the registration fail, and a/b/c
// go through the staging pool). cudaHostRegister and cudaHostUnregister hold the driver for the
// length of their range, and the CUDA calls of other threads (the prover's) wait meanwhile
// (docs/perf-history.md, "Page-locking in pieces"). In pieces, with a pause between them so that a
// waiting call gets in, a call waits for one piece at most (a few ms). The DMAs are split at
// the same addresses, one per registration.
constexpr size_t kPinPieceBytes = size_t(64) << 20;
constexpr auto kPinPause = std::chrono::microseconds(200);

// Calls f(offset, bytes) for the pieces of [p, p + bytes) that end at multiples of
// kPinPieceBytes (as addresses): the ranges of PieceLocks' registrations.
template <class F>
void for_each_pin_piece(const void* p, size_t bytes, F&& f) {
  const auto begin = reinterpret_cast<uintptr_t>(p);
  size_t offset = 0;
  while (offset < bytes) {
    const uintptr_t next = ((begin + offset) / kPinPieceBytes + 1) * kPinPieceBytes;
    const size_t piece = std::min<size_t>(bytes - offset, next - (begin + offset));
    f(offset, piece);
    offset += piece;
  }
}

// Host ranges page-locked in pieces (for_each_pin_piece) until this object dies; counter holds
// the bytes locked by live objects (shared: they may outlive the backend that made them).
class PieceLocks {
 public:
  explicit PieceLocks(std::shared_ptr<std::atomic<size_t>> counter) : counter_(std::move(counter)) {}
  PieceLocks(const PieceLocks&) = delete;
  PieceLocks& operator=(const PieceLocks&) = delete;
  // Runs on whichever thread frees a/b/c (the engine's deallocation thread, or the prover's when
  // there is no sink): a failure is reported once and not left behind for that thread's next check.
  ~PieceLocks();

  // Locks [p, p + bytes) when it is at least kMinPinnedBytes (smaller ranges may share pages
  // with other heap blocks, and upload quickly through the staging pool anyway). False when it
  // is smaller or the driver refuses; a refused range keeps no piece locked.
  bool lock(const void* p, size_t bytes);
  bool locked(const void* p) const { return std::find(ranges_.begin(), ranges_.end(), p) != ranges_.end(); }

 private:
  std::vector<std::pair<void*, size_t>> pieces_;  // the registrations and their bytes
  std::vector<const void*> ranges_;               // starts of the ranges locked whole
  std::shared_ptr<std::atomic<size_t>> counter_;  // bytes of live pieces, counted piece by piece
};

}  // namespace cuzk::groth16::cuda

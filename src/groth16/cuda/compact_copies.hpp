// The CUDA backend's compact copies of a, b and c, kept page-locked between partitions. Host code.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "ff/fr.hpp"
#include "groth16/cuda/piece_locks.hpp"
#include "ntt/zero_one_vector.hpp"

namespace cuzk::groth16::cuda {

using ff::Fr;

// Compact copies of a, b and c (ntt::ZeroOneVector), page-locked once and refilled by later
// preparations. cudaHostUnregister waits until the device has finished its work, and the proof
// beside it waits too (docs/perf-history.md, "Unlocking a/b/c beside the proof"). So a preparation's
// copies come back here, still locked, when the deallocation thread drops them, and the next
// preparation of the same vector (a, b or c: their shapes differ) refills them in place. Idle
// copies are page-locked host memory: at most kIdlePerVector of each are kept (more are unlocked
// and freed), idle_bytes says how much they hold (the engine charges it to its host-memory
// budget) and trim() frees them.
class CompactCopies {
 public:
  struct Copy {
    ntt::ZeroOneVector vector;
    // On each array's whole capacity; declared last, so that they go first.
    std::unique_ptr<PieceLocks> kinds_lock, others_lock;
    Copy() = default;
    Copy(Copy&&) = default;
    // Assigning over a copy would free its arrays before their locks go.
    Copy& operator=(Copy&&) = delete;
    // Whether p starts one of its arrays' locked ranges.
    bool locked(const void* p) const {
      return (kinds_lock && kinds_lock->locked(p)) || (others_lock && others_lock->locked(p));
    }
  };
  static constexpr size_t kIdlePerVector = 2;

  explicit CompactCopies(std::shared_ptr<std::atomic<size_t>> counter) : counter_(std::move(counter)) {
    for (auto& idle : idle_) idle.reserve(kIdlePerVector);  // give_back does not allocate
  }

  // An idle copy of vector `which` (0 a, 1 b, 2 c), or a new empty one.
  Copy take(int which);
  // Keeps the copy for a later take, unless kIdlePerVector are idle already (then it is unlocked
  // and freed here).
  void give_back(int which, Copy&& copy);
  size_t idle_bytes() const { return idle_bytes_.load(); }
  void trim();

  // Fills copy with the compact form of v (false when v is not mostly 0/1), reusing its locked
  // arrays when they are large enough; an array that is not is unlocked and replaced (others with
  // room for others / 16 + one chunk more than this vector has: partitions of one circuit differ
  // a little), and locked once filled.
  bool fill(Copy& copy, std::span<const Fr> v);

 private:
  // Locks [p, p + bytes) into held unless it holds that range already.
  void lock(std::unique_ptr<PieceLocks>& held, const void* p, size_t bytes);

  std::shared_ptr<std::atomic<size_t>> counter_;
  mutable std::mutex mutex_;
  std::vector<Copy> idle_[3];
  std::atomic<size_t> idle_bytes_{0};
};

}  // namespace cuzk::groth16::cuda

#include "groth16/cuda/compact_copies.hpp"

#include <optional>

namespace cuzk::groth16::cuda {

CompactCopies::Copy CompactCopies::take(int which) {
  std::lock_guard lock(mutex_);
  auto& idle = idle_[which];
  if (idle.empty()) return Copy();
  Copy copy(std::move(idle.back()));
  idle.pop_back();
  idle_bytes_ -= copy.vector.bytes();
  return copy;
}

void CompactCopies::give_back(int which, Copy&& copy) {
  std::optional<Copy> dropped;  // unlocked and freed outside the lock
  {
    std::lock_guard lock(mutex_);
    auto& idle = idle_[which];
    if (idle.size() < kIdlePerVector) {
      const size_t bytes = copy.vector.bytes();
      idle.push_back(std::move(copy));
      idle_bytes_ += bytes;
      return;
    }
    dropped.emplace(std::move(copy));
  }
}

void CompactCopies::trim() {
  std::vector<Copy> dropped;
  {
    std::lock_guard lock(mutex_);
    for (auto& idle : idle_) {
      for (auto& copy : idle) dropped.push_back(std::move(copy));
      idle.clear();
    }
    idle_bytes_ = 0;
  }
}

bool CompactCopies::fill(Copy& copy, std::span<const Fr> v) {
  ntt::ZeroOneVector& z = copy.vector;
  const bool compact = ntt::ZeroOneVector::compress_into(v, z, 0.5, [&](size_t words, size_t others) {
    if (words > z.kinds.capacity()) {
      copy.kinds_lock.reset();  // unlocked before the array goes
      ntt::LargeArray<uint32_t>().swap(z.kinds);
      z.kinds.reserve(words);
    }
    if (others > z.others.capacity()) {
      copy.others_lock.reset();
      ntt::LargeArray<Fr>().swap(z.others);
      z.others.reserve(others + others / 16 + ntt::ZeroOneVector::kChunk);
    }
  });
  if (compact) {
    lock(copy.kinds_lock, z.kinds.data(), z.kinds.capacity() * sizeof(uint32_t));
    lock(copy.others_lock, z.others.data(), z.others.capacity() * sizeof(Fr));
  }
  return compact;
}

void CompactCopies::lock(std::unique_ptr<PieceLocks>& held, const void* p, size_t bytes) {
  if (held && held->locked(p)) return;
  held = std::make_unique<PieceLocks>(counter_);
  held->lock(p, bytes);
}

}  // namespace cuzk::groth16::cuda

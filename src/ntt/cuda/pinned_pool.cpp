#include "ntt/cuda/pinned_pool.hpp"

#include <algorithm>
#include <cstring>
#include <tbb/parallel_for.h>

#include "cuda/check.hpp"

namespace cuzk::cuda {

PinnedStagingPool::PinnedStagingPool(size_t chunk_bytes, size_t count)
    : chunk_bytes_(std::max<size_t>(chunk_bytes, 1 << 20)), count_(std::max<size_t>(count, 2)) {}

PinnedStagingPool::~PinnedStagingPool() {
  for (cudaEvent_t e : done_) {
    cudaEventSynchronize(e);
    cudaEventDestroy(e);
  }
  for (void* p : buffers_) cudaFreeHost(p);
}

void PinnedStagingPool::allocate() {
  if (!buffers_.empty()) return;
  buffers_.reserve(count_);
  done_.reserve(count_);
  for (size_t i = 0; i < count_; i++) {
    void* p = nullptr;
    check(cudaHostAlloc(&p, chunk_bytes_, cudaHostAllocDefault), "cudaHostAlloc (pinned staging)");
    buffers_.push_back(p);
    bytes_ += chunk_bytes_;
    cudaEvent_t e;
    check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate");
    done_.push_back(e);
  }
}

void PinnedStagingPool::upload(void* dst, const void* src, size_t bytes, cudaStream_t stream) {
  std::lock_guard lock(mutex_);
  allocate();
  const auto* from = static_cast<const char*>(src);
  auto* to = static_cast<char*>(dst);
  size_t slot = 0;
  for (size_t off = 0; off < bytes; off += chunk_bytes_, slot = (slot + 1) % count_) {
    const size_t len = std::min(chunk_bytes_, bytes - off);
    // The buffer is free once its previous DMA has finished.
    check(cudaEventSynchronize(done_[slot]), "staging buffer wait");
    char* pinned = static_cast<char*>(buffers_[slot]);
    // One core copies ~10 GB/s from pageable memory; split the chunk across cores.
    constexpr size_t kPiece = size_t(1) << 20;
    tbb::parallel_for(size_t(0), (len + kPiece - 1) / kPiece, [&](size_t p) {
      const size_t b = p * kPiece;
      std::memcpy(pinned + b, from + off + b, std::min(kPiece, len - b));
    });
    check(cudaMemcpyAsync(to + off, pinned, len, cudaMemcpyHostToDevice, stream), "cudaMemcpyAsync (upload)");
    check(cudaEventRecord(done_[slot], stream), "cudaEventRecord");
  }
}

}  // namespace cuzk::cuda

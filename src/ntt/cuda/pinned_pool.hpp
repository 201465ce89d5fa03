// A pool of reused page-locked (pinned) host buffers through which pageable host vectors are
// uploaded: each chunk is copied into a free pinned buffer (in parallel, on the host) and sent
// by DMA while the next chunk is being copied. The buffers are allocated once with
// cudaHostAlloc and kept, so a proof pays no pinning cost; their bytes are reported for the
// buffer tracker.
#pragma once

#include <atomic>
#include <cstddef>
#include <mutex>
#include <vector>

#include <cuda_runtime.h>

namespace cuzk::cuda {

class PinnedStagingPool {
 public:
  // count buffers of chunk_bytes each, allocated on first use.
  explicit PinnedStagingPool(size_t chunk_bytes = size_t(64) << 20, size_t count = 3);
  PinnedStagingPool(const PinnedStagingPool&) = delete;
  PinnedStagingPool& operator=(const PinnedStagingPool&) = delete;
  ~PinnedStagingPool();

  // Enqueues the upload of bytes from src (pageable host memory) to dst (device) on stream.
  // When it returns src may be freed: everything has been copied into pinned buffers, and the
  // DMA of the last chunks may still be in flight (ordered on stream). Throws
  // std::runtime_error with the CUDA error text.
  void upload(void* dst, const void* src, size_t bytes, cudaStream_t stream);

  // Pinned host bytes held (safe to read while an upload runs).
  size_t bytes() const { return bytes_.load(std::memory_order_relaxed); }

 private:
  void allocate();

  size_t chunk_bytes_, count_;
  std::vector<void*> buffers_;
  std::vector<cudaEvent_t> done_;  // done_[i]: the last DMA out of buffers_[i] has finished
  std::mutex mutex_;               // one upload at a time per pool
  std::atomic<size_t> bytes_{0};
};

}  // namespace cuzk::cuda

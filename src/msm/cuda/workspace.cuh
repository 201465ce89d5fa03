// The GPU MSM's device memory and streams per device and lane (part of the one translation unit msm.cu).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <map>
#include <mutex>
#include <utility>

#include <cuda_runtime.h>

#include "cuda/check.hpp"
#include "cuda/stream.hpp"
#include "msm/cuda/msm.hpp"

namespace cuzk::msm::cuda {
namespace {

using cuzk::cuda::check;

// Device memory that only grows, so repeated MSMs of one size allocate nothing.
class Buffer {
 public:
  ~Buffer() {
    if (ptr_) cudaFree(ptr_);
  }
  template <class T>
  T* get(size_t count) {
    const size_t need = std::max<size_t>(count * sizeof(T), 1);
    if (need > bytes_) {
      if (ptr_) cudaFree(ptr_);
      ptr_ = nullptr;
      bytes_ = 0;
      check(cudaMalloc(&ptr_, need), "cudaMalloc of the MSM workspace");
      bytes_ = need;
    }
    return static_cast<T*>(ptr_);
  }
  size_t bytes() const { return bytes_; }
  void release() {
    if (ptr_) cudaFree(ptr_);
    ptr_ = nullptr;
    bytes_ = 0;
  }

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

// Scratch memory and streams of one device's lane (msm.hpp's Lane); MSMs on a lane run one at a
// time (they would share the card anyway); the urgent lane's streams have the device's greatest
// priority, so that its blocks are scheduled before the ordinary lane's waiting ones.
struct Workspace {
  std::mutex mutex;
  cudaStream_t stream = nullptr;
  cudaStream_t copy_stream = nullptr;  // streamed bases' uploads (chunks.cuh), beside the kernels
  cudaEvent_t legacy_done = nullptr;   // orders device scalars written on the legacy stream
  cudaEvent_t streamed_ready[2] = {};  // a streamed chunk's bases have landed in streamed[i]
  size_t limit = 0;                    // set_workspace_limit: the most all buffers may hold (0: none)
  Buffer scalars, density_words, density_popc, density_prefix, counters;
  Buffer keys[2], vals[2], sort_temp;
  Buffer buckets, slot_keys, slot_vals, flags, positions, scan_temp, part_keys, part_vals;
  Buffer levels;
  Buffer streamed[2];  // two chunks of streamed bases: one being read, the next being uploaded

  // Every buffer, in the order of BufferIndex (chunks.cuh's estimates use it).
  static constexpr size_t kBuffers = 21;
  enum BufferIndex : size_t {
    kScalars,
    kDensityWords,
    kDensityPopc,
    kDensityPrefix,
    kCounters,
    kKeys0,
    kKeys1,
    kVals0,
    kVals1,
    kSortTemp,
    kBuckets,
    kSlotKeys,
    kSlotVals,
    kFlags,
    kPositions,
    kScanTemp,
    kPartKeys,
    kPartVals,
    kLevels,
    kStreamed0,
    kStreamed1
  };
  std::array<Buffer*, kBuffers> buffers() {
    return {&scalars,   &density_words, &density_popc, &density_prefix, &counters,  &keys[0],     &keys[1],
            &vals[0],   &vals[1],       &sort_temp,    &buckets,        &slot_keys, &slot_vals,   &flags,
            &positions, &scan_temp,     &part_keys,    &part_vals,      &levels,    &streamed[0], &streamed[1]};
  }
  template <class F>
  void for_each_buffer(F&& f) {
    for (Buffer* b : buffers()) f(*b);
  }
  size_t held_bytes() {
    size_t total = 0;
    for (Buffer* b : buffers()) total += b->bytes();
    return total;
  }
};

std::mutex all_workspaces_mutex;
std::map<std::pair<int, Lane>, Workspace*> all_workspaces;  // never freed: the runtime may be gone at exit
thread_local Lane current_lane = Lane::kOrdinary;           // LaneScope

// The workspace of the calling thread's lane on a device, made on first use (on the device
// current to the caller: DeviceScope first).
Workspace& workspace(int device) {
  std::lock_guard lock(all_workspaces_mutex);
  Workspace*& ws = all_workspaces[{device, current_lane}];
  if (!ws) {
    auto* fresh = new Workspace;
    const bool urgent = current_lane == Lane::kUrgent;  // its streams at the greatest priority
    cudaError_t err = cuzk::cuda::create_stream(&fresh->stream, urgent);
    if (err == cudaSuccess) err = cuzk::cuda::create_stream(&fresh->copy_stream, urgent);
    if (err == cudaSuccess) err = cudaEventCreateWithFlags(&fresh->legacy_done, cudaEventDisableTiming);
    for (auto& e : fresh->streamed_ready) {
      if (err == cudaSuccess) err = cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
    }
    if (err != cudaSuccess) {
      if (fresh->stream) cudaStreamDestroy(fresh->stream);
      if (fresh->copy_stream) cudaStreamDestroy(fresh->copy_stream);
      delete fresh;
      check(err, "cudaStreamCreate");
    }
    ws = fresh;
  }
  return *ws;
}

// The workspace of the calling thread's lane on a device, if it has one, else null.
Workspace* existing_workspace(int device) {
  std::lock_guard lock(all_workspaces_mutex);
  auto it = all_workspaces.find({device, current_lane});
  return it == all_workspaces.end() ? nullptr : it->second;
}

}  // namespace
}  // namespace cuzk::msm::cuda

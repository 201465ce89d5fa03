// The GPU MSM's device memory and stream per device (part of the one translation unit msm.cu).
#pragma once

#include <algorithm>
#include <cstddef>
#include <map>
#include <mutex>

#include <cuda_runtime.h>

#include "cuda/check.hpp"

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

// Scratch memory and stream of one device; MSMs on a device run one at a time (they would
// share the card anyway).
struct Workspace {
  std::mutex mutex;
  cudaStream_t stream = nullptr;
  cudaEvent_t legacy_done = nullptr;  // orders device scalars written on the legacy stream
  Buffer scalars, density_words, density_popc, density_prefix, counters;
  Buffer keys[2], vals[2], sort_temp;
  Buffer buckets, slot_keys, slot_vals, flags, positions, scan_temp, part_keys, part_vals;
  Buffer levels;

  template <class F>
  void for_each_buffer(F&& f) {
    for (Buffer* b : {&scalars, &density_words, &density_popc, &density_prefix, &counters, &keys[0], &keys[1], &vals[0],
                      &vals[1], &sort_temp, &buckets, &slot_keys, &slot_vals, &flags, &positions, &scan_temp,
                      &part_keys, &part_vals, &levels}) {
      f(*b);
    }
  }
};

std::mutex all_workspaces_mutex;
std::map<int, Workspace*> all_workspaces;  // never freed: the runtime may be gone at exit

Workspace& workspace(int device) {
  std::lock_guard lock(all_workspaces_mutex);
  Workspace*& ws = all_workspaces[device];
  if (!ws) {
    auto* fresh = new Workspace;
    cudaError_t err = cudaStreamCreateWithFlags(&fresh->stream, cudaStreamNonBlocking);
    if (err == cudaSuccess) err = cudaEventCreateWithFlags(&fresh->legacy_done, cudaEventDisableTiming);
    if (err != cudaSuccess) {
      if (fresh->stream) cudaStreamDestroy(fresh->stream);
      delete fresh;
      check(err, "cudaStreamCreate");
    }
    ws = fresh;
  }
  return *ws;
}

// The workspace of a device that has one, or null.
Workspace* existing_workspace(int device) {
  std::lock_guard lock(all_workspaces_mutex);
  auto it = all_workspaces.find(device);
  return it == all_workspaces.end() ? nullptr : it->second;
}

}  // namespace
}  // namespace cuzk::msm::cuda

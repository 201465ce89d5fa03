#include "groth16/cuda/piece_locks.hpp"

#include <cstdio>
#include <mutex>
#include <thread>

#include <cuda_runtime.h>

namespace cuzk::groth16::cuda {

PieceLocks::~PieceLocks() {
  for (size_t i = 0; i < pieces_.size(); i++) {
    if (i) std::this_thread::sleep_for(kPinPause);
    const cudaError_t err = cudaHostUnregister(pieces_[i].first);
    *counter_ -= pieces_[i].second;
    if (err != cudaSuccess) {
      cudaGetLastError();
      static std::once_flag once;
      std::call_once(once,
                     [&] { std::fprintf(stderr, "cuzk: could not unpin a/b/c (%s)\n", cudaGetErrorString(err)); });
    }
  }
}

bool PieceLocks::lock(const void* p, size_t bytes) {
  if (!p || bytes < kMinPinnedBytes) return false;
  size_t count = 0;
  for_each_pin_piece(p, bytes, [&](size_t, size_t) { count++; });
  pieces_.reserve(pieces_.size() + count);  // no allocation between a registration and its record
  const size_t first = pieces_.size();
  auto* base = static_cast<char*>(const_cast<void*>(p));
  cudaError_t err = cudaSuccess;
  for_each_pin_piece(p, bytes, [&](size_t offset, size_t piece) {
    if (err != cudaSuccess) return;
    if (!pieces_.empty()) std::this_thread::sleep_for(kPinPause);
    err = cudaHostRegister(base + offset, piece, cudaHostRegisterPortable);
    if (err == cudaSuccess) {
      pieces_.push_back({base + offset, piece});
      *counter_ += piece;
    }
  });
  if (err == cudaSuccess) {
    ranges_.push_back(p);
    return true;
  }
  cudaGetLastError();  // leave no error behind for the next check
  static std::once_flag once;
  std::call_once(once, [&] {
    std::fprintf(stderr, "cuzk: could not pin a/b/c (%s); uploading them through the staging buffers\n",
                 cudaGetErrorString(err));
  });
  while (pieces_.size() > first) {
    cudaHostUnregister(pieces_.back().first);
    *counter_ -= pieces_.back().second;
    pieces_.pop_back();
  }
  cudaGetLastError();
  return false;
}

}  // namespace cuzk::groth16::cuda

#include "groth16/cuda/host_pins.hpp"

#include <cstdio>

#include <cuda_runtime.h>

#include "groth16/cuda/piece_locks.hpp"

namespace cuzk::groth16::cuda {

bool HostPins::pin(const void* p, size_t bytes) {
  if (!p || !bytes) return false;
  std::lock_guard lock(mutex_);
  auto& e = ranges_[p];
  if (e.holders++ == 0) {
    const cudaError_t err = cudaHostRegister(const_cast<void*>(p), bytes, cudaHostRegisterPortable);
    e.pinned = err == cudaSuccess;
    if (!e.pinned) {
      cudaGetLastError();  // not sticky, but leave no error behind for the next check
      std::fprintf(stderr,
                   "cuzk: could not pin %zu MiB of parameters (%s); copying them from (or back to) pageable memory\n",
                   bytes >> 20, cudaGetErrorString(err));
    }
  }
  return e.pinned;
}

void HostPins::unpin(const void* p) {
  if (!p) return;
  std::lock_guard lock(mutex_);
  auto it = ranges_.find(p);
  if (it == ranges_.end() || --it->second.holders) return;
  if (it->second.pinned) cudaHostUnregister(const_cast<void*>(p));
  ranges_.erase(it);
}

unsigned HostPins::holders(const void* p) {
  std::lock_guard lock(mutex_);
  auto it = ranges_.find(p);
  return it == ranges_.end() ? 0 : it->second.holders;
}

PinnedParameters::PinnedParameters(const Parameters& p) {
  add(p.h.data(), p.h.size() * sizeof(G1Affine));
  add(p.l.data(), p.l.size() * sizeof(G1Affine));
  add(p.a.data(), p.a.size() * sizeof(G1Affine));
  add(p.b_g1.data(), p.b_g1.size() * sizeof(G1Affine));
  add(p.b_g2.data(), p.b_g2.size() * sizeof(G2Affine));
}

PinnedParameters::~PinnedParameters() {
  for (const void* p : held_) HostPins::instance().unpin(p);
}

void PinnedParameters::add(const void* p, size_t bytes) {
  if (!p || bytes < kMinPinnedBytes) return;
  held_.push_back(p);
  if (HostPins::instance().pin(p, bytes)) pinned_bytes_ += bytes;
}

}  // namespace cuzk::groth16::cuda

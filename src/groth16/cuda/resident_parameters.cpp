#include "groth16/cuda/resident_parameters.hpp"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <stdexcept>

#include <cuda_runtime.h>

#include "cuda/check.hpp"

namespace cuzk::groth16::cuda {

using cuzk::cuda::check;

const ResidentSet& ResidentParameters::get(const Parameters& params, size_t buffers_held) {
  auto it = sets_.find(&params);
  if (it != sets_.end()) return it->second;
  const HCopiesPlan copies = h_copies_for(params, buffers_held);
  ResidentSet r;
  r.pinned = std::make_unique<PinnedParameters>(params);
  // The plan rests on one reading of the free memory (other processes allocate too): when
  // the copies do not fit after all, H goes up plain.
  if (copies.copies > 1) {
    try {
      r.h = msm::cuda::G1Bases::upload(device_, params.h, {.window_bits = copies.window_bits, .copies = copies.copies});
      std::fprintf(stderr,
                   "cuzk: %s keeps %u copies of H's bases (%zu points, window %u, %u bucket sets, %.1f GB) made in "
                   "%.1f s\n",
                   owner_.c_str(), r.h->copies(), params.h.size(), r.h->window_bits(), r.h->bucket_sets(),
                   double(r.h->device_bytes()) / 1e9, (r.h->upload_ms() + r.h->precompute_ms()) / 1e3);
    } catch (const std::runtime_error& e) {
      cudaGetLastError();
      std::fprintf(stderr, "cuzk: %s could not make %u copies of H's bases (%s); keeping them plain\n", owner_.c_str(),
                   copies.copies, e.what());
    }
  }
  if (!r.h) r.h = msm::cuda::G1Bases::upload(device_, params.h);
  r.l = msm::cuda::G1Bases::upload(device_, params.l);
  r.a = msm::cuda::G1Bases::upload(device_, params.a);
  r.b_g1 = msm::cuda::G1Bases::upload(device_, params.b_g1);
  r.b_g2 = msm::cuda::G2Bases::upload(device_, params.b_g2);
  total_ += r.bytes();
  return sets_.emplace(&params, std::move(r)).first->second;
}

void ResidentParameters::release(const Parameters& params) {
  auto it = sets_.find(&params);
  if (it == sets_.end()) return;
  total_ -= it->second.bytes();
  sets_.erase(it);
}

void ResidentParameters::clear() {
  sets_.clear();
  total_ = 0;
}

size_t ResidentParameters::working_bytes_to_come(const Parameters& params, size_t buffers_held) const {
  size_t n = params.h.size() + 1;
  for (const auto& [p, r] : sets_) n = std::max(n, p->h.size() + 1);
  const size_t held = msm::cuda::workspace_bytes(device_) + buffers_held;
  const size_t need = proof_working_bytes(std::bit_ceil(n));
  return need > held ? need - held : 0;
}

size_t ResidentParameters::free_device_memory(size_t* total) const {
  size_t free_bytes = 0, total_bytes = 0;
  check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  if (const size_t limit = options_.device_memory_bytes; limit && limit < total_bytes) {
    const size_t beyond = total_bytes - limit;
    free_bytes = free_bytes > beyond ? free_bytes - beyond : 0;
    total_bytes = limit;
  }
  if (total) *total = total_bytes;
  return free_bytes;
}

HCopiesPlan ResidentParameters::h_copies_for(const Parameters& params, size_t buffers_held) {
  if (params.h.empty() || options_.h_copies == 1) return {};
  const size_t need = params.base_bytes() + working_bytes_to_come(params, buffers_held);
  size_t total = 0;
  size_t free_bytes = free_device_memory(&total);
  const size_t margin = device_memory_margin(total);
  if (free_bytes < need + margin && drop_h_copies()) free_bytes = free_device_memory();
  if (free_bytes < need + margin) return {};
  return plan_h_copies(params.h.size(), options_.h_copies, free_bytes - need - margin);
}

bool ResidentParameters::drop_h_copies() {
  bool dropped = false;
  for (auto it = sets_.begin(); it != sets_.end(); ++it) {
    auto& [p, r] = *it;
    if (r.h->copies() <= 1) continue;
    total_ -= r.bytes();
    r.h.reset();  // first, so that the plain upload has the room
    try {
      r.h = msm::cuda::G1Bases::upload(device_, p->h);
    } catch (...) {
      sets_.erase(it);
      throw;
    }
    total_ += r.bytes();
    std::fprintf(stderr, "cuzk: %s dropped the precomputed copies of H's bases (%zu points) for room\n", owner_.c_str(),
                 p->h.size());
    dropped = true;
  }
  return dropped;
}

}  // namespace cuzk::groth16::cuda

// The CUDA backend's parameter sets on its device: host memory pinned, bases resident, H's with
// precomputed copies where the card's memory allows (device_memory_plan.hpp). Host code.
#pragma once

#include <atomic>
#include <cstddef>
#include <map>
#include <memory>
#include <string>

#include "groth16/backend.hpp"
#include "groth16/cuda/device_memory_plan.hpp"
#include "groth16/cuda/host_pins.hpp"
#include "groth16/parameters.hpp"
#include "msm/cuda/msm.hpp"

namespace cuzk::groth16::cuda {

// One parameter set on the device: its host vectors pinned, its bases uploaded.
struct ResidentSet {
  std::unique_ptr<PinnedParameters> pinned;
  std::shared_ptr<msm::cuda::G1Bases> h, l, a, b_g1;
  std::shared_ptr<msm::cuda::G2Bases> b_g2;
  size_t bytes() const {
    return h->device_bytes() + l->device_bytes() + a->device_bytes() + b_g1->device_bytes() + b_g2->device_bytes();
  }
};

// The resident sets of one device. Not thread-safe except bytes(): the backend calls it under
// its lock, with the device current.
class ResidentParameters {
 public:
  // owner names the backend in log lines ("cuda:0").
  ResidentParameters(int device, const CudaBackendOptions& options, std::string owner)
      : device_(device), options_(options), owner_(std::move(owner)) {}

  // The set's bases, pinned and uploaded on first use; later proofs reuse them. H's get the
  // copies that fit (h_copies_for); buffers_held: device bytes the backend keeps for proofs
  // besides the MSM workspace (scratch, compact a/b/c, twiddles), counted in the working set.
  const ResidentSet& get(const Parameters& params, size_t buffers_held);
  // Drops the set's bases and pins (nothing when it is not resident).
  void release(const Parameters& params);
  void clear();
  // Device bytes of the resident sets (read without the backend's lock).
  size_t bytes() const { return total_.load(); }

 private:
  // Device bytes that proofs with the resident sets and `params` will still allocate: the
  // working set at the largest domain (proof_working_bytes) less what the workspace and the
  // backend's buffers already hold.
  size_t working_bytes_to_come(const Parameters& params, size_t buffers_held) const;
  // Free device memory as the copies' plan sees it: a card of options_.device_memory_bytes
  // when that is set and smaller, whose use is the card's.
  size_t free_device_memory(size_t* total = nullptr) const;
  // The copies of params.h this set gets (options_.h_copies): the most whose extra memory fits
  // in what the card has free after this set's plain bases, the working set to come and the
  // margin. When not even the plain bases fit that way, the other sets' copies are dropped first.
  HCopiesPlan h_copies_for(const Parameters& params, size_t buffers_held);
  // Replaces every resident set's H copies by its plain bases (uploaded again from the pinned
  // host memory: ~0.3 s at 2^27). True when any were dropped. A set whose plain upload fails is
  // no longer resident (its next proof uploads it again) and the error goes to the caller.
  bool drop_h_copies();

  int device_;
  CudaBackendOptions options_;
  std::string owner_;
  std::map<const Parameters*, ResidentSet> sets_;
  std::atomic<size_t> total_{0};  // device bytes of sets_, kept under the backend's lock
};

}  // namespace cuzk::groth16::cuda

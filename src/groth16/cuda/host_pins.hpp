// Parameter sets' host memory page-locked for the CUDA backend (counted process-wide: the
// backends of several devices share one set). Host code.
#pragma once

#include <cstddef>
#include <map>
#include <mutex>
#include <vector>

#include "groth16/parameters.hpp"

namespace cuzk::groth16::cuda {

// Page-locks host ranges for as long as any holder wants them. Several backends (one per
// device) share one parameter set, and CUDA refuses to register a range twice, so the
// registrations are counted process-wide. Pinning is an optimisation: when the driver refuses
// (e.g. not enough lockable memory) the range stays pageable and uploads are slower.
class HostPins {
 public:
  static HostPins& instance() {
    static auto* pins = new HostPins;  // never destroyed: holders may outlive static destructors
    return *pins;
  }
  // True when the range is pinned after the call.
  bool pin(const void* p, size_t bytes);
  void unpin(const void* p);
  // Holders of the range starting at p (0 when none).
  unsigned holders(const void* p);

 private:
  struct Entry {
    unsigned holders = 0;
    bool pinned = false;
  };
  std::mutex mutex_;
  std::map<const void*, Entry> ranges_;
};

// One parameter set's host vectors of kMinPinnedBytes and more pinned for the lifetime of this
// object.
class PinnedParameters {
 public:
  explicit PinnedParameters(const Parameters& p);
  ~PinnedParameters();
  PinnedParameters(const PinnedParameters&) = delete;
  PinnedParameters& operator=(const PinnedParameters&) = delete;
  size_t pinned_bytes() const { return pinned_bytes_; }

 private:
  void add(const void* p, size_t bytes);
  std::vector<const void*> held_;
  size_t pinned_bytes_ = 0;
};

}  // namespace cuzk::groth16::cuda

// Witness memory kept between partitions. A finished witness-only partition's aux (with the
// backend's page-lock on it: r1cs::KeptWitness) waits here, still charged to the budget, for the
// next synthesis of its shape, which takes it at admission with its charge. So in steady state a
// witness is neither mapped nor page-locked anew: each cudaHostRegister of 4.2 GB (a 32 GiB
// partition) holds the driver while the prover's MSMs wait between kernels (docs/PERF.md, "c
// formed over b"). Entries go when room is needed (admission under pressure) and when no job is
// left; the caller frees them (on the deallocation thread: their unlock may wait for the device)
// and releases their charge after.
#pragma once

#include <cstdint>
#include <list>
#include <mutex>
#include <optional>
#include <vector>

#include "r1cs/proving_assignment.hpp"

namespace cuzk::engine {

class KeptWitnesses {
 public:
  struct Entry {
    r1cs::KeptWitness witness;
    uint64_t charged = 0;  // budget bytes it holds
  };

  // At most `capacity` entries wait (0: none is kept).
  explicit KeptWitnesses(size_t capacity) : capacity_(capacity) {}
  size_t capacity() const { return capacity_; }

  // Keeps e; returns the entry it displaces (the oldest, once capacity wait; e itself when the
  // capacity is 0), for the caller to free and release. If it throws, e is left with the caller.
  std::optional<Entry> put(Entry&& e);
  // One whose memory holds `elements` aux elements and is at most an eighth larger, if any.
  std::optional<Entry> take(uint64_t elements);
  // All of them, oldest first.
  std::vector<Entry> take_all();

  uint64_t bytes() const;    // their memory
  uint64_t charged() const;  // their budget charge

 private:
  const size_t capacity_;
  mutable std::mutex mutex_;
  std::list<Entry> entries_;  // oldest first (KeptWitness cannot be move-assigned)
};

}  // namespace cuzk::engine

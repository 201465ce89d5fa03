// The next proof's witness uploaded ahead (the CUDA backend's witness-only proofs): while one
// proof's MSMs read its aux in one device buffer, the aux of the proof its caller runs next
// (ProverBackend::prove_start's `next`) goes up into a second buffer, by DMA from its page-locked
// memory on the upload stream (idle then), so that the next prove_start starts with its products:
// the witness's upload (~0.09 s a 2^27 proof) leaves the device's critical path. The two buffers
// are the scratch's own witness area (primary) and a spare one the plan grants
// (DeviceMemoryPlan::witness_ahead); a proof reads its witness where it is, the next goes into
// the other. Host code.
#pragma once

#include <cstddef>
#include <memory>

#include <cuda_runtime.h>

#include "cuda/device_buffer.hpp"
#include "ff/fr.hpp"
#include "r1cs/proving_assignment.hpp"

namespace cuzk::groth16::cuda {

class WitnessAhead {
 public:
  // The spare buffer at the plan's bytes (0: none); a buffer made again forgets what went up.
  // Best effort: false when the device refuses the allocation (logged; then there is none, and no
  // upload ahead).
  bool fit(size_t planned_bytes);
  size_t bytes() const { return spare_.bytes(); }
  const ff::Fr* spare() const { return spare_.get(); }
  // Where pa's aux went up ahead (primary or the spare), else nullptr; the record goes either way.
  ff::Fr* take(const r1cs::ProvingAssignment& pa, ff::Fr* primary);
  // Enqueues next's aux on `stream` into whichever of primary (room for primary_scalars) and the
  // spare the proof in progress does not read (in_use), when next is witness-only, its aux
  // page-locked by prepare_assignment, and it fits: true when it did. Best effort: a copy the
  // driver refuses is forgotten (false), and the proof in progress goes on. The caller
  // synchronizes the stream before next may be freed, and calls forget() when that fails.
  bool start(const r1cs::ProvingAssignment& next, const ff::Fr* in_use, ff::Fr* primary, size_t primary_scalars,
             cudaStream_t stream);
  // What went up is not to be trusted (the primary buffer made again, an upload failed).
  void forget();
  void release();  // the spare's device memory back (and the record)

 private:
  cuzk::cuda::DeviceBuffer<ff::Fr> spare_;
  std::weak_ptr<const r1cs::AbcPreparation> of_;  // the preparation of the assignment that went up
  ff::Fr* where_ = nullptr;
  size_t aux_ = 0;
};

}  // namespace cuzk::groth16::cuda

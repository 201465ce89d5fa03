// A parameter set's host copy given back to the OS while its device holds every base
// (CudaBackendOptions::release_host_bases), and written back from the device before anything
// reads it again: the device's copy 0 of each query is the host's points, byte for byte. Host code.
#pragma once

#include <cstddef>
#include <vector>

#include "msm/cuda/msm.hpp"

namespace cuzk::groth16::cuda {

// Gives the whole pages inside [data, data + bytes) back to the OS (madvise MADV_DONTNEED:
// private anonymous memory reads as zeros until written again; the partial pages at either end,
// which may hold an allocator's bookkeeping, stay). Returns the bytes given back, 0 when refused.
size_t discard_host_pages(const void* data, size_t bytes);

// Maps the whole pages inside [data, data + bytes) that discard_host_pages gave back, on every
// core, so that writing them back (or page-locking them) does not fault them in one by one: the
// single-threaded faults of a 60 GB copy took 41 s on the H100 machine.
void populate_host_pages(const void* data, size_t bytes);

// Gives back the pages of points, whose bases are resident in `bases`; returns the bytes.
template <class Curve>
size_t discard_host_points(const std::vector<ec::AffinePoint<Curve>>& points, const msm::cuda::Bases<Curve>& bases);

// Writes the resident bases' points (copy 0 on the device) back into points, whose pages
// discard_host_points gave back. Throws std::runtime_error when the device fails.
template <class Curve>
void restore_host_points(const std::vector<ec::AffinePoint<Curve>>& points, const msm::cuda::Bases<Curve>& bases);

}  // namespace cuzk::groth16::cuda

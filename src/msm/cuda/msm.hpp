// Multi-scalar multiplication on a CUDA device, over bases kept resident on that device.
// Host-callable; needs no CUDA headers. Same results (same group element) as the CPU msm.
//
// Method (see docs/ARCHITECTURE.md, "GPU MSM"): scalars leave Montgomery form on the device;
// zeros are dropped and ones keyed into one extra bucket (summed by plain mixed additions);
// the rest give signed Booth digits, one (bucket, point) pair per non-zero digit and window,
// which a CUB radix sort groups by bucket. Buckets are accumulated in XYZZ by threads that
// take equal slices of the sorted pairs (so long buckets cannot stall one thread), then each
// window's buckets are reduced by segmented running sums and the windows combined on the host.
//
// Every call makes the bases' device current (restoring the caller's), runs on that device's
// MSM stream with its grow-only workspace (calls on one device are serialised) and returns once
// the result is on the host. CUZK_GPU_MSM_PHASES=1 prints per-phase device times to stderr. CUDA failures (no device,
// out of memory, launch errors) throw std::runtime_error with the CUDA error text; bad arguments throw
// std::invalid_argument.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>

#include "ec/curves.hpp"
#include "msm/pippenger.hpp"

namespace cuzk::msm::cuda {

// Number of CUDA devices, or 0 (with the reason in *why) when there is none or no driver.
int device_count(std::string* why = nullptr);

// Affine bases of one curve resident on one device (freed on destruction). The SRS is fixed,
// so a parameter set's bases are uploaded once and reused by every proof.
template <class Curve>
class Bases {
 public:
  using Affine = ec::AffinePoint<Curve>;

  static std::shared_ptr<Bases> upload(int device, std::span<const Affine> points);
  ~Bases();
  Bases(const Bases&) = delete;
  Bases& operator=(const Bases&) = delete;

  int device() const { return device_; }
  size_t size() const { return size_; }
  size_t device_bytes() const { return bytes_; }
  // The device array of size() affine points (for the implementation and for tests).
  const Affine* device_data() const { return data_; }
  // Wall time of the upload (allocation and copy), for the benchmark.
  double upload_ms() const { return upload_ms_; }

 private:
  Bases() = default;
  int device_ = 0;
  size_t size_ = 0, bytes_ = 0;
  Affine* data_ = nullptr;
  double upload_ms_ = 0;
};

using G1Bases = Bases<ec::G1Curve>;
using G2Bases = Bases<ec::G2Curve>;

// sum_{i < count} [scalars[i]] bases[offset + i]. host_scalars.size() must equal count.
template <class Curve>
ec::JacobianPoint<Curve> msm(const Bases<Curve>& bases, size_t offset, size_t count, std::span<const Fr> host_scalars,
                             const MsmOptions& options = {}, MsmStats* stats = nullptr);

// The same with the count scalars already in memory of the bases' device (e.g. H's
// coefficients from the GPU NTT). Their producer must have finished (stream synchronized).
template <class Curve>
ec::JacobianPoint<Curve> msm(const Bases<Curve>& bases, size_t offset, size_t count, const Fr* device_scalars,
                             const MsmOptions& options = {}, MsmStats* stats = nullptr);

// As the CPU msm_with_density: bit i of density set means scalar i pairs with the next base,
// starting at bases[offset]; density.bits must equal the number of scalars, and
// offset + density.count_ones() must not exceed bases.size().
template <class Curve>
ec::JacobianPoint<Curve> msm_with_density(const Bases<Curve>& bases, size_t offset, std::span<const Fr> host_scalars,
                                          const DensityView& density, const MsmOptions& options = {},
                                          MsmStats* stats = nullptr);
template <class Curve>
ec::JacobianPoint<Curve> msm_with_density(const Bases<Curve>& bases, size_t offset, const Fr* device_scalars,
                                          const DensityView& density, const MsmOptions& options = {},
                                          MsmStats* stats = nullptr);

// The window width the GPU MSM uses for n bucketed (not 0/1) scalars.
unsigned gpu_window_bits(size_t n);

}  // namespace cuzk::msm::cuda

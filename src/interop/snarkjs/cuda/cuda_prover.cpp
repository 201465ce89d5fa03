// The snarkjs prover on one CUDA device: A and B are summed from section 4 on the host and
// uploaded; C = A .* B, the odd coset (GPU NTT, ntt::cuda::DeviceDomain, and the pointwise
// kernels in odd_coset_kernels) and A B - C are formed on the device, where H's MSM reads them.
// The GPU MSMs run over the key's bases, made resident on the first proof with a key (H's bases
// in our NTT's index order, so that no permutation of the scalars is needed) and kept for the
// following ones.
#include <chrono>
#include <memory>
#include <mutex>
#include <stdexcept>

#include <cuda_runtime.h>

#include "cuda/check.hpp"
#include "cuda/device.hpp"
#include "cuda/device_buffer.hpp"
#include "interop/snarkjs/cuda/odd_coset_kernels.hpp"
#include "interop/snarkjs/odd_coset.hpp"
#include "interop/snarkjs/prover.hpp"
#include "msm/cuda/msm.hpp"
#include "ntt/cuda/ntt.hpp"
#include "util/elapsed.hpp"

namespace cuzk::snarkjs {
namespace {

using Clock = std::chrono::steady_clock;
using cuzk::cuda::check;
using cuzk::cuda::DeviceBuffer;

// The key's bases on the device, and what they were made from (to notice another key).
struct ResidentKey {
  const Zkey* zkey = nullptr;
  uint32_t vars = 0, domain_size = 0;
  G1Affine first_h;
  std::shared_ptr<msm::cuda::G1Bases> a, b_g1, c, h;
  std::shared_ptr<msm::cuda::G2Bases> b_g2;

  bool holds(const Zkey& z) const {
    return zkey == &z && vars == z.vars && domain_size == z.domain_size && first_h == z.h[0];
  }
};

class CudaProver final : public Prover {
 public:
  explicit CudaProver(int device) : device_(device) {
    std::string why;
    const int count = cuzk::cuda::device_count(&why);
    if (device < 0 || device >= count) {
      throw std::runtime_error("CUDA device " + std::to_string(device) + " is not available (" +
                               (count ? std::to_string(count) + " devices" : why) + ")");
    }
    cuzk::cuda::DeviceScope scope(device_);
    check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
  }
  ~CudaProver() override {
    cudaSetDevice(device_);
    cudaStreamSynchronize(stream_);
    domain_.reset();
    cudaStreamDestroy(stream_);
  }

  std::string name() const override { return "cuda:" + std::to_string(device_); }
  using Prover::prove;

  Proof prove(const Zkey& zkey, std::span<const ff::Fr> witness, const ff::Fr& r, const ff::Fr& s,
              ProveTimings* timings) override {
    std::lock_guard lock(mutex_);
    const auto start = Clock::now();
    detail::check_witness(zkey, witness);
    const unsigned log_n = zkey.log_domain_size();
    if (log_n > ntt::cuda::DeviceDomain::kMaxLogSize) {
      throw std::invalid_argument("snarkjs key's domain of 2^" + std::to_string(log_n) +
                                  " points exceeds the largest GPU domain (2^" +
                                  std::to_string(ntt::cuda::DeviceDomain::kMaxLogSize) + ")");
    }
    cuzk::cuda::DeviceScope scope(device_);
    const OddCoset coset(log_n);
    const double upload_seconds = make_resident(zkey, coset);

    const auto h_start = Clock::now();
    const size_t n = coset.size();
    std::vector<ff::Fr> a(n), b(n);
    detail::ab_evaluations(zkey, witness, coset, a, b);
    if (!domain_ || domain_->log_size() != log_n) {
      domain_.reset();
      domain_ = std::make_unique<ntt::cuda::DeviceDomain>(log_n, stream_);
    }
    const unsigned split = (log_n + 1) / 2;
    upload_shift_powers(coset.shift(), log_n, split);
    DeviceBuffer<ff::Fr> da(n), db(n), dc(n);
    check(cudaMemcpyAsync(da.get(), a.data(), n * sizeof(ff::Fr), cudaMemcpyHostToDevice, stream_),
          "cudaMemcpyAsync (A's evaluations)");
    check(cudaMemcpyAsync(db.get(), b.data(), n * sizeof(ff::Fr), cudaMemcpyHostToDevice, stream_),
          "cudaMemcpyAsync (B's evaluations)");
    cuda::multiply(dc.get(), da.get(), db.get(), n, stream_);  // C = A .* B on the constraint domain
    for (ff::Fr* device : {da.get(), db.get(), dc.get()}) {
      domain_->ifft(device);
      cuda::scale_by_power_table(device, n, shift_lo_.get(), shift_hi_.get(), split, stream_);
      domain_->fft(device);
    }
    cuda::multiply_subtract(da.get(), db.get(), dc.get(), n, stream_);
    check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (H evaluations)");
    const double h_seconds = seconds_since(h_start);

    const auto msm_start = Clock::now();
    detail::MsmResults m;
    m.h = msm::cuda::msm(*key_.h, 0, n, da.get());
    m.a = msm::cuda::msm(*key_.a, 0, zkey.vars, witness);
    m.b_g1 = msm::cuda::msm(*key_.b_g1, 0, zkey.vars, witness);
    m.b_g2 = msm::cuda::msm(*key_.b_g2, 0, zkey.vars, witness);
    const size_t privates = size_t(zkey.vars) - zkey.publics - 1;
    if (privates) m.c = msm::cuda::msm(*key_.c, 0, privates, witness.subspan(zkey.publics + 1));
    const double msm_seconds = seconds_since(msm_start);
    Proof proof = detail::assemble(zkey, m, r, s);
    if (timings) *timings = ProveTimings{upload_seconds, h_seconds, msm_seconds, seconds_since(start)};
    return proof;
  }

 private:
  // Uploads the key's bases unless they are already resident; returns the seconds it took.
  double make_resident(const Zkey& zkey, const OddCoset& coset) {
    if (key_.holds(zkey)) return 0;
    const auto start = Clock::now();
    key_ = ResidentKey{};
    // H's point for our index i is snarkjs' point k i mod n.
    std::vector<G1Affine> h(coset.size());
    for (size_t i = 0; i < h.size(); i++) h[i] = zkey.h[coset.snarkjs_index(i)];
    ResidentKey k;
    k.h = msm::cuda::G1Bases::upload(device_, h);
    k.a = msm::cuda::G1Bases::upload(device_, zkey.a);
    k.b_g1 = msm::cuda::G1Bases::upload(device_, zkey.b_g1);
    if (!zkey.c.empty()) k.c = msm::cuda::G1Bases::upload(device_, zkey.c);
    k.b_g2 = msm::cuda::G2Bases::upload(device_, zkey.b_g2);
    k.zkey = &zkey;
    k.vars = zkey.vars;
    k.domain_size = zkey.domain_size;
    k.first_h = zkey.h[0];
    key_ = std::move(k);
    return seconds_since(start);
  }

  // shift^j for j < 2^split, and shift^(j 2^split) for j < 2^(log_n - split).
  void upload_shift_powers(const ff::Fr& shift, unsigned log_n, unsigned split) {
    if (shift_log_n_ == log_n && shift_value_ == shift) return;
    std::vector<ff::Fr> lo(size_t(1) << split), hi(size_t(1) << (log_n - split));
    lo[0] = hi[0] = ff::Fr::one();
    for (size_t j = 1; j < lo.size(); j++) lo[j] = lo[j - 1] * shift;
    const ff::Fr step = lo.back() * shift;  // shift^(2^split)
    for (size_t j = 1; j < hi.size(); j++) hi[j] = hi[j - 1] * step;
    shift_lo_ = DeviceBuffer<ff::Fr>(lo.size());
    shift_hi_ = DeviceBuffer<ff::Fr>(hi.size());
    check(cudaMemcpy(shift_lo_.get(), lo.data(), lo.size() * sizeof(ff::Fr), cudaMemcpyHostToDevice),
          "cudaMemcpy (shift powers)");
    check(cudaMemcpy(shift_hi_.get(), hi.data(), hi.size() * sizeof(ff::Fr), cudaMemcpyHostToDevice),
          "cudaMemcpy (shift powers)");
    shift_log_n_ = log_n;
    shift_value_ = shift;
  }

  int device_;
  cudaStream_t stream_ = nullptr;
  std::mutex mutex_;
  std::unique_ptr<ntt::cuda::DeviceDomain> domain_;
  ResidentKey key_;
  DeviceBuffer<ff::Fr> shift_lo_, shift_hi_;
  unsigned shift_log_n_ = 0;
  ff::Fr shift_value_ = ff::Fr::zero();
};

}  // namespace

std::unique_ptr<Prover> make_cuda_prover(int device) { return std::make_unique<CudaProver>(device); }

}  // namespace cuzk::snarkjs

// The CUDA ProverBackend: prove_start on one device.
//   1. a, b, c go up once through the pinned staging pool (zero-padded on the device) and are
//      released on the host as soon as they are in pinned memory;
//   2. the H polynomial runs on the device (7 NTTs and the pointwise steps);
//   3. the MSMs (H, L, A, B_G1 and B_G2). With the GPU MSM (msm/cuda, CUZK_HAVE_GPU_MSM) every
//      parameter set's G1 and G2 bases are uploaded once and stay resident, and H's
//      coefficients never leave the device; prove_finish is left with the assembly. Without it (INTERIM, until the GPU
//      MSM lands) H's coefficients are copied back and all G1 MSMs run on the CPU, exactly as the CPU backend does.
// The field is exact, so the PendingProof, and hence the proof for the same r and s, is the
// CPU backend's bit for bit.
#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "ff/cuda/cuda_check.hpp"
#include "groth16/backend.hpp"
#include "msm/pippenger.hpp"
#include "ntt/cuda/ntt.hpp"
#include "ntt/cuda/pinned_pool.hpp"
#include "ntt/domain.hpp"

#if CUZK_HAVE_GPU_MSM
#include "msm/cuda/msm.hpp"
#endif

namespace cuzk::groth16 {
namespace {

using cuzk::cuda::check;
using cuzk::cuda::DeviceBuffer;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

class CudaBackend final : public ProverBackend {
 public:
  explicit CudaBackend(int device) : device_(device) {
    set_device();
    check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
  }
  ~CudaBackend() override {
    cudaSetDevice(device_);
    cudaStreamSynchronize(stream_);
    domain_.reset();
    abc_.reset();
    cudaStreamDestroy(stream_);
  }

  std::string name() const override { return "cuda:" + std::to_string(device_); }

  PendingProof prove_start(const Parameters& params, r1cs::ProvingAssignment& pa, const Fr& r, const Fr& s,
                           ProveTimings* timings) override {
    std::lock_guard lock(mutex_);
    ProveTimings local;
    ProveTimings& t = timings ? *timings : local;
    const size_t m = pa.num_constraints();
    const auto log_n = log_domain(m);
    const size_t n = size_t(1) << log_n;
    check_assignment(params, pa, n);
    set_device();

    PendingProof out;
    out.r = r;
    out.s = s;
    auto t0 = Clock::now();
    const ntt::cuda::DeviceDomain& domain = domain_for(log_n);
    if (abc_.size() < 3 * n) {
      abc_.reset();
      abc_ = DeviceBuffer<Fr>(3 * n);
    }
    Fr* a = abc_.get();
    Fr* b = a + n;
    Fr* c = b + n;
    for (auto [dst, src] : {std::pair{a, &pa.a()}, std::pair{b, &pa.b()}, std::pair{c, &pa.c()}}) {
      pool_.upload(dst, src->data(), src->size() * sizeof(Fr), stream_);
      if (src->size() < n) {
        check(cudaMemsetAsync(dst + src->size(), 0, (n - src->size()) * sizeof(Fr), stream_), "zero padding");
      }
    }
    // Everything is in pinned memory or on the device: the host copies can go.
    pa.release_abc();
    domain.h_polynomial(a, b, c);
    domain.synchronize();
    t.h_ntt = seconds_since(t0);

#if CUZK_HAVE_GPU_MSM
    const Resident& res = resident_for(params);
    t0 = Clock::now();
    out.h = msm::cuda::msm(*res.h, 0, n - 1, static_cast<const Fr*>(a));
    t.msm_h = seconds_since(t0);
    g1_msms_on_gpu(res, pa, out, t);
#else
    // INTERIM (no GPU MSM in this build yet): H comes back and the G1 MSMs run on the CPU.
    t0 = Clock::now();
    std::vector<Fr> h(n - 1);
    check(cudaMemcpyAsync(h.data(), a, (n - 1) * sizeof(Fr), cudaMemcpyDeviceToHost, stream_), "download H");
    check(cudaStreamSynchronize(stream_), "download H");
    out.h = msm::msm<ec::G1Curve>(params.h, h);
    t.msm_h = seconds_since(t0);
    g1_msms_on_cpu(params, pa, out, t);
#endif
    return out;
  }

  void release_parameters(const Parameters& params) override {
#if CUZK_HAVE_GPU_MSM
    std::lock_guard lock(mutex_);
    auto it = resident_.find(&params);
    if (it == resident_.end()) return;
    resident_total_ -= it->second.bytes();
    resident_.erase(it);
#endif
  }

  // Read without the proof lock (status pages ask while a proof runs).
  size_t resident_bytes() const override { return resident_total_.load(); }

 private:
  static unsigned log_domain(size_t m) {
    unsigned log_n = 0;
    while ((size_t(1) << log_n) < m) log_n++;
    if (log_n > ntt::cuda::DeviceDomain::kMaxLogSize) {
      throw std::invalid_argument("GPU prover: " + std::to_string(m) + " constraints exceed the largest GPU domain");
    }
    return log_n;
  }

  void set_device() const { check(cudaSetDevice(device_), "cudaSetDevice"); }

  // The domain of the last size proved (its twiddle table is 16 n bytes; kept across proofs).
  const ntt::cuda::DeviceDomain& domain_for(unsigned log_n) {
    if (!domain_ || domain_->log_size() != log_n) {
      domain_.reset();
      domain_ = std::make_unique<ntt::cuda::DeviceDomain>(log_n, stream_);
    }
    return *domain_;
  }

#if CUZK_HAVE_GPU_MSM
  struct Resident {
    std::shared_ptr<msm::cuda::G1Bases> h, l, a, b_g1;
    std::shared_ptr<msm::cuda::G2Bases> b_g2;
    size_t bytes() const {
      return h->device_bytes() + l->device_bytes() + a->device_bytes() + b_g1->device_bytes() + b_g2->device_bytes();
    }
  };

  // Uploads a parameter set's G1 bases on first use; later proofs reuse them.
  const Resident& resident_for(const Parameters& params) {
    auto it = resident_.find(&params);
    if (it != resident_.end()) return it->second;
    Resident r{msm::cuda::G1Bases::upload(device_, params.h), msm::cuda::G1Bases::upload(device_, params.l),
               msm::cuda::G1Bases::upload(device_, params.a), msm::cuda::G1Bases::upload(device_, params.b_g1),
               msm::cuda::G2Bases::upload(device_, params.b_g2)};
    resident_total_ += r.bytes();
    return resident_.emplace(&params, std::move(r)).first->second;
  }

  // As g1_msms_on_cpu, over the resident bases: a and b_g1 hold inputs first, then aux.
  static void g1_msms_on_gpu(const Resident& res, const r1cs::ProvingAssignment& pa, PendingProof& out,
                             ProveTimings& t) {
    auto view = [](const r1cs::DensityTracker& d) { return msm::DensityView{d.words(), d.size()}; };
    auto t0 = Clock::now();
    out.l = msm::cuda::msm(*res.l, 0, pa.num_aux(), std::span<const Fr>(pa.aux()));
    t.msm_l = seconds_since(t0);
    t0 = Clock::now();
    const size_t a_aux = pa.a_aux_density().count_ones();
    if (res.a->size() != pa.num_inputs() + a_aux) throw std::invalid_argument("a query does not fit the circuit");
    out.a_inputs = msm::cuda::msm(*res.a, 0, pa.num_inputs(), std::span<const Fr>(pa.inputs()));
    out.a_aux =
        msm::cuda::msm_with_density(*res.a, pa.num_inputs(), std::span<const Fr>(pa.aux()), view(pa.a_aux_density()));
    t.msm_a = seconds_since(t0);
    t0 = Clock::now();
    const size_t b_in = pa.b_input_density().count_ones();
    if (res.b_g1->size() != b_in + pa.b_aux_density().count_ones()) {
      throw std::invalid_argument("b_g1 query does not fit the circuit");
    }
    out.b_g1_inputs =
        msm::cuda::msm_with_density(*res.b_g1, 0, std::span<const Fr>(pa.inputs()), view(pa.b_input_density()));
    out.b_g1_aux =
        msm::cuda::msm_with_density(*res.b_g1, b_in, std::span<const Fr>(pa.aux()), view(pa.b_aux_density()));
    t.msm_b_g1 = seconds_since(t0);
    // B in G2 here too: the GPU G2 MSM beats the CPU tail 24-41x (docs/PERF.md), so
    // prove_finish is left with the assembly alone.
    t0 = Clock::now();
    if (res.b_g2->size() != res.b_g1->size()) throw std::invalid_argument("b_g2 query does not fit the circuit");
    ec::G2Jacobian b_g2 =
        msm::cuda::msm_with_density(*res.b_g2, 0, std::span<const Fr>(pa.inputs()), view(pa.b_input_density()));
    b_g2 += msm::cuda::msm_with_density(*res.b_g2, b_in, std::span<const Fr>(pa.aux()), view(pa.b_aux_density()));
    out.b_g2 = b_g2;
    t.msm_b_g2 = seconds_since(t0);
  }

  std::map<const Parameters*, Resident> resident_;
#endif

  int device_;
  std::atomic<size_t> resident_total_{0};  // device bytes of resident_, kept under mutex_
  cudaStream_t stream_ = nullptr;
  std::mutex mutex_;
  cuzk::cuda::PinnedStagingPool pool_;
  std::unique_ptr<ntt::cuda::DeviceDomain> domain_;
  DeviceBuffer<Fr> abc_;  // a, b, c of the largest domain seen, reused across proofs
};

}  // namespace

int cuda_device_count() { return ntt::cuda::device_count(); }

std::unique_ptr<ProverBackend> make_cuda_backend(int device) {
  std::string why;
  const int count = ntt::cuda::device_count(&why);
  if (count == 0) throw std::runtime_error("the CUDA backend cannot start: " + why);
  if (device < 0 || device >= count) {
    throw std::runtime_error("the CUDA backend cannot start: device " + std::to_string(device) + " does not exist (" +
                             std::to_string(count) + " present)");
  }
  return std::make_unique<CudaBackend>(device);
}

}  // namespace cuzk::groth16

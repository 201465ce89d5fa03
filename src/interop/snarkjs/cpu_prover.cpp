// The snarkjs prover on the CPU: the project's NTT domains and Pippenger MSMs (oneTBB).
#include <chrono>
#include <tbb/parallel_for.h>
#include <tbb/parallel_invoke.h>

#include "interop/snarkjs/odd_coset.hpp"
#include "interop/snarkjs/prover.hpp"
#include "msm/pippenger.hpp"
#include "ntt/domain.hpp"
#include "util/elapsed.hpp"

namespace cuzk::snarkjs {
namespace {

using Clock = std::chrono::steady_clock;

// Evaluations on the constraint domain to evaluations on the odd coset, in place.
void to_odd_coset(const ntt::EvaluationDomain& domain, const OddCoset& coset, std::span<ff::Fr> v) {
  domain.ifft(v);
  const ff::Fr shift = coset.shift();
  tbb::parallel_for(tbb::blocked_range<size_t>(0, v.size(), 1 << 14), [&](const tbb::blocked_range<size_t>& r) {
    ff::Fr power = shift.pow(uint64_t(r.begin()));
    for (size_t i = r.begin(); i < r.end(); i++) {
      v[i] *= power;
      power *= shift;
    }
  });
  domain.fft(v);
}

class CpuProver final : public Prover {
 public:
  std::string name() const override { return "cpu"; }
  using Prover::prove;

  Proof prove(const Zkey& zkey, std::span<const ff::Fr> witness, const ff::Fr& r, const ff::Fr& s,
              ProveTimings* timings) override {
    const auto start = Clock::now();
    detail::check_witness(zkey, witness);
    const OddCoset coset(zkey.log_domain_size());
    const ntt::EvaluationDomain domain(zkey.log_domain_size());
    const size_t n = coset.size();
    std::vector<ff::Fr> a(n), b(n), c(n);
    detail::constraint_evaluations(zkey, witness, coset, a, b, c);
    tbb::parallel_invoke([&] { to_odd_coset(domain, coset, a); }, [&] { to_odd_coset(domain, coset, b); },
                         [&] { to_odd_coset(domain, coset, c); });
    // A B - C at our index i is H's scalar for snarkjs' index k i mod n.
    std::vector<ff::Fr> h_scalars(n);
    tbb::parallel_for(size_t(0), n, [&](size_t i) { h_scalars[coset.snarkjs_index(i)] = a[i] * b[i] - c[i]; });
    const double h_seconds = seconds_since(start);

    const auto msm_start = Clock::now();
    detail::MsmResults m;
    const std::span<const ff::Fr> private_signals = witness.subspan(size_t(zkey.publics) + 1);
    tbb::parallel_invoke([&] { m.h = msm::msm<ec::G1Curve>(std::span(zkey.h), h_scalars); },
                         [&] { m.a = msm::msm<ec::G1Curve>(std::span(zkey.a), witness); },
                         [&] { m.b_g1 = msm::msm<ec::G1Curve>(std::span(zkey.b_g1), witness); },
                         [&] { m.b_g2 = msm::msm<ec::G2Curve>(std::span(zkey.b_g2), witness); },
                         [&] { m.c = msm::msm<ec::G1Curve>(std::span(zkey.c), private_signals); });
    const double msm_seconds = seconds_since(msm_start);
    Proof proof = detail::assemble(zkey, m, r, s);
    if (timings) *timings = ProveTimings{0, h_seconds, msm_seconds, seconds_since(start)};
    return proof;
  }
};

}  // namespace

std::unique_ptr<Prover> make_cpu_prover() { return std::make_unique<CpuProver>(); }

}  // namespace cuzk::snarkjs

// The snarkjs prover's CUDA backend (issue 28): proofs from the fixtures in tests/data/snarkjs
// verify, and equal the CPU backend's for the same blinding factors. Skips without a GPU.
#include <string>

#include <gtest/gtest.h>

#include "interop/snarkjs/json_io.hpp"
#include "interop/snarkjs/prover.hpp"
#include "interop/snarkjs/verifier.hpp"
#include "interop/snarkjs/wtns_file.hpp"
#include "interop/snarkjs/zkey_file.hpp"
#include "msm/cuda/msm.hpp"
#include "snarkjs_test_key.hpp"
#include "test_support.hpp"

namespace cuzk::snarkjs {
namespace {

using ff::Fr;

std::string fixture(const std::string& name) { return test::repo_testdata_dir() + "/snarkjs/" + name; }

class SnarkjsGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (msm::cuda::device_count(&why) == 0) GTEST_SKIP() << "no CUDA device: " << why;
  }
};

TEST_F(SnarkjsGpu, CudaProofVerifiesAndEqualsTheCpuProof) {
  const Zkey zkey = read_zkey(fixture("chain.zkey"));
  const std::vector<Fr> witness = read_witness(fixture("chain.wtns"));
  const VerifyingKey vk = verifying_key_from_json(read_text_file(fixture("verification_key.json")), "vk.json");
  const std::vector<Fr> inputs = public_signals(zkey, witness);
  const auto gpu = make_cuda_prover(0);
  const auto cpu = make_cpu_prover();
  ProveTimings first, second;
  const Proof random = gpu->prove(zkey, witness, &first);
  EXPECT_TRUE(verify(vk, inputs, random));
  EXPECT_GT(first.upload, 0);
  auto rng = test::make_rng();
  for (int i = 0; i < 3; i++) {
    const Fr r = Fr::random(rng), s = Fr::random(rng);
    const Proof on_gpu = gpu->prove(zkey, witness, r, s, &second);
    EXPECT_EQ(second.upload, 0);  // the bases stayed resident
    EXPECT_EQ(on_gpu, cpu->prove(zkey, witness, r, s));
    EXPECT_TRUE(verify(vk, inputs, on_gpu));
  }
  // A witness that does not satisfy the circuit gives a proof that does not verify.
  std::vector<Fr> bad = witness;
  bad.back() += Fr::one();
  EXPECT_FALSE(verify(vk, public_signals(zkey, bad), gpu->prove(zkey, bad)));
}

// Larger domains (keys made in the test as snarkjs makes them): the GPU's odd-coset NTT path and
// its permuted H bases give the CPU's proof.
TEST_F(SnarkjsGpu, CudaProofsEqualCpuProofsAtLargerDomains) {
  auto rng = test::make_rng();
  const auto gpu = make_cuda_prover(0);
  const auto cpu = make_cpu_prover();
  for (size_t constraints : {1000, 5000}) {
    const test_keys::TestKey key = test_keys::make_test_key(constraints, rng);
    const Fr r = Fr::random(rng), s = Fr::random(rng);
    const Proof on_gpu = gpu->prove(key.zkey, key.witness, r, s);
    EXPECT_EQ(on_gpu, cpu->prove(key.zkey, key.witness, r, s)) << constraints << " constraints";
    EXPECT_TRUE(verify(verifying_key_from_zkey(key.zkey), public_signals(key.zkey, key.witness), on_gpu));
  }
}

}  // namespace
}  // namespace cuzk::snarkjs

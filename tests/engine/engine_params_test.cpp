// Parameter sets that must never make a proof that leaves the engine: a cached file of our own
// that is corrupt or has lost its digest trailer is refused on load, naming the file; a set whose
// proof has a point off its curve fails that job naming where the set came from, with proof
// verification on or off, and is dropped so that its next use loads it again.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "circuits/synthetic.hpp"
#include "engine/engine.hpp"
#include "engine_test_jobs.hpp"
#include "groth16/param_file.hpp"
#include "groth16/setup.hpp"
#include "test_support.hpp"

namespace cuzk::engine {
namespace {

EngineConfig small_config(const std::string& cache, bool verify) {
  EngineConfig c;
  c.budget_bytes = uint64_t(256) << 20;
  c.backend = BackendKind::kCpu;
  c.synthesis_workers = 2;
  c.param_cache_dir = cache;
  c.log_events = false;
  c.verify_before_return = verify;
  return c;
}

void flip_bit(const std::string& path, size_t at) {
  std::fstream f(path, std::ios::binary | std::ios::in | std::ios::out);
  f.seekg(std::streamoff(at));
  char c = 0;
  f.get(c);
  f.seekp(std::streamoff(at));
  f.put(char(c ^ 1));
}

// A corrupt cached parameter file (one flipped bit in h) used to be blamed on the prover ("the
// proof did not verify"), stay resident and fail every later job; with verification off its proofs
// "succeeded". Its digest trailer refuses it on load, naming the file; and the same file without
// its trailer (56 bytes cut) is not read unchecked: refused for having none. Nothing stays resident.
TEST(EngineParamsTest, CorruptOrTrailerlessCachedParametersAreRefusedOnLoad) {
  test::TempDir dir("cuzk-engine-params-test");
  const std::string id = "synthetic-1024-4-seed7", path = dir.path + "/" + id + ".params";
  {
    Engine engine(small_config(dir.path, true));
    const JobResult r = await_end(engine, engine.submit(synthetic_job(1 << 10, 1, 0, 7)));
    ASSERT_EQ(r.state, JobState::kSucceeded) << r.error;
  }
  flip_bit(path, groth16::ParameterFile::open(path).h().offset + 1000 * 96 + 47);  // low bit of h[1000].x
  for (const bool trailer : {true, false}) {
    if (!trailer) {
      std::filesystem::resize_file(path, std::filesystem::file_size(path) - groth16::kParamDigestTrailerBytes);
    }
    for (const bool verify : {true, false}) {
      Engine engine(small_config(dir.path, verify));
      for (int job = 0; job < 2; job++) {  // every job: the file is never taken as it is
        const JobResult r = await_end(engine, engine.submit(synthetic_job(1 << 10, 1, 0, 7)));
        EXPECT_EQ(r.state, JobState::kFailed) << "verify " << verify;
        EXPECT_TRUE(r.proof.empty());
        EXPECT_NE(r.error.find(path), std::string::npos) << r.error;
        EXPECT_NE(r.error.find(trailer ? ": corrupt: its contents digest to " : ": no digest trailer"),
                  std::string::npos)
            << r.error;
        EXPECT_EQ(r.error.find("prover bug"), std::string::npos) << r.error;
      }
      EXPECT_TRUE(engine.snapshot().params.empty());
      EXPECT_EQ(engine.snapshot().param_files_refused, 2u) << "one refusal per job (cuzk_param_files_refused_total)";
      expect_idle(engine);
    }
  }
}

// A missing parameter file fails the job but is no refusal (cuzk_param_files_refused_total counts
// files that are there and wrong).
TEST(EngineParamsTest, MissingParameterFileIsNotCountedAsRefused) {
  test::TempDir dir("cuzk-engine-params-test");
  auto cfg = small_config(dir.path, true);
  cfg.allow_synthetic_setup = false;
  Engine engine(cfg);
  const JobResult r = await_end(engine, engine.submit(synthetic_job(1 << 10, 1, 0, 7)));
  EXPECT_EQ(r.state, JobState::kFailed);
  EXPECT_NE(r.error.find("no parameter file"), std::string::npos) << r.error;
  EXPECT_EQ(engine.snapshot().param_files_refused, 0u);
  expect_idle(engine);
}

// Parameters corrupt in memory (here an embedder's, with one point of h moved off the curve) make
// proofs with points off the curve: with verification on or off, no such proof leaves; the job's
// error says which point and names where the set came from; the set is dropped and made again.
TEST(EngineParamsTest, ProofsWithPointsOffTheCurveNeverLeave) {
  test::TempDir dir("cuzk-engine-params-test");
  const std::string id = "synthetic-1024-4-seed9";
  const auto good =
      groth16::generate_parameters(circuits::SyntheticCircuit(1 << 10, 4, {}, 9), groth16::ToxicWaste::random());
  for (const bool verify : {true, false}) {
    auto cfg = small_config(dir.path, verify);
    cfg.allow_synthetic_setup = false;
    auto made = std::make_shared<std::atomic<int>>(0);
    cfg.make_parameters = [good, made, id](const std::string& want) -> std::unique_ptr<groth16::Parameters> {
      if (want != id) return nullptr;
      (*made)++;
      auto p = std::make_unique<groth16::Parameters>(good);
      for (auto& point : p->h) point.x += ff::Fp::one();  // y^2 = x^3 + 4 no longer holds
      return p;
    };
    Engine engine(cfg);
    for (int job = 0; job < 2; job++) {
      const JobResult r = await_end(engine, engine.submit(synthetic_job(1 << 10, 1, 0, 9)));
      EXPECT_EQ(r.state, JobState::kFailed) << "verify " << verify;
      EXPECT_TRUE(r.proof.empty());
      EXPECT_NE(r.error.find("C is not on the curve"), std::string::npos) << r.error;
      EXPECT_NE(r.error.find("the embedder's make_parameters"), std::string::npos) << r.error;
    }
    EXPECT_EQ(made->load(), 2) << "the suspect set was made again for the second job";
    expect_idle(engine);
  }
}

}  // namespace
}  // namespace cuzk::engine

// WinningPoSt and WindowPoSt through the engine (label slow: the 2 KiB circuits' TEST parameters
// are a setup the first time, then cached): vanilla proofs of the four real 2 KiB presealed
// sectors (tree R rebuilt from each sealed replica), written as Curio sends them (bincode
// FallbackPoStSectorProof), are proved and verified before return, and the proofs verify again
// outside the engine with the verifier's public inputs; a wrong randomness or malformed bytes are
// refused at submit, and a proof checked against other public inputs fails the job.
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include <gtest/gtest.h>

#include "engine/engine.hpp"
#include "filecoin/common/merkle_tree.hpp"
#include "filecoin/parameter_files.hpp"
#include "filecoin/post/challenges.hpp"
#include "filecoin/post/circuit.hpp"
#include "filecoin/post/public_inputs.hpp"
#include "filecoin/post/registered_proofs.hpp"
#include "gadgets/hashers.hpp"
#include "groth16/parameters.hpp"
#include "groth16/verifier.hpp"
#include "kinds/filecoin_kinds.hpp"
#include "kinds_engine_config.hpp"
#include "post_vanilla.hpp"
#include "r1cs/shape.hpp"
#include "test_support.hpp"

namespace cuzk::kinds {
namespace {

using namespace std::chrono_literals;
using ff::Fr;
using filecoin::Bytes32;
using filecoin::RegisteredPoStProof;
using test::parameter_source;
using test::post::preseal_sectors;
using test::post::randomness_of;
using test::post::vanilla_bincode;
using test::post::view;

engine::EngineConfig post_config() { return test::kinds_engine_config(uint64_t(4) << 30); }

// A kind whose proof is checked against other public inputs (verify-before-return must fail it).
class OtherInputs final : public engine::ProofInput {
 public:
  OtherInputs(std::shared_ptr<const engine::ProofInput> in, std::vector<Fr> other)
      : in_(std::move(in)), other_(std::move(other)) {}
  std::string kind() const override { return in_->kind(); }
  std::string describe() const override { return in_->describe() + " (other public inputs)"; }
  uint32_t partitions() const override { return in_->partitions(); }
  engine::CircuitShape shape() const override { return in_->shape(); }
  std::string param_id() const override { return in_->param_id(); }
  void synthesize(uint32_t k, r1cs::ConstraintSystem& a) const override { in_->synthesize(k, a); }
  std::optional<std::vector<Fr>> public_inputs(uint32_t) const override { return other_; }
  uint64_t input_bytes() const override { return in_->input_bytes(); }

 private:
  std::shared_ptr<const engine::ProofInput> in_;
  std::vector<Fr> other_;
};

TEST(EnginePoStTest, ShapeIsTheCircuits) {
  for (auto p : {RegisteredPoStProof::kStackedDrgWinning2KiBV1, RegisteredPoStProof::kStackedDrgWindow2KiBV1_2,
                 RegisteredPoStProof::kStackedDrgWindow8MiBV1_2}) {
    const auto& info = filecoin::post_proof_info(p);
    r1cs::ShapeCounter cs;
    filecoin::FallbackPoStCircuit::blank(info.params).synthesize(cs);
    const auto sectors = preseal_sectors();
    if (sectors.empty()) GTEST_SKIP() << "no preseal-2KiB test data";
    if (info.params.sector_size != 2048) continue;
    const Bytes32 r = randomness_of(1);
    const std::string v =
        vanilla_bincode(info.type == filecoin::PoStType::kWinning
                            ? filecoin::FallbackPoStParams{2048, 66, 1, info.params.api_version, info.params.tree_r}
                            : info.params,
                        sectors[0], r, 0);
    const auto in = make_post_input({info.type == filecoin::PoStType::kWinning, {v}, info.id(), 1000, view(r), 0, 0});
    EXPECT_EQ(in->shape().inputs, cs.num_inputs()) << info.name;
    EXPECT_EQ(in->shape().aux, cs.num_aux()) << info.name;
    EXPECT_EQ(in->shape().constraints, cs.num_constraints() + cs.num_inputs()) << info.name;
    EXPECT_EQ(in->partitions(), 1u);
  }
}

TEST(EnginePoStTest, PreSealedSectorsProveThroughTheEngine) {
  const auto sectors = preseal_sectors();
  if (sectors.empty()) GTEST_SKIP() << "no preseal-2KiB test data";
  ASSERT_EQ(sectors.size(), 2u);
  const Bytes32 r = randomness_of(test::run_seed());
  const auto& window = filecoin::post_proof_info(RegisteredPoStProof::kStackedDrgWindow2KiBV1_2);
  const auto& window_v1 = filecoin::post_proof_info(RegisteredPoStProof::kStackedDrgWindow2KiBV1);
  const auto& winning = filecoin::post_proof_info(RegisteredPoStProof::kStackedDrgWinning2KiBV1);
  const filecoin::FallbackPoStParams win_vanilla{2048, 66, 1, winning.params.api_version, winning.params.tree_r};

  // WindowPoSt: the two sectors sent in reverse order (proved sorted, as the verifier orders
  // them); V1 as partition 1 (challenge indexes count from sector index 2).
  const std::string w0 = vanilla_bincode(window.params, sectors[0], r, 0);
  const std::string w1 = vanilla_bincode(window.params, sectors[1], r, 1);
  PoStRequest wreq{false, {w1, w0}, window.id(), 1000, view(r), 0, 2048};
  const std::string v0 = vanilla_bincode(window_v1.params, sectors[0], r, 2);
  const std::string v1 = vanilla_bincode(window_v1.params, sectors[1], r, 3);
  PoStRequest v1req{false, {v0, v1}, window_v1.id(), 1000, view(r), 1, 0};
  const std::string win = vanilla_bincode(win_vanilla, sectors[1], r, 0);
  PoStRequest nreq{true, {win}, winning.id(), 1000, view(r), 0, 0};

  engine::Engine engine(post_config());
  engine::JobRequest a, b, c, d;
  a.input = make_post_input(wreq);
  b.input = make_post_input(v1req);
  c.input = make_post_input(nreq);
  EXPECT_EQ(a.input->kind(), "window-post");
  EXPECT_EQ(c.input->kind(), "winning-post");
  EXPECT_EQ(a.input->param_id(), b.input->param_id());  // V1 and V1_2 share the circuit
  EXPECT_EQ(a.input->param_id(), filecoin::window_post_parameter_id(2048).stem);
  EXPECT_EQ(c.input->param_id(), filecoin::winning_post_parameter_id(2048).stem);
  EXPECT_GT(a.input->input_bytes(), 0u);
  c.priority = 4000;  // CRITICAL, as the daemon gives WinningPoSt

  // The verifier's public inputs over all the proof's sectors.
  const std::vector<filecoin::PoStPublicSector> pub = {{sectors[0].id, sectors[0].comm_r},
                                                       {sectors[1].id, sectors[1].comm_r}};
  const auto window_in = filecoin::fallback_post_public_inputs(window.params, r, pub, 0);
  std::vector<filecoin::PoStPublicSector> pub_v1 = {pub[0], pub[0], pub[0], pub[1]};  // partition 1: sectors 2, 3
  const auto v1_in = filecoin::fallback_post_public_inputs(window_v1.params, r, pub_v1, 1);
  const std::vector<filecoin::PoStPublicSector> pub_win(66, pub[1]);
  const auto win_in = filecoin::fallback_post_public_inputs(winning.params, r, pub_win, 0);
  EXPECT_EQ(*a.input->public_inputs(0), window_in);
  EXPECT_EQ(*b.input->public_inputs(0), v1_in);
  EXPECT_EQ(*c.input->public_inputs(0), win_in);

  // Another randomness's public inputs: the proof does not verify, the job fails.
  d.input = std::make_shared<OtherInputs>(
      make_post_input(wreq), filecoin::fallback_post_public_inputs(window.params, randomness_of(7), pub, 0));

  const std::string ida = engine.submit(std::move(a)), idb = engine.submit(std::move(b));
  const std::string idc = engine.submit(std::move(c)), idd = engine.submit(std::move(d));

  for (const auto& [id, info, in] : {std::tuple{ida, &window, &window_in}, std::tuple{idb, &window_v1, &v1_in},
                                     std::tuple{idc, &winning, &win_in}}) {
    const auto res = engine.await(id, 1h);
    ASSERT_TRUE(res.has_value());
    ASSERT_EQ(res->state, engine::JobState::kSucceeded) << info->name << ": " << res->error;
    EXPECT_TRUE(res->verified);
    ASSERT_EQ(res->proof.size(), 192u);
    const auto pvk =
        groth16::PreparedVerifyingKey(parameter_source()
                                          .load(std::string(info->type == filecoin::PoStType::kWinning
                                                                ? filecoin::winning_post_parameter_id(2048).stem
                                                                : filecoin::window_post_parameter_id(2048).stem),
                                                false)
                                          .params->vk);
    const auto proof = groth16::decode_proof(res->proof);
    EXPECT_TRUE(groth16::verify_proof(pvk, proof, *in)) << info->name;
    auto wrong = *in;
    wrong[1] += Fr::one();  // a challenged leaf
    EXPECT_FALSE(groth16::verify_proof(pvk, proof, wrong)) << info->name;
  }
  const auto rd = engine.await(idd, 1h);
  ASSERT_TRUE(rd.has_value());
  EXPECT_EQ(rd->state, engine::JobState::kFailed);
  EXPECT_FALSE(rd->error.empty());

  // Refused at submit: a wrong randomness, malformed bytes, counts and types that do not fit.
  auto refused = [](const PoStRequest& req, const std::string& says) {
    try {
      make_post_input(req);
      ADD_FAILURE() << "accepted; expected: " << says;
    } catch (const InvalidProofRequest& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  const Bytes32 other = randomness_of(99);
  PoStRequest bad = wreq;
  bad.randomness = view(other);
  refused(bad, "wrong randomness, sector or partition");
  bad = nreq;
  bad.randomness = view(other);
  refused(bad, "wrong randomness");
  bad = wreq;
  const std::string truncated = w0.substr(0, w0.size() - 5);
  bad.vanilla_proofs = {w1, truncated};
  refused(bad, "vanilla_proofs[1]: ");
  bad.vanilla_proofs = {"garbage"};
  refused(bad, "vanilla_proofs[0]: ");
  bad.vanilla_proofs = {w0, w0};
  refused(bad, "appears twice");
  bad.vanilla_proofs = {w0, w1, w0};
  refused(bad, "1 to 2");
  bad = wreq;
  bad.vanilla_proofs = {};
  refused(bad, "vanilla_proofs holds 0");
  bad = wreq;
  bad.randomness = "short";
  refused(bad, "randomness is 5 bytes");
  bad = wreq;
  bad.winning = true;
  refused(bad, "not a WinningPoSt proof");
  bad = wreq;
  bad.registered_proof = 99;
  refused(bad, "registered_proof");
  bad = wreq;
  bad.sector_size = 1 << 20;
  refused(bad, "sector_size");
  bad = nreq;
  bad.partition_index = 1;
  refused(bad, "one partition");
  bad = nreq;
  bad.vanilla_proofs = {w0};  // 10 openings, WinningPoSt needs 66
  refused(bad, "vanilla_proofs[0]: ");

  const auto s = engine.snapshot();
  EXPECT_TRUE(s.buffers.idle()) << engine::snapshot_to_json(s);
  EXPECT_EQ(s.buffers.input_bytes, 0);
  EXPECT_EQ(s.jobs_active, 0u);
}

// WinningPoSt at CRITICAL priority (the daemon's default for it) overtakes jobs queued before it:
// with one synthesis worker busy on a queue of NORMAL jobs, it ends while they are still queued.
TEST(EnginePoStTest, WinningPoStOvertakesQueuedJobs) {
  const auto sectors = preseal_sectors();
  if (sectors.empty()) GTEST_SKIP() << "no preseal-2KiB test data";
  const auto& winning = filecoin::post_proof_info(RegisteredPoStProof::kStackedDrgWinning2KiBV1);
  const filecoin::FallbackPoStParams win_vanilla{2048, 66, 1, winning.params.api_version, winning.params.tree_r};
  const Bytes32 r = randomness_of(test::run_seed() + 1);
  const std::string win = vanilla_bincode(win_vanilla, sectors[0], r, 0);
  engine::EngineConfig c = post_config();
  c.synthesis_workers = 1;
  engine::Engine engine(std::move(c));
  // The parameters first, so that the WinningPoSt job does not wait for their setup.
  parameter_source().load(filecoin::winning_post_parameter_id(2048).stem, false);
  std::vector<std::string> normal;
  for (int i = 0; i < 8; i++) {
    engine::JobRequest j;
    j.partitions.assign(1, engine::CircuitDescription{"synthetic", 1 << 15, 4, 11});
    j.priority = 2000;  // NORMAL: a PoRep partition's
    normal.push_back(engine.submit(std::move(j)));
  }
  engine::JobRequest w;
  w.input = make_post_input({true, {win}, winning.id(), 1000, view(r), 0, 0});
  w.priority = 4000;  // CRITICAL
  const std::string idw = engine.submit(std::move(w));
  const auto rw = engine.await(idw, 1h);
  ASSERT_TRUE(rw.has_value());
  ASSERT_EQ(rw->state, engine::JobState::kSucceeded) << rw->error;
  EXPECT_TRUE(rw->verified);
  const auto last = engine.peek(normal.back());
  EXPECT_TRUE(last.state == engine::JobState::kQueued || last.state == engine::JobState::kRunning)
      << "the last NORMAL job ended before the CRITICAL WinningPoSt";
  for (const auto& id : normal) EXPECT_EQ(engine.await(id, 1h)->state, engine::JobState::kSucceeded);
}

}  // namespace
}  // namespace cuzk::kinds

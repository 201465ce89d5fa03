// PoRep Commit2 through the engine (label slow: the 2 KiB circuit's TEST parameters are a setup
// at 2^22 the first time, minutes on two cores, then cached in the build tree): a generated
// 2 KiB sector's Commit1 is proved and verified before return, and the proof verifies again
// outside the engine (in Curio's envelope it makes the same input); a mixed run with a synthetic job, a cancelled
// PoRep job and refused requests leaves every counter, the `input` class included, at zero.
#include <filesystem>

#include <gtest/gtest.h>

#include "engine/engine.hpp"
#include "filecoin/generators/test_sector.hpp"
#include "filecoin/porep/commit1.hpp"
#include "filecoin/porep/parameters.hpp"
#include "filecoin/porep/verify.hpp"
#include "groth16/verifier.hpp"
#include "kinds/base64.hpp"
#include "kinds/filecoin_kinds.hpp"
#include "kinds_engine_config.hpp"
#include "test_support.hpp"

namespace cuzk::kinds {
namespace {

using namespace std::chrono_literals;
using filecoin::RegisteredSealProof;
using test::parameter_source;

engine::EngineConfig porep_config() { return test::kinds_engine_config(uint64_t(8) << 30); }

// Curio's envelope (lib/ffi/cuzk_funcs.go): Go's json.Marshal of {SectorNum, Phase1Out, SectorSize}.
std::string curio_envelope(const std::string& c1_json, uint64_t sector, uint64_t sector_size) {
  return "{\"SectorNum\":" + std::to_string(sector) + ",\"Phase1Out\":\"" + base64_encode(c1_json) +
         "\",\"SectorSize\":" + std::to_string(sector_size) + "}";
}

TEST(EnginePoRepTest, GeneratedSectorsProveThroughTheEngine) {
  const auto& info = filecoin::seal_proof_info(RegisteredSealProof::kStackedDrg2KiBV1_1);
  filecoin::TestSectorOptions o;
  o.miner_actor_id = 1000;
  o.data = filecoin::SectorData::kRandom;
  o.rng_seed = test::run_seed();
  std::vector<filecoin::TestSector> sectors;
  for (uint64_t n : {1, 2, 3}) {
    o.sector_id = n;
    for (size_t i = 0; i < 31; i++) o.ticket[i] = uint8_t(n + i), o.seed[i] = uint8_t(3 * n + i);
    sectors.push_back(filecoin::generate_test_sector(info, o));
  }
  engine::Engine engine(porep_config());
  const std::string raw = filecoin::write_seal_commit_phase1(sectors[0].c1);
  const std::string enveloped = curio_envelope(filecoin::write_seal_commit_phase1(sectors[1].c1), 2, info.sector_size);
  engine::JobRequest a, b, c, syn;
  a.input = make_porep_input({raw, info.id(), 1000, 1, 0});
  b.input = make_porep_input({enveloped, info.id(), 1000, 2, info.sector_size});
  c.input = make_porep_input({filecoin::write_seal_commit_phase1(sectors[2].c1), info.id(), 1000, 3, 0});
  EXPECT_EQ(a.input->kind(), "porep");
  EXPECT_EQ(a.input->partitions(), 1u);
  const std::string param_id = a.input->param_id();
  syn.partitions.assign(1, engine::CircuitDescription{"synthetic", 1 << 10, 4, 5});
  // Curio's envelope makes the same input (its proof through the daemon: curio_interop).
  EXPECT_EQ(b.input->param_id(), param_id);
  EXPECT_EQ(b.input->partitions(), 1u);
  const std::string ida = engine.submit(std::move(a));
  const std::string idc = engine.submit(std::move(c)), ids = engine.submit(std::move(syn));
  engine.cancel(idc);

  // Refused before anything is queued: a wrong sector, another registered proof, a broken
  // envelope, a non-interactive proof.
  EXPECT_THROW(make_porep_input({raw, info.id(), 1000, 9, 0}), InvalidProofRequest);
  EXPECT_THROW(make_porep_input({raw, info.id() + 1, 1000, 1, 0}), InvalidProofRequest);
  EXPECT_THROW(make_porep_input({"{\"Phase1Out\":\"!!!!\"}", info.id(), 1000, 1, 0}), InvalidProofRequest);
  EXPECT_THROW(
      make_porep_input({raw, uint64_t(RegisteredSealProof::kStackedDrg2KiBV1_2_Feat_NonInteractivePoRep), 1000, 1, 0}),
      UnsupportedProof);

  // The key of the parameters the engine used, read again through the same source.
  const auto pvk = groth16::PreparedVerifyingKey(parameter_source().load(param_id, false).params->vk);
  {
    const auto r = engine.await(ida, 1h);
    ASSERT_TRUE(r.has_value());
    ASSERT_EQ(r->state, engine::JobState::kSucceeded) << r->error;
    EXPECT_TRUE(r->verified);
    ASSERT_EQ(r->proof.size(), 192u);
    const filecoin::TestSector& sector = sectors[0];
    const filecoin::SealVerifyInputs in{sector.prover_id, sector.sector_id, sector.c1.ticket,
                                        sector.c1.seed,   sector.comm_r,    sector.comm_d};
    EXPECT_TRUE(filecoin::verify_seal(pvk, info, in, r->proof));
  }
  const auto rc = engine.await(idc, 1h);
  ASSERT_TRUE(rc.has_value());
  EXPECT_TRUE(rc->state == engine::JobState::kCancelled || rc->state == engine::JobState::kSucceeded);
  EXPECT_EQ(engine.await(ids, 1h)->state, engine::JobState::kSucceeded);
  const auto s = engine.snapshot();
  EXPECT_TRUE(s.buffers.idle()) << engine::snapshot_to_json(s);
  EXPECT_EQ(s.buffers.input_bytes, 0);
  EXPECT_EQ(s.jobs_active, 0u);
  int64_t params = 0;
  for (const auto& p : s.params) params += p.host_bytes;
  EXPECT_EQ(s.buffers.budget_used, params) << engine::snapshot_to_json(s);
}

}  // namespace
}  // namespace cuzk::kinds

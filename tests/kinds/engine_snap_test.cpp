// SnapDeals (EmptySectorUpdate) through the engine (label slow: the 2 KiB circuit's TEST
// parameters are a setup the first time, then cached in the build tree, shared with
// filecoin_snap_slow_test): a generated update of a real sealed 2 KiB sector, sent as Curio sends
// it (one bincode PartitionProof per partition, raw 32-byte commitments), is proved and verified
// before return, and its proof verifies again outside the engine with the verifier's public
// inputs and not with one changed; requests that do not fit are refused at submit with a message
// naming what is wrong; the shape the engine budgets for is the circuit's.
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/engine.hpp"
#include "filecoin/generators/test_sector.hpp"
#include "filecoin/generators/test_sector_update.hpp"
#include "filecoin/snap/circuit.hpp"
#include "filecoin/snap/public_inputs.hpp"
#include "filecoin/snap/registered_proofs.hpp"
#include "groth16/parameters.hpp"
#include "groth16/verifier.hpp"
#include "kinds/filecoin_kinds.hpp"
#include "kinds_engine_config.hpp"
#include "r1cs/shape.hpp"
#include "snap_update_2kib.hpp"

namespace cuzk::kinds {
namespace {

using namespace std::chrono_literals;
using ff::Fr;
using filecoin::EmptySectorUpdateParams;
using filecoin::TestSectorUpdate;
using test::parameter_source;

constexpr uint64_t KiB = 1024, MiB = KiB * 1024, GiB = MiB * 1024;

// An update as Curio holds it: the partitions' bincode and the commitments' raw bytes.
struct Update {
  TestSectorUpdate u;
  std::vector<std::string> vanilla;
  std::string comm_r_old, comm_r_new, comm_d_new;

  explicit Update(TestSectorUpdate update) : u(std::move(update)) {
    for (const auto& b : u.partition_bincode()) vanilla.emplace_back(b.begin(), b.end());
    comm_r_old = test::fr_bytes(u.comm_r_old);
    comm_r_new = test::fr_bytes(u.comm_r_new);
    comm_d_new = test::fr_bytes(u.comm_d_new);
  }
  SnapRequest request(uint64_t registered_proof) const {
    SnapRequest r;
    for (const auto& v : vanilla) r.vanilla_proofs.emplace_back(v);
    r.registered_proof = registered_proof;
    r.comm_r_old = comm_r_old;
    r.comm_r_new = comm_r_new;
    r.comm_d_new = comm_d_new;
    r.sector_size = u.params.sector_size();
    r.miner_id = 1000;
    r.sector_number = 1;
    return r;
  }
};

// A real sealed 2 KiB sector updated with pseudo-random data (one partition).
const Update& update_2kib() {
  static const Update u(test::real_2kib_update(filecoin::update_proof_info_by_id(0).params));
  return u;
}

// An 8 MiB update (four partitions) of a pseudo-random old replica: the vanilla proofs and
// commitments are consistent, which is all the refusals at submit look at.
const Update& update_8mib() {
  static const Update u = [] {
    const EmptySectorUpdateParams& p = filecoin::update_proof_info_by_id(1).params;
    std::vector<Fr> replica(p.sector_nodes);
    for (uint64_t i = 0; i < replica.size(); i++) replica[i] = Fr::from_u64(i * 2654435761u + 17);
    return Update(
        filecoin::generate_test_sector_update(p, replica, Fr::from_u64(99), filecoin::test_update_data(p, 3)));
  }();
  return u;
}

TEST(EngineSnapTest, ShapeIsTheCircuits) {
  {
    const auto& info = filecoin::update_proof_info_by_id(0);
    r1cs::ShapeCounter cs;
    filecoin::EmptySectorUpdateCircuit::blank(info.params).synthesize(cs);
    const engine::CircuitShape s = snap_partition_shape(0);
    EXPECT_EQ(s.inputs, cs.num_inputs());
    EXPECT_EQ(s.aux, cs.num_aux());
    EXPECT_EQ(s.constraints, cs.num_constraints() + cs.num_inputs());
  }
  // rust-fil-proofs' count of the 32 GiB circuit (storage-proofs-update tests/circuit.rs), not
  // synthesized here: three small blank circuits give it.
  const engine::CircuitShape s = snap_partition_shape(3);
  EXPECT_EQ(s.inputs, 5u);
  EXPECT_EQ(s.constraints, 81049499u + 5u);
  const auto in = make_snap_input(update_8mib().request(1));
  EXPECT_EQ(in->partitions(), 4u);
  EXPECT_EQ(in->shape().constraints, snap_partition_shape(1).constraints);
  EXPECT_EQ(in->kind(), "snap-deals");
  EXPECT_EQ(in->param_id(), filecoin::update_proof_info_by_id(1).params.parameter_id().stem);
  EXPECT_GT(in->input_bytes(), 4u * 10 * 3 * 18 * 32);  // four partitions of 10 challenges, 3 paths
  EXPECT_NE(in->describe().find("StackedDrg8MiBV1"), std::string::npos) << in->describe();
  for (uint32_t k = 0; k < 4; k++) {
    const auto expected =
        filecoin::empty_sector_update_public_inputs(update_8mib().u.params, update_8mib().u.public_inputs(k));
    EXPECT_EQ(*in->public_inputs(k), std::vector<Fr>(expected.begin(), expected.end())) << k;
  }
}

TEST(EngineSnapTest, RequestsThatDoNotFitAreRefusedAtSubmit) {
  const Update& u = update_2kib();
  const Update& big = update_8mib();
  auto refused = [](const SnapRequest& req, const std::string& says) {
    try {
      make_snap_input(req);
      ADD_FAILURE() << "accepted; expected: " << says;
    } catch (const InvalidProofRequest& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  EXPECT_NO_THROW(make_snap_input(u.request(0)));
  EXPECT_NO_THROW(make_snap_input(big.request(1)));

  SnapRequest r = u.request(0);
  r.vanilla_proofs = {};
  refused(r, "vanilla_proofs holds 0 proofs; StackedDrg2KiBV1 has 1 partition");
  r.vanilla_proofs = {u.vanilla[0], u.vanilla[0]};
  refused(r, "vanilla_proofs holds 2");
  r = big.request(1);
  r.vanilla_proofs.pop_back();
  refused(r, "has 4 partitions");
  // Out of order: partition 1's proof first.
  r = big.request(1);
  std::swap(r.vanilla_proofs[0], r.vanilla_proofs[1]);
  refused(r, "vanilla_proofs[0]: is partition 1's proof");

  // Commitments: 32 raw bytes of a field element.
  const std::string short_comm = u.comm_r_old.substr(0, 31), not_fr(32, '\xff');
  r = u.request(0);
  r.comm_r_old = short_comm;
  refused(r, "comm_r_old is 31 bytes; 32 are expected");
  r = u.request(0);
  r.comm_d_new = "";
  refused(r, "comm_d_new is 0 bytes");
  r = u.request(0);
  r.comm_r_new = not_fr;
  refused(r, "comm_r_new is not a field element");
  // Commitments of another update: named by the check that fails.
  const std::string other_r_new = test::fr_bytes(u.u.comm_r_new + Fr::one());
  r = u.request(0);
  r.comm_r_new = other_r_new;
  refused(r, "vanilla_proofs[0]: comm_r_new != H(comm_c, root_r_new)");
  const std::string other_r_old = test::fr_bytes(u.u.comm_r_old + Fr::one());
  r = u.request(0);
  r.comm_r_old = other_r_old;
  refused(r, "comm_r_old != H(comm_c, root_r_old)");
  const std::string other_d_new = test::fr_bytes(u.u.comm_d_new + Fr::one());
  r = u.request(0);
  r.comm_d_new = other_d_new;
  refused(r, "invalid tree D new opening");
  r = big.request(1);
  r.comm_r_new = big.comm_r_old;
  refused(r, "comm_r_new != H(comm_c, root_r_new)");

  // Malformed bincode: named by proof and field.
  r = u.request(0);
  const std::string truncated = u.vanilla[0].substr(0, u.vanilla[0].size() - 7);
  r.vanilla_proofs = {truncated};
  refused(r, "vanilla_proofs[0]: ");
  r.vanilla_proofs = {"garbage"};
  refused(r, "vanilla_proofs[0]: ");
  r = big.request(1);
  r.vanilla_proofs[2] = u.vanilla[0];  // a 2 KiB proof among 8 MiB ones
  refused(r, "vanilla_proofs[2]: ");

  // The registered proof and sector size.
  r = u.request(0);
  r.registered_proof = 5;
  refused(r, "registered_proof: ");
  r.registered_proof = 1;  // 8 MiB: four partitions
  refused(r, "sector_size 2048 is not StackedDrg8MiBV1's");
  r.sector_size = 0;
  refused(r, "vanilla_proofs holds 1 proofs; StackedDrg8MiBV1 has 4");
  r = u.request(0);
  r.sector_size = 8 * MiB;
  refused(r, "sector_size 8388608 is not StackedDrg2KiBV1's 2048");
  r.sector_size = 0;  // not checked
  EXPECT_NO_THROW(make_snap_input(r));
}

TEST(EngineSnapTest, UpdateProvesThroughTheEngine) {
  const Update& u = update_2kib();
  engine::Engine engine(test::kinds_engine_config(uint64_t(4) << 30));

  engine::JobRequest j;
  j.input = make_snap_input(u.request(0));
  EXPECT_EQ(j.input->partitions(), 1u);
  const std::string stem = u.u.params.parameter_id().stem;
  EXPECT_EQ(j.input->param_id(), stem);
  EXPECT_GT(j.input->input_bytes(), 0u);
  const auto expected = filecoin::empty_sector_update_public_inputs(u.u.params, u.u.public_inputs(0));
  const std::vector<Fr> inputs(expected.begin(), expected.end());
  EXPECT_EQ(*j.input->public_inputs(0), inputs);
  const std::string id = engine.submit(std::move(j));
  const auto res = engine.await(id, 1h);
  ASSERT_TRUE(res.has_value());
  ASSERT_EQ(res->state, engine::JobState::kSucceeded) << res->error;
  EXPECT_TRUE(res->verified);
  ASSERT_EQ(res->proof.size(), 192u);

  // Outside the engine: the verifier's public inputs, and each of them changed.
  const groth16::PreparedVerifyingKey pvk(parameter_source().load(stem, false).params->vk);
  const groth16::Proof proof = groth16::decode_proof(res->proof);
  EXPECT_TRUE(groth16::verify_proof(pvk, proof, inputs));
  for (size_t i = 0; i < inputs.size(); i++) {
    auto changed = inputs;
    changed[i] += Fr::one();
    EXPECT_FALSE(groth16::verify_proof(pvk, proof, changed)) << "input " << i;
  }

  const auto s = engine.snapshot();
  EXPECT_TRUE(s.buffers.idle()) << engine::snapshot_to_json(s);
  EXPECT_EQ(s.buffers.input_bytes, 0);
  EXPECT_EQ(s.jobs_active, 0u);
}

}  // namespace
}  // namespace cuzk::kinds

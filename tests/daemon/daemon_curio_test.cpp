// cuzk-daemon end to end, as Curio drives it: GetStatus's fields, proof kinds and circuit ids, SRS
// preloads, retries under one id, and PoRep, WindowPoSt and SnapDeals requests as Curio sends them.
#include "daemon_test_helpers.hpp"

// What Curio reads of GetStatus to decide whether the daemon has room: queues per kind (pending +
// in progress), and the devices, totals and uptime it shows.
TEST(DaemonTest, GetStatusAnswersCuriosFields) {
  DaemonProcess d({"--synthesis-workers", "1"});
  ASSERT_FALSE(testing::Test::HasFailure());
  auto stub = d.stub();
  v1::SubmitProofResponse a, b;
  auto c1 = ctx_with_deadline(), c2 = ctx_with_deadline();
  ASSERT_TRUE(stub->SubmitProof(c1.get(), synthetic_request(16384, 16, "first"), &a).ok());
  ASSERT_TRUE(stub->SubmitProof(c2.get(), synthetic_request(1024, 1, "second"), &b).ok());
  EXPECT_EQ(a.job_id(), "first");
  EXPECT_EQ(b.queue_position(), 1u);   // "first" was accepted and not ended
  EXPECT_EQ(a.assigned_gpu(), "cpu");  // the devices that may prove it

  v1::GetStatusResponse st;
  auto c3 = ctx_with_deadline();
  ASSERT_TRUE(stub->GetStatus(c3.get(), v1::GetStatusRequest(), &st).ok());
  uint32_t in_flight = 0;
  for (const v1::QueueStatus& q : st.queues()) {
    EXPECT_EQ(q.proof_kind(), "synthetic");
    in_flight += q.pending() + q.in_progress();
  }
  EXPECT_EQ(in_flight, 2u);      // Curio's back-pressure count
  ASSERT_EQ(st.gpus_size(), 1);  // the CPU backend: one device
  EXPECT_FALSE(st.gpus(0).name().empty());
  EXPECT_EQ(st.jobs_active(), 2u);
  // Once "first"'s set is resident, its reference count is the one job proving with it ("second"
  // has a set of another shape).
  for (int i = 0; i < 600 && st.loaded_srs_size() == 0; i++) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    auto c = ctx_with_deadline();
    ASSERT_TRUE(stub->GetStatus(c.get(), v1::GetStatusRequest(), &st).ok());
  }
  ASSERT_EQ(st.loaded_srs_size(), 1);
  EXPECT_EQ(st.loaded_srs(0).ref_count(), 1u);

  // One job's state (cuzk's own field).
  v1::GetStatusRequest one;
  one.set_job_id("first");
  auto c4 = ctx_with_deadline();
  ASSERT_TRUE(stub->GetStatus(c4.get(), one, &st).ok());
  EXPECT_EQ(st.job().job_id(), "first");
  EXPECT_EQ(st.job().proof_kind(), "synthetic");

  v1::CancelProofRequest cr;
  cr.set_job_id("first");
  v1::CancelProofResponse cresp;
  auto c5 = ctx_with_deadline();
  ASSERT_TRUE(stub->CancelProof(c5.get(), cr, &cresp).ok());
  EXPECT_TRUE(cresp.was_running());
  v1::AwaitProofRequest aw;
  aw.set_job_id("second");
  v1::AwaitProofResponse r;
  auto c6 = ctx_with_deadline();
  ASSERT_TRUE(stub->AwaitProof(c6.get(), aw, &r).ok());
  EXPECT_EQ(r.status(), v1::AwaitProofResponse::COMPLETED) << r.error_message();
  wait_idle(d);

  auto c7 = ctx_with_deadline();
  ASSERT_TRUE(stub->GetStatus(c7.get(), v1::GetStatusRequest(), &st).ok());
  EXPECT_EQ(st.queues_size(), 0);  // nothing in flight
  EXPECT_EQ(st.total_proofs_completed(), 1u);
  EXPECT_EQ(st.total_proofs_failed(), 0u);
  EXPECT_EQ(st.total_proofs_cancelled(), 1u);
  EXPECT_TRUE(st.gpus(0).current_job_id().empty());
  // The synthetic parameter set is resident: host memory only on the CPU backend.
  ASSERT_GE(st.loaded_srs_size(), 1);
  EXPECT_EQ(st.loaded_srs(0).tier(), v1::SRSStatus::WARM);
  EXPECT_GT(st.loaded_srs(0).size_bytes(), 0u);
  EXPECT_EQ(st.loaded_srs(0).ref_count(), 0u);
}

// Every proof kind of Curio's is built: a malformed SnapDeals request is INVALID_ARGUMENT naming
// the proof, a kind of a newer client UNIMPLEMENTED. Curio's circuit ids name Filecoin's parameter
// files: without them (and without TEST parameters) PreloadSRS says which file is missing.
TEST(DaemonTest, CurioKindsAndCircuitIds) {
  DaemonProcess d;
  ASSERT_FALSE(testing::Test::HasFailure());
  auto stub = d.stub();
  {
    v1::SubmitProofRequest req;
    req.set_request_id("snap-1000-7");
    req.set_proof_kind(v1::SNAP_DEALS_UPDATE);
    req.set_registered_proof(0);
    req.set_miner_id(1000);
    req.set_comm_r_old(std::string(32, '\x01'));
    req.set_comm_r_new(std::string(32, '\x02'));
    req.set_comm_d_new(std::string(32, '\x03'));
    req.add_vanilla_proofs("bincode");
    v1::ProveResponse pr;
    auto ctx = ctx_with_deadline();
    grpc::Status s = stub->Prove(ctx.get(), cuzk::test::prove_request(req), &pr);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << s.error_message();
    EXPECT_NE(s.error_message().find("vanilla_proofs[0]"), std::string::npos) << s.error_message();
    req.set_proof_kind(v1::ProofKind(42));
    auto ctx2 = ctx_with_deadline();
    s = stub->Prove(ctx2.get(), cuzk::test::prove_request(req), &pr);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::UNIMPLEMENTED) << s.error_message();
  }
  for (const auto& [circuit, file] : {std::pair{"wpost-32g", "v28-proof-of-spacetime-fallback-"},
                                      std::pair{"winning-32g", "v28-proof-of-spacetime-fallback-"},
                                      std::pair{"snap-32g", "v28-empty-sector-update-"}}) {
    v1::PreloadSrsRequest pr;
    pr.set_circuit_id(circuit);
    v1::PreloadSrsResponse presp;
    auto ctx = ctx_with_deadline();
    grpc::Status s = stub->PreloadSRS(ctx.get(), pr, &presp);
    // NOT_FOUND without the file; FAILED_PRECONDITION where this machine has it (over the budget).
    EXPECT_TRUE(s.error_code() == grpc::StatusCode::NOT_FOUND ||
                s.error_code() == grpc::StatusCode::FAILED_PRECONDITION)
        << circuit << ": " << s.error_code() << " " << s.error_message();
    EXPECT_NE(s.error_message().find(file), std::string::npos) << circuit << ": " << s.error_message();
  }
  v1::EvictSrsRequest er;
  er.set_circuit_id("snap-64g");
  v1::EvictSrsResponse eresp;
  auto c1 = ctx_with_deadline();
  grpc::Status s = stub->EvictSRS(c1.get(), er, &eresp);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_FALSE(eresp.was_loaded());
  EXPECT_TRUE(eresp.param_id().starts_with("v28-empty-sector-update-merkletree-poseidon_hasher-8-8-2-"))
      << eresp.param_id();
  v1::PreloadSrsRequest unknown;
  unknown.set_circuit_id("porep-1t/..");
  v1::PreloadSrsResponse uresp;
  auto c2 = ctx_with_deadline();
  s = stub->PreloadSRS(c2.get(), unknown, &uresp);
  EXPECT_TRUE(s.error_code() == grpc::StatusCode::NOT_FOUND || s.error_code() == grpc::StatusCode::INVALID_ARGUMENT)
      << s.error_code() << " " << s.error_message();
  EXPECT_EQ(cuzk::test::run_program({CUZK_CLIENT_BIN, "--addr", d.addr(), "preload", "wpost-32g"}), 4)
      << "PreloadParams takes parameter ids, not circuit ids";
  expect_proof_works(d);
}

// PreloadSRS / EvictSRS take cuzk's own parameter ids as circuit ids too.
TEST(DaemonTest, PreloadAndEvictSrs) {
  DaemonProcess d;
  ASSERT_FALSE(testing::Test::HasFailure());
  auto stub = d.stub();
  v1::PreloadParamsRequest pp;
  pp.mutable_synthetic()->set_constraints(1024);
  pp.mutable_synthetic()->set_public_inputs(4);
  pp.mutable_synthetic()->set_seed(7);
  v1::PreloadParamsResponse ppresp;
  auto c1 = ctx_with_deadline();
  ASSERT_TRUE(stub->PreloadParams(c1.get(), pp, &ppresp).ok());

  v1::PreloadSrsRequest pr;
  pr.set_circuit_id(ppresp.param_id());
  v1::PreloadSrsResponse presp;
  auto c2 = ctx_with_deadline();
  grpc::Status s = stub->PreloadSRS(c2.get(), pr, &presp);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_TRUE(presp.already_loaded());
  EXPECT_EQ(presp.param_id(), ppresp.param_id());

  v1::EvictSrsRequest er;
  er.set_circuit_id(ppresp.param_id());
  v1::EvictSrsResponse eresp;
  auto c3 = ctx_with_deadline();
  ASSERT_TRUE(stub->EvictSRS(c3.get(), er, &eresp).ok());
  EXPECT_TRUE(eresp.was_loaded());
  EXPECT_EQ(eresp.freed_bytes(), uint64_t(ppresp.host_bytes()));
  auto c4 = ctx_with_deadline();
  ASSERT_TRUE(stub->EvictSRS(c4.get(), er, &eresp).ok());
  EXPECT_FALSE(eresp.was_loaded());
  EXPECT_EQ(eresp.freed_bytes(), 0u);

  auto c5 = ctx_with_deadline();
  ASSERT_TRUE(stub->PreloadSRS(c5.get(), pr, &presp).ok());
  EXPECT_FALSE(presp.already_loaded());
  EXPECT_GT(presp.host_bytes(), 0);
}

// Curio retries a proof under the same id ("porep-<miner>-<sector>") after its Prove call gave up:
// the abandoned, cancelled job must not block the retry.
TEST(DaemonTest, ARetryReusesTheIdOfAnAbandonedProve) {
  DaemonProcess d({"--synthesis-workers", "1"});
  ASSERT_FALSE(testing::Test::HasFailure());
  auto channel = grpc::CreateChannel(d.addr(), grpc::InsecureChannelCredentials());
  ASSERT_TRUE(channel->WaitForConnected(std::chrono::system_clock::now() + std::chrono::seconds(60)));
  auto stub = v1::ProvingEngine::NewStub(channel);
  {
    v1::ProveResponse pr;
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(2));
    grpc::Status s = stub->Prove(&ctx, cuzk::test::prove_request(synthetic_request(16384, 64, "porep-1000-7")), &pr);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
  }
  // Wait until the daemon has seen the caller go away (the job is cancelled then) and the job has
  // ended: its id is free from then on. A parameter setup in progress runs to its end first
  // (seconds on a slow or sanitizer build), and until then the id is still in use.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (std::chrono::steady_clock::now() < deadline) {
    const std::string m = d.http_get("/metrics");
    if (metric(m, "cuzk_rpc_requests_total{method=\"Prove\",code=\"CANCELLED\"}") == 1 &&
        metric(m, "cuzk_jobs_active") == 0) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  v1::ProveResponse pr;
  auto ctx = ctx_with_deadline();
  grpc::Status s = stub->Prove(ctx.get(), cuzk::test::prove_request(synthetic_request(1024, 1, "porep-1000-7")), &pr);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(pr.result().status(), v1::AwaitProofResponse::COMPLETED) << pr.result().error_message();
  EXPECT_EQ(pr.result().job_id(), "porep-1000-7");
}

// A PoRep request is parsed and checked when it arrives: a Commit1 output that does not belong to
// the miner and sector is refused with a message, before anything is queued.
TEST(DaemonTest, PoRepRequestsAreCheckedWhenSubmitted) {
  std::string path;
  const auto real = cuzk::test::real_8mib_porep_request("porep-1007-1498", &path);
  if (!real) GTEST_SKIP() << "no test data: " << path;
  DaemonProcess d;
  ASSERT_FALSE(testing::Test::HasFailure());
  auto stub = d.stub();
  v1::SubmitProofRequest req = *real;
  req.set_miner_id(1007);  // not the miner of this Commit1 output (1006)
  v1::SubmitProofResponse sub;
  auto c2 = ctx_with_deadline();
  grpc::Status s = stub->SubmitProof(c2.get(), req, &sub);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << s.error_message();
  EXPECT_FALSE(s.error_message().empty());
  req.set_miner_id(1006);
  req.set_registered_proof(5);  // StackedDrg2KiBV1_1: not the Commit1 output's
  auto c3 = ctx_with_deadline();
  s = stub->SubmitProof(c3.get(), req, &sub);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << s.error_message();
  v1::GetStatusResponse st;
  auto c4 = ctx_with_deadline();
  ASSERT_TRUE(stub->GetStatus(c4.get(), v1::GetStatusRequest(), &st).ok());
  EXPECT_EQ(st.jobs_active(), 0u);
  expect_proof_works(d);
}

// Without Filecoin's parameter files and without test parameters allowed, a PoRep proof cannot be
// made: the answer says so (a refusal, or FAILED with the reason), never a proof.
// A WindowPoSt partition as Curio sends it (lib/ffi/cuzk_funcs.go WindowPoStCuzk: its request id
// holds Go's %d of the randomness bytes, spaces and brackets included), over two real 2 KiB
// presealed sectors, with TEST parameters: the daemon proves it and verifies it before returning
// its 192 bytes; a wrong randomness is INVALID_ARGUMENT at submit.
TEST(DaemonTest, WindowPoStPartitionAsCurioSendsIt) {
  namespace post = cuzk::test::post;
  const auto sectors = post::preseal_sectors();
  if (sectors.empty()) GTEST_SKIP() << "no preseal-2KiB test data";
  DaemonProcess d({"--allow-test-parameters"});
  ASSERT_FALSE(testing::Test::HasFailure());
  auto stub = d.stub();
  const auto& info = cuzk::filecoin::post_proof_info(post::RegisteredPoStProof::kStackedDrgWindow2KiBV1_2);
  const post::Bytes32 r = post::randomness_of(5);
  v1::SubmitProofRequest req;
  req.set_request_id("wdpost-1000-0-[1 2 3 4 5 6 7 8]");
  req.set_proof_kind(v1::WINDOW_POST_PARTITION);
  req.set_sector_size(2048);
  req.set_registered_proof(info.id());
  for (size_t i = 0; i < 2; i++) req.add_vanilla_proofs(post::vanilla_bincode(info.params, sectors[i], r, i));
  req.set_miner_id(1000);
  req.set_randomness(std::string(post::view(r)));
  req.set_partition_index(0);
  v1::ProveResponse pr;
  auto ctx = ctx_with_deadline(std::chrono::seconds(300));
  grpc::Status s = stub->Prove(ctx.get(), cuzk::test::prove_request(req), &pr);
  ASSERT_TRUE(s.ok()) << s.error_code() << " " << s.error_message();
  EXPECT_EQ(pr.result().status(), v1::AwaitProofResponse::COMPLETED) << pr.result().error_message();
  EXPECT_TRUE(pr.result().verified());
  EXPECT_EQ(pr.result().proof().size(), 192u);
  req.set_randomness(std::string(post::view(post::randomness_of(6))));
  req.set_request_id("wdpost-1000-0-[9]");
  auto ctx2 = ctx_with_deadline();
  s = stub->Prove(ctx2.get(), cuzk::test::prove_request(req), &pr);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << s.error_message();
  EXPECT_NE(s.error_message().find("wrong randomness"), std::string::npos) << s.error_message();
}

// A SnapDeals update as Curio sends it (lib/ffi/cuzk_funcs.go ProveUpdateCuzk: request id
// "snap-<miner>-<sector>", one bincode PartitionProof per partition, raw 32-byte commitments), of a
// real sealed 2 KiB sector, with TEST parameters copied from the build tree's cache (the
// params_snap fixture makes them; the sanitizer runs leave them out and this case skips): the daemon
// proves it and verifies it before returning its 192 bytes; a comm_r_new of another update is
// INVALID_ARGUMENT at submit.
TEST(DaemonTest, SnapDealsUpdateAsCurioSendsIt) {
  namespace fc = cuzk::filecoin;
  const auto& info = fc::update_proof_info_by_id(0);
  const std::string params = "cuzk-TEST-ONLY-" + info.params.parameter_id().params_name();
  const auto cached = std::filesystem::path(CUZK_TEST_PARAMS_CACHE) / params;
  if (!std::filesystem::exists(cached)) {
    GTEST_SKIP() << "no cached TEST parameters " << cached.string() << " (ctest -R test_params_snap makes them)";
  }
  const auto u = cuzk::test::real_2kib_update(info.params);
  // The 2 KiB circuit's parameters are 625 MiB: more budget than the harness's 1 GiB (the last
  // --budget counts).
  DaemonProcess d({"--allow-test-parameters", "--budget", "4GiB"});
  ASSERT_FALSE(testing::Test::HasFailure());
  ASSERT_TRUE(d.link_parameters(cached));
  auto stub = d.stub();
  v1::SubmitProofRequest req;
  req.set_request_id("snap-1000-1");
  req.set_proof_kind(v1::SNAP_DEALS_UPDATE);
  req.set_sector_size(2048);
  req.set_registered_proof(info.id());
  req.set_priority(v1::NORMAL);
  for (const auto& b : u.partition_bincode()) req.add_vanilla_proofs(std::string(b.begin(), b.end()));
  req.set_sector_number(1);
  req.set_miner_id(1000);
  req.set_comm_r_old(cuzk::test::fr_bytes(u.comm_r_old));
  req.set_comm_r_new(cuzk::test::fr_bytes(u.comm_r_new));
  req.set_comm_d_new(cuzk::test::fr_bytes(u.comm_d_new));
  v1::ProveResponse pr;
  auto ctx = ctx_with_deadline(std::chrono::seconds(600));
  grpc::Status s = stub->Prove(ctx.get(), cuzk::test::prove_request(req), &pr);
  ASSERT_TRUE(s.ok()) << s.error_code() << " " << s.error_message();
  EXPECT_EQ(pr.result().status(), v1::AwaitProofResponse::COMPLETED) << pr.result().error_message();
  EXPECT_TRUE(pr.result().verified());
  EXPECT_EQ(pr.result().proof().size(), 192u);
  req.set_comm_r_new(cuzk::test::fr_bytes(u.comm_r_new + cuzk::ff::Fr::one()));
  req.set_request_id("snap-1000-2");
  auto ctx2 = ctx_with_deadline();
  s = stub->Prove(ctx2.get(), cuzk::test::prove_request(req), &pr);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << s.error_message();
  EXPECT_NE(s.error_message().find("comm_r_new"), std::string::npos) << s.error_message();
}

TEST(DaemonTest, PoRepWithoutParametersSaysWhy) {
  std::string path;
  const auto req = cuzk::test::real_8mib_porep_request("porep-1006-1498", &path);
  if (!req) GTEST_SKIP() << "no test data: " << path;
  char tmpl[] = "/tmp/cuzk-no-params-XXXXXX";
  std::string empty = mkdtemp(tmpl);
  DaemonProcess d({"--param-cache", empty});
  ASSERT_FALSE(testing::Test::HasFailure());
  auto stub = d.stub();
  v1::ProveResponse pr;
  auto ctx = ctx_with_deadline(std::chrono::seconds(300));
  grpc::Status s = stub->Prove(ctx.get(), cuzk::test::prove_request(*req), &pr);
  if (s.ok()) {
    EXPECT_EQ(pr.result().status(), v1::AwaitProofResponse::FAILED);
    EXPECT_TRUE(pr.result().proof().empty());
    EXPECT_NE(pr.result().error_message().find(".params"), std::string::npos) << pr.result().error_message();
  } else {
    EXPECT_TRUE(s.error_code() == grpc::StatusCode::FAILED_PRECONDITION ||
                s.error_code() == grpc::StatusCode::NOT_FOUND)
        << s.error_code() << " " << s.error_message();
    EXPECT_NE(s.error_message().find(".params"), std::string::npos) << s.error_message();
  }
  std::filesystem::remove_all(empty);
  expect_proof_works(d);
}

TEST(DaemonTest, PoRepClientCommandsRefuseBadInput) {
  DaemonProcess d;
  ASSERT_FALSE(testing::Test::HasFailure());
  const std::string cli = CUZK_CLIENT_BIN, dir = d.dir();
  std::ofstream(dir + "/not-c1.json") << "{\"hello\": 1}";
  std::ofstream(dir + "/proof.bin") << std::string(192, '\0');
  // Bad flags: 1; an input file that cannot be read or is no Commit1 output: 13.
  EXPECT_EQ(cuzk::test::run_program({cli, "--addr", d.addr(), "prove", "porep", "--c1", dir + "/not-c1.json", "--miner",
                                     "bob", "--sector", "1"}),
            1);
  EXPECT_EQ(cuzk::test::run_program({cli, "--addr", d.addr(), "prove", "porep", "--c1", dir + "/absent.json", "--miner",
                                     "t01000", "--sector", "1"}),
            13);
  EXPECT_EQ(cuzk::test::run_program({cli, "--addr", d.addr(), "prove", "porep", "--c1", dir + "/not-c1.json", "--miner",
                                     "t01000", "--sector", "1"}),
            13);
  EXPECT_EQ(cuzk::test::run_program({cli, "verify", "porep", "--c1", dir + "/not-c1.json", "--miner", "1000",
                                     "--sector", "1", "--proof", dir + "/proof.bin", "--vk", dir + "/absent.vk"}),
            13);
  // A Commit1 output the daemon refuses (it is checked against the miner): 3.
  const std::string c1 = cuzk::test::testdata_dir() + "/filecoin/porep/c1-8MiB-StackedDrg8MiBV1_1.json";
  if (std::filesystem::exists(c1)) {
    EXPECT_EQ(cuzk::test::run_program(
                  {cli, "--addr", d.addr(), "prove", "porep", "--c1", c1, "--miner", "t01007", "--sector", "1498"}),
              3);
    // The proof of all zeros does not verify (or does not decode): 12; without a key: 13.
    EXPECT_EQ(cuzk::test::run_program({cli, "verify", "porep", "--c1", c1, "--miner", "1006", "--sector", "1498",
                                       "--proof", dir + "/proof.bin", "--param-cache", dir + "/empty"}),
              13);
    // A request over the daemon's max_request_bytes: too large (3), saying which limit to raise,
    // not "busy" (5), which would have scripts retry it forever.
    DaemonProcess small({"--max-request-bytes", "64KiB"});
    ASSERT_FALSE(testing::Test::HasFailure());
    std::string out;
    EXPECT_EQ(cuzk::test::run_program({"/bin/sh", "-c",
                                       "exec '" + cli + "' --addr '" + small.addr() + "' prove porep --c1 '" + c1 +
                                           "' --miner t01006 --sector 1498 2>&1"},
                                      &out),
              3)
        << out;
    EXPECT_NE(out.find("too large"), std::string::npos) << out;
    EXPECT_NE(out.find("max_request_bytes"), std::string::npos) << out;
  }
}

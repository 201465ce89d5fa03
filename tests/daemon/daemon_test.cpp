// cuzk-daemon end to end: a real daemon process on a real unix socket, driven through gRPC,
// its HTTP status port, raw sockets and the cuzk client.
// This file: proofs, requests the daemon refuses, callers that go away, and load. The other files:
// daemon_operation_test.cpp (status, signals, limits, configuration, the client) and
// daemon_curio_test.cpp (Curio's fields, kinds and requests).
#include "daemon_test_helpers.hpp"

namespace {

TEST(DaemonTest, ProveReturnsAVerifiedProofWithTimings) {
  DaemonProcess d;
  ASSERT_FALSE(testing::Test::HasFailure());
  auto stub = d.stub();
  v1::AwaitProofResponse r;
  v1::ProveResponse pr;
  auto ctx = ctx_with_deadline();
  grpc::Status s = stub->Prove(ctx.get(), cuzk::test::prove_request(synthetic_request(1024, 2, "prove-1")), &pr);
  r = pr.result();
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(r.job_id(), "prove-1");
  EXPECT_EQ(r.status(), v1::AwaitProofResponse::COMPLETED) << r.error_message();
  EXPECT_EQ(r.state(), v1::JOB_STATE_SUCCEEDED) << r.error_message();
  EXPECT_EQ(r.proof().size(), 384u);
  EXPECT_TRUE(r.verified());
  EXPECT_GT(r.timings().total(), 0);
  EXPECT_GT(r.timings().synthesis(), 0);
  EXPECT_GE(r.timings().total(), r.timings().queue_wait());
  // Curio's milliseconds are the same timings.
  EXPECT_EQ(r.total_ms(), uint64_t(std::llround(r.timings().total() * 1000)));
  EXPECT_EQ(r.synthesis_ms(), uint64_t(std::llround(r.timings().synthesis() * 1000)));
  EXPECT_EQ(r.gpu_compute_ms(), uint64_t(std::llround(r.timings().gpu() * 1000)));
}

TEST(DaemonTest, ServesOverTcpWhenConfigured) {
  DaemonProcess d({}, /*tcp=*/true);
  ASSERT_FALSE(testing::Test::HasFailure());
  expect_proof_works(d);
  EXPECT_FALSE(std::filesystem::exists(d.socket_path()));  // no unix socket then
  EXPECT_EQ(d.stop(SIGTERM), 0) << d.log();
}

TEST(DaemonTest, SubmitAwaitDeliversOnce) {
  DaemonProcess d;
  ASSERT_FALSE(testing::Test::HasFailure());
  auto stub = d.stub();
  v1::SubmitProofResponse sub;
  auto c1 = ctx_with_deadline();
  ASSERT_TRUE(stub->SubmitProof(c1.get(), synthetic_request(1024, 1), &sub).ok());
  ASSERT_FALSE(sub.job_id().empty());  // the daemon picked one

  v1::AwaitProofRequest aw;
  aw.set_job_id(sub.job_id());
  v1::AwaitProofResponse r;
  auto c2 = ctx_with_deadline();
  ASSERT_TRUE(stub->AwaitProof(c2.get(), aw, &r).ok());
  EXPECT_EQ(r.state(), v1::JOB_STATE_SUCCEEDED) << r.error_message();
  EXPECT_EQ(r.proof().size(), 192u);

  // Delivered: the result is gone.
  auto c3 = ctx_with_deadline();
  EXPECT_EQ(stub->AwaitProof(c3.get(), aw, &r).error_code(), grpc::StatusCode::NOT_FOUND);
}

TEST(DaemonTest, CancelAQueuedJob) {
  DaemonProcess d({"--synthesis-workers", "1"});
  ASSERT_FALSE(testing::Test::HasFailure());
  auto stub = d.stub();
  // A blocker ahead of the victim keeps the victim queued.
  v1::SubmitProofResponse a, b;
  auto c1 = ctx_with_deadline(), c2 = ctx_with_deadline();
  ASSERT_TRUE(stub->SubmitProof(c1.get(), synthetic_request(4096, 4, "blocker"), &a).ok());
  ASSERT_TRUE(stub->SubmitProof(c2.get(), synthetic_request(4096, 4, "victim"), &b).ok());

  // A short await returns the current state instead of blocking.
  v1::AwaitProofRequest aw;
  aw.set_job_id("victim");
  aw.set_timeout_ms(1);
  v1::AwaitProofResponse r;
  auto c3 = ctx_with_deadline();
  ASSERT_TRUE(stub->AwaitProof(c3.get(), aw, &r).ok());
  EXPECT_EQ(r.status(), v1::AwaitProofResponse::TIMEOUT);  // the job keeps running
  EXPECT_TRUE(r.state() == v1::JOB_STATE_QUEUED || r.state() == v1::JOB_STATE_RUNNING) << r.state();

  v1::CancelProofRequest cr;
  cr.set_job_id("victim");
  v1::CancelProofResponse cresp;
  auto c4 = ctx_with_deadline();
  ASSERT_TRUE(stub->CancelProof(c4.get(), cr, &cresp).ok());
  EXPECT_TRUE(cresp.was_running());

  aw.set_timeout_ms(0);
  auto c5 = ctx_with_deadline();
  ASSERT_TRUE(stub->AwaitProof(c5.get(), aw, &r).ok());
  EXPECT_EQ(r.status(), v1::AwaitProofResponse::CANCELLED);
  EXPECT_EQ(r.state(), v1::JOB_STATE_CANCELLED);
  EXPECT_TRUE(r.proof().empty());

  aw.set_job_id("blocker");
  auto c6 = ctx_with_deadline();
  ASSERT_TRUE(stub->AwaitProof(c6.get(), aw, &r).ok());
  EXPECT_EQ(r.state(), v1::JOB_STATE_SUCCEEDED) << r.error_message();
  EXPECT_EQ(r.proof().size(), 4 * 192u);

  // The victim's partitions left the pipeline: every buffer counter is back to zero.
  wait_idle(d);
  std::string m = d.http_get("/metrics");
  EXPECT_EQ(metric(m, "cuzk_tracked_bytes"), 0) << m;
  EXPECT_EQ(metric(m, "cuzk_budget_used_bytes"),
            double(resident_param_bytes(nlohmann::json::parse(d.http_get("/status")))));
  EXPECT_EQ(metric(m, "cuzk_proofs_cancelled_total"), 1);
}

TEST(DaemonTest, UnknownIdsAreNotFound) {
  DaemonProcess d;
  ASSERT_FALSE(testing::Test::HasFailure());
  auto stub = d.stub();
  v1::AwaitProofRequest aw;
  aw.set_job_id("no-such-job");
  v1::AwaitProofResponse r;
  auto c1 = ctx_with_deadline();
  EXPECT_EQ(stub->AwaitProof(c1.get(), aw, &r).error_code(), grpc::StatusCode::NOT_FOUND);
  v1::CancelProofRequest cr;
  cr.set_job_id("no-such-job");
  v1::CancelProofResponse cresp;
  auto c2 = ctx_with_deadline();
  EXPECT_EQ(stub->CancelProof(c2.get(), cr, &cresp).error_code(), grpc::StatusCode::NOT_FOUND);
  v1::GetStatusRequest sr;
  sr.set_job_id("no-such-job");
  v1::GetStatusResponse sresp;
  auto c3 = ctx_with_deadline();
  EXPECT_EQ(stub->GetStatus(c3.get(), sr, &sresp).error_code(), grpc::StatusCode::NOT_FOUND);
}

TEST(DaemonTest, MalformedRequestsAreInvalidArgumentThenAProofWorks) {
  DaemonProcess d({"--max-partitions-per-job", "8"});
  ASSERT_FALSE(testing::Test::HasFailure());
  auto stub = d.stub();
  auto expect_code = [&](const v1::SubmitProofRequest& req, grpc::StatusCode code, const std::string& what) {
    v1::SubmitProofResponse resp;
    auto ctx = ctx_with_deadline();
    grpc::Status s = stub->SubmitProof(ctx.get(), req, &resp);
    EXPECT_EQ(s.error_code(), code) << what << ": " << s.error_message();
    EXPECT_FALSE(s.error_message().empty()) << what;
  };
  v1::SubmitProofRequest no_inputs;
  expect_code(no_inputs, grpc::StatusCode::INVALID_ARGUMENT, "no inputs");
  expect_code(synthetic_request(0), grpc::StatusCode::INVALID_ARGUMENT, "zero constraints");
  expect_code(synthetic_request(1024, 1, "has space"), grpc::StatusCode::INVALID_ARGUMENT, "space in id");
  expect_code(synthetic_request(1024, 1000000), grpc::StatusCode::INVALID_ARGUMENT, "a million partitions");
  v1::SubmitProofRequest bad_param = synthetic_request(1024);
  bad_param.set_param_id("../../etc/passwd");
  expect_code(bad_param, grpc::StatusCode::INVALID_ARGUMENT, "param id with /");
  v1::SubmitProofRequest porep;
  porep.set_proof_kind(v1::POREP_SEAL_COMMIT);
  expect_code(porep, grpc::StatusCode::INVALID_ARGUMENT, "PoRep without its Commit1 output");
  porep.set_vanilla_proof("{\"SectorNum\":1,\"Phase1Out\":\"!!\",\"SectorSize\":2048}");
  expect_code(porep, grpc::StatusCode::INVALID_ARGUMENT, "PoRep with a broken envelope");
  v1::SubmitProofRequest wrong_kind = synthetic_request(1024);
  wrong_kind.set_vanilla_proof("{}");
  expect_code(wrong_kind, grpc::StatusCode::INVALID_ARGUMENT, "kind does not match inputs");
  // A WindowPoSt partition reaches its kind, which refuses vanilla proofs that are not bincode.
  v1::SubmitProofRequest window_post;
  window_post.set_proof_kind(v1::WINDOW_POST_PARTITION);
  window_post.set_registered_proof(10);  // StackedDrgWindow2KiBV1_2
  window_post.set_randomness(std::string(32, '\x01'));
  window_post.add_vanilla_proofs("bincode");
  expect_code(window_post, grpc::StatusCode::INVALID_ARGUMENT, "WindowPoSt with malformed vanilla proofs");
  // A SnapDeals update without its commitments reaches its kind, which refuses it.
  v1::SubmitProofRequest snap;
  snap.set_proof_kind(v1::SNAP_DEALS_UPDATE);
  snap.add_vanilla_proofs("bincode");
  expect_code(snap, grpc::StatusCode::INVALID_ARGUMENT, "SnapDeals without commitments");
  // A kind of a newer client: UNIMPLEMENTED.
  v1::SubmitProofRequest newer = synthetic_request(1024);
  newer.set_proof_kind(v1::ProofKind(42));
  expect_code(newer, grpc::StatusCode::UNIMPLEMENTED, "proof_kind 42");

  // The id of a job still kept, with another request: a job of its own, "dup.2" (the same request
  // attaches to its job: daemon_journal_test).
  v1::SubmitProofResponse resp;
  auto c1 = ctx_with_deadline();
  ASSERT_TRUE(stub->SubmitProof(c1.get(), synthetic_request(1024, 1, "dup"), &resp).ok());
  auto c2 = ctx_with_deadline();
  ASSERT_TRUE(stub->SubmitProof(c2.get(), synthetic_request(2048, 1, "dup"), &resp).ok());
  EXPECT_EQ(resp.job_id(), "dup.2");

  expect_proof_works(d);
}

// A request over max_request_bytes is refused by gRPC; the memory its buffers took goes back to
// the system (a refused 279 MB request once left the RSS 130 MB higher). Under a sanitizer the
// RSS says nothing (ASan keeps freed memory in quarantine) and 200 MB through TSan's gRPC took
// minutes: there only the small request.
TEST(DaemonTest, OversizedRequestIsRejectedThenAProofWorks) {
  DaemonProcess d({"--max-request-bytes", "1MiB"});
  ASSERT_FALSE(testing::Test::HasFailure());
  auto stub = d.stub();
  expect_proof_works(d);  // warmed up: the RSS below is the working daemon's
  const int64_t rss_before = cuzk::test::proc_status_bytes(d.pid(), "VmRSS");
  const bool sanitized = cuzk::test::kSanitized;
  std::vector<size_t> sizes = {size_t(2) << 20};
  if (!sanitized) sizes.push_back(size_t(200) << 20);
  for (size_t bytes : sizes) {
    v1::SubmitProofRequest big = synthetic_request(1024);
    big.set_param_id(std::string(bytes, 'x'));
    v1::ProveResponse pr;
    auto ctx = ctx_with_deadline();
    grpc::Status s = stub->Prove(ctx.get(), cuzk::test::prove_request(big), &pr);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << s.error_message();
  }
  int64_t rss = 0;
  for (int i = 0; !sanitized && i < 40; i++) {  // the daemon gives memory back every 5 s
    rss = cuzk::test::proc_status_bytes(d.pid(), "VmRSS");
    if (rss < rss_before + (32 << 20)) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  if (!sanitized) {
    EXPECT_LT(rss, rss_before + (32 << 20))
        << "RSS " << (rss >> 20) << " MiB after the refused 200 MiB request, " << (rss_before >> 20) << " MiB before";
  }
  expect_proof_works(d);
}

TEST(DaemonTest, GarbageOnTheSocketThenAProofWorks) {
  DaemonProcess d;
  ASSERT_FALSE(testing::Test::HasFailure());
  // A job in flight while the garbage arrives must not notice it.
  auto stub = d.stub();
  v1::SubmitProofResponse sub;
  auto c1 = ctx_with_deadline();
  ASSERT_TRUE(stub->SubmitProof(c1.get(), synthetic_request(4096, 2, "bystander"), &sub).ok());
  auto rng = cuzk::test::make_rng();
  std::string noise(1 << 16, '\0');
  for (char& c : noise) c = char(rng());
  write_raw(d.socket_path(), noise);
  write_raw(d.socket_path(), "");                                                           // connect, hang up
  write_raw(d.socket_path(), "GET / HTTP/1.1\r\nHost: x\r\n\r\n");                          // wrong protocol
  write_raw(d.socket_path(), std::string("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n") + noise);      // HTTP/2, then junk
  write_raw(d.socket_path(), std::string("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x12"));  // truncated frame

  // A well-framed call whose payload is not a ProveRequest.
  auto channel = grpc::CreateChannel(d.addr(), grpc::InsecureChannelCredentials());
  grpc::GenericStub generic(channel);
  grpc::ByteBuffer request, response;
  grpc::Slice slice(noise.data(), 4096);
  request = grpc::ByteBuffer(&slice, 1);
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  std::atomic<bool> done{false};
  grpc::Status status;
  grpc::StubOptions options;
  generic.UnaryCall(&ctx, "/cuzk.v1.ProvingEngine/Prove", options, &request, &response, [&](grpc::Status s) {
    status = s;
    done = true;
  });
  while (!done) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  // gRPC itself answers a payload it cannot decode, before the handler runs.
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INTERNAL) << status.error_message();

  // Garbage on the HTTP port too: random bytes, then an unknown page; /status still answers.
  {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(d.http_port());
    ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    EXPECT_GE(send(fd, noise.data(), noise.size(), MSG_NOSIGNAL), 0);
    close(fd);
  }
  int status_code = 0;
  d.http_get("/no-such-page", &status_code);
  EXPECT_EQ(status_code, 404);
  d.http_get("/status", &status_code);
  EXPECT_EQ(status_code, 200);

  v1::AwaitProofRequest aw;
  aw.set_job_id("bystander");
  v1::AwaitProofResponse r;
  auto c2 = ctx_with_deadline();
  ASSERT_TRUE(stub->AwaitProof(c2.get(), aw, &r).ok());
  EXPECT_EQ(r.state(), v1::JOB_STATE_SUCCEEDED) << r.error_message();
  EXPECT_EQ(r.proof().size(), 2 * 192u);
  expect_proof_works(d);
  EXPECT_TRUE(d.running());
}

TEST(DaemonTest, CallerGoingAwayCancelsItsProve) {
  DaemonProcess d({"--synthesis-workers", "1"});
  ASSERT_FALSE(testing::Test::HasFailure());
  // Connected first, so that the deadline below is spent in the daemon, not on connection setup.
  auto channel = grpc::CreateChannel(d.addr(), grpc::InsecureChannelCredentials());
  ASSERT_TRUE(channel->WaitForConnected(std::chrono::system_clock::now() + std::chrono::seconds(60)));
  auto stub = v1::ProvingEngine::NewStub(channel);
  v1::AwaitProofResponse r;
  v1::ProveResponse pr;
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(2));
  // Far more work than 2 s on one synthesis worker.
  grpc::Status s = stub->Prove(&ctx, cuzk::test::prove_request(synthetic_request(16384, 64, "abandoned")), &pr);
  r = pr.result();
  EXPECT_EQ(s.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
  wait_idle(d);
  std::string m = d.http_get("/metrics");
  EXPECT_EQ(metric(m, "cuzk_proofs_cancelled_total"), 1) << m;
  EXPECT_EQ(metric(m, "cuzk_tracked_bytes"), 0);
  expect_proof_works(d);
}

TEST(DaemonTest, ConcurrentClients) {
  DaemonProcess d;
  ASSERT_FALSE(testing::Test::HasFailure());
  constexpr int kClients = 4, kEach = 2;
  std::atomic<int> succeeded{0};
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&, c] {
      auto stub = d.stub();  // a channel of its own
      for (int i = 0; i < kEach; ++i) {
        v1::AwaitProofResponse r;
        v1::ProveResponse pr;
        auto ctx = ctx_with_deadline(std::chrono::seconds(300));
        std::string id = "client" + std::to_string(c) + "-" + std::to_string(i);
        grpc::Status s = stub->Prove(ctx.get(), cuzk::test::prove_request(synthetic_request(1024, 1, id)), &pr);
        r = pr.result();
        if (s.ok() && r.state() == v1::JOB_STATE_SUCCEEDED && r.proof().size() == 192 && r.job_id() == id) {
          ++succeeded;
        }
      }
    });
  }
  for (auto& t : clients) t.join();
  EXPECT_EQ(succeeded, kClients * kEach);
}

// Many clients doing everything at once: proofs, cancellations, abandoned calls, status reads,
// a full queue. Every answer must be consistent, and afterwards the daemon holds nothing.
TEST(DaemonTest, MixedLoadFromManyClients) {
  DaemonProcess d({"--max-queued-jobs", "6"});
  ASSERT_FALSE(testing::Test::HasFailure());
  std::atomic<int> accepted{0}, succeeded{0}, busy{0}, inconsistent{0};
  std::vector<std::thread> clients;
  for (int c = 0; c < 6; ++c) {
    clients.emplace_back([&, c] {
      auto stub = d.stub();
      for (int i = 0; i < 6; ++i) {
        std::string id = "mix" + std::to_string(c) + "-" + std::to_string(i);
        uint32_t parts = 1 + (c + i) % 2;
        int action = (c + i) % 4;
        v1::AwaitProofResponse r;
        v1::ProveResponse pr;
        grpc::Status s;
        if (action == 0 || action == 3) {  // Prove; action 3 gives up early
          grpc::ClientContext ctx;
          ctx.set_deadline(std::chrono::system_clock::now() +
                           (action == 3 ? std::chrono::milliseconds(50) : std::chrono::milliseconds(300000)));
          s = stub->Prove(&ctx, cuzk::test::prove_request(synthetic_request(1024, parts, id)), &pr);
          r = pr.result();
          if (s.ok() || s.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) ++accepted;
          if (s.ok() && !(r.state() == v1::JOB_STATE_SUCCEEDED && r.proof().size() == 192u * parts && r.verified())) {
            ++inconsistent;
          }
          if (s.ok()) ++succeeded;
        } else {  // Submit, then await (action 1) or cancel and await (action 2)
          v1::SubmitProofResponse sub;
          auto c1 = ctx_with_deadline();
          s = stub->SubmitProof(c1.get(), synthetic_request(1024, parts, id), &sub);
          if (s.ok()) {
            ++accepted;
            if (action == 2) {
              v1::CancelProofRequest cr;
              cr.set_job_id(id);
              v1::CancelProofResponse cresp;
              auto c2 = ctx_with_deadline();
              if (!stub->CancelProof(c2.get(), cr, &cresp).ok()) ++inconsistent;
            }
            v1::AwaitProofRequest aw;
            aw.set_job_id(id);
            auto c3 = ctx_with_deadline(std::chrono::seconds(300));
            if (!stub->AwaitProof(c3.get(), aw, &r).ok()) ++inconsistent;
            bool ok = r.state() == v1::JOB_STATE_SUCCEEDED ? r.proof().size() == 192u * parts
                                                           : r.state() == v1::JOB_STATE_CANCELLED && action == 2;
            if (!ok) ++inconsistent;
            if (r.state() == v1::JOB_STATE_SUCCEEDED) ++succeeded;
          }
        }
        if (s.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED) ++busy;
        v1::GetStatusResponse st;
        auto c4 = ctx_with_deadline();
        if (!stub->GetStatus(c4.get(), v1::GetStatusRequest(), &st).ok()) ++inconsistent;
      }
    });
  }
  for (auto& t : clients) t.join();
  EXPECT_EQ(inconsistent, 0);
  EXPECT_GT(succeeded, 0);
  EXPECT_LE(accepted + busy, 36);

  // Abandoned results are dropped by the janitor; then nothing is left anywhere.
  wait_idle(d);
  nlohmann::json st;
  for (int i = 0; i < 100; ++i) {
    st = nlohmann::json::parse(d.http_get("/status"));
    if (st["daemon"]["jobs_tracked"] == 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  EXPECT_EQ(st["daemon"]["jobs_tracked"], 0);
  EXPECT_EQ(st["buffers"]["tracked_bytes"], 0);
  EXPECT_EQ(st["buffers"]["idle"], true);
  EXPECT_EQ(st["jobs"]["failed"], 0);
  // Every job the daemon accepted ended as completed or cancelled (a Prove that gave up before
  // its call reached the daemon was never a job, so count on the daemon's side).
  auto calls = [&](const char* method, const char* code) {
    auto& rpc = st["daemon"]["rpc_requests"];
    return rpc.contains(method) && rpc[method].contains(code) ? rpc[method][code].get<int>() : 0;
  };
  int jobs = calls("SubmitProof", "OK") + calls("Prove", "OK") + calls("Prove", "CANCELLED");
  EXPECT_EQ(st["jobs"]["completed"].get<int>() + st["jobs"]["cancelled"].get<int>(), jobs);
  EXPECT_GE(jobs, accepted.load() - 6);  // at most the six early give-ups may not have arrived
  expect_proof_works(d);
}

}  // namespace

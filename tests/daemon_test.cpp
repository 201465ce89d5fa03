// cuzk-daemon end to end: a real daemon process on a real unix socket, driven through gRPC,
// its HTTP status port, raw sockets and the cuzk client.
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <iterator>
#include <netinet/in.h>
#include <nlohmann/json.hpp>
#include <signal.h>
#include <sstream>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <thread>
#include <unistd.h>

#include <gtest/gtest.h>

#include "daemon_fault_support.hpp"
#include "daemon_harness.hpp"
#include "daemon_metrics_text.hpp"
#include "engine/tracker.hpp"
#include "filecoin/empty_sector_update_parameters.hpp"
#include "filecoin/test_sector.hpp"
#include "filecoin/test_sector_update.hpp"
#include "post_vanilla.hpp"
#include "snap_update_2kib.hpp"
#include "test_support.hpp"

namespace {

namespace v1 = cuzk::v1;
using cuzk::test::DaemonProcess;
using cuzk::test::synthetic_request;

std::unique_ptr<grpc::ClientContext> ctx_with_deadline(std::chrono::seconds s = std::chrono::seconds(120)) {
  auto c = std::make_unique<grpc::ClientContext>();
  c->set_deadline(std::chrono::system_clock::now() + s);
  return c;
}

// Proves a small job and checks the result: the daemon still works.
void expect_proof_works(const DaemonProcess& d, uint32_t partitions = 1) {
  auto stub = d.stub();
  v1::AwaitProofResponse r;
  v1::ProveResponse pr;
  auto ctx = ctx_with_deadline();
  grpc::Status s = stub->Prove(ctx.get(), cuzk::test::prove_request(synthetic_request(1024, partitions)), &pr);
  r = pr.result();
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(r.state(), v1::JOB_STATE_SUCCEEDED) << r.error_message();
  EXPECT_EQ(r.proof().size(), 192u * partitions);
  EXPECT_TRUE(r.verified());
}

// Sample value of one metric ("name{labels}", labels in any order); -1 when absent.
double metric(const std::string& text, const std::string& name_and_labels) {
  return cuzk::test::metric_sample(text, name_and_labels);
}

// Polls until the engine has no active job (results may still await delivery).
void wait_idle(const DaemonProcess& d) {
  auto stub = d.stub();
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (std::chrono::steady_clock::now() < deadline) {
    v1::GetStatusResponse st;
    auto ctx = ctx_with_deadline();
    if (stub->GetStatus(ctx.get(), v1::GetStatusRequest(), &st).ok() && st.jobs_active() == 0) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ADD_FAILURE() << "the engine did not become idle within 120 s";
}

// True once GetStatus knows request_id, false if done() turns true first or 60 s pass.
template <class Done>
bool wait_for_job(const DaemonProcess& d, const std::string& request_id, Done done) {
  auto stub = d.stub();
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline && !done()) {
    v1::GetStatusRequest sr;
    sr.set_job_id(request_id);
    v1::GetStatusResponse sresp;
    auto ctx = ctx_with_deadline();
    if (stub->GetStatus(ctx.get(), sr, &sresp).ok()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

// Resident parameter sets are charged to the budget; partition buffers must not be, once idle.
int64_t resident_param_bytes(const nlohmann::json& status) {
  int64_t sum = 0;
  for (const auto& p : status["params"]) sum += p["host_bytes"].get<int64_t>();
  return sum;
}

void write_raw(const std::string& socket_path, const std::string& bytes) {
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::strncpy(a.sun_path, socket_path.c_str(), sizeof a.sun_path - 1);
  ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ssize_t n = send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
  EXPECT_GE(n, 0);  // the daemon may close early; it must not crash
  close(fd);
}

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

TEST(DaemonTest, StatusAndMetricsAfterWork) {
  DaemonProcess d;
  ASSERT_FALSE(testing::Test::HasFailure());
  expect_proof_works(d, 2);
  wait_idle(d);

  int code = 0;
  nlohmann::json st = nlohmann::json::parse(d.http_get("/status", &code));
  EXPECT_EQ(code, 200);
  EXPECT_EQ(st["jobs"]["completed"], 1);
  EXPECT_EQ(st["jobs"]["active"], 0);
  EXPECT_EQ(st["jobs"]["partitions_proved"], 2);
  EXPECT_EQ(st["buffers"]["idle"], true);
  EXPECT_EQ(st["buffers"]["tracked_bytes"], 0);
  for (auto& [stage, counters] : st["buffers"]["stages"].items()) {
    EXPECT_EQ(counters["partitions"], 0) << stage;
    EXPECT_EQ(counters["total_bytes"], 0) << stage;
  }
  EXPECT_EQ(st["budget"]["used_bytes"], resident_param_bytes(st));
  EXPECT_GT(st["budget"]["total_bytes"].get<int64_t>(), 0);
  EXPECT_EQ(st["daemon"]["draining"], false);
  EXPECT_EQ(st["daemon"]["rpc_requests"]["Prove"]["OK"], 1);
  EXPECT_FALSE(st["params"].empty());

  std::string m = d.http_get("/metrics", &code);
  EXPECT_EQ(code, 200);
  EXPECT_EQ(metric(m, "cuzk_proofs_completed_total"), 1) << m;
  EXPECT_EQ(metric(m, "cuzk_proofs_failed_total"), 0);
  EXPECT_EQ(metric(m, "cuzk_partitions_proved_total"), 2);
  EXPECT_EQ(metric(m, "cuzk_queue_depth_partitions"), 0);
  EXPECT_EQ(metric(m, "cuzk_budget_used_bytes"), double(resident_param_bytes(st)));
  EXPECT_GT(metric(m, "cuzk_budget_total_bytes"), 0);
  EXPECT_EQ(metric(m, "cuzk_phase_duration_seconds_count{phase=\"total\"}"), 1);
  EXPECT_EQ(metric(m, "cuzk_phase_duration_seconds_bucket{phase=\"total\",le=\"+Inf\"}"), 1);
  EXPECT_EQ(metric(m, "cuzk_rpc_requests_total{method=\"Prove\",code=\"OK\"}"), 1);
  EXPECT_GT(metric(m, "cuzk_parameters_host_bytes"), 0);
  // Every buffer-tracker gauge is present and back to zero.
  int stage_samples = 0;
  std::istringstream in(m);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("cuzk_stage_partitions{", 0) == 0 || line.rfind("cuzk_stage_buffer_bytes{", 0) == 0) {
      ++stage_samples;
      EXPECT_EQ(line.substr(line.rfind(' ') + 1), "0") << line;
    }
  }
  EXPECT_EQ(stage_samples, int(cuzk::engine::kTrackedStageCount * (1 + cuzk::engine::kBufferClassCount)));

  // The same text and document over gRPC.
  auto stub = d.stub();
  v1::GetMetricsResponse gm;
  auto c1 = ctx_with_deadline();
  ASSERT_TRUE(stub->GetMetrics(c1.get(), v1::GetMetricsRequest(), &gm).ok());
  EXPECT_EQ(metric(gm.prometheus_text(), "cuzk_proofs_completed_total"), 1);
  v1::GetStatusResponse gs;
  auto c2 = ctx_with_deadline();
  ASSERT_TRUE(stub->GetStatus(c2.get(), v1::GetStatusRequest(), &gs).ok());
  EXPECT_EQ(nlohmann::json::parse(gs.status_json())["jobs"]["completed"], 1);
  EXPECT_EQ(gs.jobs_active(), 0u);
  EXPECT_EQ(gs.budget_used_bytes(), resident_param_bytes(st));
  d.http_get("/healthz", &code);
  EXPECT_EQ(code, 200);
}

TEST(DaemonTest, PreloadAndEvictParams) {
  DaemonProcess d;
  ASSERT_FALSE(testing::Test::HasFailure());
  auto stub = d.stub();
  v1::PreloadParamsRequest pr;
  pr.mutable_synthetic()->set_constraints(1024);
  pr.mutable_synthetic()->set_public_inputs(4);
  pr.mutable_synthetic()->set_seed(7);
  v1::PreloadParamsResponse presp;
  auto c1 = ctx_with_deadline();
  grpc::Status s = stub->PreloadParams(c1.get(), pr, &presp);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_FALSE(presp.param_id().empty());
  EXPECT_GT(presp.host_bytes(), 0);

  v1::EvictParamsRequest er;
  er.set_param_id(presp.param_id());
  v1::EvictParamsResponse eresp;
  auto c2 = ctx_with_deadline();
  ASSERT_TRUE(stub->EvictParams(c2.get(), er, &eresp).ok());
  EXPECT_TRUE(eresp.evicted());
  auto c3 = ctx_with_deadline();
  ASSERT_TRUE(stub->EvictParams(c3.get(), er, &eresp).ok());
  EXPECT_FALSE(eresp.evicted());
}

TEST(DaemonTest, SigtermDuringWorkFinishesItAndRemovesTheSocket) {
  DaemonProcess d({"--synthesis-workers", "1"});
  ASSERT_FALSE(testing::Test::HasFailure());
  auto stub = d.stub();
  v1::AwaitProofResponse r;
  v1::ProveResponse pr;
  grpc::Status s;
  std::atomic<bool> returned{false};
  std::thread client([&] {
    auto ctx = ctx_with_deadline(std::chrono::seconds(300));
    s = stub->Prove(ctx.get(), cuzk::test::prove_request(synthetic_request(4096, 8, "in-flight")), &pr);
    r = pr.result();
    returned = true;
  });
  // Wait until the job is in the engine (SIGTERM before it arrives would test nothing).
  bool found = wait_for_job(d, "in-flight", [&] { return returned.load(); });
  if (!found) {
    d.stop(SIGKILL);
    client.join();
    FAIL() << "the job never showed up in GetStatus (Prove returned: " << returned << ", " << s.error_message() << ")";
  }
  EXPECT_EQ(d.stop(SIGTERM), 0) << d.log();
  client.join();
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(r.state(), v1::JOB_STATE_SUCCEEDED) << r.error_message();
  EXPECT_EQ(r.proof().size(), 8 * 192u);
  EXPECT_FALSE(std::filesystem::exists(d.socket_path()));
  EXPECT_FALSE(std::filesystem::exists(d.socket_path() + ".lock")) << "a clean shutdown leaves no lock file";
  EXPECT_NE(d.log().find("cuzk-daemon stopped"), std::string::npos);
}

TEST(DaemonTest, SigtermInCancelModeCancelsWork) {
  DaemonProcess d({"--synthesis-workers", "1", "--shutdown", "cancel"});
  ASSERT_FALSE(testing::Test::HasFailure());
  auto stub = d.stub();
  v1::SubmitProofResponse sub;
  auto c1 = ctx_with_deadline();
  ASSERT_TRUE(stub->SubmitProof(c1.get(), synthetic_request(4096, 16, "long"), &sub).ok());
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(d.stop(SIGTERM), 0) << d.log();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(60));
  EXPECT_FALSE(std::filesystem::exists(d.socket_path()));
  EXPECT_FALSE(std::filesystem::exists(d.socket_path() + ".lock"));
  EXPECT_NE(d.log().find("cancelling"), std::string::npos) << d.log();
}

TEST(DaemonTest, DrainingRefusesNewProofsAndASecondSignalCancels) {
  DaemonProcess d({"--synthesis-workers", "1", "--shutdown", "finish", "--shutdown-timeout", "0"});
  ASSERT_FALSE(testing::Test::HasFailure());
  auto stub = d.stub();
  v1::SubmitProofResponse sub;
  auto c1 = ctx_with_deadline();
  // Minutes of work on one synthesis worker: still running when the second signal comes.
  ASSERT_TRUE(stub->SubmitProof(c1.get(), synthetic_request(16384, 64, "long"), &sub).ok());
  kill(d.pid(), SIGTERM);
  // Draining: status still answers, new proofs get UNAVAILABLE, /healthz says 503.
  bool saw_draining = false;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!saw_draining && std::chrono::steady_clock::now() < deadline) {
    v1::GetStatusResponse st;
    auto ctx = ctx_with_deadline();
    saw_draining = stub->GetStatus(ctx.get(), v1::GetStatusRequest(), &st).ok() && st.draining();
    if (!saw_draining) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_TRUE(saw_draining) << d.log();
  auto c2 = ctx_with_deadline();
  grpc::Status s = stub->SubmitProof(c2.get(), synthetic_request(1024), &sub);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::UNAVAILABLE) << s.error_message();
  int code = 0;
  d.http_get("/healthz", &code);
  EXPECT_EQ(code, 503);
  // The second signal cancels the long job instead of finishing it.
  EXPECT_EQ(d.stop(SIGINT), 0) << d.log();
  EXPECT_NE(d.log().find("cancelling"), std::string::npos) << d.log();
  EXPECT_FALSE(std::filesystem::exists(d.socket_path()));
}

TEST(DaemonTest, MaxQueuedJobsAnswersResourceExhausted) {
  DaemonProcess d({"--synthesis-workers", "1", "--max-queued-jobs", "1"});
  ASSERT_FALSE(testing::Test::HasFailure());
  auto stub = d.stub();
  v1::SubmitProofResponse sub;
  auto c1 = ctx_with_deadline();
  ASSERT_TRUE(stub->SubmitProof(c1.get(), synthetic_request(4096, 4, "first"), &sub).ok());
  auto c2 = ctx_with_deadline();
  grpc::Status s = stub->SubmitProof(c2.get(), synthetic_request(1024, 1, "second"), &sub);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << s.error_message();
  EXPECT_NE(s.error_message().find("max_queued_jobs"), std::string::npos) << s.error_message();
  // Once the first has ended there is room again.
  v1::AwaitProofRequest aw;
  aw.set_job_id("first");
  v1::AwaitProofResponse r;
  auto c3 = ctx_with_deadline();
  ASSERT_TRUE(stub->AwaitProof(c3.get(), aw, &r).ok());
  EXPECT_EQ(r.state(), v1::JOB_STATE_SUCCEEDED) << r.error_message();
  expect_proof_works(d);
}

TEST(DaemonTest, ConfigFileWithFlagsOverriding) {
  char tmpl[] = "/tmp/cuzk-config-test-XXXXXX";
  std::string dir = mkdtemp(tmpl);
  std::string file = dir + "/cuzk.toml";
  std::ofstream(file) << "[daemon]\nmax_queued_jobs = 3\nshutdown = \"cancel\"\n[engine]\nbudget = \"8GiB\"\n"
                         "policy = \"budget\"\n";
  std::string text;
  ASSERT_EQ(cuzk::test::run_program({CUZK_DAEMON_BIN, "--config", file, "--budget", "2GiB", "--print-config"}, &text),
            0);
  EXPECT_NE(text.find("max_queued_jobs = 3"), std::string::npos) << text;
  EXPECT_NE(text.find("shutdown = \"cancel\""), std::string::npos) << text;
  EXPECT_NE(text.find("budget = 2147483648"), std::string::npos) << text;  // the flag wins

  std::ofstream(file) << "[engine]\nbudjet = 5\n";
  EXPECT_EQ(cuzk::test::run_program({CUZK_DAEMON_BIN, "--config", file, "--print-config"}), 1);
  EXPECT_EQ(cuzk::test::run_program({CUZK_DAEMON_BIN, "--config", dir + "/missing.toml"}), 1);
  EXPECT_EQ(cuzk::test::run_program({CUZK_DAEMON_BIN, "--budget", "lots"}), 1);
  EXPECT_EQ(cuzk::test::run_program({CUZK_DAEMON_BIN, "--listen", "nowhere"}), 1);
  std::filesystem::remove_all(dir);
}

// The comparison policies (which do not bound host memory) are the bench's; the daemon takes
// them only when told to.
TEST(DaemonTest, ComparisonPoliciesNeedTheirSwitch) {
  std::string text;
  EXPECT_EQ(cuzk::test::run_program({CUZK_DAEMON_BIN, "--policy", "semaphore-hold-until-delivered", "--print-config"}),
            1);
  ASSERT_EQ(cuzk::test::run_program({CUZK_DAEMON_BIN, "--policy", "semaphore-hold-until-delivered",
                                     "--allow-comparison-policies", "--print-config"},
                                    &text),
            0);
  EXPECT_NE(text.find("policy = \"semaphore-hold-until-delivered\""), std::string::npos) << text;
}

// /metrics passes Prometheus' own checker (syntax and naming conventions), after a proof so that
// the per-phase, per-set and per-RPC families have samples.
TEST(DaemonTest, MetricsPassPromtool) {
  std::string promtool;
  const char* path = std::getenv("PATH");
  std::istringstream dirs(std::string(path ? path : "") + ":/usr/bin");
  for (std::string dir; promtool.empty() && std::getline(dirs, dir, ':');) {
    if (!dir.empty() && access((dir + "/promtool").c_str(), X_OK) == 0) promtool = dir + "/promtool";
  }
  if (promtool.empty()) GTEST_SKIP() << "promtool not found (Debian package prometheus): /metrics not checked";
  DaemonProcess d;
  ASSERT_FALSE(testing::Test::HasFailure());
  expect_proof_works(d);
  wait_idle(d);
  const std::string file = d.dir() + "/metrics.txt";
  std::ofstream(file) << d.http_get("/metrics");
  std::string out;
  EXPECT_EQ(cuzk::test::run_program({"/bin/sh", "-c", "'" + promtool + "' check metrics < '" + file + "' 2>&1"}, &out),
            0)
      << out;
}

TEST(DaemonTest, WaitingCallsLeaveThreadsForShortOnes) {
  // 20 handler threads: at most 10 Prove/AwaitProof calls may wait.
  DaemonProcess d({"--synthesis-workers", "1", "--max-rpc-threads", "20"});
  ASSERT_FALSE(testing::Test::HasFailure());
  auto stub = d.stub();
  v1::SubmitProofResponse sub;
  auto c1 = ctx_with_deadline();
  ASSERT_TRUE(stub->SubmitProof(c1.get(), synthetic_request(16384, 64, "long"), &sub).ok());
  std::atomic<bool> stop{false};
  std::vector<std::thread> waiters;
  for (int i = 0; i < 10; ++i) {
    waiters.emplace_back([&] {
      auto own = d.stub();
      while (!stop) {
        v1::AwaitProofRequest aw;
        aw.set_job_id("long");
        aw.set_timeout_ms(60000);
        v1::AwaitProofResponse r;
        auto ctx = ctx_with_deadline();
        grpc::Status s = own->AwaitProof(ctx.get(), aw, &r);
        if (s.error_code() != grpc::StatusCode::RESOURCE_EXHAUSTED) return;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
    });
  }
  // An eleventh waiting call is refused once the ten wait; short calls still work.
  grpc::Status refused;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    v1::AwaitProofRequest aw;
    aw.set_job_id("long");
    aw.set_timeout_ms(1);
    v1::AwaitProofResponse r;
    auto ctx = ctx_with_deadline();
    refused = stub->AwaitProof(ctx.get(), aw, &r);
    if (refused.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << refused.error_message();
  EXPECT_NE(refused.error_message().find("max_rpc_threads"), std::string::npos) << refused.error_message();
  v1::GetStatusResponse st;
  auto c2 = ctx_with_deadline();
  EXPECT_TRUE(stub->GetStatus(c2.get(), v1::GetStatusRequest(), &st).ok());
  // Cancelling the job releases the waiters (one gets the result, the others NOT_FOUND).
  v1::CancelProofRequest cr;
  cr.set_job_id("long");
  v1::CancelProofResponse cresp;
  auto c3 = ctx_with_deadline();
  EXPECT_TRUE(stub->CancelProof(c3.get(), cr, &cresp).ok());
  stop = true;
  for (auto& t : waiters) t.join();
  expect_proof_works(d);
}

TEST(DaemonTest, MaxRetainedResultsDropsTheOldest) {
  DaemonProcess d({"--max-retained-results", "1"});
  ASSERT_FALSE(testing::Test::HasFailure());
  auto stub = d.stub();
  // GetStatus's answer for one job: its state, or NOT_FOUND as JOB_STATE_UNSPECIFIED.
  auto state = [&](const std::string& id) {
    v1::GetStatusRequest sr;
    sr.set_job_id(id);
    v1::GetStatusResponse sresp;
    auto ctx = ctx_with_deadline();
    return stub->GetStatus(ctx.get(), sr, &sresp).ok() ? sresp.job().state() : v1::JOB_STATE_UNSPECIFIED;
  };
  auto submit_and_wait_ended = [&](const std::string& id) {
    v1::SubmitProofResponse sub;
    auto ctx = ctx_with_deadline();
    ASSERT_TRUE(stub->SubmitProof(ctx.get(), synthetic_request(1024, 1, id), &sub).ok());
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (state(id) != v1::JOB_STATE_SUCCEEDED && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ASSERT_EQ(state(id), v1::JOB_STATE_SUCCEEDED);
  };
  submit_and_wait_ended("older");
  submit_and_wait_ended("newer");
  // The janitor (every 5 s) drops "older", the oldest uncollected result beyond the cap of 1.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (state("older") != v1::JOB_STATE_UNSPECIFIED && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(state("older"), v1::JOB_STATE_UNSPECIFIED);
  v1::AwaitProofRequest aw;
  aw.set_job_id("newer");
  v1::AwaitProofResponse r;
  auto ctx = ctx_with_deadline();
  ASSERT_TRUE(stub->AwaitProof(ctx.get(), aw, &r).ok());
  EXPECT_EQ(r.state(), v1::JOB_STATE_SUCCEEDED) << r.error_message();
  EXPECT_NE(d.log().find("max_retained_results"), std::string::npos);
}

TEST(DaemonTest, AJobThatCanNeverFitIsFailedPrecondition) {
  DaemonProcess d({"--budget", "1MiB"});
  ASSERT_FALSE(testing::Test::HasFailure());
  auto stub = d.stub();
  v1::SubmitProofResponse sub;
  auto ctx = ctx_with_deadline();
  grpc::Status s = stub->SubmitProof(ctx.get(), synthetic_request(65536), &sub);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::FAILED_PRECONDITION) << s.error_message();
  EXPECT_FALSE(s.error_message().empty());
  EXPECT_EQ(cuzk::test::run_program({CUZK_CLIENT_BIN, "--addr", d.addr(), "submit", "--constraints", "65536"}), 3);
}

TEST(DaemonTest, RefusesToTakeOverALiveSocket) {
  DaemonProcess d;
  ASSERT_FALSE(testing::Test::HasFailure());
  // The default socket_mode, set right after the socket is bound.
  struct stat st {};
  for (int i = 0; i < 200; ++i) {
    ASSERT_EQ(stat(d.socket_path().c_str(), &st), 0);
    if ((st.st_mode & 0777) == 0660) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(st.st_mode & 0777, 0660u);
  int rc = cuzk::test::run_program({CUZK_DAEMON_BIN, "--listen", d.addr(), "--param-cache-dir", d.dir() + "/p2",
                                    "--budget", "1GiB", "--backend", "cpu"});
  EXPECT_EQ(rc, 2);  // cannot start
  expect_proof_works(d);
}

TEST(DaemonTest, ClientCommandsAndExitCodes) {
  DaemonProcess d;
  ASSERT_FALSE(testing::Test::HasFailure());
  const std::string cli = CUZK_CLIENT_BIN, out = d.dir() + "/proof.bin";
  std::string text;
  EXPECT_EQ(cuzk::test::run_program({cli, "--addr", d.addr(), "prove", "--constraints", "1024", "--out", out}, &text),
            0);
  EXPECT_NE(text.find("verified  true"), std::string::npos) << text;
  EXPECT_EQ(std::filesystem::file_size(out), 192u);

  EXPECT_EQ(cuzk::test::run_program({cli, "--addr", d.addr(), "status", "--json"}, &text), 0);
  EXPECT_EQ(nlohmann::json::parse(text)["jobs"]["completed"], 1);

  EXPECT_EQ(cuzk::test::run_program({cli, "--addr", d.addr(), "submit", "--constraints", "1024", "--request-id", "s1"},
                                    &text),
            0);
  EXPECT_EQ(text, "s1\n");
  EXPECT_EQ(cuzk::test::run_program({cli, "--addr", d.addr(), "await", "s1", "--json"}, &text), 0);
  EXPECT_EQ(nlohmann::json::parse(text)["state"], "succeeded");

  EXPECT_EQ(cuzk::test::run_program({cli, "--addr", d.addr(), "metrics"}, &text), 0);
  EXPECT_EQ(metric(text, "cuzk_proofs_completed_total"), 2);

  EXPECT_EQ(cuzk::test::run_program({cli, "--addr", d.addr(), "await", "nope"}), 4);
  EXPECT_EQ(cuzk::test::run_program({cli, "--addr", d.addr(), "submit", "--constraints", "0"}), 3);
  EXPECT_EQ(cuzk::test::run_program({cli, "--addr", "unix:" + d.dir() + "/absent.sock", "status"}), 2);
  EXPECT_EQ(cuzk::test::run_program({cli, "--addr", d.addr(), "frobnicate"}), 1);
}

}  // namespace

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
  std::filesystem::create_directories(d.dir() + "/params");
  std::filesystem::copy_file(cached, d.dir() + "/params/" + params);
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
  DaemonProcess d({"--srs-param-cache", empty});
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

// cuzk-daemon end to end, running: status and metrics, parameter sets, signals and shutdown,
// limits, the configuration file, and the cuzk client's exit codes.
#include <gtest/gtest-spi.h>

#include "daemon_test_helpers.hpp"

namespace {

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

// A daemon that dies during a test (a sanitizer's report ends it) fails the test by name, with the
// report ahead of the whole log.
TEST(DaemonTest, ADaemonThatEndsByItselfFailsTheTestWithItsReport) {
  EXPECT_NONFATAL_FAILURE(
      {
        DaemonProcess d;
        std::ofstream(d.dir() + "/daemon.log", std::ios::app)
            << "==================\nWARNING: ThreadSanitizer: data race (a test's)\n  Read of size 1\n";
        kill(d.pid(), SIGKILL);
        while (d.running()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
      },
      "exited by itself during the test, with 137\nWARNING: ThreadSanitizer: data race (a test's)\n  Read of size 1");
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

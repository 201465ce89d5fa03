// What the daemon_test program's files share: calls with a deadline, a proof that still works, a
// metric's sample, waiting for the engine or a job, and raw bytes on the socket.
#pragma once

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
#include "filecoin/generators/test_sector.hpp"
#include "filecoin/generators/test_sector_update.hpp"
#include "filecoin/snap/registered_proofs.hpp"
#include "post_vanilla.hpp"
#include "snap_update_2kib.hpp"
#include "test_support.hpp"

// Each test file of daemon_test has its own copy (the files' tests are in unnamed namespaces too).
namespace {

namespace v1 = cuzk::v1;
using cuzk::test::DaemonProcess;
using cuzk::test::synthetic_request;

inline std::unique_ptr<grpc::ClientContext> ctx_with_deadline(std::chrono::seconds s = std::chrono::seconds(120)) {
  auto c = std::make_unique<grpc::ClientContext>();
  c->set_deadline(std::chrono::system_clock::now() + s);
  return c;
}

// Proves a small job and checks the result: the daemon still works.
inline void expect_proof_works(const DaemonProcess& d, uint32_t partitions = 1) {
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
inline double metric(const std::string& text, const std::string& name_and_labels) {
  return cuzk::test::metric_sample(text, name_and_labels);
}

// Polls until the engine has no active job (results may still await delivery).
inline void wait_idle(const DaemonProcess& d) {
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
inline bool wait_for_job(const DaemonProcess& d, const std::string& request_id, Done done) {
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
inline int64_t resident_param_bytes(const nlohmann::json& status) {
  int64_t sum = 0;
  for (const auto& p : status["params"]) sum += p["host_bytes"].get<int64_t>();
  return sum;
}

inline void write_raw(const std::string& socket_path, const std::string& bytes) {
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::strncpy(a.sun_path, socket_path.c_str(), sizeof a.sun_path - 1);
  ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ssize_t n = send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
  EXPECT_GE(n, 0);  // the daemon may close early; it must not crash
  close(fd);
}

}  // namespace

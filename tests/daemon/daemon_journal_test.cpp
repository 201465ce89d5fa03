// Jobs that survive a restart (issue 29): a real cuzk-daemon journals accepted jobs in its spool,
// is killed (SIGKILL) or stopped, and a new daemon on the same spool resumes them; repeated
// request ids attach to their job; torn and corrupt spool files are set aside; an unusable spool
// stops the daemon at start.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <signal.h>
#include <sstream>
#include <sys/resource.h>
#include <thread>
#include <tuple>
#include <unistd.h>
#include <utility>

#include <gtest/gtest.h>

#include "daemon_harness.hpp"
#include "daemon_metrics_text.hpp"
#include "server/journal.hpp"
#include "test_support.hpp"

namespace {

namespace v1 = cuzk::v1;
namespace fs = std::filesystem;
using cuzk::test::DaemonProcess;
using cuzk::test::synthetic_request;
using namespace std::chrono_literals;

// Constraints of the synthetic jobs that must still be running when something happens to the
// daemon: fewer under a sanitizer, where proving is several times slower (the journal's behaviour
// does not depend on the size).
constexpr uint32_t kGates = cuzk::test::kSanitized ? 4096 : 16384;

// A directory that outlives the daemons of one test: their parameter cache (set up once) and,
// beside it, the spool (daemon.spool_dir's default, "auto").
struct WorkDir : cuzk::test::TempDir {
  WorkDir() : TempDir("cuzk-journal-test") {}
  std::string spool() const { return path + "/spool"; }
  std::vector<std::string> daemon_args(std::vector<std::string> extra = {}) const {
    std::vector<std::string> a = {"--param-cache-dir", path + "/params", "--synthesis-workers", "1"};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
};

std::unique_ptr<grpc::ClientContext> ctx_with_deadline(std::chrono::seconds s = 180s) {
  auto c = std::make_unique<grpc::ClientContext>();
  c->set_deadline(std::chrono::system_clock::now() + s);
  return c;
}

std::vector<std::string> spool_files(const std::string& spool, const std::string& suffix) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& f : fs::directory_iterator(spool, ec)) {
    std::string name = f.path().filename().string();
    if (name.ends_with(suffix)) out.push_back(name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

v1::JobState job_state(const DaemonProcess& d, const std::string& id) {
  v1::GetStatusRequest req;
  req.set_job_id(id);
  v1::GetStatusResponse resp;
  auto ctx = ctx_with_deadline(30s);
  if (!d.stub()->GetStatus(ctx.get(), req, &resp).ok()) return v1::JOB_STATE_UNSPECIFIED;
  return resp.job().state();
}

double metric(const DaemonProcess& d, const std::string& name) {
  return cuzk::test::metric_sample(d.http_get("/metrics"), name);
}

void expect_proof(const v1::AwaitProofResponse& r, const std::string& id, uint32_t partitions) {
  EXPECT_EQ(r.job_id(), id);
  EXPECT_EQ(r.status(), v1::AwaitProofResponse::COMPLETED) << id << ": " << r.error_message();
  EXPECT_EQ(r.proof().size(), 192u * partitions) << id;
  EXPECT_TRUE(r.verified()) << id;
}

v1::AwaitProofResponse await_proof(const DaemonProcess& d, const std::string& id, grpc::Status* status = nullptr) {
  v1::AwaitProofRequest req;
  req.set_job_id(id);
  v1::AwaitProofResponse resp;
  auto ctx = ctx_with_deadline();
  grpc::Status s = d.stub()->AwaitProof(ctx.get(), req, &resp);
  if (status)
    *status = s;
  else
    EXPECT_TRUE(s.ok()) << id << ": " << s.error_message();
  return resp;
}

std::string submit(const DaemonProcess& d, const v1::SubmitProofRequest& req, grpc::Status* status = nullptr) {
  v1::SubmitProofResponse resp;
  auto ctx = ctx_with_deadline(60s);
  grpc::Status s = d.stub()->SubmitProof(ctx.get(), req, &resp);
  if (status)
    *status = s;
  else
    EXPECT_TRUE(s.ok()) << req.request_id() << ": " << s.error_message();
  return resp.job_id();
}

// The check of issue 29: kill -9 during a 3-job queue, then a restart completes all three, under
// their ids and in their order. The third is collected the way Curio retries after a restart: a
// Prove repeating its request, which attaches to the resumed job.
TEST(DaemonJournalTest, KillDuringAThreeJobQueueThenRestartCompletesAllThree) {
  WorkDir w;
  const std::vector<std::string> ids = {"porep-1000-1", "porep-1000-2", "porep-1000-3"};
  constexpr uint32_t kPartitions = 4;
  {
    DaemonProcess d(w.daemon_args());
    ASSERT_FALSE(testing::Test::HasFailure());
    for (const std::string& id : ids) EXPECT_EQ(submit(d, synthetic_request(kGates, kPartitions, id)), id);
    // Accepted means journaled: all three are in the spool before the first has ended.
    EXPECT_EQ(spool_files(w.spool(), ".job").size(), 3u);
    auto deadline = std::chrono::steady_clock::now() + 120s;
    while (job_state(d, ids[0]) != v1::JOB_STATE_RUNNING && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(10ms);
    }
    ASSERT_EQ(job_state(d, ids[0]), v1::JOB_STATE_RUNNING);
    EXPECT_NE(job_state(d, ids[2]), v1::JOB_STATE_SUCCEEDED);
    EXPECT_EQ(d.stop(SIGKILL), 128 + SIGKILL);
  }
  DaemonProcess d(w.daemon_args());
  ASSERT_FALSE(testing::Test::HasFailure());
  expect_proof(await_proof(d, ids[0]), ids[0], kPartitions);
  expect_proof(await_proof(d, ids[1]), ids[1], kPartitions);
  v1::ProveResponse pr;
  auto ctx = ctx_with_deadline();
  grpc::Status s =
      d.stub()->Prove(ctx.get(), cuzk::test::prove_request(synthetic_request(kGates, kPartitions, ids[2])), &pr);
  ASSERT_TRUE(s.ok()) << s.error_message();
  expect_proof(pr.result(), ids[2], kPartitions);
  // Resumed in their original order, each proved once by this daemon.
  const std::string log = d.log();
  size_t at = 0;
  for (const std::string& id : ids) {
    size_t next = log.find("resumed " + id + " from the spool", at);
    EXPECT_NE(next, std::string::npos) << id << " not resumed in order:\n" << log;
    at = next == std::string::npos ? at : next;
  }
  EXPECT_NE(log.find(ids[2] + ": a repeated Prove attaches"), std::string::npos) << log;
  EXPECT_EQ(metric(d, "cuzk_proofs_completed_total"), 3);
  // Delivered: nothing left in the spool.
  EXPECT_TRUE(spool_files(w.spool(), ".job").empty());
}

// A result that ended before the restart and was never collected is kept by the next daemon,
// delivered once, and its spool file removed then.
TEST(DaemonJournalTest, AnUncollectedResultSurvivesARestartAndIsCollectedOnce) {
  WorkDir w;
  const std::string id = "porep-1000-5";
  std::string first_proof;
  {
    DaemonProcess d(w.daemon_args());
    ASSERT_FALSE(testing::Test::HasFailure());
    submit(d, synthetic_request(1024, 1, id));
    // The result is journaled shortly after the job ends.
    const std::string file = w.spool() + "/" + id + ".job";
    auto deadline = std::chrono::steady_clock::now() + 120s;
    bool journaled = false;
    while (!journaled && std::chrono::steady_clock::now() < deadline) {
      std::ifstream f(file, std::ios::binary);
      std::stringstream bytes;
      bytes << f.rdbuf();
      try {
        journaled = cuzk::server::decode_journal_entry(bytes.str()).result.has_value();
      } catch (const cuzk::server::JournalCorrupt&) {
        // Not written yet (or being replaced: the rename is atomic, so never torn).
      }
      if (!journaled) std::this_thread::sleep_for(20ms);
    }
    ASSERT_TRUE(journaled) << d.log();
    EXPECT_EQ(d.stop(SIGKILL), 128 + SIGKILL);
  }
  DaemonProcess d(w.daemon_args());
  ASSERT_FALSE(testing::Test::HasFailure());
  EXPECT_NE(d.log().find("kept the succeeded result of " + id + " from the spool"), std::string::npos) << d.log();
  EXPECT_EQ(job_state(d, id), v1::JOB_STATE_SUCCEEDED);
  expect_proof(await_proof(d, id), id, 1);
  EXPECT_EQ(metric(d, "cuzk_proofs_completed_total"), 0);  // not proved again
  EXPECT_FALSE(fs::exists(w.spool() + "/" + id + ".job"));
  grpc::Status again;
  await_proof(d, id, &again);
  EXPECT_EQ(again.error_code(), grpc::StatusCode::NOT_FOUND) << again.error_message();
}

// A shutdown that cancels the proofs in flight (shutdown = cancel) leaves them accepted in the
// spool: the next start proves them. A job a client cancelled stays cancelled.
TEST(DaemonJournalTest, JobsCancelledByTheShutdownAreResumedAtTheNextStart) {
  WorkDir w;
  {
    DaemonProcess d(w.daemon_args({"--shutdown", "cancel"}));
    ASSERT_FALSE(testing::Test::HasFailure());
    submit(d, synthetic_request(kGates, 8, "snap-1000-1"));
    submit(d, synthetic_request(kGates, 8, "snap-1000-2"));
    v1::CancelProofRequest cancel;
    cancel.set_job_id("snap-1000-2");
    v1::CancelProofResponse cresp;
    auto ctx = ctx_with_deadline(30s);
    ASSERT_TRUE(d.stub()->CancelProof(ctx.get(), cancel, &cresp).ok());
    auto deadline = std::chrono::steady_clock::now() + 120s;
    while (job_state(d, "snap-1000-1") != v1::JOB_STATE_RUNNING && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(10ms);
    }
    EXPECT_EQ(d.stop(SIGTERM), 0);
  }
  DaemonProcess d(w.daemon_args());
  ASSERT_FALSE(testing::Test::HasFailure());
  EXPECT_NE(d.log().find("resumed snap-1000-1 from the spool"), std::string::npos) << d.log();
  expect_proof(await_proof(d, "snap-1000-1"), "snap-1000-1", 8);
  v1::AwaitProofResponse cancelled = await_proof(d, "snap-1000-2");
  EXPECT_EQ(cancelled.status(), v1::AwaitProofResponse::CANCELLED);
  EXPECT_TRUE(spool_files(w.spool(), ".job").empty());
}

// Spool files written by hand: one torn (cut short), one corrupt (a byte flipped) between two
// good ones. Both bad ones are reported by name and set aside; the good ones are proved.
TEST(DaemonJournalTest, TornAndCorruptEntriesAreReportedAndSkipped) {
  WorkDir w;
  const std::vector<std::string> ids = {"job-a", "job-b", "job-c", "job-d"};
  {
    cuzk::server::Journal j(w.spool());
    for (size_t i = 0; i < ids.size(); ++i) {
      cuzk::server::JournalEntry e;
      e.id = ids[i];
      e.seq = i + 1;
      e.priority = 2000;
      e.request = synthetic_request(1024, 1, ids[i]).SerializeAsString();
      e.request_digest = cuzk::server::request_digest(e.request);
      j.write(e);
    }
  }
  const std::string torn = w.spool() + "/job-b.job", corrupt = w.spool() + "/job-c.job";
  fs::resize_file(torn, fs::file_size(torn) - 7);
  {
    std::fstream f(corrupt, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(100);
    char c = 0;
    f.read(&c, 1);
    f.seekp(100);
    c = char(c ^ 0x01);
    f.write(&c, 1);
  }
  DaemonProcess d(w.daemon_args());
  ASSERT_FALSE(testing::Test::HasFailure());
  const std::string log = d.log();
  EXPECT_NE(log.find("spool entry " + torn + ": torn or corrupt: the header announces"), std::string::npos) << log;
  EXPECT_NE(log.find("spool entry " + corrupt + ": torn or corrupt: SHA-256 checksum mismatch"), std::string::npos)
      << log;
  EXPECT_TRUE(fs::exists(torn + ".corrupt"));
  EXPECT_TRUE(fs::exists(corrupt + ".corrupt"));
  expect_proof(await_proof(d, "job-a"), "job-a", 1);
  expect_proof(await_proof(d, "job-d"), "job-d", 1);
  grpc::Status s;
  await_proof(d, "job-b", &s);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::NOT_FOUND);
  // Anonymous requests get ids the spool has not given out before.
  std::string fresh = submit(d, synthetic_request(1024, 1));
  EXPECT_EQ(fresh, "job-5");
  expect_proof(await_proof(d, fresh), fresh, 1);
}

// Two Prove calls started together from two threads; each call's status is checked.
std::pair<v1::ProveResponse, v1::ProveResponse> prove_at_once(DaemonProcess& d, const v1::SubmitProofRequest& a,
                                                              const v1::SubmitProofRequest& b) {
  std::pair<v1::ProveResponse, v1::ProveResponse> out;
  grpc::Status sa, sb;
  std::thread ta([&] {
    auto ctx = ctx_with_deadline();
    sa = d.stub()->Prove(ctx.get(), cuzk::test::prove_request(a), &out.first);
  });
  std::thread tb([&] {
    auto ctx = ctx_with_deadline();
    sb = d.stub()->Prove(ctx.get(), cuzk::test::prove_request(b), &out.second);
  });
  ta.join();
  tb.join();
  EXPECT_TRUE(sa.ok()) << sa.error_message();
  EXPECT_TRUE(sb.ok()) << sb.error_message();
  return out;
}

// A request id names a request: the same request again attaches to its job (one proof computed);
// another request under the same id gets a job of its own, "<id>.2", with its own proof (Curio
// sends the chain partitions of one WindowPoSt deadline under one id); AwaitProof and CancelProof
// take the job ids.
TEST(DaemonJournalTest, ARepeatedRequestAttachesAndAnotherUnderItsIdGetsAJobOfItsOwn) {
  WorkDir w;
  DaemonProcess d(w.daemon_args());
  ASSERT_FALSE(testing::Test::HasFailure());
  const v1::SubmitProofRequest req = synthetic_request(kGates, 4, "porep-1000-9");
  const v1::SubmitProofRequest other = synthetic_request(1024, 1, "porep-1000-9");
  EXPECT_EQ(submit(d, req), "porep-1000-9");
  EXPECT_EQ(submit(d, req), "porep-1000-9");  // attached
  EXPECT_EQ(submit(d, other), "porep-1000-9.2");
  EXPECT_EQ(submit(d, other), "porep-1000-9.2");  // attached to its own job
  expect_proof(await_proof(d, "porep-1000-9.2"), "porep-1000-9.2", 1);
  expect_proof(await_proof(d, "porep-1000-9"), "porep-1000-9", 4);
  EXPECT_EQ(metric(d, "cuzk_proofs_completed_total"), 2);
  // Delivered: gone, and the id is free for a new request.
  grpc::Status s;
  await_proof(d, "porep-1000-9", &s);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(submit(d, other), "porep-1000-9");
  expect_proof(await_proof(d, "porep-1000-9"), "porep-1000-9", 1);
  // Two Prove calls of one request at once wait for one job and both get its proof (started
  // together, so that the job is still running when the second arrives).
  const v1::SubmitProofRequest same = synthetic_request(kGates, 8, "porep-1000-10");
  auto [p1, p2] = prove_at_once(d, same, same);
  ASSERT_FALSE(testing::Test::HasFailure());
  expect_proof(p1.result(), "porep-1000-10", 8);
  EXPECT_EQ(p1.result().proof(), p2.result().proof());
  EXPECT_EQ(metric(d, "cuzk_proofs_completed_total"), 4);
  // Two different Prove calls under one id at once: each caller gets its own job's proof.
  const v1::SubmitProofRequest a = synthetic_request(4096, 2, "wdpost-1000-0"),
                               b = synthetic_request(4096, 3, "wdpost-1000-0");
  std::tie(p1, p2) = prove_at_once(d, a, b);
  ASSERT_FALSE(testing::Test::HasFailure());
  EXPECT_EQ(p1.result().proof().size(), 2 * 192u);
  EXPECT_EQ(p2.result().proof().size(), 3 * 192u);
  EXPECT_NE(p1.result().job_id(), p2.result().job_id());
  for (const auto* r : {&p1, &p2}) {
    EXPECT_TRUE(r->result().job_id() == "wdpost-1000-0" || r->result().job_id() == "wdpost-1000-0.2")
        << r->result().job_id();
    EXPECT_TRUE(r->result().verified());
  }
}

// Two requests under one id survive a kill as two jobs: the next daemon resumes both, and a
// retry of the second request attaches to its own job, not to the first's.
TEST(DaemonJournalTest, TwoRequestsUnderOneIdSurviveARestartAsTwoJobs) {
  WorkDir w;
  const v1::SubmitProofRequest a = synthetic_request(kGates, 4, "wdpost-1000-3"),
                               b = synthetic_request(kGates, 3, "wdpost-1000-3");
  {
    DaemonProcess d(w.daemon_args());
    ASSERT_FALSE(testing::Test::HasFailure());
    EXPECT_EQ(submit(d, a), "wdpost-1000-3");
    EXPECT_EQ(submit(d, b), "wdpost-1000-3.2");
    EXPECT_EQ(spool_files(w.spool(), ".job").size(), 2u);
    EXPECT_EQ(d.stop(SIGKILL), 128 + SIGKILL);
  }
  DaemonProcess d(w.daemon_args());
  ASSERT_FALSE(testing::Test::HasFailure());
  v1::ProveResponse pr;
  auto ctx = ctx_with_deadline();
  grpc::Status s = d.stub()->Prove(ctx.get(), cuzk::test::prove_request(b), &pr);
  ASSERT_TRUE(s.ok()) << s.error_message();
  expect_proof(pr.result(), "wdpost-1000-3.2", 3);
  expect_proof(await_proof(d, "wdpost-1000-3"), "wdpost-1000-3", 4);
  EXPECT_EQ(metric(d, "cuzk_proofs_completed_total"), 2);
  EXPECT_TRUE(spool_files(w.spool(), ".job").empty());
}

// A spool write that fails while the daemon runs (the file size limit here, as a full disk would)
// costs the job its spool entry, not its acceptance: a warning says so and the job goes on.
TEST(DaemonJournalTest, AFailingSpoolWriteCostsTheJobItsEntryNotItsAcceptance) {
  std::string path;
  const auto req = cuzk::test::real_8mib_porep_request("porep-1006-1498", &path);
  if (!req) GTEST_SKIP() << "no test data: " << path;
  WorkDir w;
  DaemonProcess d(w.daemon_args());
  ASSERT_FALSE(testing::Test::HasFailure());
  // Files may grow 64 KiB past the log's size now: the log goes on, the ~210 KB request cannot be journaled.
  const rlim_t cap = rlim_t(fs::file_size(d.dir() + "/daemon.log") + (64 << 10));
  const rlimit limit{cap, cap};
  ASSERT_EQ(prlimit(d.pid(), RLIMIT_FSIZE, &limit, nullptr), 0);
  EXPECT_EQ(submit(d, *req), "porep-1006-1498");
  const std::string log = d.log();
  EXPECT_NE(log.find("porep-1006-1498: accepted without a spool entry, so a restart before it ends loses it"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("File too large"), std::string::npos) << log;
  v1::CancelProofRequest cancel;
  cancel.set_job_id("porep-1006-1498");
  v1::CancelProofResponse cresp;
  auto ctx = ctx_with_deadline(30s);
  EXPECT_TRUE(d.stub()->CancelProof(ctx.get(), cancel, &cresp).ok());
  v1::AwaitProofResponse r = await_proof(d, "porep-1006-1498");
  EXPECT_NE(r.status(), v1::AwaitProofResponse::COMPLETED);
  EXPECT_TRUE(d.running());
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(w.spool(), ec)) {
    if (entry.path().filename() != ".lock") ADD_FAILURE() << "left in the spool: " << entry.path();
  }
}

// An unusable spool stops the daemon at start (exit 2) with a message naming the setting, the
// directory and the reason; "none" runs without a journal, with a warning.
TEST(DaemonJournalTest, AnUnusableSpoolStopsTheDaemonAtStart) {
  WorkDir w;
  const std::string file = w.path + "/a-file";
  std::ofstream(file) << "not a directory\n";
  auto start = [&](const std::string& spool, const std::string& name) {
    const std::string log = w.path + "/" + name + ".log";
    int rc = cuzk::test::run_program(
        {CUZK_DAEMON_BIN, "--listen", "unix:" + w.path + "/" + name + ".sock", "--param-cache-dir", w.path + "/params",
         "--backend", "cpu", "--budget", "1GiB", "--spool-dir", spool, "--log-file", log},
        nullptr, 120s);
    std::ifstream f(log);
    std::stringstream s;
    s << f.rdbuf();
    return std::make_pair(rc, s.str());
  };
  auto [rc, log] = start(file, "file");
  EXPECT_EQ(rc, 2);
  EXPECT_NE(log.find("daemon.spool_dir (--spool-dir): cannot open the spool directory " + file + ": not a directory"),
            std::string::npos)
      << log;
  std::tie(rc, log) = start(file + "/spool", "under-file");
  EXPECT_EQ(rc, 2);
  EXPECT_NE(log.find("cannot create the spool directory " + file + "/spool"), std::string::npos) << log;
  {
    DaemonProcess d(w.daemon_args());
    ASSERT_FALSE(testing::Test::HasFailure());
    std::tie(rc, log) = start(w.spool(), "second");
    EXPECT_EQ(rc, 2);
    EXPECT_NE(log.find("another cuzk-daemon uses the spool directory " + w.spool()), std::string::npos) << log;
  }
  DaemonProcess d({"--spool-dir", "none"});
  ASSERT_FALSE(testing::Test::HasFailure());
  EXPECT_NE(d.log().find("daemon.spool_dir is off"), std::string::npos);
  EXPECT_FALSE(fs::exists(d.dir() + "/spool"));
  EXPECT_EQ(submit(d, synthetic_request(1024, 1, "no-journal")), "no-journal");
  expect_proof(await_proof(d, "no-journal"), "no-journal", 1);
}

}  // namespace

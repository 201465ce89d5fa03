// The spool's journal on its own (src/server/journal.cpp): the entry encoding and its checks,
// and the directory (atomic writes, load order, torn and corrupt files set aside, the lock).
#include "server/journal.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace {

using cuzk::server::decode_journal_entry;
using cuzk::server::encode_journal_entry;
using cuzk::server::Journal;
using cuzk::server::JournalCorrupt;
using cuzk::server::JournalEntry;
using cuzk::server::JournalError;
using cuzk::server::JournalResult;
using cuzk::server::request_digest;
using cuzk::server::resolve_spool_dir;
namespace fs = std::filesystem;

JournalEntry queued_entry(const std::string& id, uint64_t seq) {
  JournalEntry e;
  e.id = id;
  e.seq = seq;
  e.submitted_unix_ms = 1'764'000'000'000 + int64_t(seq);
  e.priority = 2005;
  e.from_prove = seq % 2 == 1;
  e.request = "request bytes of " + id + std::string("\0\x01\xff", 3);
  e.request_digest = request_digest(e.request);
  return e;
}

JournalEntry ended_entry(const std::string& id, uint64_t seq) {
  JournalEntry e = queued_entry(id, seq);
  e.request.clear();
  JournalResult r;
  r.state = cuzk::engine::JobState::kSucceeded;
  r.proof.assign(384, 0);
  for (size_t i = 0; i < r.proof.size(); ++i) r.proof[i] = uint8_t(i * 7);
  r.timings = {0.5, 1.25, 2.0, 3.5, 0.125, 0.0625, 7.75};
  r.verified = true;
  r.ended_unix_ms = 1'764'000'123'456;
  e.result = r;
  return e;
}

void expect_same(const JournalEntry& a, const JournalEntry& b) {
  EXPECT_EQ(a.id, b.id);
  EXPECT_EQ(a.seq, b.seq);
  EXPECT_EQ(a.submitted_unix_ms, b.submitted_unix_ms);
  EXPECT_EQ(a.priority, b.priority);
  EXPECT_EQ(a.from_prove, b.from_prove);
  EXPECT_EQ(a.request_digest, b.request_digest);
  EXPECT_EQ(a.request, b.request);
  ASSERT_EQ(a.result.has_value(), b.result.has_value());
  if (!a.result) return;
  EXPECT_EQ(a.result->state, b.result->state);
  EXPECT_EQ(a.result->error, b.result->error);
  EXPECT_EQ(a.result->proof, b.result->proof);
  EXPECT_EQ(a.result->verified, b.result->verified);
  EXPECT_EQ(a.result->ended_unix_ms, b.result->ended_unix_ms);
  EXPECT_EQ(a.result->timings.queue_wait, b.result->timings.queue_wait);
  EXPECT_EQ(a.result->timings.total, b.result->timings.total);
  EXPECT_EQ(a.result->timings.verify, b.result->timings.verify);
}

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

void spit(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << bytes;
}

TEST(JournalTest, EntriesRoundTrip) {
  for (const JournalEntry& e : {queued_entry("porep-1000-1", 1), ended_entry("job-7", 7)}) {
    expect_same(decode_journal_entry(encode_journal_entry(e)), e);
  }
  JournalEntry failed = ended_entry("wdpost-1000-0-x", 3);
  failed.result->state = cuzk::engine::JobState::kFailed;
  failed.result->proof.clear();
  failed.result->verified = false;
  failed.result->error = "partition 2: the proof does not verify";
  expect_same(decode_journal_entry(encode_journal_entry(failed)), failed);
}

// Every flipped byte and every truncation of an entry is caught: by the header's magic, version
// or length, or by the payload's SHA-256.
TEST(JournalTest, EveryFlippedByteAndEveryTruncationIsDetected) {
  const std::string good = encode_journal_entry(ended_entry("porep-1000-2", 2));
  for (size_t i = 0; i < good.size(); ++i) {
    std::string bad = good;
    bad[i] = char(bad[i] ^ 0x20);
    EXPECT_THROW(decode_journal_entry(bad), JournalCorrupt) << "byte " << i;
  }
  for (size_t n = 0; n < good.size(); ++n) {
    EXPECT_THROW(decode_journal_entry(std::string_view(good).substr(0, n)), JournalCorrupt) << "length " << n;
  }
  EXPECT_THROW(decode_journal_entry(good + "x"), JournalCorrupt);
}

TEST(JournalTest, CorruptionMessagesSayWhatIsWrong) {
  const std::string good = encode_journal_entry(queued_entry("porep-1000-3", 3));
  auto message = [](const std::string& bytes) {
    try {
      decode_journal_entry(bytes);
    } catch (const JournalCorrupt& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  EXPECT_NE(message(good.substr(0, 20)).find("shorter than the 56-byte header"), std::string::npos);
  EXPECT_NE(message(good.substr(0, good.size() - 5)).find("a torn write"), std::string::npos);
  std::string magic = good;
  magic[0] = 'X';
  EXPECT_NE(message(magic).find("magic"), std::string::npos);
  std::string version = good;
  version[8] = 9;
  EXPECT_NE(message(version).find("format version 9"), std::string::npos);
  std::string payload = good;
  payload[good.size() - 3] ^= 1;
  EXPECT_NE(message(payload).find("checksum mismatch"), std::string::npos);
}

TEST(JournalTest, SpoolDirectoryDefaultsBesideTheParameterCache) {
  EXPECT_EQ(resolve_spool_dir("auto", "params-cache"), "spool");
  EXPECT_EQ(resolve_spool_dir("auto", "/var/cache/cuzk/params/"), "/var/cache/cuzk/spool");
  EXPECT_EQ(resolve_spool_dir("auto", "/tmp/x/params"), "/tmp/x/spool");
  EXPECT_EQ(resolve_spool_dir("none", "/tmp/x/params"), "");
  EXPECT_EQ(resolve_spool_dir("", "/tmp/x/params"), "");
  EXPECT_EQ(resolve_spool_dir("/data/spool", "/tmp/x/params"), "/data/spool");
}

TEST(JournalTest, WritesLoadsInAcceptOrderAndRemoves) {
  cuzk::test::TempDir t("cuzk-journal-unit");
  const std::string spool = t.path + "/spool";
  {
    Journal j(spool);  // creates it
    j.write(queued_entry("b", 5));
    j.write(queued_entry("a", 9));
    j.write(ended_entry("c", 2));
    JournalEntry replaced = ended_entry("b", 5);  // a job that ended: its entry is replaced
    j.write(replaced);
    j.remove("a");
    j.remove("never-written");  // nothing to remove: no error
  }
  EXPECT_EQ(fs::status(spool).permissions() & fs::perms::all, fs::perms::owner_all);
  Journal j(spool);
  std::vector<JournalEntry> loaded = j.load();
  ASSERT_EQ(loaded.size(), 2u);
  EXPECT_EQ(loaded[0].id, "c");  // seq 2
  EXPECT_EQ(loaded[1].id, "b");  // seq 5
  EXPECT_TRUE(loaded[1].result.has_value());
  EXPECT_TRUE(loaded[1].request.empty());
  // Nothing but the entries and the lock: no temporary files left behind.
  std::vector<std::string> names;
  for (const auto& f : fs::directory_iterator(spool)) names.push_back(f.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{".lock", "b.job", "c.job"}));
}

TEST(JournalTest, TornAndCorruptFilesAreSetAsideAndTheRestLoads) {
  cuzk::test::TempDir t("cuzk-journal-unit");
  const std::string spool = t.path + "/spool";
  {
    Journal j(spool);
    for (int i = 1; i <= 4; ++i) j.write(queued_entry("job-" + std::to_string(i), uint64_t(i)));
  }
  // job-2 torn (cut short), job-3 corrupt (one byte flipped), job-4 under another job's name, and a
  // temporary file of an interrupted write.
  const std::string torn = spool + "/job-2.job", flipped = spool + "/job-3.job", renamed = spool + "/job-9.job";
  std::string bytes = slurp(torn);
  spit(torn, bytes.substr(0, bytes.size() / 2));
  bytes = slurp(flipped);
  bytes[bytes.size() - 10] ^= 0x40;
  spit(flipped, bytes);
  fs::rename(spool + "/job-4.job", renamed);
  spit(spool + "/.job-5.job.tmp", "half a write");

  Journal j(spool);
  std::vector<JournalEntry> loaded = j.load();
  ASSERT_EQ(loaded.size(), 1u);
  EXPECT_EQ(loaded[0].id, "job-1");
  EXPECT_TRUE(fs::exists(torn + ".corrupt"));
  EXPECT_TRUE(fs::exists(flipped + ".corrupt"));
  EXPECT_TRUE(fs::exists(renamed + ".corrupt"));
  EXPECT_FALSE(fs::exists(torn));
  EXPECT_FALSE(fs::exists(spool + "/.job-5.job.tmp"));
  // Set aside once: the next load does not report them again.
  EXPECT_EQ(j.load().size(), 1u);
}

TEST(JournalTest, OneDaemonPerSpool) {
  cuzk::test::TempDir t("cuzk-journal-unit");
  Journal first(t.path);
  try {
    Journal second(t.path);
    ADD_FAILURE() << "a second journal took the same spool";
  } catch (const JournalError& e) {
    EXPECT_NE(std::string(e.what()).find("another cuzk-daemon uses the spool directory"), std::string::npos)
        << e.what();
  }
}

TEST(JournalTest, UnusableDirectoriesAreRefusedWithTheReason) {
  cuzk::test::TempDir t("cuzk-journal-unit");
  const std::string file = t.path + "/a-file";
  spit(file, "not a directory");
  try {
    Journal j(file);
    ADD_FAILURE() << "a regular file was taken as a spool";
  } catch (const JournalError& e) {
    EXPECT_NE(std::string(e.what()).find("not a directory"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(file), std::string::npos) << e.what();
  }
  try {
    Journal j(file + "/spool");
    ADD_FAILURE() << "a spool under a regular file was created";
  } catch (const JournalError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot create the spool directory"), std::string::npos) << e.what();
  }
  if (geteuid() != 0) {  // root writes anywhere
    const std::string ro = t.path + "/read-only";
    fs::create_directory(ro);
    fs::permissions(ro, fs::perms::owner_read | fs::perms::owner_exec);
    EXPECT_THROW(Journal j(ro), JournalError);
    fs::permissions(ro, fs::perms::owner_all);
  }
}

}  // namespace

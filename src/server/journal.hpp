// The spool: accepted jobs journaled on disk so that they survive a restart (a crash, kill -9,
// a reboot). One file per job, <spool>/<request id>.job, holding the request as it was received
// (the serialized SubmitProofRequest, so that a resumed job goes through the same conversion and
// checks as a new one), its submit order, time and priority, and once it has ended its result
// (proof or error) instead of the request. Every write is atomic: a temporary file is written and
// fsynced, renamed over the entry and the directory fsynced. A file that is torn or corrupt (its
// header, length or SHA-256 checksum does not match) is reported and renamed to *.corrupt; it
// never stops the daemon. Format: docs/ARCHITECTURE.md, "Daemon", "The spool".
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "engine/job.hpp"

namespace cuzk::server {

using RequestDigest = std::array<uint8_t, 32>;  // SHA-256

// SHA-256 of a serialized request: a repeated request id attaches to its job only when the
// request is the same.
RequestDigest request_digest(std::string_view serialized_request);

// How a job ended, as the spool keeps it until the result is collected or expires.
struct JournalResult {
  engine::JobState state = engine::JobState::kFailed;  // kSucceeded, kFailed or kCancelled
  std::string error;
  std::vector<uint8_t> proof;
  engine::JobTimings timings;
  bool verified = false;
  int64_t ended_unix_ms = 0;  // wall clock: the result's age survives a restart
};

// One accepted job.
struct JournalEntry {
  std::string id;                       // the request id; also the file's name
  uint64_t seq = 0;                     // accept order, increasing across restarts: the resume order
  int64_t submitted_unix_ms = 0;        // wall clock, for the logs
  int32_t priority = 0;                 // the engine's priority (level x 1000 + offset)
  bool from_prove = false;              // submitted by Prove (its caller waited) rather than SubmitProof
  RequestDigest request_digest{};       // of the serialized request
  std::string request;                  // the serialized SubmitProofRequest while the job has not ended
  std::optional<JournalResult> result;  // set once it ended (request is then empty)
};

// The bytes of a spool file (header, then payload) and back. decode_journal_entry throws
// JournalCorrupt saying what is wrong (torn, bad magic, unknown version, checksum mismatch,
// payload ending early at an offset, ...).
std::string encode_journal_entry(const JournalEntry& e);
JournalEntry decode_journal_entry(std::string_view bytes);

inline constexpr size_t kJournalHeaderBytes = 56;  // magic 8, version 4, reserved 4, length 8, SHA-256 32
inline constexpr uint32_t kJournalVersion = 1;

// The spool directory daemon.spool_dir names: "auto" is "spool" beside the parameter cache
// (param_cache_dir's parent: ./spool for the default ./params-cache); "" and "none" mean no
// journal (returns ""); anything else is the directory itself.
std::string resolve_spool_dir(std::string_view setting, std::string_view param_cache_dir);

class JournalCorrupt : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A spool file could not be written, renamed or removed, or the directory cannot be used.
// error_number is the errno behind it (ENOSPC: the disk is full), 0 when there is none.
class JournalError : public std::runtime_error {
 public:
  JournalError(const std::string& message, int error_number)
      : std::runtime_error(message), error_number_(error_number) {}
  int error_number() const { return error_number_; }

 private:
  int error_number_;
};

class Journal {
 public:
  // Creates dir (mode 0700) when missing, takes an exclusive lock on dir/.lock for the
  // journal's life (one daemon per spool) and checks that a file can be written, fsynced,
  // renamed and removed there. Throws JournalError naming the directory and the reason.
  explicit Journal(std::string dir);
  ~Journal();
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;

  const std::string& dir() const { return dir_; }

  // Every readable entry, in seq order. Torn or corrupt files are logged (a warning naming the
  // file and the fault) and renamed to <name>.corrupt; temporary files of an interrupted write
  // are removed. Never throws for a bad entry; throws JournalError when the directory cannot be
  // listed.
  std::vector<JournalEntry> load();
  // Writes the entry atomically (replacing the job's earlier entry). Throws JournalError.
  void write(const JournalEntry& e);
  // Removes the job's entry, if any; a failure is logged, not thrown (the entry is then resumed
  // or restored by the next start, which is safe).
  void remove(const std::string& id);
  // Renames the job's entry to <name>.corrupt with a warning saying why (an entry that decodes
  // but cannot be used, e.g. a request that no longer parses).
  void set_aside(const std::string& id, const std::string& why);

  // The file of a job's entry (tests look at it).
  std::string path_of(const std::string& id) const;

 private:
  // Writes bytes to dir/name through a temporary file, fsync, rename and a directory fsync.
  void write_file(const std::string& name, std::string_view bytes);
  void sync_dir();

  std::string dir_;
  int dir_fd_ = -1;
  int lock_fd_ = -1;
};

}  // namespace cuzk::server

#include "server/journal.hpp"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <openssl/evp.h>
#include <spdlog/spdlog.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace cuzk::server {

namespace {

constexpr std::string_view kMagic = "CUZKJRNL";
constexpr std::string_view kEntrySuffix = ".job";
constexpr std::string_view kTempSuffix = ".tmp";
constexpr std::string_view kCorruptSuffix = ".corrupt";
constexpr std::string_view kLockName = ".lock";
constexpr std::string_view kProbeName = "probe";
// A request is at most daemon.max_request_bytes (< 2 GiB); anything longer is not ours.
constexpr uint64_t kMaxPayloadBytes = uint64_t(4) << 30;

std::string errno_text(int e) { return std::strerror(e); }

// ---- Encoding: little-endian integers, length-prefixed strings ----------------------------

class Writer {
 public:
  void u8(uint8_t v) { out_.push_back(char(v)); }
  void u32(uint32_t v) { integer(v, 4); }
  void u64(uint64_t v) { integer(v, 8); }
  void i32(int32_t v) { u32(uint32_t(v)); }
  void i64(int64_t v) { u64(uint64_t(v)); }
  void f64(double v) { u64(std::bit_cast<uint64_t>(v)); }
  void raw(std::string_view b) { out_.append(b); }
  void text32(std::string_view b) {
    u32(uint32_t(b.size()));
    raw(b);
  }
  void bytes64(std::string_view b) {
    u64(b.size());
    raw(b);
  }
  std::string take() { return std::move(out_); }

 private:
  void integer(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) out_.push_back(char((v >> (8 * i)) & 0xff));
  }
  std::string out_;
};

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  uint8_t u8(const char* what) { return uint8_t(take(1, what)[0]); }
  uint32_t u32(const char* what) { return uint32_t(integer(4, what)); }
  uint64_t u64(const char* what) { return integer(8, what); }
  int32_t i32(const char* what) { return int32_t(u32(what)); }
  int64_t i64(const char* what) { return int64_t(u64(what)); }
  double f64(const char* what) { return std::bit_cast<double>(u64(what)); }
  std::string_view raw(size_t n, const char* what) { return take(n, what); }
  std::string text32(const char* what) {
    uint32_t n = u32(what);
    return std::string(take(n, what));
  }
  std::string bytes64(const char* what) {
    uint64_t n = u64(what);
    if (n > in_.size() - pos_) fail(what, n);
    return std::string(take(size_t(n), what));
  }
  size_t pos() const { return pos_; }
  bool done() const { return pos_ == in_.size(); }

 private:
  [[noreturn]] void fail(const char* what, uint64_t n) {
    throw JournalCorrupt(fmt::format("payload ends early: {} needs {} bytes at payload offset {}, {} left", what, n,
                                     pos_, in_.size() - pos_));
  }
  std::string_view take(size_t n, const char* what) {
    if (n > in_.size() - pos_) fail(what, n);
    std::string_view s = in_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  uint64_t integer(int n, const char* what) {
    std::string_view b = take(size_t(n), what);
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= uint64_t(uint8_t(b[size_t(i)])) << (8 * i);
    return v;
  }
  std::string_view in_;
  size_t pos_ = 0;
};

RequestDigest sha256(std::string_view bytes) {
  RequestDigest d{};
  unsigned int n = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), d.data(), &n, EVP_sha256(), nullptr) != 1 || n != d.size()) {
    throw std::runtime_error("OpenSSL's SHA-256 failed");
  }
  return d;
}

std::string hex(const RequestDigest& d) {
  std::string s;
  for (uint8_t b : d) s += fmt::format("{:02x}", b);
  return s;
}

bool valid_state(uint8_t s) {
  return s == uint8_t(engine::JobState::kSucceeded) || s == uint8_t(engine::JobState::kFailed) ||
         s == uint8_t(engine::JobState::kCancelled);
}

std::string read_whole_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw JournalError("cannot open " + path + ": " + errno_text(errno), errno);
  std::string data;
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int e = errno;
      ::close(fd);
      throw JournalError("cannot read " + path + ": " + errno_text(e), e);
    }
    if (n == 0) break;
    data.append(buf, size_t(n));
    if (data.size() > kMaxPayloadBytes + kJournalHeaderBytes) {
      ::close(fd);
      throw JournalCorrupt("larger than any journal entry (over 4 GiB)");
    }
  }
  ::close(fd);
  return data;
}

}  // namespace

RequestDigest request_digest(std::string_view serialized_request) { return sha256(serialized_request); }

std::string resolve_spool_dir(std::string_view setting, std::string_view param_cache_dir) {
  if (setting.empty() || setting == "none") return "";
  if (setting != "auto") return std::string(setting);
  std::string cache(param_cache_dir);
  while (cache.size() > 1 && cache.back() == '/') cache.pop_back();
  std::filesystem::path parent = std::filesystem::path(cache).parent_path();
  return (parent.empty() ? std::filesystem::path("spool") : parent / "spool").string();
}

std::string encode_journal_entry(const JournalEntry& e) {
  Writer p;
  p.u64(e.seq);
  p.i64(e.submitted_unix_ms);
  p.i32(e.priority);
  p.u8(e.from_prove ? 1 : 0);
  p.raw(std::string_view(reinterpret_cast<const char*>(e.request_digest.data()), e.request_digest.size()));
  p.text32(e.id);
  p.bytes64(e.request);
  p.u8(e.result ? 1 : 0);
  if (e.result) {
    const JournalResult& r = *e.result;
    p.u8(uint8_t(r.state));
    p.i64(r.ended_unix_ms);
    p.u8(r.verified ? 1 : 0);
    p.text32(r.error);
    p.bytes64(std::string_view(reinterpret_cast<const char*>(r.proof.data()), r.proof.size()));
    const engine::JobTimings& t = r.timings;
    for (double v : {t.queue_wait, t.param_load, t.synthesis, t.gpu, t.finalize, t.verify, t.total}) p.f64(v);
  }
  std::string payload = p.take();
  RequestDigest sum = sha256(payload);
  Writer h;
  h.raw(kMagic);
  h.u32(kJournalVersion);
  h.u32(0);  // reserved
  h.u64(payload.size());
  h.raw(std::string_view(reinterpret_cast<const char*>(sum.data()), sum.size()));
  std::string out = h.take();
  out += payload;
  return out;
}

JournalEntry decode_journal_entry(std::string_view bytes) {
  if (bytes.size() < kJournalHeaderBytes) {
    throw JournalCorrupt(
        fmt::format("{} bytes, shorter than the {}-byte header (a torn write)", bytes.size(), kJournalHeaderBytes));
  }
  Reader h(bytes.substr(0, kJournalHeaderBytes));
  if (h.raw(kMagic.size(), "magic") != kMagic) {
    throw JournalCorrupt(fmt::format("does not start with the magic \"{}\"", kMagic));
  }
  const uint32_t version = h.u32("version");
  if (version != kJournalVersion) {
    throw JournalCorrupt(fmt::format("format version {}, this daemon reads version {}", version, kJournalVersion));
  }
  if (const uint32_t reserved = h.u32("reserved"); reserved != 0) {
    throw JournalCorrupt(fmt::format("header bytes 12-15 are {:#x}, expected 0", reserved));
  }
  const uint64_t length = h.u64("length");
  const std::string_view stored_sum = h.raw(32, "checksum");
  const uint64_t held = bytes.size() - kJournalHeaderBytes;
  if (length != held) {
    throw JournalCorrupt(fmt::format("the header announces {} payload bytes, the file holds {} ({})", length, held,
                                     length > held ? "a torn write" : "trailing bytes"));
  }
  const std::string_view payload = bytes.substr(kJournalHeaderBytes);
  RequestDigest sum = sha256(payload);
  if (std::string_view(reinterpret_cast<const char*>(sum.data()), sum.size()) != stored_sum) {
    RequestDigest stored{};
    std::memcpy(stored.data(), stored_sum.data(), stored.size());
    throw JournalCorrupt(fmt::format("SHA-256 checksum mismatch (header {}, payload {}): the payload is corrupt",
                                     hex(stored).substr(0, 16), hex(sum).substr(0, 16)));
  }
  Reader p(payload);
  JournalEntry e;
  e.seq = p.u64("seq");
  e.submitted_unix_ms = p.i64("submit time");
  e.priority = p.i32("priority");
  e.from_prove = p.u8("origin") != 0;
  std::string_view digest = p.raw(e.request_digest.size(), "request digest");
  std::memcpy(e.request_digest.data(), digest.data(), e.request_digest.size());
  e.id = p.text32("request id");
  e.request = p.bytes64("request");
  const uint8_t has_result = p.u8("result flag");
  if (has_result > 1) throw JournalCorrupt(fmt::format("result flag is {}, expected 0 or 1", has_result));
  if (has_result) {
    JournalResult r;
    const size_t at = p.pos();
    const uint8_t state = p.u8("state");
    if (!valid_state(state)) {
      throw JournalCorrupt(fmt::format("payload offset {}: state {} is not an ended job's", at, state));
    }
    r.state = engine::JobState(state);
    r.ended_unix_ms = p.i64("end time");
    r.verified = p.u8("verified") != 0;
    r.error = p.text32("error");
    std::string proof = p.bytes64("proof");
    r.proof.assign(proof.begin(), proof.end());
    engine::JobTimings& t = r.timings;
    for (double* v : {&t.queue_wait, &t.param_load, &t.synthesis, &t.gpu, &t.finalize, &t.verify, &t.total}) {
      *v = p.f64("timings");
    }
    e.result = std::move(r);
  }
  if (!p.done()) {
    throw JournalCorrupt(
        fmt::format("{} unexpected bytes after the entry at payload offset {}", payload.size() - p.pos(), p.pos()));
  }
  if (e.id.empty()) throw JournalCorrupt("the entry has no request id");
  if (!e.result && e.request.empty()) throw JournalCorrupt("the entry has neither a request nor a result");
  return e;
}

// ---- The directory -----------------------------------------------------------------------

Journal::Journal(std::string dir) : dir_(std::move(dir)) {
  namespace fs = std::filesystem;
  const std::string hint =
      " (make it a directory this user can write, choose another with daemon.spool_dir / --spool-dir, or set it to "
      "\"none\" to run without a journal: accepted jobs are then lost on a restart)";
  std::error_code ec;
  if (!fs::exists(dir_, ec)) {
    fs::create_directories(fs::path(dir_).parent_path().empty() ? fs::path(".") : fs::path(dir_).parent_path(), ec);
    if (!ec && ::mkdir(dir_.c_str(), 0700) != 0 && errno != EEXIST)
      ec = std::error_code(errno, std::generic_category());
    if (ec) throw JournalError("cannot create the spool directory " + dir_ + ": " + ec.message() + hint, ec.value());
  }
  dir_fd_ = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd_ < 0) {
    int e = errno;
    throw JournalError("cannot open the spool directory " + dir_ + ": " +
                           (e == ENOTDIR ? std::string("not a directory") : errno_text(e)) + hint,
                       e);
  }
  const std::string lock_path = dir_ + "/" + std::string(kLockName);
  lock_fd_ = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (lock_fd_ < 0) {
    int e = errno;
    ::close(dir_fd_);
    throw JournalError("cannot create " + lock_path + " in the spool directory: " + errno_text(e) + hint, e);
  }
  if (flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    int e = errno;
    ::close(lock_fd_);
    ::close(dir_fd_);
    throw JournalError(e == EWOULDBLOCK ? "another cuzk-daemon uses the spool directory " + dir_ +
                                              " (each daemon needs its own daemon.spool_dir)"
                                        : "cannot lock " + lock_path + ": " + errno_text(e),
                       e);
  }
  // Everything a journal write does, once, so that an unusable directory is found at start.
  try {
    write_file(std::string(kProbeName), "cuzk spool probe\n");
    if (::unlink((dir_ + "/" + std::string(kProbeName)).c_str()) != 0) {
      throw JournalError("cannot remove a file in " + dir_ + ": " + errno_text(errno), errno);
    }
    sync_dir();
  } catch (const JournalError& e) {
    ::close(lock_fd_);
    ::close(dir_fd_);
    throw JournalError(std::string("the spool directory is not writable: ") + e.what() + hint, e.error_number());
  }
}

Journal::~Journal() {
  if (lock_fd_ >= 0) ::close(lock_fd_);
  if (dir_fd_ >= 0) ::close(dir_fd_);
}

std::string Journal::path_of(const std::string& id) const { return dir_ + "/" + id + std::string(kEntrySuffix); }

void Journal::sync_dir() {
  if (::fsync(dir_fd_) != 0)
    throw JournalError("cannot fsync the spool directory " + dir_ + ": " + errno_text(errno), errno);
}

void Journal::write_file(const std::string& name, std::string_view bytes) {
  // The temporary name starts with '.', which no request id does: it never looks like an entry.
  const std::string tmp = dir_ + "/." + name + std::string(kTempSuffix);
  const std::string path = dir_ + "/" + name;
  auto fail = [&](const std::string& what, int e, int fd) {
    if (fd >= 0) ::close(fd);
    ::unlink(tmp.c_str());
    throw JournalError("cannot " + what + ": " + errno_text(e), e);
  };
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) fail("create " + tmp, errno, -1);
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail("write " + tmp, errno, fd);
    done += size_t(n);
  }
  if (::fsync(fd) != 0) fail("fsync " + tmp, errno, fd);
  if (::close(fd) != 0) fail("close " + tmp, errno, -1);
  if (::rename(tmp.c_str(), path.c_str()) != 0) fail("rename " + tmp + " to " + path, errno, -1);
  sync_dir();
}

void Journal::write(const JournalEntry& e) { write_file(e.id + std::string(kEntrySuffix), encode_journal_entry(e)); }

void Journal::remove(const std::string& id) {
  const std::string path = path_of(id);
  if (::unlink(path.c_str()) != 0) {
    if (errno != ENOENT) {
      spdlog::warn("cannot remove the spool entry {}: {} (the next start restores it)", path, errno_text(errno));
    }
    return;
  }
  try {
    sync_dir();
  } catch (const JournalError& e) {
    spdlog::warn("{}", e.what());
  }
}

void Journal::set_aside(const std::string& id, const std::string& why) {
  const std::string path = path_of(id);
  const std::string aside = path + std::string(kCorruptSuffix);
  if (::rename(path.c_str(), aside.c_str()) != 0) {
    spdlog::warn("spool entry {}: {}; it cannot be moved aside ({}) and is skipped", path, why, errno_text(errno));
    return;
  }
  spdlog::warn("spool entry {}: {}; moved aside to {} and skipped", path, why, aside);
  try {
    sync_dir();
  } catch (const JournalError& e) {
    spdlog::warn("{}", e.what());
  }
}

std::vector<JournalEntry> Journal::load() {
  std::vector<std::string> names;
  {
    DIR* d = ::opendir(dir_.c_str());
    if (!d) throw JournalError("cannot list the spool directory " + dir_ + ": " + errno_text(errno), errno);
    while (dirent* ent = ::readdir(d)) names.emplace_back(ent->d_name);
    ::closedir(d);
  }
  std::sort(names.begin(), names.end());
  std::vector<JournalEntry> entries;
  for (const std::string& name : names) {
    const std::string path = dir_ + "/" + name;
    if (name.starts_with('.')) {
      // A write interrupted by a crash leaves its temporary file; the entry it was replacing is intact.
      if (name.ends_with(kTempSuffix) && name.size() > 1 + kTempSuffix.size()) {
        spdlog::info("spool: removing {}, left by a write a crash interrupted", path);
        ::unlink(path.c_str());
      }
      continue;
    }
    if (!name.ends_with(kEntrySuffix)) continue;  // *.corrupt and anything else: not ours to read
    const std::string id = name.substr(0, name.size() - kEntrySuffix.size());
    try {
      JournalEntry e = decode_journal_entry(read_whole_file(path));
      if (e.id != id) throw JournalCorrupt("it holds job '" + e.id + "', not the job its name says");
      entries.push_back(std::move(e));
    } catch (const JournalCorrupt& e) {
      set_aside(id, std::string("torn or corrupt: ") + e.what());
    } catch (const JournalError& e) {
      spdlog::warn("spool entry {} is skipped: {}", path, e.what());
    }
  }
  std::sort(entries.begin(), entries.end(), [](const JournalEntry& a, const JournalEntry& b) { return a.seq < b.seq; });
  return entries;
}

}  // namespace cuzk::server

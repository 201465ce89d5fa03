#include "groth16/param_file.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <future>
#include <openssl/evp.h>
#include <stdexcept>
#include <sys/stat.h>
#include <tbb/parallel_for.h>
#include <tbb/task_group.h>
#include <unistd.h>
#include <vector>

namespace cuzk::groth16 {
namespace {

constexpr size_t kG1 = ec::kG1UncompressedBytes;
constexpr size_t kG2 = ec::kG2UncompressedBytes;
constexpr size_t kVkFixedBytes = 3 * kG1 + 3 * kG2;  // alpha, beta, delta in G1; beta, gamma, delta in G2
const char* const kSectionNames[6] = {"ic", "h", "l", "a", "b_g1", "b_g2"};

constexpr char kTrailerMagic[16] = {'c', 'u', 'z', 'k', '-', 'p', 'a', 'r', 'a', 'm', 's', '-', 's', 'h', 'a', '2'};

void sha256(const uint8_t* data, size_t len, uint8_t out[32]) {
  unsigned int n = 0;
  if (EVP_Digest(data, len, out, &n, EVP_sha256(), nullptr) != 1 || n != 32) {
    throw std::runtime_error("SHA-256 failed (libcrypto)");
  }
}

std::string hex(const uint8_t* b, size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < n; i++) s += digits[b[i] >> 4], s += digits[b[i] & 15];
  return s;
}

uint64_t read_u64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v = (v << 8) | p[i];
  return v;
}

class Writer {
 public:
  // digest_block 0: no trailer (.vk files).
  Writer(const std::string& path, size_t digest_block)
      : path_(path), out_(path, std::ios::binary | std::ios::trunc), block_(digest_block) {
    if (!out_) throw std::runtime_error("cannot create " + path + ": " + std::strerror(errno));
    if (block_) pending_.reserve(block_);
  }
  void g1(const G1Affine& p) {
    uint8_t b[kG1];
    ec::g1_encode_uncompressed(p, b);
    put(b, kG1);
  }
  void g2(const G2Affine& p) {
    uint8_t b[kG2];
    ec::g2_encode_uncompressed(p, b);
    put(b, kG2);
  }
  void count(size_t n) {
    if (n > UINT32_MAX) throw std::invalid_argument("parameter section larger than 2^32 points");
    const uint8_t b[4] = {uint8_t(n >> 24), uint8_t(n >> 16), uint8_t(n >> 8), uint8_t(n)};
    put(b, 4);
  }
  template <class Pt, class F>
  void section(const std::vector<Pt>& pts, F put_point) {
    count(pts.size());
    for (const Pt& p : pts) put_point(p);
  }
  void finish() {
    if (block_) {
      if (!pending_.empty()) hash_pending();
      uint8_t trailer[kParamDigestTrailerBytes];
      std::memcpy(trailer, kTrailerMagic, 16);
      for (int i = 0; i < 8; i++) trailer[16 + i] = uint8_t(uint64_t(block_) >> (56 - 8 * i));
      sha256(block_digests_.data(), block_digests_.size(), trailer + 24);
      out_.write(reinterpret_cast<const char*>(trailer), sizeof trailer);
    }
    out_.flush();
    if (!out_) throw std::runtime_error("writing " + path_ + " failed: " + std::strerror(errno));
  }

 private:
  void put(const uint8_t* b, size_t n) {
    out_.write(reinterpret_cast<const char*>(b), std::streamsize(n));
    while (block_ && n) {
      size_t take = std::min(n, block_ - pending_.size());
      pending_.insert(pending_.end(), b, b + take);
      b += take, n -= take;
      if (pending_.size() == block_) hash_pending();
    }
  }
  void hash_pending() {
    uint8_t d[32];
    sha256(pending_.data(), pending_.size(), d);
    block_digests_.insert(block_digests_.end(), d, d + 32);
    pending_.clear();
  }
  std::string path_;
  std::ofstream out_;
  size_t block_;
  std::vector<uint8_t> pending_, block_digests_;
};

void write_vk(Writer& w, const VerifyingKey& vk) {
  w.g1(vk.alpha_g1);
  w.g1(vk.beta_g1);
  w.g2(vk.beta_g2);
  w.g2(vk.gamma_g2);
  w.g1(vk.delta_g1);
  w.g2(vk.delta_g2);
  w.section(vk.ic, [&](const G1Affine& p) { w.g1(p); });
}

// Decoding of one point with the error naming where it is.
template <class Affine, class Decode>
Affine decode_point(const std::string& path, const char* section, size_t index, const uint8_t* bytes, size_t len,
                    Decode decode, ReadMode mode) {
  Affine p;
  const ec::PointCheck check = mode == ReadMode::kChecked ? ec::PointCheck::kFull : ec::PointCheck::kNone;
  ec::DecodeError e = decode(std::span<const uint8_t>(bytes, len), p, check);
  if (e == ec::DecodeError::kOk && p.is_infinity()) {
    throw std::runtime_error(path + ": " + section + " point " + std::to_string(index) + " is the point at infinity");
  }
  if (e != ec::DecodeError::kOk) {
    throw std::runtime_error(path + ": " + section + " point " + std::to_string(index) + ": " + ec::describe(e));
  }
  return p;
}

G1Affine g1_at(const std::string& path, const char* section, size_t index, const uint8_t* b, ReadMode mode) {
  return decode_point<G1Affine>(path, section, index, b, kG1, ec::g1_decode_uncompressed, mode);
}
G2Affine g2_at(const std::string& path, const char* section, size_t index, const uint8_t* b, ReadMode mode) {
  return decode_point<G2Affine>(path, section, index, b, kG2, ec::g2_decode_uncompressed, mode);
}

uint32_t read_u32(const uint8_t* p) {
  return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | uint32_t(p[3]);
}

int64_t ns(const timespec& t) { return int64_t(t.tv_sec) * 1'000'000'000 + t.tv_nsec; }

// Room kept before each chunk for the bytes of a point cut by the previous chunk's end (the
// fixed fields at most, since a chunk is at least 4096 bytes).
constexpr size_t kCarryRoom = 1024;
static_assert(kCarryRoom >= kVkFixedBytes && kCarryRoom >= kG2);

}  // namespace

size_t parameters_file_size(const Parameters& p) {
  return kVkFixedBytes + 6 * 4 + kG1 * (p.vk.ic.size() + p.h.size() + p.l.size() + p.a.size() + p.b_g1.size()) +
         kG2 * p.b_g2.size() + kParamDigestTrailerBytes;
}

void write_parameters(const Parameters& params, const std::string& path, size_t digest_block) {
  if (digest_block == 0) throw std::invalid_argument("write_parameters: the digest block size must not be 0");
  Writer w(path, digest_block);
  write_vk(w, params.vk);
  for (const auto* s : {&params.h, &params.l, &params.a, &params.b_g1}) {
    w.section(*s, [&](const G1Affine& p) { w.g1(p); });
  }
  w.section(params.b_g2, [&](const G2Affine& p) { w.g2(p); });
  w.finish();
}

void write_verifying_key(const VerifyingKey& vk, const std::string& path) {
  Writer w(path, 0);
  write_vk(w, vk);
  w.finish();
}

ParameterFile ParameterFile::open(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("cannot open " + path + ": " + std::strerror(errno));
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    throw std::runtime_error("cannot stat " + path + ": " + std::strerror(err));
  }
  const size_t size = size_t(st.st_size);
  ParameterFile f(path, fd, size);  // owns fd from here
  f.mtime_ns_ = ns(st.st_mtim);
  f.ctime_ns_ = ns(st.st_ctim);
  f.inode_ = uint64_t(st.st_ino);
  // Reads of the header fields; the file may shrink under us here too.
  auto read_at = [&](size_t offset, uint8_t* out, size_t len) {
    ssize_t got = pread(fd, out, len, off_t(offset));
    if (got != ssize_t(len)) {
      throw std::runtime_error(path + ": changed or truncated while loading (could not read " + std::to_string(len) +
                               " bytes at offset " + std::to_string(offset) + " of " + std::to_string(size) + ")");
    }
  };
  // Walk the section headers; each count must fit in what remains of the file.
  size_t pos = kVkFixedBytes;
  for (int s = 0; s < 6; s++) {
    const size_t width = s == 5 ? kG2 : kG1;
    if (pos + 4 > size) {
      // A .vk file ends after ic.
      if (s == 1 && pos == size) {
        f.has_proving_key_ = false;
        break;
      }
      throw std::runtime_error(path + ": truncated before the " + std::string(kSectionNames[s]) + " count (" +
                               std::to_string(size) + " bytes)");
    }
    uint8_t b[4];
    read_at(pos, b, 4);
    const size_t count = read_u32(b);
    pos += 4;
    if (count > (size - pos) / width) {
      // Our trailer is not room for points.
      throw std::runtime_error(path + ": section " + kSectionNames[s] + " claims " + std::to_string(count) +
                               " points but only " + std::to_string((size - pos) / width) + " fit in the file");
    }
    f.sections_[s] = {pos, count};
    pos += count * width;
  }
  f.data_end_ = pos;
  if (pos != size) {
    uint8_t trailer[kParamDigestTrailerBytes];
    const bool room = size - pos >= sizeof trailer;
    if (room) read_at(pos, trailer, sizeof trailer);
    if (!room || std::memcmp(trailer, kTrailerMagic, 16) != 0) {
      throw std::runtime_error(path + ": " + std::to_string(size - pos) + " unexpected bytes after the last section");
    }
    if (size - pos != sizeof trailer) {
      throw std::runtime_error(path + ": " + std::to_string(size - pos - sizeof trailer) +
                               " unexpected bytes after the digest trailer");
    }
    f.digest_block_ = size_t(read_u64(trailer + 16));
    // Reading takes whole blocks at a time: a block size beyond 64 MiB is not one we write.
    if (f.digest_block_ == 0 || f.digest_block_ > (size_t(64) << 20)) {
      throw std::runtime_error(path + ": bad digest trailer (block size " + std::to_string(f.digest_block_) + ")");
    }
    std::memcpy(f.digest_, trailer + 24, 32);
  }
  return f;
}

ParameterFile::ParameterFile(std::string path, int fd, size_t size) : path_(std::move(path)), fd_(fd), size_(size) {}

ParameterFile::ParameterFile(ParameterFile&& o) noexcept
    : path_(std::move(o.path_)),
      fd_(o.fd_),
      size_(o.size_),
      mtime_ns_(o.mtime_ns_),
      ctime_ns_(o.ctime_ns_),
      inode_(o.inode_),
      has_proving_key_(o.has_proving_key_),
      data_end_(o.data_end_),
      digest_block_(o.digest_block_),
      chunk_bytes_(o.chunk_bytes_),
      read_hook_(std::move(o.read_hook_)) {
  std::copy(std::begin(o.digest_), std::end(o.digest_), digest_);
  std::copy(std::begin(o.sections_), std::end(o.sections_), sections_);
  o.fd_ = -1;
  o.size_ = 0;
}

ParameterFile::~ParameterFile() {
  if (fd_ >= 0) ::close(fd_);
}

// The file is read once from its start, chunk after chunk (the next read on another thread
// while this one decodes), into buffers of our own; a point cut by a chunk's end is carried over
// to the next chunk. Sections are decoded in file order: fixed fields, ic, h, l, a, b_g1, b_g2.
void ParameterFile::read_and_decode(ReadMode mode, int last, VerifyingKey* vk, Parameters* params) const {
  if (size_ < kVkFixedBytes) throw std::runtime_error(path_ + ": too short for a verifying key");
  const size_t end = last == 5 ? data_end_ : sections_[last].offset + sections_[last].count * kG1;
  const bool digest = last == 5 && digest_block_ != 0;
  size_t chunk = std::max<size_t>(chunk_bytes_, 4096);
  if (digest_block_) chunk = std::max<size_t>(1, chunk / digest_block_) * digest_block_;  // whole blocks
  const size_t chunk_cap = std::min(chunk, end);

  std::vector<G1Affine>* g1_out[5] = {&vk->ic, nullptr, nullptr, nullptr, nullptr};
  if (params) g1_out[1] = &params->h, g1_out[2] = &params->l, g1_out[3] = &params->a, g1_out[4] = &params->b_g1;
  for (int s = 0; s <= last && s < 5; s++) g1_out[s]->resize(sections_[s].count);
  if (last == 5) params->b_g2.resize(sections_[5].count);

  std::vector<uint8_t> buffers[2];
  for (auto& b : buffers) b.resize(kCarryRoom + chunk_cap);
  std::vector<uint8_t> block_digests;
  if (digest) block_digests.resize(32 * ((data_end_ + digest_block_ - 1) / digest_block_));

  auto read_chunk = [this](uint8_t* out, size_t offset, size_t len) {
    if (read_hook_) read_hook_(offset);
    size_t done = 0;
    while (done < len) {
      ssize_t got = pread(fd_, out + done, len - done, off_t(offset + done));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) {
        throw std::runtime_error("cannot read " + path_ + " at offset " + std::to_string(offset + done) + ": " +
                                 std::strerror(errno));
      }
      if (got == 0) {
        throw std::runtime_error(path_ + ": changed or truncated while loading (it ended at " +
                                 std::to_string(offset + done) + " bytes of " + std::to_string(size_) +
                                 "); it was probably replaced in place: load it again once it is complete");
      }
      done += size_t(got);
    }
  };

  int stage = -1;   // -1: the fixed fields; then sections 0..last
  size_t next = 0;  // the next point of the stage's section
  size_t carry_begin = 0, carry_len = 0;
  size_t read_pos = 0;
  int cur = 0;
  size_t len = std::min(chunk_cap, end);
  std::future<void> pending = std::async(std::launch::async, read_chunk, buffers[cur].data() + kCarryRoom, 0, len);
  while (true) {
    pending.get();
    const size_t chunk_begin = read_pos, chunk_end = read_pos + len;
    read_pos = chunk_end;
    // Start the next read before decoding this chunk (into the other buffer).
    const size_t next_len = std::min(chunk_cap, end - read_pos);
    if (next_len) {
      pending = std::async(std::launch::async, read_chunk, buffers[1 - cur].data() + kCarryRoom, read_pos, next_len);
    }
    uint8_t* chunk_data = buffers[cur].data() + kCarryRoom;
    // The window: carried bytes (moved just before the chunk) then the chunk.
    const size_t win_begin = carry_len ? carry_begin : chunk_begin;
    const uint8_t* win = chunk_data - (chunk_begin - win_begin);
    auto at = [&](size_t offset) { return win + (offset - win_begin); };

    tbb::task_group hashing;
    if (digest) {
      hashing.run([&] {
        const size_t first = chunk_begin / digest_block_, count = (len + digest_block_ - 1) / digest_block_;
        tbb::parallel_for(size_t(0), count, [&](size_t k) {
          const size_t off = (first + k) * digest_block_;
          sha256(chunk_data + (off - chunk_begin), std::min(digest_block_, chunk_end - off),
                 block_digests.data() + 32 * (first + k));
        });
      });
    }
    try {
      while (stage <= last) {
        if (stage == -1) {
          if (chunk_end < kVkFixedBytes) break;
          const uint8_t* p = at(0);
          vk->alpha_g1 = g1_at(path_, "alpha_g1", 0, p, mode);
          vk->beta_g1 = g1_at(path_, "beta_g1", 0, p + kG1, mode);
          vk->beta_g2 = g2_at(path_, "beta_g2", 0, p + 2 * kG1, mode);
          vk->gamma_g2 = g2_at(path_, "gamma_g2", 0, p + 2 * kG1 + kG2, mode);
          vk->delta_g1 = g1_at(path_, "delta_g1", 0, p + 2 * kG1 + 2 * kG2, mode);
          vk->delta_g2 = g2_at(path_, "delta_g2", 0, p + 3 * kG1 + 2 * kG2, mode);
          stage = 0, next = 0;
          continue;
        }
        const Section& sec = sections_[stage];
        const size_t width = stage == 5 ? kG2 : kG1;
        const size_t from = sec.offset + next * width;
        const size_t n = std::min(sec.count - next, chunk_end > from ? (chunk_end - from) / width : 0);
        if (n) {
          const char* name = kSectionNames[stage];
          const size_t first = next;
          if (stage == 5) {
            G2Affine* out = params->b_g2.data();
            tbb::parallel_for(tbb::blocked_range<size_t>(0, n, 1024), [&](const auto& r) {
              for (size_t i = r.begin(); i < r.end(); i++) {
                out[first + i] = g2_at(path_, name, first + i, at(from + i * width), mode);
              }
            });
          } else {
            G1Affine* out = g1_out[stage]->data();
            tbb::parallel_for(tbb::blocked_range<size_t>(0, n, 1024), [&](const auto& r) {
              for (size_t i = r.begin(); i < r.end(); i++) {
                out[first + i] = g1_at(path_, name, first + i, at(from + i * width), mode);
              }
            });
          }
          next += n;
        }
        if (next < sec.count) break;  // the rest is in later chunks
        stage++, next = 0;
      }
    } catch (...) {
      hashing.wait();
      if (pending.valid()) pending.wait();
      throw;
    }
    hashing.wait();
    if (stage > last || read_pos >= end) break;
    // Bytes of a point cut by this chunk's end go just before the next chunk.
    const size_t resume = stage == -1 ? 0 : sections_[stage].offset + next * (stage == 5 ? kG2 : kG1);
    carry_len = resume < chunk_end ? chunk_end - resume : 0;
    carry_begin = resume;
    if (carry_len) std::memmove(buffers[1 - cur].data() + kCarryRoom - carry_len, at(resume), carry_len);
    cur = 1 - cur;
    len = next_len;
  }
  if (pending.valid()) pending.get();
  if (stage <= last) {
    throw std::runtime_error(path_ + ": changed or truncated while loading (sections end before their points)");
  }
  // A file rewritten in place (cp over it) may keep its size: its times tell.
  struct stat st {};
  if (fstat(fd_, &st) != 0 || size_t(st.st_size) != size_ || ns(st.st_mtim) != mtime_ns_ ||
      ns(st.st_ctim) != ctime_ns_ || uint64_t(st.st_ino) != inode_) {
    throw std::runtime_error(path_ +
                             ": changed or truncated while loading (its size or modification time changed); "
                             "load it again once it is complete");
  }
  if (digest) {
    uint8_t got[32];
    sha256(block_digests.data(), block_digests.size(), got);
    if (std::memcmp(got, digest_, 32) != 0) {
      throw std::runtime_error(path_ + ": corrupt: its contents digest to " + hex(got, 32) +
                               " but it was written with digest " + hex(digest_, 32) +
                               " (its trailer); delete it so that it is set up or fetched again");
    }
  }
}

VerifyingKey ParameterFile::decode_verifying_key(ReadMode mode) const {
  VerifyingKey vk;
  read_and_decode(mode, 0, &vk, nullptr);
  return vk;
}

Parameters ParameterFile::decode(ReadMode mode) const {
  if (!has_proving_key_) throw std::runtime_error(path_ + ": holds only a verifying key, not proving parameters");
  Parameters p;
  read_and_decode(mode, 5, &p.vk, &p);
  return p;
}

VerifyingKey read_verifying_key(const std::string& path, ReadMode mode) {
  return ParameterFile::open(path).decode_verifying_key(mode);
}

Parameters read_own_parameters(const std::string& path) {
  ParameterFile f = ParameterFile::open(path);
  if (!f.has_digest()) {
    throw std::runtime_error(path +
                             ": no digest trailer, so not a whole file of cuzk's own setup (cut short, or "
                             "changed by something else); it is not used: delete it to have the set made again");
  }
  return f.decode(ReadMode::kUnchecked);  // the trailer's digest covers every byte
}

}  // namespace cuzk::groth16

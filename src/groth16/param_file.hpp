// Parameter files in bellperson's layout:
//   alpha_g1, beta_g1, beta_g2, gamma_g2, delta_g1, delta_g2,      (uncompressed points)
//   ic, h, l, a, b_g1, b_g2                                         (u32 big-endian count + points)
// G1 points take 96 bytes, G2 points 192. A .vk file is the first seven fields.
// Points at infinity are rejected on read, as bellperson does.
//
// Files we write (our own setups: synthetic and TEST parameters) end with a digest trailer that
// reading checks, so a corrupt cache file is refused when loaded instead of making wrong proofs:
//   "cuzk-params-sha2" (16 bytes), block size (u64 big-endian), digest (32 bytes)
// where digest = SHA-256 of the SHA-256 of each block of the bytes before the trailer (blocks
// hash in parallel). Filecoin's published files have no trailer; parameters.json checks them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "ec/encoding.hpp"
#include "groth16/parameters.hpp"

namespace cuzk::groth16 {

// kChecked: every point on the curve and in its subgroup (untrusted files);
// kUnchecked: only the field range is checked (files produced by a trusted pipeline).
enum class ReadMode { kChecked, kUnchecked };

// The block size of the digest trailer write_parameters adds.
inline constexpr size_t kParamDigestBlock = size_t(1) << 20;
inline constexpr size_t kParamDigestTrailerBytes = 16 + 8 + 32;

// With the digest trailer (digest_block: tests make small files of several blocks).
void write_parameters(const Parameters& params, const std::string& path, size_t digest_block = kParamDigestBlock);
void write_verifying_key(const VerifyingKey& vk, const std::string& path);
// Serialised sizes in bytes (of write_parameters' file, its trailer included).
size_t parameters_file_size(const Parameters& params);

// A parameter file, read with pread() into buffers of our own: a file truncated or rewritten
// while it loads gives an error, never SIGBUS (as decoding from a shared mapping did). open()
// checks the structure (every section's count against the file size) without decoding points;
// decode() then reads the file once, in large chunks (the next one read while this one decodes),
// and decodes each chunk's points in parallel. Errors are std::runtime_error naming the file, the
// section, the point index and the reason; a file that changed while it was read says "changed
// or truncated while loading"; a digest trailer that does not match says both digests.
class ParameterFile {
 public:
  static ParameterFile open(const std::string& path);
  ~ParameterFile();
  ParameterFile(ParameterFile&& other) noexcept;
  ParameterFile& operator=(ParameterFile&&) = delete;
  ParameterFile(const ParameterFile&) = delete;

  struct Section {
    size_t offset = 0;  // of the first point
    size_t count = 0;
  };
  const Section& ic() const { return sections_[0]; }
  const Section& h() const { return sections_[1]; }
  const Section& l() const { return sections_[2]; }
  const Section& a() const { return sections_[3]; }
  const Section& b_g1() const { return sections_[4]; }
  const Section& b_g2() const { return sections_[5]; }
  size_t size() const { return size_; }
  // False for a .vk file (it ends after ic).
  bool has_proving_key() const { return has_proving_key_; }
  // Whether the file ends with our digest trailer (then decode() checks it).
  bool has_digest() const { return digest_block_ != 0; }

  VerifyingKey decode_verifying_key(ReadMode mode) const;
  Parameters decode(ReadMode mode) const;

  // Bytes read at a time (rounded to whole digest blocks; at least 4096). Default 64 MiB.
  void set_chunk_bytes(size_t bytes) { chunk_bytes_ = bytes; }
  // Called before each read with its file offset, on the reading thread: tests change the file there.
  void set_read_hook(std::function<void(size_t offset)> hook) { read_hook_ = std::move(hook); }

 private:
  ParameterFile(std::string path, int fd, size_t size);
  // Reads [0, end) in chunks, decoding up to the section `last` (inclusive) into out.
  void read_and_decode(ReadMode mode, int last, VerifyingKey* vk, Parameters* params) const;
  std::string path_;
  int fd_ = -1;
  size_t size_ = 0;
  int64_t mtime_ns_ = 0, ctime_ns_ = 0;  // to tell whether the file changed while it was read
  uint64_t inode_ = 0;
  bool has_proving_key_ = true;
  size_t data_end_ = 0;      // where the sections end (the trailer, if any, follows)
  size_t digest_block_ = 0;  // 0: no trailer
  uint8_t digest_[32] = {};
  size_t chunk_bytes_ = size_t(64) << 20;
  std::function<void(size_t)> read_hook_;
  Section sections_[6];
};

// A .vk file (the verifying key alone).
VerifyingKey read_verifying_key(const std::string& path, ReadMode mode = ReadMode::kChecked);

// A parameter file of cuzk's own setups (synthetic, TEST): used only whole, with a digest trailer
// that matches its bytes; std::runtime_error naming the file otherwise.
Parameters read_own_parameters(const std::string& path);

}  // namespace cuzk::groth16

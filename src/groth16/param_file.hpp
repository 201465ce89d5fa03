// Parameter files in bellperson's layout:
//   alpha_g1, beta_g1, beta_g2, gamma_g2, delta_g1, delta_g2,      (uncompressed points)
//   ic, h, l, a, b_g1, b_g2                                         (u32 big-endian count + points)
// G1 points take 96 bytes, G2 points 192. A .vk file is the first seven fields.
// Points at infinity are rejected on read, as bellperson does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "ec/encoding.hpp"
#include "groth16/parameters.hpp"

namespace cuzk::groth16 {

// kChecked: every point on the curve and in its subgroup (untrusted files);
// kUnchecked: only the field range is checked (files produced by a trusted pipeline).
enum class ReadMode { kChecked, kUnchecked };

void write_parameters(const Parameters& params, const std::string& path);
void write_verifying_key(const VerifyingKey& vk, const std::string& path);
// Serialised sizes in bytes.
size_t parameters_file_size(const Parameters& params);

// A memory-mapped parameter file. open() maps the file and checks its structure (every
// section's count against the file size) without decoding points; decode() then decodes all
// sections in parallel. Errors are std::runtime_error naming the file, the section, the point
// index and the reason.
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

  VerifyingKey decode_verifying_key(ReadMode mode) const;
  Parameters decode(ReadMode mode) const;

 private:
  ParameterFile(std::string path, const uint8_t* data, size_t size);
  std::string path_;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  bool has_proving_key_ = true;
  Section sections_[6];
};

// A .vk file (the verifying key alone).
VerifyingKey read_verifying_key(const std::string& path, ReadMode mode = ReadMode::kChecked);

}  // namespace cuzk::groth16

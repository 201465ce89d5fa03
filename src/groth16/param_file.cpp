#include "groth16/param_file.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <stdexcept>
#include <sys/mman.h>
#include <sys/stat.h>
#include <tbb/parallel_for.h>
#include <unistd.h>
#include <vector>

namespace cuzk::groth16 {
namespace {

constexpr size_t kG1 = ec::kG1UncompressedBytes;
constexpr size_t kG2 = ec::kG2UncompressedBytes;
constexpr size_t kVkFixedBytes = 3 * kG1 + 3 * kG2;  // alpha, beta, delta in G1; beta, gamma, delta in G2
const char* const kSectionNames[6] = {"ic", "h", "l", "a", "b_g1", "b_g2"};

class Writer {
 public:
  explicit Writer(const std::string& path) : path_(path), out_(path, std::ios::binary | std::ios::trunc) {
    if (!out_) throw std::runtime_error("cannot create " + path + ": " + std::strerror(errno));
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
    out_.flush();
    if (!out_) throw std::runtime_error("writing " + path_ + " failed: " + std::strerror(errno));
  }

 private:
  void put(const uint8_t* b, size_t n) { out_.write(reinterpret_cast<const char*>(b), std::streamsize(n)); }
  std::string path_;
  std::ofstream out_;
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

template <class Affine, class At>
std::vector<Affine> decode_section(const uint8_t* data, const ParameterFile::Section& s, size_t width, At at) {
  std::vector<Affine> out(s.count);
  tbb::parallel_for(tbb::blocked_range<size_t>(0, s.count, 1024), [&](const auto& r) {
    for (size_t i = r.begin(); i < r.end(); i++) out[i] = at(i, data + s.offset + i * width);
  });
  return out;
}

uint32_t read_u32(const uint8_t* p) {
  return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | uint32_t(p[3]);
}

}  // namespace

size_t parameters_file_size(const Parameters& p) {
  return kVkFixedBytes + 6 * 4 + kG1 * (p.vk.ic.size() + p.h.size() + p.l.size() + p.a.size() + p.b_g1.size()) +
         kG2 * p.b_g2.size();
}

void write_parameters(const Parameters& params, const std::string& path) {
  Writer w(path);
  write_vk(w, params.vk);
  for (const auto* s : {&params.h, &params.l, &params.a, &params.b_g1}) {
    w.section(*s, [&](const G1Affine& p) { w.g1(p); });
  }
  w.section(params.b_g2, [&](const G2Affine& p) { w.g2(p); });
  w.finish();
}

void write_verifying_key(const VerifyingKey& vk, const std::string& path) {
  Writer w(path);
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
  void* map = size ? mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0) : nullptr;
  const int map_err = errno;
  ::close(fd);
  if (size && map == MAP_FAILED) throw std::runtime_error("cannot map " + path + ": " + std::strerror(map_err));
  ParameterFile f(path, static_cast<const uint8_t*>(map), size);
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
    const size_t count = read_u32(f.data_ + pos);
    pos += 4;
    if (count > (size - pos) / width) {
      throw std::runtime_error(path + ": section " + kSectionNames[s] + " claims " + std::to_string(count) +
                               " points but only " + std::to_string((size - pos) / width) + " fit in the file");
    }
    f.sections_[s] = {pos, count};
    pos += count * width;
  }
  if (pos != size) {
    throw std::runtime_error(path + ": " + std::to_string(size - pos) + " unexpected bytes after the last section");
  }
  return f;
}

ParameterFile::ParameterFile(std::string path, const uint8_t* data, size_t size)
    : path_(std::move(path)), data_(data), size_(size) {}

ParameterFile::ParameterFile(ParameterFile&& o) noexcept
    : path_(std::move(o.path_)), data_(o.data_), size_(o.size_), has_proving_key_(o.has_proving_key_) {
  std::copy(std::begin(o.sections_), std::end(o.sections_), sections_);
  o.data_ = nullptr;
  o.size_ = 0;
}

ParameterFile::~ParameterFile() {
  if (data_) munmap(const_cast<uint8_t*>(data_), size_);
}

VerifyingKey ParameterFile::decode_verifying_key(ReadMode mode) const {
  if (size_ < kVkFixedBytes) throw std::runtime_error(path_ + ": too short for a verifying key");
  VerifyingKey vk;
  const uint8_t* p = data_;
  vk.alpha_g1 = g1_at(path_, "alpha_g1", 0, p, mode);
  vk.beta_g1 = g1_at(path_, "beta_g1", 0, p + kG1, mode);
  vk.beta_g2 = g2_at(path_, "beta_g2", 0, p + 2 * kG1, mode);
  vk.gamma_g2 = g2_at(path_, "gamma_g2", 0, p + 2 * kG1 + kG2, mode);
  vk.delta_g1 = g1_at(path_, "delta_g1", 0, p + 2 * kG1 + 2 * kG2, mode);
  vk.delta_g2 = g2_at(path_, "delta_g2", 0, p + 3 * kG1 + 2 * kG2, mode);
  vk.ic = decode_section<G1Affine>(data_, ic(), kG1,
                                   [&](size_t i, const uint8_t* b) { return g1_at(path_, "ic", i, b, mode); });
  return vk;
}

Parameters ParameterFile::decode(ReadMode mode) const {
  if (!has_proving_key_) throw std::runtime_error(path_ + ": holds only a verifying key, not proving parameters");
  Parameters p;
  p.vk = decode_verifying_key(mode);
  auto g1_section = [&](int s) {
    return decode_section<G1Affine>(data_, sections_[s], kG1, [&](size_t i, const uint8_t* b) {
      return g1_at(path_, kSectionNames[s], i, b, mode);
    });
  };
  p.h = g1_section(1);
  p.l = g1_section(2);
  p.a = g1_section(3);
  p.b_g1 = g1_section(4);
  p.b_g2 = decode_section<G2Affine>(data_, b_g2(), kG2,
                                    [&](size_t i, const uint8_t* b) { return g2_at(path_, "b_g2", i, b, mode); });
  return p;
}

VerifyingKey read_verifying_key(const std::string& path, ReadMode mode) {
  return ParameterFile::open(path).decode_verifying_key(mode);
}

}  // namespace cuzk::groth16

// Fuzz target: the parameter file and .vk readers (groth16/param_file). The first byte picks the
// reader and the chunk size (so chunk and digest-block boundaries fall anywhere); the rest is the
// file, handed over as an in-memory file. Oracle: whatever reads with every point checked writes
// back to the same bytes (our files' digest trailer included; Filecoin's files have none), so the
// reader accepts one encoding per value and loses nothing.
#include "groth16/param_file.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

#include "fuzz_check.hpp"

using namespace cuzk::groth16;

namespace {

// An anonymous in-memory file reachable by path (the readers take paths).
class MemFile {
 public:
  MemFile() : fd_(memfd_create("cuzk-fuzz-param", MFD_CLOEXEC)) {
    if (fd_ < 0) __builtin_trap();
  }
  ~MemFile() { close(fd_); }
  std::string path() const { return "/proc/self/fd/" + std::to_string(fd_); }
  void assign(const uint8_t* data, size_t size) {
    if (ftruncate(fd_, 0) != 0 || pwrite(fd_, data, size, 0) != ssize_t(size)) __builtin_trap();
  }
  std::vector<uint8_t> bytes() const {
    std::vector<uint8_t> out(size_t(lseek(fd_, 0, SEEK_END)));
    if (!out.empty() && pread(fd_, out.data(), out.size(), 0) != ssize_t(out.size())) __builtin_trap();
    return out;
  }

 private:
  int fd_;
};

bool same(const std::vector<uint8_t>& a, const uint8_t* b, size_t n) {
  return a.size() == n && (n == 0 || std::memcmp(a.data(), b, n) == 0);
}

// The digest block size of our trailer when the file ends with one (0 otherwise).
size_t trailer_block(const uint8_t* data, size_t size) {
  static const char magic[16] = {'c', 'u', 'z', 'k', '-', 'p', 'a', 'r', 'a', 'm', 's', '-', 's', 'h', 'a', '2'};
  if (size < kParamDigestTrailerBytes) return 0;
  const uint8_t* t = data + size - kParamDigestTrailerBytes;
  if (std::memcmp(t, magic, 16) != 0) return 0;
  uint64_t block = 0;
  for (int i = 0; i < 8; i++) block = (block << 8) | t[16 + i];
  return size_t(block);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t selector = data[0];
  const uint8_t* file = data + 1;
  const size_t file_size = size - 1;
  static MemFile in, out;
  in.assign(file, file_size);

  if (selector & 1) {  // the .vk reader
    VerifyingKey vk;
    try {
      vk = read_verifying_key(in.path());
    } catch (const std::runtime_error&) {
      return 0;
    }
    write_verifying_key(vk, out.path());
    // A full parameter file also reads as a verifying key: then the key is its prefix.
    auto again = out.bytes();
    CUZK_FUZZ_CHECK(again.size() <= file_size && std::memcmp(again.data(), file, again.size()) == 0);
    return 0;
  }

  Parameters params;
  bool proving_key = false;
  try {
    ParameterFile f = ParameterFile::open(in.path());
    f.set_chunk_bytes(size_t(4096) << (selector >> 1 & 3));
    proving_key = f.has_proving_key();
    if (!proving_key) return 0;  // a .vk file: the other selector's case
    params = f.decode(ReadMode::kChecked);
  } catch (const std::runtime_error&) {
    return 0;
  }
  const size_t block = trailer_block(file, file_size);
  write_parameters(params, out.path(), block ? block : kParamDigestBlock);
  auto again = out.bytes();
  if (block) {
    CUZK_FUZZ_CHECK(same(again, file, file_size));
  } else {
    // Filecoin's layout: the same bytes, then the trailer we always add.
    CUZK_FUZZ_CHECK(again.size() == file_size + kParamDigestTrailerBytes &&
                    std::memcmp(again.data(), file, file_size) == 0);
  }
  return 0;
}

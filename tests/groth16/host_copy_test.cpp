// The host pages of a parameter set's copy (groth16/cuda/host_copy.hpp): given back whole pages
// only, read as zeros until written, and mapped again on every core before a write-back, with
// nothing they hold changed. Host code: runs without a GPU.
#include "groth16/cuda/host_copy.hpp"

#include <cstdint>
#include <cstring>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

#include <gtest/gtest.h>

namespace cuzk::groth16::cuda {
namespace {

const size_t kPage = size_t(sysconf(_SC_PAGESIZE));

// An anonymous mapping, as a large vector's storage is.
struct Mapping {
  explicit Mapping(size_t bytes) : size(bytes) {
    data = static_cast<unsigned char*>(mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  }
  ~Mapping() { munmap(data, size); }
  // Pages of [from, from + bytes) that are in memory, by mincore.
  size_t resident_pages(size_t from, size_t bytes) const {
    std::vector<unsigned char> in((bytes + kPage - 1) / kPage);
    EXPECT_EQ(mincore(data + from, bytes, in.data()), 0);
    size_t n = 0;
    for (unsigned char v : in) n += v & 1;
    return n;
  }
  unsigned char* data;
  size_t size;
};

void fill(unsigned char* p, size_t bytes) {
  for (size_t i = 0; i < bytes; ++i) p[i] = static_cast<unsigned char>(i * 131 + 7) | 1;  // never 0
}

TEST(HostCopyTest, PagesGivenBackReadZerosAndTheEdgesKeepTheirBytes) {
  const size_t pages = 64, bytes = pages * kPage;
  Mapping m(bytes);
  ASSERT_NE(m.data, MAP_FAILED);
  fill(m.data, bytes);
  // A range that starts and ends inside a page: those two partial pages stay.
  const size_t from = 100, len = bytes - 300;
  EXPECT_EQ(discard_host_pages(m.data + from, len), (pages - 2) * kPage);
  EXPECT_EQ(m.resident_pages(kPage, (pages - 2) * kPage), 0u) << "the whole pages inside are given back";
  std::vector<unsigned char> want(bytes);
  fill(want.data(), bytes);
  std::memset(want.data() + kPage, 0, (pages - 2) * kPage);
  EXPECT_EQ(std::memcmp(m.data, want.data(), bytes), 0);
  EXPECT_EQ(discard_host_pages(nullptr, bytes), 0u);
  EXPECT_EQ(discard_host_pages(m.data + 1, kPage), 0u) << "no whole page inside";
}

TEST(HostCopyTest, PopulatedPagesAreMappedAndHoldWhatTheyHeld) {
  // More than one of populate's 64 MiB chunks, so that several cores share it.
  const size_t bytes = (size_t(160) << 20) + 3 * kPage;
  Mapping m(bytes);
  ASSERT_NE(m.data, MAP_FAILED);
  fill(m.data, bytes);
  const size_t from = 10, len = bytes - 20, inner = bytes - 2 * kPage;
  ASSERT_EQ(discard_host_pages(m.data + from, len), inner);
  ASSERT_EQ(m.resident_pages(kPage, inner), 0u);

  populate_host_pages(m.data + from, len);
  EXPECT_EQ(m.resident_pages(kPage, inner), inner / kPage) << "every given-back page mapped again";
  std::vector<unsigned char> want(bytes);
  fill(want.data(), bytes);
  std::memset(want.data() + kPage, 0, inner);
  EXPECT_EQ(std::memcmp(m.data, want.data(), bytes), 0) << "zeros inside, the edges' bytes kept";

  // On pages that hold data, populating changes nothing.
  fill(m.data, bytes);
  populate_host_pages(m.data, bytes);
  fill(want.data(), bytes);
  EXPECT_EQ(std::memcmp(m.data, want.data(), bytes), 0);
  populate_host_pages(nullptr, bytes);  // nothing to do
}

}  // namespace
}  // namespace cuzk::groth16::cuda

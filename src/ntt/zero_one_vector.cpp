#include "ntt/zero_one_vector.hpp"

#include <algorithm>
#include <iterator>
#include <new>
#include <stdexcept>
#include <string>
#include <sys/mman.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

namespace cuzk::ntt {
namespace {

// 0, 1 or 2 without branches: the kinds are random in a PoRep vector, so compares that branch
// mispredict on most entries (measured: 4x slower than this over a 1 GiB vector).
inline uint32_t kind_of(const Fr& x) {
  constexpr Fr one = Fr::one();
  uint64_t any = 0, diff = 0;
  for (size_t j = 0; j < std::size(x.mont.limb); j++) {
    any |= x.mont.limb[j];
    diff |= x.mont.limb[j] ^ one.mont.limb[j];
  }
  const uint32_t zero = any == 0, is_one = diff == 0;
  return ZeroOneVector::kOther - 2 * zero - is_one;  // 2, or 0 for zero, 1 for one
}

constexpr size_t kLargeBytes = size_t(32) << 20;
constexpr size_t kHugePage = size_t(2) << 20;

size_t mapped_bytes(size_t bytes) { return (bytes + kHugePage - 1) / kHugePage * kHugePage; }

}  // namespace

void* allocate_large(size_t bytes) {
  if (bytes < kLargeBytes) return ::operator new(bytes);
  // Map one huge page more than needed and trim it, so the block starts on a huge page.
  const size_t length = mapped_bytes(bytes);
  void* raw = mmap(nullptr, length + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  const auto start = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t aligned = (start + kHugePage - 1) / kHugePage * kHugePage;
  if (aligned > start) munmap(raw, aligned - start);
  if (const uintptr_t end = start + length + kHugePage; end > aligned + length) {
    munmap(reinterpret_cast<void*>(aligned + length), end - (aligned + length));
  }
  madvise(reinterpret_cast<void*>(aligned), length, MADV_HUGEPAGE);  // a hint: ignored where unsupported
  return reinterpret_cast<void*>(aligned);
}

void deallocate_large(void* p, size_t bytes) noexcept {
  if (!p) return;
  if (bytes < kLargeBytes) {
    ::operator delete(p);
    return;
  }
  munmap(p, mapped_bytes(bytes));
}

size_t ZeroOneVector::bytes() const {
  return kinds.capacity() * sizeof(uint32_t) + chunk_offsets.capacity() * sizeof(uint32_t) +
         others.capacity() * sizeof(Fr);
}

size_t ZeroOneVector::bytes_for(size_t n, size_t m) {
  const size_t chunks = (n + kChunk - 1) / kChunk;
  return chunks * kWordsPerChunk * sizeof(uint32_t) + (chunks + 1) * sizeof(uint32_t) + m * sizeof(Fr);
}

std::optional<ZeroOneVector> ZeroOneVector::compress(std::span<const Fr> v, double max_other_share) {
  ZeroOneVector out;
  if (!compress_into(v, out, max_other_share)) return std::nullopt;
  return out;
}

bool ZeroOneVector::compress_into(std::span<const Fr> v, ZeroOneVector& out, double max_other_share,
                                  const std::function<void(size_t kind_words, size_t others)>& before_fill) {
  if (v.size() > UINT32_MAX) {
    throw std::invalid_argument("ZeroOneVector: " + std::to_string(v.size()) + " entries exceed 2^32 - 1");
  }
  out.size = v.size();
  const size_t chunks = out.chunks();
  // Pass 1: the others in each chunk (and so every chunk's offset), before anything is written.
  out.chunk_offsets.assign(chunks + 1, 0);
  tbb::parallel_for(tbb::blocked_range<size_t>(0, chunks), [&](const tbb::blocked_range<size_t>& r) {
    for (size_t k = r.begin(); k < r.end(); k++) {
      const size_t end = std::min(v.size(), (k + 1) * kChunk);
      uint32_t count = 0;
      for (size_t i = k * kChunk; i < end; i++) count += kind_of(v[i]) == kOther;
      out.chunk_offsets[k + 1] = count;
    }
  });
  for (size_t k = 0; k < chunks; k++) out.chunk_offsets[k + 1] += out.chunk_offsets[k];
  const size_t m = out.chunk_offsets[chunks];
  if (double(m) > max_other_share * double(v.size())) {
    out.size = 0;
    std::vector<uint32_t>().swap(out.chunk_offsets);  // small: freed; the large arrays keep their memory
    out.kinds.clear();
    out.others.clear();
    return false;
  }
  if (before_fill) before_fill(chunks * kWordsPerChunk, m);
  // Pass 2: kinds and others, each chunk into its own words and its own run of others. Every
  // word and every other entry is written here, so neither array is zero-filled first (a serial
  // fill of ~1 GB at 2^27). The others of a chunk are gathered with unconditional stores into a
  // per-thread buffer, then copied to their run.
  out.kinds.resize(chunks * kWordsPerChunk);
  out.others.resize(m);
  tbb::parallel_for(tbb::blocked_range<size_t>(0, chunks), [&](const tbb::blocked_range<size_t>& r) {
    std::vector<Fr> gathered(kChunk + 1);
    for (size_t k = r.begin(); k < r.end(); k++) {
      const size_t begin = k * kChunk, end = std::min(v.size(), begin + kChunk);
      size_t count = 0;
      for (size_t w = 0; w < kWordsPerChunk; w++) {
        uint32_t word = 0;
        const size_t first = begin + w * kKindsPerWord;
        for (size_t j = 0; j < kKindsPerWord && first + j < end; j++) {
          const uint32_t kind = kind_of(v[first + j]);
          word |= kind << (2 * j);
          gathered[count] = v[first + j];
          count += kind == kOther;
        }
        out.kinds[k * kWordsPerChunk + w] = word;
      }
      std::copy_n(gathered.begin(), count, out.others.begin() + out.chunk_offsets[k]);
    }
  });
  return true;
}

std::vector<Fr> ZeroOneVector::expand() const {
  std::vector<Fr> v(size);
  size_t next = 0;
  for (size_t i = 0; i < size; i++) {
    switch ((kinds[i / kKindsPerWord] >> (2 * (i % kKindsPerWord))) & 3) {
      case kZero:
        v[i] = Fr::zero();
        break;
      case kOne:
        v[i] = Fr::one();
        break;
      default:
        v[i] = others.at(next++);
    }
  }
  return v;
}

}  // namespace cuzk::ntt

#include "ntt/zero_one_vector.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

namespace cuzk::ntt {
namespace {

uint32_t kind_of(const Fr& x) {
  if (x.is_zero()) return ZeroOneVector::kZero;
  return x == Fr::one() ? ZeroOneVector::kOne : ZeroOneVector::kOther;
}

}  // namespace

size_t ZeroOneVector::bytes() const {
  return kinds.capacity() * sizeof(uint32_t) + chunk_offsets.capacity() * sizeof(uint32_t) +
         others.capacity() * sizeof(Fr);
}

size_t ZeroOneVector::bytes_for(size_t n, size_t m) {
  const size_t chunks = (n + kChunk - 1) / kChunk;
  return chunks * kWordsPerChunk * sizeof(uint32_t) + (chunks + 1) * sizeof(uint32_t) + m * sizeof(Fr);
}

std::optional<ZeroOneVector> ZeroOneVector::compress(std::span<const Fr> v, double max_other_share) {
  if (v.size() > UINT32_MAX) {
    throw std::invalid_argument("ZeroOneVector: " + std::to_string(v.size()) + " entries exceed 2^32 - 1");
  }
  ZeroOneVector out;
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
  if (double(m) > max_other_share * double(v.size())) return std::nullopt;
  // Pass 2: kinds and others, each chunk into its own words and its own run of others.
  out.kinds.assign(chunks * kWordsPerChunk, 0);
  out.others.resize(m);
  tbb::parallel_for(tbb::blocked_range<size_t>(0, chunks), [&](const tbb::blocked_range<size_t>& r) {
    for (size_t k = r.begin(); k < r.end(); k++) {
      const size_t end = std::min(v.size(), (k + 1) * kChunk);
      size_t next = out.chunk_offsets[k];
      for (size_t i = k * kChunk; i < end; i++) {
        const uint32_t kind = kind_of(v[i]);
        out.kinds[i / kKindsPerWord] |= kind << (2 * (i % kKindsPerWord));
        if (kind == kOther) out.others[next++] = v[i];
      }
    }
  });
  return out;
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

// A vector of Fr whose entries are mostly 0 and 1 in a compact form: a 2-bit kind per entry
// and the other entries in order. The PoRep circuits' a, b and c (the constraints' evaluations
// at the witness) are such vectors: booleanity and bit-logic constraints give 0s and 1s, so a
// 2^27 partition's 12.9 GB of a/b/c shrink to ~2.2 GB (the synthetic PoRep profile: b all 0/1,
// a and c 75%). The GPU prover uploads this form and expands it on the device
// (ntt/cuda/ntt.hpp, expand_zero_one): the first vector then lands in ~1 ms instead of ~78 ms
// and less memory is page-locked.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "ff/fr.hpp"

namespace cuzk::ntt {

using ff::Fr;

// Memory for large arrays that one pass fills in parallel: blocks of 32 MiB and more are mapped
// on their own, 2 MiB-aligned, with transparent huge pages asked for (MADV_HUGEPAGE), since
// first-touch page faults cost more than the fill itself (measured on the development VM:
// 0.49 s to fill 268 MB of fresh 4 KiB pages, 0.05 s with huge pages); smaller ones come from
// the heap. resize leaves new elements of trivial types uninitialised.
void* allocate_large(size_t bytes);
void deallocate_large(void* p, size_t bytes) noexcept;

template <class T>
struct LargeArrayAllocator {
  using value_type = T;
  LargeArrayAllocator() = default;
  template <class U>
  LargeArrayAllocator(const LargeArrayAllocator<U>&) noexcept {}
  T* allocate(size_t n) { return static_cast<T*>(allocate_large(n * sizeof(T))); }
  void deallocate(T* p, size_t n) noexcept { deallocate_large(p, n * sizeof(T)); }
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
  friend bool operator==(const LargeArrayAllocator&, const LargeArrayAllocator&) { return true; }
};
template <class T>
using LargeArray = std::vector<T, LargeArrayAllocator<T>>;

struct ZeroOneVector {
  // Entries per chunk: offsets are kept per chunk, so a chunk is compressed and expanded
  // without looking at the others (one thread block per chunk on the device).
  static constexpr size_t kChunk = 1024;
  static constexpr size_t kKindsPerWord = 16;
  static constexpr size_t kWordsPerChunk = kChunk / kKindsPerWord;
  enum Kind : uint32_t { kZero = 0, kOne = 1, kOther = 2 };

  size_t size = 0;
  // Entry i's kind in bits 2 (i % 16) and 2 (i % 16) + 1 of word i / 16; whole chunks of words
  // (the tail of the last chunk is kZero).
  LargeArray<uint32_t> kinds;
  // Chunk k's first kOther entry is others[chunk_offsets[k]]; one more entry holds
  // others.size().
  std::vector<uint32_t> chunk_offsets;
  LargeArray<Fr> others;  // the kOther entries, in order (Montgomery form, as in the vector)

  size_t chunks() const { return (size + kChunk - 1) / kChunk; }
  // Host bytes held by the three arrays (their capacities).
  size_t bytes() const;
  // Bytes of a vector of n entries with m others in this form.
  static size_t bytes_for(size_t n, size_t m);

  // The compact form of v, or nullopt when more than max_other_share of its entries are
  // neither 0 nor 1 (then the form would save little). Parallel (oneTBB) over chunks.
  // Throws std::invalid_argument above 2^32 - 1 entries.
  static std::optional<ZeroOneVector> compress(std::span<const Fr> v, double max_other_share = 0.5);
  // The same into out, whose arrays keep their memory where their capacity suffices (a vector
  // page-locked once is refilled in place: the CUDA backend reuses its compact copies). False,
  // with out emptied (kinds and others keep their capacity), when the vector has too many others. before_fill, when
  // given, runs once the sizes are known and before the arrays are resized: kinds gets kind_words words and others
  // `others` entries (it may reserve more room, e.g. after unlocking the old arrays).
  static bool compress_into(std::span<const Fr> v, ZeroOneVector& out, double max_other_share = 0.5,
                            const std::function<void(size_t kind_words, size_t others)>& before_fill = {});

  // The entries again (the host reference for the device's expansion; tests use it).
  std::vector<Fr> expand() const;
};

}  // namespace cuzk::ntt

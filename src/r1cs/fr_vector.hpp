// The vectors of a proving assignment (a, b, c and aux): std::vector whose resize leaves new
// elements uninitialised (Fr is plain data). A 2^27 partition's ~17 GB would otherwise be zeroed
// by one thread when sections reserve their ranges, and each section then writes its range again:
// left as they are, the pages are first touched by the section that fills them, on its own core.
// Every element is written before it is read (a section that leaves its range short makes the
// assignment refuse use).
#pragma once

#include <memory>
#include <type_traits>
#include <vector>

#include "ff/fr.hpp"

namespace cuzk::r1cs {

template <class T>
class DefaultInitAllocator : public std::allocator<T> {
 public:
  template <class U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  using std::allocator<T>::allocator;
  DefaultInitAllocator() = default;
  template <class U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}

  // Value-less construction default-initialises (no zeroing for plain data); the rest as usual.
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

static_assert(std::is_trivially_default_constructible_v<ff::Fr>, "Fr must be plain data for FrVector");
using FrVector = std::vector<ff::Fr, DefaultInitAllocator<ff::Fr>>;
// The same for other plain data: a compiled circuit's matrices (gigabytes at 32 GiB), which the
// reader fills in parallel and one thread would otherwise zero first.
template <class T>
using PodVector = std::vector<T, DefaultInitAllocator<T>>;

}  // namespace cuzk::r1cs

#include "r1cs/proving_assignment.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <sys/mman.h>
#include <thread>
#include <unistd.h>
#include <utility>

namespace cuzk::r1cs {
namespace {

// Vectors from this size up get their own mapping (glibc's largest mmap threshold); smaller ones
// come from the heap, where page-level advice is not worth it.
constexpr size_t kLargeVectorBytes = size_t(32) << 20;

// Asks for transparent huge pages on the 2 MiB pages inside a reserved vector's memory: a 2^27
// partition first-touches ~17 GB of a/b/c and aux during synthesis, and with 4 KiB pages the
// faults are a large share of it. A hint (the kernel may ignore it); vectors under 32 MiB come
// from the heap and are left alone.
void advise_huge_pages(const void* data, size_t bytes) {
  constexpr uintptr_t kHuge = uintptr_t(2) << 20;
  if (bytes < kLargeVectorBytes) return;
  const auto begin = (reinterpret_cast<uintptr_t>(data) + kHuge - 1) / kHuge * kHuge;
  const auto end = (reinterpret_cast<uintptr_t>(data) + bytes) / kHuge * kHuge;
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

// Hands the whole pages of [data, data + bytes) back to the kernel in pieces that end at 64 MiB
// address multiples (whole huge pages), pausing between pieces so that a thread waiting for the
// address-space lock gets it. The memory stays mapped and reads as zeros until it is freed.
void give_back_pages_gradually(const void* data, size_t bytes) {
  // The kernel rounds a length up to whole pages: with 64 KiB pages (aarch64, ppc64le) a 4 KiB
  // rounding would zero memory past the vector.
  static const uintptr_t kPage = uintptr_t(sysconf(_SC_PAGESIZE));
  constexpr uintptr_t kPiece = uintptr_t(64) << 20;
  constexpr auto kPause = std::chrono::microseconds(200);
  if (bytes < kLargeVectorBytes) return;  // quick to free anyway
  const auto begin = (reinterpret_cast<uintptr_t>(data) + kPage - 1) / kPage * kPage;
  const auto end = (reinterpret_cast<uintptr_t>(data) + bytes) / kPage * kPage;
  for (uintptr_t p = begin; p < end;) {
    const uintptr_t next = std::min(end, (p / kPiece + 1) * kPiece);
    if (p != begin) std::this_thread::sleep_for(kPause);
    madvise(reinterpret_cast<void*>(p), next - p, MADV_DONTNEED);
    p = next;
  }
}

}  // namespace

void free_gradually(ReleasedAbc&& abc) {
  ReleasedAbc owned(std::move(abc));
  owned.preparation.reset();
  for (std::vector<Fr>* v : {&owned.a, &owned.b, &owned.c}) {
    give_back_pages_gradually(v->data(), v->size() * sizeof(Fr));
    std::vector<Fr>().swap(*v);
  }
}

ProvingAssignment::ProvingAssignment() { alloc_input("ONE", Fr::one()); }

Variable ProvingAssignment::alloc(std::string_view, const Fr& value) {
  aux_.push_back(value);
  a_aux_density_.add_element();
  b_aux_density_.add_element();
  return Variable::aux(uint32_t(aux_.size() - 1));
}

Variable ProvingAssignment::alloc_input(std::string_view, const Fr& value) {
  inputs_.push_back(value);
  b_input_density_.add_element();
  return Variable::input(uint32_t(inputs_.size() - 1));
}

Fr ProvingAssignment::eval(const LC& lc, DensityTracker* input_density, DensityTracker* aux_density) const {
  // Coefficients of 1 and -1 (most of them) are an addition and a subtraction, not a product.
  static const Fr kOne = Fr::one(), kMinusOne = -Fr::one();
  Fr acc = Fr::zero();
  for (const auto& t : lc.terms()) {
    const Fr* value;
    if (t.var.kind == Variable::Kind::kInput) {
      if (input_density) input_density->set(t.var.index);
      value = &inputs_[t.var.index];
    } else {
      if (aux_density) aux_density->set(t.var.index);
      value = &aux_[t.var.index];
    }
    if (t.coeff == kOne) {
      acc += *value;
    } else if (t.coeff == kMinusOne) {
      acc -= *value;
    } else {
      acc += *value * t.coeff;
    }
  }
  return acc;
}

void ProvingAssignment::enforce(std::string_view, const LC& a, const LC& b, const LC& c) {
  drop_abc_preparation();
  a_.push_back(eval(a, nullptr, &a_aux_density_));
  b_.push_back(eval(b, &b_input_density_, &b_aux_density_));
  c_.push_back(eval(c, nullptr, nullptr));
}

void ProvingAssignment::enforce_input_constraints() {
  const size_t n = inputs_.size();
  for (size_t i = 0; i < n; i++) enforce("input", Variable::input(uint32_t(i)), LC::zero(), LC::zero());
}

void ProvingAssignment::reserve(size_t constraints, size_t aux) {
  drop_abc_preparation();
  a_.reserve(constraints);
  b_.reserve(constraints);
  c_.reserve(constraints);
  aux_.reserve(aux);
  for (const auto* v : {&a_, &b_, &c_, &aux_}) advise_huge_pages(v->data(), v->capacity() * sizeof(Fr));
}

AssignmentBytes ProvingAssignment::bytes() const {
  AssignmentBytes r;
  r.a = a_.capacity() * sizeof(Fr);
  r.b = b_.capacity() * sizeof(Fr);
  r.c = c_.capacity() * sizeof(Fr);
  r.aux = aux_.capacity() * sizeof(Fr);
  r.inputs = inputs_.capacity() * sizeof(Fr);
  r.densities = a_aux_density_.bytes() + b_input_density_.bytes() + b_aux_density_.bytes();
  if (abc_preparation_.owner) r.abc_prepared = abc_preparation_.owner->host_bytes();
  return r;
}

void ProvingAssignment::release_abc() {
  ReleasedAbc abc;
  abc.preparation = std::exchange(abc_preparation_.owner, nullptr);
  abc.a = std::exchange(a_, {});
  abc.b = std::exchange(b_, {});
  abc.c = std::exchange(c_, {});
  if (abc_sink_) abc_sink_(std::move(abc));
  // Otherwise freed here, the preparation first (~ReleasedAbc).
}

}  // namespace cuzk::r1cs

#include "r1cs/proving_assignment.hpp"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
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
  for (FrVector* v : {&owned.a, &owned.b, &owned.c}) {
    give_back_pages_gradually(v->data(), v->size() * sizeof(Fr));
    FrVector().swap(*v);
  }
}

ProvingAssignment::ProvingAssignment() { alloc_input("ONE", Fr::one()); }

ProvingAssignment::ProvingAssignment(std::shared_ptr<const CompiledCircuit> compiled) : compiled_(std::move(compiled)) {
  if (!compiled_) throw std::invalid_argument("proving assignment: a witness-only synthesis needs a compiled circuit");
  alloc_input("ONE", Fr::one());
}

void ProvingAssignment::check_matches_compiled() const {
  check_no_open_sections();
  if (!compiled_) return;
  const CompiledCircuit& k = *compiled_;
  if (witness_constraints_ != k.constraints || aux_.size() != k.aux || inputs_.size() != k.inputs) {
    throw std::logic_error("witness-only synthesis made " + std::to_string(witness_constraints_) + " constraints, " +
                           std::to_string(aux_.size()) + " aux variables and " + std::to_string(inputs_.size()) +
                           " inputs; its compiled circuit has " + std::to_string(k.constraints) + ", " +
                           std::to_string(k.aux) + " and " + std::to_string(k.inputs) +
                           " (recorded from other circuit code: record it again)");
  }
}

void ProvingAssignment::compute_abc() {
  if (!abc_pending()) return;
  check_matches_compiled();
  drop_abc_preparation();
  compiled_->evaluate(inputs_, std::span<const Fr>(aux_.data(), aux_.size()), a_, b_, c_);
}

void ProvingAssignment::check_no_open_sections() const {
  if (sections_.failed.load()) {
    throw std::logic_error("proving assignment: a section of its parallel synthesis failed, so it is incomplete");
  }
  if (sections_.open.load() != 0) {
    throw std::logic_error("proving assignment: used while sections of a parallel synthesis are open");
  }
}

Variable ProvingAssignment::alloc(std::string_view, const Fr& value) {
  check_no_open_sections();
  if (aux_.size() == aux_.capacity()) aux_hold_.owner.reset();  // push_back moves aux
  aux_.push_back(value);
  if (!compiled_) {
    a_aux_density_.add_element();
    b_aux_density_.add_element();
  }
  return Variable::aux(uint32_t(aux_.size() - 1));
}

Variable ProvingAssignment::alloc_input(std::string_view, const Fr& value) {
  check_no_open_sections();
  inputs_.push_back(value);
  if (!compiled_) b_input_density_.add_element();
  return Variable::input(uint32_t(inputs_.size() - 1));
}

namespace {

// sum coeff * value over the terms. Coefficients of 1 and -1 (most of them) are an addition
// and a subtraction, not a product; zero coefficients are skipped and set no density bit, as in
// bellperson (whose combinations also merge a variable's terms: circuits whose terms of one
// variable cancel within a combination would get other densities here; r1cs::ShapeCounter
// counts them, and Filecoin's circuits have none). An aux variable in [aux_begin, aux_end) has
// its density bit at i - aux_begin; any other aux or input variable goes through `other`
// (which checks it may be used, and records its density bit; nullptr: none may), unless it is
// an input below inputs_end.
template <class Other>
Fr eval_terms(const LC& lc, const std::vector<Fr>& inputs, const FrVector& aux, size_t inputs_end, size_t aux_begin,
              size_t aux_end, DensityTracker* input_density, DensityTracker* aux_density, Other&& other) {
  static const Fr kOne = Fr::one(), kMinusOne = -Fr::one();
  Fr acc = Fr::zero();
  for (const auto& t : lc.terms()) {
    // bellperson skips a zero coefficient, density bit included.
    const bool plus = t.coeff == kOne, minus = !plus && t.coeff == kMinusOne;
    if (!plus && !minus && t.coeff.is_zero()) continue;
    const Fr* value;
    if (t.var.kind == Variable::Kind::kInput) {
      if (t.var.index >= inputs_end) other(t.var, input_density != nullptr);
      if (input_density) input_density->set(t.var.index);
      value = &inputs[t.var.index];
    } else {
      if (t.var.index >= aux_begin && t.var.index < aux_end) {
        if (aux_density) aux_density->set(t.var.index - aux_begin);
      } else {
        other(t.var, aux_density != nullptr);
      }
      value = &aux[t.var.index];
    }
    if (plus) {
      acc += *value;
    } else if (minus) {
      acc -= *value;
    } else if (*value == kOne) {  // bits: a packing's powers of two apply to 0s and 1s
      acc += t.coeff;
    } else if (!value->is_zero()) {
      acc += *value * t.coeff;
    }
  }
  return acc;
}

}  // namespace

bool ProvingAssignment::Sections::in_closed(const std::vector<size_t>& starts, size_t i) const {
  // starts holds each section's first index and, last, the end of the last one.
  if (starts.empty() || i < starts.front() || i >= starts.back()) return false;
  const size_t k = size_t(std::upper_bound(starts.begin(), starts.end(), i) - starts.begin()) - 1;
  return closed[k].load(std::memory_order_acquire);
}

Fr ProvingAssignment::eval(const LC& lc, DensityTracker* input_density, DensityTracker* aux_density) const {
  return eval_terms(lc, inputs_, aux_, inputs_.size(), 0, aux_.size(), input_density, aux_density,
                    [](Variable v, bool) {
                      throw std::logic_error(v.kind == Variable::Kind::kInput
                                                 ? "constraint uses an input that does not exist"
                                                 : "constraint uses an aux variable that does not exist");
                    });
}

// Section k: constraints [c_next_, c_end_), aux variables [aux_begin_, aux_end_) and inputs
// [in_begin_, in_end_) of the assignment, written in place; density bits of its own aux
// variables and of the inputs kept here (offset by the range's start), and the aux variables of
// other ranges it used in A or B listed, until close. num_constraints() and num_aux() count this
// section's, num_inputs() the assignment's.
class ProvingAssignment::Section final : public SectionSystem {
 public:
  Section(ProvingAssignment& pa, size_t k, size_t c_begin, size_t aux_begin, size_t in_begin, const SectionShape& shape)
      : pa_(pa),
        k_(k),
        c_next_(c_begin),
        c_end_(c_begin + shape.constraints),
        aux_begin_(aux_begin),
        aux_next_(aux_begin),
        aux_end_(aux_begin + shape.aux),
        in_begin_(in_begin),
        in_next_(in_begin),
        in_end_(in_begin + shape.inputs) {
    if (!pa.compiled_) {
      a_aux_.grow(shape.aux);
      b_aux_.grow(shape.aux);
      b_input_.grow(pa.inputs_.size());
    }
    pa_.sections_.open++;  // last: the destructor undoes it
  }
  ~Section() override {
    if (closed_) return;
    // Failed or abandoned (an exception on its way): its range is incomplete.
    pa_.sections_.failed = true;
    pa_.sections_.open--;
  }

  Variable alloc(std::string_view, const Fr& value) override {
    if (aux_next_ == aux_end_) throw std::logic_error("a section allocates more aux variables than reserved");
    pa_.aux_[aux_next_] = value;
    return Variable::aux(uint32_t(aux_next_++));
  }
  Variable alloc_input(std::string_view, const Fr& value) override {
    if (in_next_ == in_end_) throw std::logic_error("a section allocates more public inputs than reserved");
    pa_.inputs_[in_next_] = value;
    return Variable::input(uint32_t(in_next_++));
  }
  void enforce(std::string_view, const LC& a, const LC& b, const LC& c) override {
    if (c_next_ == c_end_) throw std::logic_error("a section enforces more constraints than reserved");
    if (pa_.compiled_) {  // witness-only: the compiled circuit has the rows
      c_next_++;
      constraints_++;
      return;
    }
    pa_.a_[c_next_] = eval_section(a, nullptr, &a_aux_, &foreign_a_);
    pa_.b_[c_next_] = eval_section(b, &b_input_, &b_aux_, &foreign_b_);
    pa_.c_[c_next_] = eval_section(c, nullptr, nullptr, nullptr);
    c_next_++;
    constraints_++;
  }
  size_t num_constraints() const override { return constraints_; }
  bool reads_combinations() const override { return !pa_.compiled_; }
  size_t num_inputs() const override { return pa_.inputs_.size(); }
  size_t num_aux() const override { return aux_next_ - aux_begin_; }

  void close() override {
    if (closed_) return;
    if (c_next_ != c_end_ || aux_next_ != aux_end_ || in_next_ != in_end_) {
      pa_.sections_.failed = true;
      throw std::logic_error("a section closed with " + std::to_string(c_end_ - c_next_) + " constraints, " +
                             std::to_string(aux_end_ - aux_next_) + " aux variables and " +
                             std::to_string(in_end_ - in_next_) + " inputs of its range left");
    }
    if (!pa_.compiled_) {
      std::lock_guard lock(pa_.sections_.merge);
      pa_.a_aux_density_.set_from(aux_begin_, a_aux_);
      pa_.b_aux_density_.set_from(aux_begin_, b_aux_);
      pa_.b_input_density_.set_from(0, b_input_);
      for (uint32_t i : foreign_a_) pa_.a_aux_density_.set(i);
      for (uint32_t i : foreign_b_) pa_.b_aux_density_.set(i);
    }
    closed_ = true;
    pa_.sections_.closed[k_].store(true, std::memory_order_release);
    pa_.sections_.open--;
  }

 private:
  Fr eval_section(const LC& lc, DensityTracker* input_density, DensityTracker* aux_density,
                  std::vector<uint32_t>* foreign) {
    const auto& s = pa_.sections_;
    return eval_terms(lc, pa_.inputs_, pa_.aux_, s.inputs_before, aux_begin_, aux_next_, input_density, aux_density,
                      [&](Variable v, bool) {
                        if (v.kind == Variable::Kind::kInput) {
                          if ((v.index >= in_begin_ && v.index < in_next_) || s.in_closed(s.input_starts, v.index)) {
                            return;
                          }
                          throw std::logic_error(
                              "a section's constraint uses an input of a section not closed (or not yet allocated)");
                        }
                        if (v.index >= s.aux_before && !s.in_closed(s.aux_starts, v.index)) {
                          throw std::logic_error(
                              "a section's constraint uses an aux variable outside the section, of a section not "
                              "closed (or not yet allocated)");
                        }
                        if (foreign) foreign->push_back(v.index);
                      });
  }

  ProvingAssignment& pa_;
  size_t k_;
  size_t c_next_, c_end_, aux_begin_, aux_next_, aux_end_, in_begin_, in_next_, in_end_;
  size_t constraints_ = 0;
  DensityTracker a_aux_, b_aux_, b_input_;
  std::vector<uint32_t> foreign_a_, foreign_b_;  // other ranges' aux variables used in A, in B
  bool closed_ = false;
};

std::vector<std::unique_ptr<SectionSystem>> ProvingAssignment::open_sections(std::span<const SectionShape> shapes) {
  check_no_open_sections();
  drop_abc_preparation();
  size_t constraints = 0, aux = 0, inputs = 0;
  for (const auto& s : shapes) constraints += s.constraints, aux += s.aux, inputs += s.inputs;
  if (aux_.size() + aux > (size_t(1) << 32)) throw std::invalid_argument("more than 2^32 aux variables");
  size_t c_at = num_constraints(), aux_at = aux_.size(), in_at = inputs_.size();
  try {
    // Written in place by the sections (FrVector leaves new elements unwritten: each page is first
    // touched by the section that fills it).
    // a, b and c get room for the domain (the constraints that follow and the prover's padding)
    // when the caller did not reserve it: growing them later would copy them.
    const size_t c_need = c_at + constraints;
    if (compiled_) witness_constraints_ = c_need;  // counted here; sections fill no rows
    for (auto* v : {&a_, &b_, &c_}) {
      if (compiled_) break;
      if (v->capacity() < c_need) {
        v->reserve(std::bit_ceil(c_need));
        advise_huge_pages(v->data(), v->capacity() * sizeof(Fr));
      }
      v->resize(c_need);
    }
    grow_aux_room(aux_at + aux);
    aux_.resize(aux_at + aux);
    inputs_.resize(in_at + inputs);
    if (!compiled_) {
      a_aux_density_.grow(aux);
      b_aux_density_.grow(aux);
      for (size_t i = 0; i < inputs; i++) b_input_density_.add_element();
    }
    sections_.aux_before = aux_at;
    sections_.inputs_before = in_at;
    sections_.aux_starts.clear();
    sections_.input_starts.clear();
    sections_.closed = std::make_unique<std::atomic<bool>[]>(shapes.size());
  } catch (...) {
    sections_.failed = true;  // some vectors grown, some not
    throw;
  }
  std::vector<std::unique_ptr<SectionSystem>> out;
  try {
    out.reserve(shapes.size());
    for (size_t k = 0; k < shapes.size(); k++) {
      const auto& s = shapes[k];
      sections_.aux_starts.push_back(aux_at);
      sections_.input_starts.push_back(in_at);
      out.push_back(std::make_unique<Section>(*this, k, c_at, aux_at, in_at, s));
      c_at += s.constraints;
      aux_at += s.aux;
      in_at += s.inputs;
    }
    sections_.aux_starts.push_back(aux_at);
    sections_.input_starts.push_back(in_at);
  } catch (...) {
    sections_.failed = true;  // the ranges are reserved, and some will never be filled
    throw;
  }
  return out;
}

void ProvingAssignment::enforce(std::string_view, const LC& a, const LC& b, const LC& c) {
  check_no_open_sections();
  if (compiled_) {  // witness-only: the compiled circuit has the rows
    witness_constraints_++;
    return;
  }
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
  check_no_open_sections();
  drop_abc_preparation();
  if (!compiled_) {  // witness-only: a, b and c come later, all at once
    a_.reserve(constraints);
    b_.reserve(constraints);
    c_.reserve(constraints);
  }
  for (const auto* v : {&a_, &b_, &c_}) advise_huge_pages(v->data(), v->capacity() * sizeof(Fr));
  grow_aux_room(aux);
}

void ProvingAssignment::grow_aux_room(size_t n) {
  if (aux_.capacity() >= n) return;
  aux_hold_.owner.reset();  // on memory about to be freed
  aux_.reserve(n);
  advise_huge_pages(aux_.data(), aux_.capacity() * sizeof(Fr));
}

KeptWitness ProvingAssignment::release_witness() {
  check_no_open_sections();
  if (!compiled_) throw std::logic_error("proving assignment: only a witness-only assignment's aux is kept");
  KeptWitness kept;
  kept.hold = std::exchange(aux_hold_.owner, nullptr);
  kept.aux = std::exchange(aux_, {});
  return kept;
}

void ProvingAssignment::adopt_witness(KeptWitness&& kept) {
  check_no_open_sections();
  if (!compiled_ || !aux_.empty() || inputs_.size() != 1) {
    throw std::logic_error("proving assignment: only a fresh witness-only assignment adopts a kept witness");
  }
  aux_hold_.owner.reset();
  aux_ = std::move(kept.aux);
  aux_.clear();  // the capacity stays: sections write over the stale values
  aux_hold_.owner = std::exchange(kept.hold, nullptr);
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
  check_no_open_sections();
  ReleasedAbc abc;
  abc.preparation = std::exchange(abc_preparation_.owner, nullptr);
  abc.a = std::exchange(a_, {});
  abc.b = std::exchange(b_, {});
  abc.c = std::exchange(c_, {});
  abc_released_ = true;
  if (abc_sink_) abc_sink_(std::move(abc));
  // Otherwise freed here, the preparation first (~ReleasedAbc).
}

}  // namespace cuzk::r1cs

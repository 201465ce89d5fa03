// The prover's constraint system: evaluates each constraint's a, b, c at the witness as it is
// enforced (no matrices are kept) and records which variables occur in the A and B queries.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "r1cs/compiled_circuit.hpp"
#include "r1cs/constraint_system.hpp"
#include "r1cs/density.hpp"
#include "r1cs/fr_vector.hpp"

namespace cuzk::r1cs {

// Bytes held by each large buffer of a proving assignment (the engine's memory estimate).
// abc_prepared: what a backend's AbcPreparation holds besides a, b and c.
struct AssignmentBytes {
  size_t a = 0, b = 0, c = 0, aux = 0, inputs = 0, densities = 0, abc_prepared = 0;
  size_t total() const { return a + b + c + aux + inputs + densities + abc_prepared; }
};

// What a backend prepares from a, b and c for their upload, on the synthesis thread
// (groth16::ProverBackend::prepare_assignment): a page-lock on their memory, a compact copy.
// Backends derive from it; the assignment owns it and drops it before a, b and c can change.
class AbcPreparation {
 public:
  virtual ~AbcPreparation() = default;
  // Host bytes held besides a, b and c (counted with them in the memory budget).
  virtual size_t host_bytes() const { return 0; }
};

// a, b and c as ProvingAssignment::release_abc() hands them on, with the backend's preparation
// (ProvingAssignment::set_abc_preparation), which may lock their memory: it must go before the
// memory does, so the destructor drops it first.
struct ReleasedAbc {
  FrVector a, b, c;
  std::shared_ptr<const AbcPreparation> preparation;
  ReleasedAbc() = default;
  ReleasedAbc(ReleasedAbc&&) = default;
  ReleasedAbc& operator=(ReleasedAbc&&) = delete;
  ~ReleasedAbc() { preparation.reset(); }
};

// What a backend keeps on a witness-only assignment's aux memory for as long as that memory lives
// (the CUDA backend: its page-lock, so that the device reads aux by DMA). Set by the backend's
// preparation; it goes with the memory when the engine keeps a finished partition's aux for the
// next synthesis of its shape (KeptWitness), and before the memory is freed or moved.
class WitnessHold {
 public:
  virtual ~WitnessHold() = default;
};

// A finished witness-only assignment's aux memory with its hold (ProvingAssignment::
// release_witness), for a later assignment of the same shape (adopt_witness): the memory is
// neither unmapped nor mapped again, and a page-lock on it is neither released nor made again.
struct KeptWitness {
  FrVector aux;  // its capacity is what is kept; its values are stale
  std::shared_ptr<const WitnessHold> hold;
  KeptWitness() = default;
  KeptWitness(KeptWitness&&) = default;
  KeptWitness& operator=(KeptWitness&&) = delete;  // would free aux before its hold goes
  ~KeptWitness() { hold.reset(); }
  size_t bytes() const { return aux.capacity() * sizeof(Fr); }
};

// Frees released a/b/c the way a thread beside the prover should: the preparation first, then
// each vector's pages handed back to the kernel in 64 MiB steps (madvise MADV_DONTNEED) with a
// short pause between them, so that the final free unmaps empty ranges. A plain free unmaps a
// 4.3 GB vector (a 2^27 partition) in one call that holds the process's address-space lock for
// ~0.2-0.6 s, and the CUDA driver's calls on the prover's thread that map memory wait for it
// (H200: 0.04 s a proof, and 0.4 s in the first proof, whose buffers are being allocated). For
// the deallocation thread, not the prover's: the pauses add ~40 ms at 2^27.
void free_gradually(ReleasedAbc&& abc);

// Two modes. A full synthesis (the default constructor) evaluates every constraint's a, b and c
// as it is enforced and tracks the densities. A witness-only synthesis (given the circuit's
// compiled matrices) keeps only the variables' values and counts the constraints: a, b and c are
// the matrices' products with the witness, computed later by the backend (on the device for
// CUDA, by compute_abc() on the CPU), and the densities are the compiled circuit's.
class ProvingAssignment final : public ConstraintSystem {
 public:
  ProvingAssignment();
  explicit ProvingAssignment(std::shared_ptr<const CompiledCircuit> compiled);

  Variable alloc(std::string_view name, const Fr& value) override;
  Variable alloc_input(std::string_view name, const Fr& value) override;
  void enforce(std::string_view name, const LC& a, const LC& b, const LC& c) override;
  // Sections write a, b, c and aux in place (the vectors are grown first), and record their
  // density bits apart, merged in by close().
  std::vector<std::unique_ptr<SectionSystem>> open_sections(std::span<const SectionShape> shapes) override;
  bool takes_sections() const override { return true; }
  size_t num_constraints() const override { return compiled_ ? witness_constraints_ : a_.size(); }
  bool reads_combinations() const override { return !compiled_; }
  size_t num_inputs() const override { return inputs_.size(); }
  size_t num_aux() const override { return aux_.size(); }

  // Appends the constraints input_i * 0 = 0 that bellperson adds after synthesis, so that
  // the inputs' A polynomials are linearly independent. Call once, after synthesis.
  void enforce_input_constraints();

  // Reserve capacity when the shape is known, so the vectors do not reallocate.
  void reserve(size_t constraints, size_t aux);

  // The vectors and densities are refused (std::logic_error) while sections are open or after one
  // failed: ranges a section did not fill hold memory never written.
  const FrVector& a() const { return check_no_open_sections(), a_; }
  const FrVector& b() const { return check_no_open_sections(), b_; }
  const FrVector& c() const { return check_no_open_sections(), c_; }
  // Mutable access (the CPU prover transforms in place, and may grow them to the domain) first
  // drops any preparation of a, b and c.
  FrVector& a_mut() { return check_no_open_sections(), drop_abc_preparation(), a_; }
  FrVector& b_mut() { return check_no_open_sections(), drop_abc_preparation(), b_; }
  FrVector& c_mut() { return check_no_open_sections(), drop_abc_preparation(), c_; }
  const std::vector<Fr>& inputs() const { return check_no_open_sections(), inputs_; }
  const FrVector& aux() const { return check_no_open_sections(), aux_; }
  const DensityTracker& a_aux_density() const {
    return check_no_open_sections(), compiled_ ? compiled_->a_aux_density : a_aux_density_;
  }
  const DensityTracker& b_input_density() const {
    return check_no_open_sections(), compiled_ ? compiled_->b_input_density : b_input_density_;
  }
  const DensityTracker& b_aux_density() const {
    return check_no_open_sections(), compiled_ ? compiled_->b_aux_density : b_aux_density_;
  }

  // Witness-only: the compiled circuit (null for a full synthesis), whether a, b and c are
  // still to be computed from it, and their computation on the CPU (oneTBB). Both check first
  // that the synthesis matches the compiled circuit (std::logic_error naming the counts that
  // differ: the compiled file is from other circuit code and must be recorded again).
  const CompiledCircuit* compiled() const { return compiled_.get(); }
  const std::shared_ptr<const CompiledCircuit>& compiled_shared() const { return compiled_; }
  bool abc_pending() const { return compiled_ && a_.empty() && !abc_released_; }
  void check_matches_compiled() const;
  void compute_abc();

  AssignmentBytes bytes() const;
  // Frees a, b and c (after H is computed) while keeping the assignment.
  void release_abc();

  // Where release_abc() hands the a/b/c vectors (and their preparation). By default they are
  // freed at once; the engine passes them to its deallocation thread, so that large frees (and
  // the unlocking) stay off the GPU worker's path.
  using AbcSink = std::function<void(ReleasedAbc&& abc)>;
  void set_abc_sink(AbcSink sink) { abc_sink_ = std::move(sink); }

  // The hold a backend keeps on aux's memory (see WitnessHold), dropped before that memory can be
  // freed or moved (aux growing past its capacity, the destructor). Copies start without it.
  void set_aux_hold(std::shared_ptr<const WitnessHold> h) { aux_hold_.owner = std::move(h); }
  const std::shared_ptr<const WitnessHold>& aux_hold() const { return aux_hold_.owner; }
  // The end of a witness-only assignment that is proved (and finished): aux's memory and hold
  // leave it, for adopt_witness by the next assignment of the shape. The assignment is empty of
  // aux afterwards and must not be proved again.
  KeptWitness release_witness();
  // A fresh witness-only assignment (nothing allocated but ONE) takes kept's memory for aux, and
  // its hold: reserve() and the sections then grow aux within it.
  void adopt_witness(KeptWitness&& kept);

  // A backend's preparation of a, b and c (groth16::ProverBackend::prepare_assignment), which
  // may lock their memory until it is destroyed. It is dropped before that memory can be freed
  // or moved, and before a, b or c can change: by release_abc (after the sink's ReleasedAbc), by
  // any call that may change or grow the vectors (enforce, reserve, the *_mut accessors) and by
  // the destructor. Copies of the assignment start without it (their vectors are new memory).
  // A preparation belongs to the assignment it was made from: a backend may check that a, b and
  // c are still where they were, not that they hold what they held.
  void set_abc_preparation(std::shared_ptr<const AbcPreparation> p) { abc_preparation_.owner = std::move(p); }
  const std::shared_ptr<const AbcPreparation>& abc_preparation() const { return abc_preparation_.owner; }
  bool abc_prepared() const { return abc_preparation_.owner != nullptr; }

 private:
  class Section;
  Fr eval(const LC& lc, DensityTracker* input_density, DensityTracker* aux_density) const;
  void check_no_open_sections() const;
  void drop_abc_preparation() {
    if (abc_preparation_.owner) abc_preparation_.owner.reset();
  }

  // Makes room in aux for n elements; when it moves, its hold goes first.
  void grow_aux_room(size_t n);

  // Copies start without it; assignment is not offered, since the vectors it replaces would be
  // freed before a lock it may hold.
  template <class T>
  struct Held {
    std::shared_ptr<const T> owner;
    Held() = default;
    Held(const Held&) {}
    Held(Held&&) = default;
    Held& operator=(const Held&) = delete;
    Held& operator=(Held&&) = delete;
  };

  FrVector a_, b_, c_, aux_;
  std::vector<Fr> inputs_;
  DensityTracker a_aux_density_, b_input_density_, b_aux_density_;
  // Sections of a parallel synthesis not yet closed, whether one failed, and the lock under which
  // closing ones merge their density bits; the ranges of the sections opened last (where each
  // starts, and whether it is closed: a section may use the variables of closed ones). Copies and
  // moves start with none open, and keep `failed`: their vectors have the same unwritten ranges.
  struct Sections {
    std::atomic<size_t> open{0};
    std::atomic<bool> failed{false};  // a section failed or was abandoned: the assignment is incomplete
    std::mutex merge;
    size_t aux_before = 0, inputs_before = 0;      // variables allocated before they were opened
    std::vector<size_t> aux_starts, input_starts;  // per section, and the end last
    std::unique_ptr<std::atomic<bool>[]> closed;
    // Whether aux (or input) variable i lies in a closed section.
    bool in_closed(const std::vector<size_t>& starts, size_t i) const;
    Sections() = default;
    Sections(const Sections& o) : failed(o.failed.load()) {}
    Sections(Sections&& o) noexcept : failed(o.failed.load()) {}
    Sections& operator=(const Sections&) = delete;
    Sections& operator=(Sections&&) = delete;
  };

  std::shared_ptr<const CompiledCircuit> compiled_;  // witness-only when set
  size_t witness_constraints_ = 0;                   // witness-only: constraints enforced
  bool abc_released_ = false;
  AbcSink abc_sink_;
  Sections sections_;
  Held<AbcPreparation> abc_preparation_;  // after a_, b_, c_: destroyed before them
  Held<WitnessHold> aux_hold_;            // after aux_: destroyed before it
};

}  // namespace cuzk::r1cs

// A circuit's A, B and C recorded once as sparse matrices, so that a proof needs only the witness
// from synthesis: a = A z, b = B z, c = C z are products of these matrices with the witness z
// (on the CPU here, on the device in groth16/cuda), not evaluated constraint by constraint while
// the circuit runs. With them come the densities the MSMs need, which depend only on the shape.
// Recording runs the circuit without values (has_values() is false), like a setup's recorder.
//
// Rows are compressed (CSR): row i's entries are [row_start[i], row_start[i + 1]). A column
// below `aux` is that aux variable; aux + j is input j (the device keeps the inputs right after
// aux, so the witness is one array there). Each entry's coefficient is an index into
// `coefficients`, a table of the circuit's distinct coefficients (Filecoin's are mostly 1, -1 and
// powers of two; Poseidon adds its constants): 6 bytes an entry instead of 36.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <vector>

#include "ff/hd.hpp"
#include "r1cs/constraint_system.hpp"
#include "r1cs/density.hpp"
#include "r1cs/fr_vector.hpp"

namespace cuzk::r1cs {

struct SparseRows {
  PodVector<uint32_t> row_start;  // rows + 1 offsets
  PodVector<uint32_t> column;
  PodVector<uint16_t> coeff;  // index into CompiledCircuit::coefficients

  size_t rows() const { return row_start.empty() ? 0 : row_start.size() - 1; }
  size_t nonzeros() const { return column.size(); }
  size_t bytes() const { return row_start.size() * 4 + column.size() * 4 + coeff.size() * 2; }
  friend bool operator==(const SparseRows&, const SparseRows&) = default;
};

struct CompiledCircuit {
  // Entry coefficients 1 and -1 have these indices (the evaluation adds or subtracts them).
  static constexpr uint16_t kPlusOne = 0, kMinusOne = 1;

  // One entry of a row's product, the rule of the CPU and the device products alike: acc plus
  // coefficient k times value, where 1 and -1 add and subtract, and a coefficient times a 1 (a
  // bit, as packings' powers of two meet) is the coefficient. one: the field's 1.
  template <class F>
  CUZK_HD_INLINE static void add_entry(F& acc, const F& value, uint16_t k, const F* table, const F& one) {
    if (k == kPlusOne) {
      acc = acc + value;
    } else if (k == kMinusOne) {
      acc = acc - value;
    } else if (value == one) {
      acc = acc + table[k];
    } else if (!value.is_zero()) {
      acc = acc + value * table[k];
    }
  }

  size_t constraints = 0;  // including the input constraints the prover appends
  size_t inputs = 0;       // including ONE
  size_t aux = 0;
  std::vector<Fr> coefficients;  // [kPlusOne] = 1, [kMinusOne] = -1, then the others as met
  SparseRows a, b, c;
  // As ProvingAssignment tracks them: a bit per aux variable (inputs) that occurs in A's (B's)
  // rows with a nonzero coefficient.
  DensityTracker a_aux_density, b_input_density, b_aux_density;
  friend bool operator==(const CompiledCircuit&, const CompiledCircuit&) = default;

  // Host bytes held (the matrices, the table and the densities).
  size_t bytes() const;
  // a, b and c at the witness (inputs, ONE first, and aux): constraints elements each, computed
  // with oneTBB. Equal to ProvingAssignment's evaluation of the same circuit, bit for bit (the
  // field is exact). Throws std::invalid_argument when the witness has other sizes.
  void evaluate(std::span<const Fr> inputs, std::span<const Fr> aux, FrVector& a, FrVector& b, FrVector& c) const;
  // One product (A, B or C) into out (constraints elements).
  void evaluate(const SparseRows& m, std::span<const Fr> inputs, std::span<const Fr> aux, Fr* out) const;
};

// A circuit the compiled form cannot hold (a table or an index too small for it): the same each
// time it is recorded, so it is proved by full synthesis.
struct CircuitTooLarge : std::length_error {
  using std::length_error::length_error;
};

// Synthesizes circuit without values and records its matrices, with the input constraints the
// prover appends (input_i * 0 = 0). A variable's terms within one combination are merged (their
// coefficients summed; entries that sum to zero are dropped but keep their density bits, as the
// proving assignment's evaluation sets them). Throws CircuitTooLarge when a matrix has 2^32 or
// more entries or the circuit more than 65,536 distinct coefficients (the compiled form cannot
// hold it: such a circuit is proved by full synthesis), std::logic_error when a constraint uses a
// variable not yet allocated. A circuit that synthesizes in parallel sections records them in
// parallel (each section's rows spliced in order: the result is the serial recording's, bit for
// bit); parallel_sections = false records serially.
CompiledCircuit compile_circuit(const Circuit& circuit, bool parallel_sections = true);

}  // namespace cuzk::r1cs

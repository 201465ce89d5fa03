#include "r1cs/compiled_circuit.hpp"

#include <stdexcept>
#include <string>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

namespace cuzk::r1cs {

size_t CompiledCircuit::bytes() const {
  return a.bytes() + b.bytes() + c.bytes() + coefficients.capacity() * sizeof(Fr) + a_aux_density.bytes() +
         b_input_density.bytes() + b_aux_density.bytes();
}

void CompiledCircuit::evaluate(const SparseRows& m, std::span<const Fr> in, std::span<const Fr> w, Fr* out) const {
  if (in.size() != inputs || w.size() != aux) {
    throw std::invalid_argument("compiled circuit: the witness has " + std::to_string(in.size()) + " inputs and " +
                                std::to_string(w.size()) + " aux variables, the circuit " + std::to_string(inputs) +
                                " and " + std::to_string(aux));
  }
  if (m.rows() != constraints) throw std::invalid_argument("compiled circuit: a matrix has the wrong number of rows");
  static const Fr kOne = Fr::one();
  const Fr* table = coefficients.data();
  const size_t aux_count = aux;
  tbb::parallel_for(tbb::blocked_range<size_t>(0, constraints, 1 << 14), [&](const tbb::blocked_range<size_t>& r) {
    for (size_t row = r.begin(); row != r.end(); row++) {
      Fr acc = Fr::zero();
      for (uint32_t e = m.row_start[row]; e != m.row_start[row + 1]; e++) {
        const uint32_t col = m.column[e];
        const Fr& value = col < aux_count ? w[col] : in[col - aux_count];
        add_entry(acc, value, m.coeff[e], table, kOne);
      }
      out[row] = acc;
    }
  });
}

void CompiledCircuit::evaluate(std::span<const Fr> in, std::span<const Fr> w, FrVector& a_out, FrVector& b_out,
                               FrVector& c_out) const {
  for (FrVector* v : {&a_out, &b_out, &c_out}) v->resize(constraints);
  evaluate(a, in, w, a_out.data());
  evaluate(b, in, w, b_out.data());
  evaluate(c, in, w, c_out.data());
}

}  // namespace cuzk::r1cs

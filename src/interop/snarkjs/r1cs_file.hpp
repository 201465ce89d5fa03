// circom's .r1cs file (iden3 r1csfile, version 1): section 1 the header (field, wire counts,
// constraints), section 2 the constraints (three linear combinations each: a u32 term count,
// then u32 wire and canonical Fr coefficient per term), section 3 the optional wire-to-label map
// (u64 per wire). Wire 0 is the constant 1; then the outputs, public inputs, private inputs and
// internal wires.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ff/fr.hpp"
#include "interop/snarkjs/binary_file.hpp"

namespace cuzk::snarkjs {

struct R1csTerm {
  uint32_t wire = 0;
  ff::Fr coefficient;
};
using LinearCombination = std::vector<R1csTerm>;

struct R1csConstraint {
  LinearCombination a, b, c;  // a . w * b . w = c . w
};

struct R1cs {
  uint32_t wires = 0, outputs = 0, public_inputs = 0, private_inputs = 0;
  uint64_t labels = 0;
  std::vector<R1csConstraint> constraints;
  std::vector<uint64_t> wire_labels;  // empty when the file has no map section
  // Public signals as snarkjs orders them: outputs, then public inputs.
  uint32_t public_signals() const { return outputs + public_inputs; }
};

// Throws FormatError naming the section and offset for a malformed or truncated file, another
// curve's prime, a wire index out of range or circom custom gates (PLONK only).
R1cs read_r1cs(const std::string& path);
R1cs parse_r1cs(const BinaryFile& file);

// The file as circom writes it (version 1; sections in circom's order: constraints, header and,
// when wire_labels is not empty, the wire-to-label map), which parse_r1cs reads back as this circuit.
std::vector<uint8_t> serialize_r1cs(const R1cs& r1cs);
void write_r1cs(const R1cs& r1cs, const std::string& path);

// The index of the first constraint the witness does not satisfy, or nullopt when it satisfies
// them all. Throws std::invalid_argument when the witness does not have one value per wire or
// its wire 0 is not 1.
std::optional<size_t> first_unsatisfied_constraint(const R1cs& r1cs, std::span<const ff::Fr> witness);

}  // namespace cuzk::snarkjs

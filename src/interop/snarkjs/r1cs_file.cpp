#include "interop/snarkjs/r1cs_file.hpp"

#include <stdexcept>

#include "interop/snarkjs/encoding.hpp"

namespace cuzk::snarkjs {
namespace {

constexpr uint32_t kHeaderSection = 1, kConstraintSection = 2, kMapSection = 3;
constexpr uint32_t kCustomGatesListSection = 4, kCustomGatesUsesSection = 5;

LinearCombination read_combination(SectionReader& in, uint32_t wires, const std::string& where) {
  const uint64_t count_at = in.offset();
  const uint32_t count = in.u32(where + " term count");
  // Each term is 4 + 32 bytes: a count beyond what is left is corrupt, not a huge allocation.
  if (uint64_t(count) * (4 + kFrBytes) > in.remaining()) {
    in.fail_at(count_at, where + " term count",
               std::to_string(count) + " terms need " + std::to_string(uint64_t(count) * (4 + kFrBytes)) + " bytes, " +
                   std::to_string(in.remaining()) + " left");
  }
  LinearCombination lc(count);
  for (R1csTerm& t : lc) {
    const uint64_t at = in.offset();
    t.wire = in.u32(where + " wire");
    if (t.wire >= wires) {
      in.fail_at(at, where + " wire",
                 "wire " + std::to_string(t.wire) + " is out of range (the header declares " + std::to_string(wires) +
                     " wires)");
    }
    t.coefficient = read_canonical_fr(in, where + " coefficient");
  }
  return lc;
}

}  // namespace

R1cs read_r1cs(const std::string& path) { return parse_r1cs(BinaryFile::read(path, "r1cs", 1)); }

R1cs parse_r1cs(const BinaryFile& file) {
  if (file.find(kCustomGatesListSection, "custom gates list") || file.find(kCustomGatesUsesSection, "custom gates")) {
    throw FormatError(file.name() +
                      ": sections 4/5 (custom gates): the circuit uses circom custom gates, which only PLONK "
                      "supports; Groth16 needs a circuit without them");
  }
  R1cs r;
  SectionReader h = file.reader(kHeaderSection, "header");
  expect_prime(h, Fr::modulus().limb, "scalar field r", "field prime");
  r.wires = h.u32("wire count");
  r.outputs = h.u32("public output count");
  r.public_inputs = h.u32("public input count");
  r.private_inputs = h.u32("private input count");
  r.labels = h.u64("label count");
  const uint64_t constraints_at = h.offset();
  const uint32_t constraints = h.u32("constraint count");
  h.expect_end();
  if (r.wires == 0 || uint64_t(r.outputs) + r.public_inputs + r.private_inputs >= r.wires) {
    h.fail_at(constraints_at - 24, "wire counts",
              std::to_string(r.wires) + " wires cannot hold the constant 1, " + std::to_string(r.outputs) +
                  " outputs, " + std::to_string(r.public_inputs) + " public and " + std::to_string(r.private_inputs) +
                  " private inputs");
  }

  SectionReader c = file.reader(kConstraintSection, "constraints");
  // Each constraint takes at least 12 bytes (three term counts).
  if (uint64_t(constraints) * 12 > c.remaining()) {
    h.fail_at(constraints_at, "constraint count",
              std::to_string(constraints) + " constraints cannot fit the constraint section's " +
                  std::to_string(c.remaining()) + " bytes");
  }
  r.constraints.resize(constraints);
  for (uint32_t i = 0; i < constraints; i++) {
    const std::string where = "constraint " + std::to_string(i);
    r.constraints[i].a = read_combination(c, r.wires, where + " A");
    r.constraints[i].b = read_combination(c, r.wires, where + " B");
    r.constraints[i].c = read_combination(c, r.wires, where + " C");
  }
  c.expect_end();

  if (const SectionEntry* map = file.find(kMapSection, "wire-to-label map")) {
    SectionReader m = file.reader(*map, "wire-to-label map");
    m.expect_remaining(uint64_t(r.wires) * 8, "one u64 label per wire");
    r.wire_labels.resize(r.wires);
    for (uint64_t& label : r.wire_labels) label = m.u64("label");
  }
  return r;
}

std::optional<size_t> first_unsatisfied_constraint(const R1cs& r1cs, std::span<const ff::Fr> witness) {
  if (witness.size() != r1cs.wires) {
    throw std::invalid_argument("the witness has " + std::to_string(witness.size()) + " values, the circuit " +
                                std::to_string(r1cs.wires) + " wires");
  }
  if (witness.empty() || witness[0] != ff::Fr::one()) {
    throw std::invalid_argument("the witness's first value (wire 0, the constant) is not 1");
  }
  auto evaluate = [&](const LinearCombination& lc) {
    ff::Fr sum = ff::Fr::zero();
    for (const R1csTerm& t : lc) sum += t.coefficient * witness[t.wire];
    return sum;
  };
  for (size_t i = 0; i < r1cs.constraints.size(); i++) {
    const R1csConstraint& k = r1cs.constraints[i];
    if (evaluate(k.a) * evaluate(k.b) != evaluate(k.c)) return i;
  }
  return std::nullopt;
}

namespace {

void write_combination(BinaryFileWriter& out, const LinearCombination& lc) {
  out.u32(uint32_t(lc.size()));
  for (const R1csTerm& t : lc) {
    out.u32(t.wire);
    uint8_t v[kFrBytes];
    t.coefficient.to_bytes_le(v);
    out.bytes(v);
  }
}

}  // namespace

std::vector<uint8_t> serialize_r1cs(const R1cs& r) {
  if (!r.wire_labels.empty() && r.wire_labels.size() != r.wires) {
    throw std::invalid_argument("serialize_r1cs: the wire-to-label map must have one entry per wire");
  }
  BinaryFileWriter out("r1cs", 1, r.wire_labels.empty() ? 2 : 3);
  // circom writes the constraints section first, then the header.
  out.begin_section(kConstraintSection);
  for (const R1csConstraint& c : r.constraints) {
    write_combination(out, c.a);
    write_combination(out, c.b);
    write_combination(out, c.c);
  }
  out.end_section();
  out.begin_section(kHeaderSection);
  write_prime(out, Fr::modulus().limb);
  out.u32(r.wires);
  out.u32(r.outputs);
  out.u32(r.public_inputs);
  out.u32(r.private_inputs);
  out.u32(uint32_t(r.labels));
  out.u32(uint32_t(r.labels >> 32));
  out.u32(uint32_t(r.constraints.size()));
  out.end_section();
  if (!r.wire_labels.empty()) {
    out.begin_section(kMapSection);
    for (uint64_t label : r.wire_labels) {
      out.u32(uint32_t(label));
      out.u32(uint32_t(label >> 32));
    }
    out.end_section();
  }
  return std::move(out).finish();
}

void write_r1cs(const R1cs& r1cs, const std::string& path) { write_binary_file(path, serialize_r1cs(r1cs), "r1cs"); }

}  // namespace cuzk::snarkjs

// snarkjs' witness file (.wtns, version 2): section 1 the field (u32 byte width, the prime) and
// the value count, section 2 the values, canonical little-endian, in wire order (wire 0 = 1).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "ff/fr.hpp"
#include "interop/snarkjs/binary_file.hpp"

namespace cuzk::snarkjs {

// Throws FormatError naming the section and offset for a malformed or truncated file, another
// curve's prime or a value not below r.
std::vector<ff::Fr> read_witness(const std::string& path);
std::vector<ff::Fr> parse_witness(const BinaryFile& file);

// The file as snarkjs' `wtns calculate` writes it (version 2), which parse_witness reads back.
std::vector<uint8_t> serialize_witness(std::span<const ff::Fr> witness);
void write_witness(std::span<const ff::Fr> witness, const std::string& path);

}  // namespace cuzk::snarkjs

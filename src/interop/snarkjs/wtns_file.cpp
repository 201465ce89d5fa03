#include "interop/snarkjs/wtns_file.hpp"

#include "interop/snarkjs/encoding.hpp"

namespace cuzk::snarkjs {

std::vector<ff::Fr> read_witness(const std::string& path) { return parse_witness(BinaryFile::read(path, "wtns", 2)); }

std::vector<ff::Fr> parse_witness(const BinaryFile& file) {
  SectionReader h = file.reader(1, "header");
  expect_prime(h, Fr::modulus().limb, "scalar field r", "field prime");
  const uint32_t count = h.u32("witness count");
  h.expect_end();
  SectionReader v = file.reader(2, "witness values");
  v.expect_remaining(uint64_t(count) * kFrBytes, std::to_string(count) + " values of 32 bytes");
  const uint64_t base = v.offset();
  const std::span<const uint8_t> bytes = v.bytes(uint64_t(count) * kFrBytes, "values");
  std::vector<ff::Fr> witness(count);
  for (uint32_t i = 0; i < count; i++) {
    if (!Fr::from_bytes_le(bytes.data() + size_t(i) * kFrBytes, witness[i])) {
      v.fail_at(base + uint64_t(i) * kFrBytes, "value " + std::to_string(i),
                "not below the BLS12-381 scalar field modulus r");
    }
  }
  return witness;
}

std::vector<uint8_t> serialize_witness(std::span<const ff::Fr> witness) {
  BinaryFileWriter out("wtns", 2, 2);
  out.begin_section(1);
  write_prime(out, Fr::modulus().limb);
  out.u32(uint32_t(witness.size()));
  out.end_section();
  out.begin_section(2);
  const std::span<uint8_t> values = out.reserve(witness.size() * kFrBytes);
  for (size_t i = 0; i < witness.size(); i++) witness[i].to_bytes_le(values.data() + i * kFrBytes);
  out.end_section();
  return std::move(out).finish();
}

void write_witness(std::span<const ff::Fr> witness, const std::string& path) {
  write_binary_file(path, serialize_witness(witness), "witness");
}

}  // namespace cuzk::snarkjs

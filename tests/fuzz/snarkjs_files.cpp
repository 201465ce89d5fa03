// Fuzz target: snarkjs' files (src/interop/snarkjs): the iden3 binary container and the .r1cs,
// .wtns and .zkey readers, and the proof.json, public.json and verification_key.json readers. The
// first byte picks the reader; the rest is the file. Oracle: a binary file is read or refused with
// a FormatError naming what is wrong (any other exception, or an allocation the file's counts
// ask for before they are checked against its size, is a finding); a JSON document that reads
// writes back to JSON that reads to the same value.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.hpp"
#include "interop/snarkjs/binary_file.hpp"
#include "interop/snarkjs/format_error.hpp"
#include "interop/snarkjs/json_io.hpp"
#include "interop/snarkjs/r1cs_file.hpp"
#include "interop/snarkjs/wtns_file.hpp"
#include "interop/snarkjs/zkey_file.hpp"

using namespace cuzk::snarkjs;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t selector = data[0] % 6;
  std::vector<uint8_t> bytes(data + 1, data + size);
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    switch (selector) {
      case 0:
        parse_r1cs(BinaryFile::parse(std::move(bytes), "fuzz.r1cs", "r1cs", 1));
        break;
      case 1:
        parse_witness(BinaryFile::parse(std::move(bytes), "fuzz.wtns", "wtns", 2));
        break;
      case 2:
        parse_zkey(BinaryFile::parse(std::move(bytes), "fuzz.zkey", "zkey", 2));
        break;
      case 3: {
        const Proof p = proof_from_json(text, "proof.json");
        CUZK_FUZZ_CHECK(proof_from_json(proof_to_json(p), "again") == p);
        break;
      }
      case 4: {
        const auto signals = public_signals_from_json(text, "public.json");
        CUZK_FUZZ_CHECK(public_signals_from_json(public_signals_to_json(signals), "again") == signals);
        break;
      }
      case 5: {
        const VerifyingKey vk = verifying_key_from_json(text, "verification_key.json");
        CUZK_FUZZ_CHECK(verifying_key_from_json(verifying_key_to_json(vk), "again") == vk);
        break;
      }
    }
  } catch (const FormatError&) {
  }
  return 0;
}

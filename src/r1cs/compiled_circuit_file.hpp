// A compiled circuit (compiled_circuit.hpp) in a file beside the parameter cache, so that a shape
// is recorded once, not per process. The file names the circuit and the version of its code
// (circuit_id, e.g. "porep-StackedDrg32GiBV1_1-c1") and ends with a digest of everything before
// it (the SHA-256 of the SHA-256s of its blocks, 64 MiB by default, so that a reader hashes on
// every core); a file of another format, another circuit or another code version, truncated,
// corrupted or inconsistent is refused by name and recorded again, never used.
//
// Layout (little-endian): "CUZKR1CS", u32 format, u32 log2 of the digest's block, u32 id length,
// the id; u64 constraints, inputs, aux; u32 coefficients, 32 canonical bytes each; A, B, C each as
// u64 rows + 1, u64 entries, the row starts (u32), the columns (u32), the coefficient indices
// (u16, padded to 4 bytes); the densities a_aux, b_input, b_aux each as u64 bits and their 64-bit
// words; the digest (32 bytes).
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "r1cs/compiled_circuit.hpp"

namespace cuzk::r1cs {

// 2: the digest of blocks, read on every core (1: one SHA-256 of the whole, read on one).
inline constexpr uint32_t kCompiledCircuitFormat = 2;

// A compiled-circuit file that cannot be used: missing, truncated, corrupted, or of another
// format, circuit or code version. The message names the file and what is wrong with it.
class CompiledCircuitFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Writes atomically (a temporary file beside it, renamed into place). log_digest_block: the
// digest's blocks, 2^12 to 2^30 bytes (smaller ones in tests, so that a small circuit has several).
// Throws std::runtime_error.
inline constexpr unsigned kDefaultLogDigestBlock = 26;
void write_compiled_circuit(const std::filesystem::path& path, std::string_view circuit_id, const CompiledCircuit& cc,
                            unsigned log_digest_block = kDefaultLogDigestBlock);
// Reads on every core (oneTBB). Throws CompiledCircuitFileError.
CompiledCircuit read_compiled_circuit(const std::filesystem::path& path, std::string_view circuit_id);

// circuit_id's compiled circuit: read from path when the file is there and sound, else recorded
// with compile() and written there (a file that could not be written is logged, not fatal). log
// gets one line: read (with its load time) or recorded (with why, and the time it took).
std::shared_ptr<const CompiledCircuit> load_or_compile(const std::filesystem::path& path, std::string_view circuit_id,
                                                       const std::function<CompiledCircuit()>& compile,
                                                       const std::function<void(const std::string&)>& log = {});

}  // namespace cuzk::r1cs

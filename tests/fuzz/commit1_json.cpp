// Fuzz target: the Commit1 (SealCommitPhase1Output) JSON reader, Curio's PoRep C2 input.
// Oracle: the writer is canonical, not byte-exact for every accepted spelling of the JSON
// (whitespace, key order), so the check is that an accepted input, written and read back, writes
// the same bytes again: the reader and the writer agree on every value the reader accepts.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "filecoin/porep/commit1.hpp"
#include "fuzz_check.hpp"

using namespace cuzk::filecoin;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view json(reinterpret_cast<const char*>(data), size);
  std::string written;
  try {
    written = write_seal_commit_phase1(read_seal_commit_phase1(json));
  } catch (const C1FormatError&) {
    return 0;
  } catch (const std::invalid_argument&) {
    return 0;
  } catch (const std::runtime_error&) {
    return 0;
  }
  std::string again;
  try {
    again = write_seal_commit_phase1(read_seal_commit_phase1(written));
  } catch (const std::exception&) {
    CUZK_FUZZ_CHECK(!"the writer's output of an accepted input does not read back");
  }
  CUZK_FUZZ_CHECK(again == written);
  return 0;
}

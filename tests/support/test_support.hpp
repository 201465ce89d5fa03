// Shared helpers for the tests: a per-run random seed (printed, and settable through
// CUZK_TEST_SEED to reproduce a failure) and the path of the shared test vectors.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace cuzk::test {

// Whether this test program is built under AddressSanitizer or ThreadSanitizer (GCC or clang):
// memory figures and timings mean nothing there.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif
#else
inline constexpr bool kSanitized = false;
#endif

// The seed of this test process, chosen at start-up unless CUZK_TEST_SEED is set.
uint64_t run_seed();

// A generator seeded from the run seed and the current test's name, so each test is
// reproducible on its own.
std::mt19937_64 make_rng();

// Directory of ../shared/testdata (CMake's CUZK_TESTDATA_DIR, or $CUZK_TESTDATA).
std::string testdata_dir();

// Directory of tests/data in the source tree, the fixtures committed with the tests (CMake's
// CUZK_REPO_TESTDATA_DIR, or $CUZK_REPO_TESTDATA, e.g. where the tree was copied elsewhere).
std::string repo_testdata_dir();

// Reads a whole file; fails the current test (returns empty) when it cannot.
std::vector<uint8_t> read_file(const std::string& path);

// A whole file as a string of bytes ("" when it cannot be read; no test failure: callers check).
std::string read_text(const std::string& path);
// Writes (replaces) a file with bytes; fails the current test when it cannot.
void write_file(const std::string& path, std::string_view bytes);

// The bytes of a hex string (either case); fails the current test (returns what it read so far)
// at an odd length or a character that is not a hex digit.
std::vector<uint8_t> hex_bytes(const std::string& hex);
// hex_bytes of exactly 64 hex characters (a commitment, a prover id, randomness).
std::array<uint8_t, 32> bytes32_from_hex(const std::string& hex);

// A fresh directory /tmp/<prefix>-XXXXXX, removed with everything in it at the end of its scope.
struct TempDir {
  explicit TempDir(const std::string& prefix = "cuzk-test");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string path;
};

// Sets (or, for nullptr, unsets) an environment variable and restores it at the end of its scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value);
  ~ScopedEnv();
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
  void set(const char* value);

 private:
  std::string name_;
  std::optional<std::string> old_;
};

}  // namespace cuzk::test

#include "test_support.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <unistd.h>

#include <gtest/gtest.h>

namespace cuzk::test {

uint64_t run_seed() {
  static const uint64_t seed = [] {
    if (const char* env = std::getenv("CUZK_TEST_SEED")) return uint64_t(std::strtoull(env, nullptr, 0));
    std::random_device rd;
    return (uint64_t(rd()) << 32) | uint64_t(rd());
  }();
  return seed;
}

std::mt19937_64 make_rng() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = info ? std::string(info->test_suite_name()) + "." + info->name() : "";
  return std::mt19937_64(run_seed() ^ std::hash<std::string>{}(name));
}

std::string testdata_dir() {
  if (const char* env = std::getenv("CUZK_TESTDATA")) return env;
  return CUZK_TESTDATA_DIR;
}

std::string repo_testdata_dir() {
  if (const char* env = std::getenv("CUZK_REPO_TESTDATA")) return env;
  return CUZK_REPO_TESTDATA_DIR;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_file(const std::string& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), std::streamsize(bytes.size()));
  if (!out.good()) ADD_FAILURE() << "cannot write " << path;
}

std::vector<uint8_t> hex_bytes(const std::string& hex) {
  const auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::vector<uint8_t> out;
  if (hex.size() % 2) ADD_FAILURE() << "odd-length hex string: " << hex;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    const int hi = digit(hex[i]), lo = digit(hex[i + 1]);
    if (hi < 0 || lo < 0) {
      ADD_FAILURE() << "not a hex digit at " << i << " of: " << hex;
      break;
    }
    out.push_back(uint8_t(hi << 4 | lo));
  }
  return out;
}

std::array<uint8_t, 32> bytes32_from_hex(const std::string& hex) {
  std::array<uint8_t, 32> b{};
  if (hex.size() != 64) ADD_FAILURE() << "expected 64 hex characters, got " << hex.size() << ": " << hex;
  const std::vector<uint8_t> bytes = hex_bytes(hex);
  std::copy_n(bytes.begin(), std::min(bytes.size(), b.size()), b.begin());
  return b;
}

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    ADD_FAILURE() << "cannot open " << path << " (set CUZK_TESTDATA to the shared testdata directory)";
    return {};
  }
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

TempDir::TempDir(const std::string& prefix) {
  std::string tmpl = "/tmp/" + prefix + "-XXXXXX";
  if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp " + tmpl + ": " + std::strerror(errno));
  path = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
}

namespace {
// Prints the seed once at start and again after any failure.
class SeedPrinter : public ::testing::EmptyTestEventListener {
  void OnTestProgramStart(const ::testing::UnitTest&) override {
    std::printf("cuzk test seed: %llu (CUZK_TEST_SEED=%llu reproduces this run)\n", (unsigned long long)run_seed(),
                (unsigned long long)run_seed());
  }
  void OnTestEnd(const ::testing::TestInfo& info) override {
    if (info.result()->Failed()) {
      std::printf("  failed with CUZK_TEST_SEED=%llu\n", (unsigned long long)run_seed());
    }
  }
};
}  // namespace

ScopedEnv::ScopedEnv(const char* name, const char* value) : name_(name) {
  if (const char* old = std::getenv(name)) old_ = old;
  set(value);
}

ScopedEnv::~ScopedEnv() { set(old_ ? old_->c_str() : nullptr); }

void ScopedEnv::set(const char* value) {
  if (value) {
    ::setenv(name_.c_str(), value, 1);
  } else {
    ::unsetenv(name_.c_str());
  }
}

}  // namespace cuzk::test

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::UnitTest::GetInstance()->listeners().Append(new cuzk::test::SeedPrinter);
  return RUN_ALL_TESTS();
}

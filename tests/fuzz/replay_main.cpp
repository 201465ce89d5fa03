// The fuzz targets as plain tests: runs every file of the target's corpus (CUZK_FUZZ_CORPUS, or
// the files and directories given as arguments) through LLVMFuzzerTestOneInput once. A trap, a
// crash or an exception that escapes the target fails the run, naming the input.
#include <algorithm>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <unistd.h>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

char g_current[4096];  // the input being run, for the signal handler

void on_signal(int sig) {
  // Only async-signal-safe calls here.
  const char prefix[] = "fuzz replay: finding on input ";
  (void)!write(2, prefix, sizeof prefix - 1);
  (void)!write(2, g_current, std::strlen(g_current));
  (void)!write(2, "\n", 1);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

bool run_file(const std::filesystem::path& path) {
  std::snprintf(g_current, sizeof g_current, "%s", path.c_str());
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "fuzz replay: cannot read %s\n", path.c_str());
    return false;
  }
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // libFuzzer never passes a null pointer, even for an empty input.
  static const uint8_t empty = 0;
  try {
    LLVMFuzzerTestOneInput(bytes.empty() ? &empty : bytes.data(), bytes.size());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz replay: %s: exception escaped the target: %s\n", path.c_str(), e.what());
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  for (int sig : {SIGILL, SIGSEGV, SIGABRT, SIGBUS, SIGFPE}) std::signal(sig, on_signal);
  std::vector<std::filesystem::path> roots;
  for (int i = 1; i < argc; i++) roots.emplace_back(argv[i]);
  if (roots.empty()) roots.emplace_back(CUZK_FUZZ_CORPUS);
  size_t runs = 0, failures = 0;
  for (const auto& root : roots) {
    std::vector<std::filesystem::path> files;
    if (std::filesystem::is_directory(root)) {
      for (const auto& e : std::filesystem::directory_iterator(root))
        if (e.is_regular_file()) files.push_back(e.path());
    } else {
      files.push_back(root);
    }
    std::sort(files.begin(), files.end());  // a stable order, for reproducible output
    for (const auto& f : files) {
      ++runs;
      if (!run_file(f)) ++failures;
    }
  }
  std::printf("fuzz replay: %zu inputs, %zu failures\n", runs, failures);
  // An empty corpus means a wrong path: fail rather than pass vacuously.
  return runs == 0 || failures != 0 ? 1 : 0;
}

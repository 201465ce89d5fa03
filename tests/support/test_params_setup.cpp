// Makes the TEST parameter sets that several slow tests share (CTest fixtures params_*), in the
// build tree's cache, once per run; a set already there is left as it is (the tests that read it
// check its digest trailer). The tests themselves never write the cache, so they run in parallel.
// Usage: test_params_setup CACHE_DIR CIRCUIT_ID...   (Curio's circuit ids: porep-2k, snap-2k, ...)
#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>

#include "groth16/parameters.hpp"
#include "kinds/filecoin_kinds.hpp"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s CACHE_DIR CIRCUIT_ID...\n", argv[0]);
    return 2;
  }
  cuzk::kinds::FilecoinParameterOptions o;
  o.test_dir = argv[1];
  o.allow_test_parameters = true;
  o.log = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
  const auto source = cuzk::kinds::filecoin_parameter_source(o);
  try {
    for (int i = 2; i < argc; i++) {
      const auto stem = cuzk::kinds::param_id_for_circuit_id(argv[i]);
      if (!stem) throw std::invalid_argument(std::string("unknown circuit id ") + argv[i]);
      const auto path = std::filesystem::path(argv[1]) / ("cuzk-TEST-ONLY-" + *stem + ".params");
      if (std::filesystem::exists(path)) {
        std::printf("%s: present, %s\n", argv[i], path.c_str());
        continue;
      }
      const auto t0 = std::chrono::steady_clock::now();
      const auto loaded = source.load(*stem, false);  // Filecoin's file when this machine has it
      std::printf("%s: %s in %.1f s\n", argv[i], loaded.origin.c_str(),
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "test_params_setup: %s\n", e.what());
    return 1;
  }
  return 0;
}

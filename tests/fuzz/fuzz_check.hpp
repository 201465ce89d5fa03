// Shared by the fuzz targets: an oracle failure is a finding, reported as a trap so that libFuzzer
// saves the input and the replay test fails on it.
#pragma once

#include <cstdio>

#define CUZK_FUZZ_CHECK(cond)                                                              \
  do {                                                                                     \
    if (!(cond)) {                                                                         \
      std::fprintf(stderr, "fuzz oracle failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__); \
      __builtin_trap();                                                                    \
    }                                                                                      \
  } while (0)

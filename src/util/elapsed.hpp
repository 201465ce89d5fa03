// Seconds elapsed on the steady clock: the one helper the provers, generators, benchmarks and
// tests print their timings with.
#pragma once

#include <chrono>

namespace cuzk {

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace cuzk

// Wall-clock timing shared by the benchmark tables.
#pragma once

#include <algorithm>
#include <chrono>
#include <vector>

namespace cuzk::bench {

// Median of reps runs of f, in milliseconds.
template <class F>
double median_ms(unsigned reps, F&& f) {
  std::vector<double> t;
  for (unsigned r = 0; r < reps; r++) {
    const auto start = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace cuzk::bench

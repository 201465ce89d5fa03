// Wall-clock timing and peak memory shared by the benchmark tables.
#pragma once

#include <algorithm>
#include <chrono>
#include <sys/resource.h>
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

// This process's peak resident set so far, in GiB.
inline double peak_rss_gib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_maxrss) / (1024.0 * 1024.0);  // ru_maxrss is in KiB
}

}  // namespace cuzk::bench

// 64-bit words from the operating system's random generator (std::random_device reads
// getrandom/urandom on Linux), for toxic waste and the prover's blinding r, s.
#pragma once

#include <cstdint>
#include <random>

namespace cuzk::ff {

class OsRng {
 public:
  using result_type = uint64_t;
  static constexpr uint64_t min() { return 0; }
  static constexpr uint64_t max() { return ~uint64_t(0); }
  uint64_t operator()() { return (uint64_t(device_()) << 32) | uint64_t(device_()); }

 private:
  std::random_device device_;
};

}  // namespace cuzk::ff

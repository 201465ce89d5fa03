// Wall-clock time as the spool records it: milliseconds since the Unix epoch (a steady clock's
// time points do not survive a restart).
#pragma once

#include <chrono>
#include <cstdint>

namespace cuzk::server {

inline int64_t unix_ms_now() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace cuzk::server

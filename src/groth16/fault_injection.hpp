// Fault injection for the prover backends (issue 29): a test, or CUZK_FAULT_INJECT in the
// environment, makes the Nth device-memory request or the Nth kernel launch of the CUDA
// backend fail exactly as the CUDA call would (cuda::check's std::runtime_error with
// cudaErrorMemoryAllocation / cudaErrorLaunchOutOfResources), so that what the engine and the
// daemon do after a device fault can be tested without exhausting a real card.
//
//   CUZK_FAULT_INJECT=device-oom:N      the Nth device-memory request fails (once)
//   CUZK_FAULT_INJECT=launch-error:N    the Nth kernel launch fails (once)
//   (both may be given, separated by a comma; counted from the first site reached)
//
// Off (the default), a site costs one relaxed atomic load. The environment is read once, when
// the first site is reached. No CUDA header here: the engine's tests arm it too.
#pragma once

#include <array>
#include <atomic>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

namespace cuzk::groth16::fault_injection {

enum class Fault : unsigned { kDeviceOom, kLaunchError };
inline constexpr size_t kFaultCount = 2;

inline std::string_view fault_name(Fault f) { return f == Fault::kDeviceOom ? "device-oom" : "launch-error"; }

namespace detail {

struct Counter {
  std::atomic<uint64_t> fail_at{0};  // the site number that fails; 0: off
  std::atomic<uint64_t> passed{0};   // sites reached since arming
};
inline std::array<Counter, kFaultCount> counters;
inline std::atomic<bool> any_armed{false};

inline void arm(Fault f, uint64_t nth) {
  Counter& c = counters[size_t(f)];
  c.passed.store(0);
  c.fail_at.store(nth);
  if (nth) any_armed.store(true);
}

}  // namespace detail

// The Nth site of f reached from now fails (once); 0 disarms f. The count of sites passed
// restarts, so arm(f, UINT64_MAX) counts a run's sites without failing any.
inline void arm(Fault f, uint64_t nth) { detail::arm(f, nth); }

inline void disarm() {
  for (size_t i = 0; i < kFaultCount; i++) detail::arm(Fault(i), 0);
  detail::any_armed.store(false);
}

// Sites of f reached since it was armed (0 while it never was).
inline uint64_t passed(Fault f) { return detail::counters[size_t(f)].passed.load(); }

// Arms from a CUZK_FAULT_INJECT value ("device-oom:3", "launch-error:1,device-oom:2"); throws
// std::invalid_argument naming the variable and what was expected.
inline void arm_from_spec(std::string_view spec) {
  auto refuse = [&](std::string_view part) {
    throw std::invalid_argument("CUZK_FAULT_INJECT=" + std::string(spec) + ": '" + std::string(part) +
                                "' is not device-oom:N or launch-error:N with N >= 1");
  };
  for (std::string_view rest = spec; !rest.empty();) {
    const size_t comma = rest.find(',');
    const std::string_view part = rest.substr(0, comma);
    if (comma + 1 == rest.size()) refuse(rest.substr(comma + 1));  // a trailing comma: an empty part
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    const size_t colon = part.find(':');
    if (colon == std::string_view::npos) refuse(part);
    const std::string_view name = part.substr(0, colon), count = part.substr(colon + 1);
    uint64_t n = 0;
    auto [end, ec] = std::from_chars(count.data(), count.data() + count.size(), n);
    if (ec != std::errc() || end != count.data() + count.size() || n == 0) refuse(part);
    if (name == fault_name(Fault::kDeviceOom)) {
      arm(Fault::kDeviceOom, n);
    } else if (name == fault_name(Fault::kLaunchError)) {
      arm(Fault::kLaunchError, n);
    } else {
      refuse(part);
    }
  }
}

// At a site of f: true when this is the site that must fail (the caller then fails as the
// real CUDA call would).
inline bool fires(Fault f) {
  // Read once, by the first site reached: the daemon's processes are armed without code.
  static const bool from_environment = [] {
    if (const char* spec = std::getenv("CUZK_FAULT_INJECT"); spec && *spec) arm_from_spec(spec);
    return true;
  }();
  (void)from_environment;
  if (!detail::any_armed.load(std::memory_order_relaxed)) return false;
  detail::Counter& c = detail::counters[size_t(f)];
  const uint64_t at = c.fail_at.load();
  if (at == 0) return false;
  // Each caller gets its own site number, so exactly one sees the armed one: a fault fires once.
  if (c.passed.fetch_add(1) + 1 != at) return false;
  c.fail_at.store(0);
  return true;
}

}  // namespace cuzk::groth16::fault_injection

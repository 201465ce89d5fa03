#include "engine/config.hpp"

#include <stdexcept>
#include <string>

namespace cuzk::engine {

std::string_view policy_name(Policy p) {
  switch (p) {
    case Policy::kBudget:
      return "budget";
    case Policy::kSemaphoreReleaseAfterSynth:
      return "semaphore-release-after-synth";
    case Policy::kSemaphoreHoldUntilDelivered:
      return "semaphore-hold-until-delivered";
    case Policy::kChannelCapacityWorkers:
      return "channel-capacity-workers";
  }
  return "?";
}

Policy parse_policy(std::string_view name) {
  for (Policy p : {Policy::kBudget, Policy::kSemaphoreReleaseAfterSynth, Policy::kSemaphoreHoldUntilDelivered,
                   Policy::kChannelCapacityWorkers}) {
    if (policy_name(p) == name) return p;
  }
  throw std::invalid_argument("unknown scheduling policy '" + std::string(name) +
                              "' (budget, semaphore-release-after-synth, semaphore-hold-until-delivered, "
                              "channel-capacity-workers)");
}

std::string_view urgent_admission_name(UrgentAdmission a) {
  return a == UrgentAdmission::kBeside ? "beside" : "reserve";
}

UrgentAdmission parse_urgent_admission(std::string_view name) {
  for (UrgentAdmission a : {UrgentAdmission::kBeside, UrgentAdmission::kReserve}) {
    if (urgent_admission_name(a) == name) return a;
  }
  throw std::invalid_argument("unknown urgent admission '" + std::string(name) + "' (beside, reserve)");
}

std::string_view witness_synthesis_name(WitnessSynthesis w) {
  switch (w) {
    case WitnessSynthesis::kAuto:
      return "auto";
    case WitnessSynthesis::kOn:
      return "on";
    case WitnessSynthesis::kOff:
      return "off";
  }
  return "?";
}

WitnessSynthesis parse_witness_synthesis(std::string_view name) {
  for (WitnessSynthesis w : {WitnessSynthesis::kAuto, WitnessSynthesis::kOn, WitnessSynthesis::kOff}) {
    if (witness_synthesis_name(w) == name) return w;
  }
  throw std::invalid_argument("unknown witness synthesis '" + std::string(name) + "' (auto, on, off)");
}

std::string_view backend_name(BackendKind b) {
  switch (b) {
    case BackendKind::kAuto:
      return "auto";
    case BackendKind::kCpu:
      return "cpu";
    case BackendKind::kCuda:
      return "cuda";
  }
  return "?";
}

BackendKind parse_backend(std::string_view name) {
  for (BackendKind b : {BackendKind::kAuto, BackendKind::kCpu, BackendKind::kCuda}) {
    if (backend_name(b) == name) return b;
  }
  throw std::invalid_argument("unknown backend '" + std::string(name) + "' (auto, cpu, cuda)");
}

}  // namespace cuzk::engine

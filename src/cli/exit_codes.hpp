// Exit codes of the cuzk client, one per kind of failure, so that scripts can react (retry when
// busy, resubmit when cancelled, alert when the daemon is down). Listed in `cuzk --help`.
#pragma once

#include <grpcpp/support/status.h>

namespace cuzk::cli {

enum ExitCode : int {
  kOk = 0,
  kUsage = 1,        // bad flags or arguments
  kUnavailable = 2,  // daemon not reachable, or shutting down
  kInvalid = 3,   // the daemon rejected the request (INVALID_ARGUMENT, ALREADY_EXISTS, FAILED_PRECONDITION, too large)
  kNotFound = 4,  // unknown request id or parameter set
  kBusy = 5,      // queue full (RESOURCE_EXHAUSTED): retry later
  kProofFailed = 6,    // the job ran and failed
  kCancelled = 7,      // the job was cancelled
  kTimeout = 8,        // --timeout passed while waiting
  kOutputError = 9,    // cannot write the output file
  kInternal = 10,      // any other error
  kUnsupported = 11,   // a proof kind or proof the daemon (or client) does not make yet (UNIMPLEMENTED)
  kProofInvalid = 12,  // verify: the proof does not verify
  kInputError = 13,    // an input file cannot be read or is malformed (Commit1 output, vanilla proof, proof, key)
  kInterrupted = 130,  // SIGINT while waiting
};

inline ExitCode exit_code_for(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK:
      return kOk;
    case grpc::StatusCode::UNAVAILABLE:
      return kUnavailable;
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return kTimeout;
    case grpc::StatusCode::INVALID_ARGUMENT:
    case grpc::StatusCode::ALREADY_EXISTS:
    case grpc::StatusCode::FAILED_PRECONDITION:
    case grpc::StatusCode::OUT_OF_RANGE:
      return kInvalid;
    case grpc::StatusCode::NOT_FOUND:
      return kNotFound;
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return kBusy;
    case grpc::StatusCode::CANCELLED:
      return kCancelled;
    case grpc::StatusCode::UNIMPLEMENTED:
      return kUnsupported;
    default:
      return kInternal;
  }
}

inline constexpr const char* kExitCodeHelp =
    "Exit codes: 0 ok; 1 bad flags or arguments; 2 daemon unreachable or shutting down; 3 request\n"
    "rejected (invalid, duplicate id, cannot fit, too large); 4 unknown request id or parameter set; 5 daemon busy\n"
    "(queue full: retry later); 6 proof failed; 7 proof cancelled; 8 --timeout passed; 9 cannot write\n"
    "the output file; 10 other error; 11 proof kind not supported (yet); 12 the proof does not verify;\n"
    "13 an input file cannot be read or is malformed; 130 interrupted.";

}  // namespace cuzk::cli

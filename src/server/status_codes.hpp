// How engine errors become gRPC statuses: a client sees the same codes whatever went wrong
// inside, and scripts can act on them (see the client's exit codes).
#pragma once

#include <grpcpp/support/status.h>
#include <stdexcept>
#include <string_view>

#include "engine/engine.hpp"

namespace cuzk::server {

// A request the daemon refuses before it reaches the engine (INVALID_ARGUMENT).
class InvalidRequest : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};
// A request for something this daemon does not do (yet): a proof kind it does not know, a proof it
// cannot make (UNIMPLEMENTED). The message names the kind.
class Unimplemented : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

grpc::StatusCode to_grpc_code(engine::EngineError::Code code);
grpc::Status to_grpc_status(const engine::EngineError& e);
// "OK", "INVALID_ARGUMENT", ... (metrics labels and log lines).
std::string_view status_code_name(grpc::StatusCode code);

}  // namespace cuzk::server

#include "server/status_codes.hpp"

namespace cuzk::server {

grpc::StatusCode to_grpc_code(engine::EngineError::Code code) {
  using C = engine::EngineError::Code;
  switch (code) {
    case C::kInvalidArgument:
      return grpc::StatusCode::INVALID_ARGUMENT;
    case C::kResourceExhausted:
      return grpc::StatusCode::RESOURCE_EXHAUSTED;
    case C::kNotFound:
      return grpc::StatusCode::NOT_FOUND;
    case C::kAlreadyExists:
      return grpc::StatusCode::ALREADY_EXISTS;
    case C::kFailedPrecondition:
      return grpc::StatusCode::FAILED_PRECONDITION;
    case C::kUnavailable:
      return grpc::StatusCode::UNAVAILABLE;
  }
  return grpc::StatusCode::INTERNAL;
}

grpc::Status to_grpc_status(const engine::EngineError& e) { return grpc::Status(to_grpc_code(e.code()), e.what()); }

std::string_view status_code_name(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK:
      return "OK";
    case grpc::StatusCode::CANCELLED:
      return "CANCELLED";
    case grpc::StatusCode::UNKNOWN:
      return "UNKNOWN";
    case grpc::StatusCode::INVALID_ARGUMENT:
      return "INVALID_ARGUMENT";
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return "DEADLINE_EXCEEDED";
    case grpc::StatusCode::NOT_FOUND:
      return "NOT_FOUND";
    case grpc::StatusCode::ALREADY_EXISTS:
      return "ALREADY_EXISTS";
    case grpc::StatusCode::PERMISSION_DENIED:
      return "PERMISSION_DENIED";
    case grpc::StatusCode::UNAUTHENTICATED:
      return "UNAUTHENTICATED";
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::FAILED_PRECONDITION:
      return "FAILED_PRECONDITION";
    case grpc::StatusCode::ABORTED:
      return "ABORTED";
    case grpc::StatusCode::OUT_OF_RANGE:
      return "OUT_OF_RANGE";
    case grpc::StatusCode::UNIMPLEMENTED:
      return "UNIMPLEMENTED";
    case grpc::StatusCode::INTERNAL:
      return "INTERNAL";
    case grpc::StatusCode::UNAVAILABLE:
      return "UNAVAILABLE";
    case grpc::StatusCode::DATA_LOSS:
      return "DATA_LOSS";
    default:
      return "UNKNOWN";
  }
}

}  // namespace cuzk::server

// The client's gRPC channel to the daemon: plain text on a unix socket or TCP, or TLS (and
// mutual TLS) to a TCP address.
#pragma once

#include <memory>

#include "cli/client_options.hpp"
#include "cuzk/v1/proving.grpc.pb.h"

namespace cuzk::cli {

// The channel credentials of options' tls_ fields (null when none is set). Throws
// std::invalid_argument for options that do not go together (TLS on a unix socket, a certificate
// without its key) and std::runtime_error naming a file that cannot be read or holds no PEM
// certificate or key.
std::shared_ptr<grpc::ChannelCredentials> tls_channel_credentials(const ClientOptions& options);

// A stub on a channel to options.addr with options.credentials (plain text when null): messages of
// any size either way.
std::unique_ptr<cuzk::v1::ProvingEngine::Stub> connect(const ClientOptions& options);

}  // namespace cuzk::cli

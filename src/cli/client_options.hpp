// How the client reaches the daemon and how it waits and prints: the options before the
// subcommand (--addr, --timeout, --progress, --json, --tls-*).
#pragma once

#include <grpcpp/security/credentials.h>
#include <memory>
#include <string>

namespace cuzk::cli {

struct ClientOptions {
  std::string addr;             // unix:/path or host:port
  double timeout_seconds = 0;   // prove/await: give up waiting after this long (0: never)
  double progress_seconds = 5;  // a progress line this often while waiting (0: none)
  bool json = false;            // machine-readable output where a command has it
  // TLS to a TCP address (all empty: plain text): the PEM CA the daemon's certificate is checked
  // against (empty: the system's roots), a PEM certificate and key for mutual TLS, and the name
  // that certificate must carry (empty: the address's host).
  std::string tls_ca, tls_cert, tls_key, tls_server_name;
  // Made from the tls_ options by tls_channel_credentials(); null: plain text.
  std::shared_ptr<grpc::ChannelCredentials> credentials;

  bool tls() const { return !tls_ca.empty() || !tls_cert.empty() || !tls_key.empty() || !tls_server_name.empty(); }
};

}  // namespace cuzk::cli

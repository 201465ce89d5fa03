#include "cli/client_channel.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <grpcpp/grpcpp.h>
#include <sstream>
#include <stdexcept>
#include <string_view>

namespace cuzk::cli {

namespace {

// A PEM file given to a --tls- option; throws std::runtime_error naming the option and the file.
std::string read_pem(const std::string& option, const std::string& path, std::string_view marker,
                     std::string_view expected) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error(option + " " + path + ": cannot read it: " + std::strerror(errno));
  std::stringstream text;
  text << f.rdbuf();
  if (f.bad()) throw std::runtime_error(option + " " + path + ": cannot read it: " + std::strerror(errno));
  std::string pem = text.str();
  if (pem.find("-----BEGIN ") == std::string::npos || pem.find(marker) == std::string::npos) {
    throw std::runtime_error(option + " " + path + ": not a PEM " + std::string(expected));
  }
  return pem;
}

}  // namespace

std::shared_ptr<grpc::ChannelCredentials> tls_channel_credentials(const ClientOptions& o) {
  if (!o.tls()) return nullptr;
  if (o.addr.starts_with("unix:")) {
    throw std::invalid_argument("--tls-ca, --tls-cert, --tls-key and --tls-server-name need a TCP --addr host:port; " +
                                o.addr + " is a unix socket, which never uses TLS");
  }
  if (o.tls_cert.empty() != o.tls_key.empty()) {
    throw std::invalid_argument("--tls-cert and --tls-key go together (the client certificate and its private key)");
  }
  grpc::SslCredentialsOptions ssl;
  if (!o.tls_ca.empty()) {
    ssl.pem_root_certs = read_pem("--tls-ca", o.tls_ca, "-----BEGIN CERTIFICATE-----", "certificate");
  }
  if (!o.tls_cert.empty()) {
    ssl.pem_cert_chain = read_pem("--tls-cert", o.tls_cert, "-----BEGIN CERTIFICATE-----", "certificate");
    ssl.pem_private_key = read_pem("--tls-key", o.tls_key, "PRIVATE KEY-----", "private key");
  }
  return grpc::SslCredentials(ssl);
}

std::unique_ptr<cuzk::v1::ProvingEngine::Stub> connect(const ClientOptions& options) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(-1);  // status documents of busy daemons can be large
  args.SetMaxSendMessageSize(-1);     // PoRep requests carry Commit1 outputs (~70 MB in base64 for 32 GiB)
  if (options.credentials && !options.tls_server_name.empty()) {
    args.SetSslTargetNameOverride(options.tls_server_name);
  }
  std::shared_ptr<grpc::ChannelCredentials> credentials =
      options.credentials ? options.credentials : grpc::InsecureChannelCredentials();
  return cuzk::v1::ProvingEngine::NewStub(grpc::CreateCustomChannel(options.addr, credentials, args));
}

}  // namespace cuzk::cli

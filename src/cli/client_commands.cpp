#include "cli/client_commands.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <grpcpp/grpcpp.h>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <span>
#include <sstream>
#include <stdexcept>

#include "cli/exit_codes.hpp"
#include "ff/fr.hpp"
#include "filecoin/challenges.hpp"
#include "filecoin/empty_sector_update_parameters.hpp"
#include "filecoin/empty_sector_update_vanilla_proof.hpp"
#include "filecoin/fallback_post_vanilla_proof.hpp"
#include "filecoin/parameter_files.hpp"
#include "filecoin/porep_parameters.hpp"
#include "filecoin/registered_post_proof.hpp"
#include "filecoin/registered_proof.hpp"
#include "filecoin/seal_commit_phase1.hpp"
#include "filecoin/seal_verify.hpp"
#include "groth16/param_file.hpp"
#include "interop/snarkjs/json_io.hpp"
#include "interop/snarkjs/verifier.hpp"
#include "kinds/base64.hpp"

namespace cuzk::cli {

namespace v1 = cuzk::v1;
using Clock = std::chrono::steady_clock;

namespace {

volatile std::sig_atomic_t g_interrupted = 0;

// Calls that do not wait for a proof get this long (a stuck daemon must not hang scripts).
constexpr auto kShortCall = std::chrono::seconds(30);

std::unique_ptr<grpc::ClientContext> context(std::chrono::milliseconds deadline) {
  auto ctx = std::make_unique<grpc::ClientContext>();
  ctx->set_deadline(std::chrono::system_clock::now() + deadline);
  return ctx;
}

const char* state_name(v1::JobState s) {
  switch (s) {
    case v1::JOB_STATE_QUEUED:
      return "queued";
    case v1::JOB_STATE_RUNNING:
      return "running";
    case v1::JOB_STATE_SUCCEEDED:
      return "succeeded";
    case v1::JOB_STATE_FAILED:
      return "failed";
    case v1::JOB_STATE_CANCELLED:
      return "cancelled";
    default:
      return "unknown";
  }
}

// AwaitProof's answer is final (the job ended) unless the wait timed out.
bool ended(const v1::AwaitProofResponse& r) {
  return r.status() == v1::AwaitProofResponse::COMPLETED || r.status() == v1::AwaitProofResponse::FAILED ||
         r.status() == v1::AwaitProofResponse::CANCELLED;
}

nlohmann::json timings_json(const v1::Timings& t) {
  return {
      {"queue_wait", t.queue_wait()}, {"param_load", t.param_load()}, {"synthesis", t.synthesis()}, {"gpu", t.gpu()},
      {"finalize", t.finalize()},     {"verify", t.verify()},         {"total", t.total()}};
}

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// --priority: a level name, or an integer: the order within the request's level (priority_offset;
// the level is normal unless the command sets its kind's). Throws std::invalid_argument.
void set_priority(const std::string& text, v1::SubmitProofRequest& req) {
  if (text.empty()) return;
  const std::string t = lower(text);
  if (t == "low") return req.set_priority(v1::LOW);
  if (t == "normal") return req.set_priority(v1::NORMAL);
  if (t == "high") return req.set_priority(v1::HIGH);
  if (t == "critical") return req.set_priority(v1::CRITICAL);
  size_t used = 0;
  long offset = 0;
  try {
    offset = std::stol(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || offset < -999 || offset > 999) {
    throw std::invalid_argument("--priority " + text +
                                ": give low, normal, high or critical, or a number from -999 to 999 (order within "
                                "the level, higher first)");
  }
  req.set_priority_offset(int32_t(offset));
}

v1::SubmitProofRequest make_request(const ProofArgs& a) {
  v1::SubmitProofRequest req;
  req.set_request_id(a.request_id);
  req.set_param_id(a.param_id);
  set_priority(a.priority, req);
  req.set_proof_kind(v1::SYNTHETIC);
  v1::SyntheticInputs* s = req.mutable_synthetic();
  s->set_constraints(a.constraints);
  s->set_public_inputs(a.public_inputs);
  s->set_seed(a.seed);
  s->set_partitions(a.partitions);
  return req;
}

// The whole file; throws std::runtime_error naming it and the reason.
std::string read_file(const std::string& path, const char* what) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error(std::string("cannot read the ") + what + " " + path + ": " + std::strerror(errno));
  std::ostringstream s;
  s << f.rdbuf();
  if (f.bad())
    throw std::runtime_error(std::string("cannot read the ") + what + " " + path + ": " + std::strerror(errno));
  return std::move(s).str();
}

bool all_digits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); });
}

// A registered proof's id given in decimal digits; every registry is small, so a long number is
// no id (and std::stoull cannot overflow). Throws std::invalid_argument.
uint64_t registered_proof_id(const std::string& text) {
  if (text.size() > 9) throw std::invalid_argument("no registered proof has the id " + text);
  return std::stoull(text);
}

// --registered-proof: a RegisteredSealProof name or id. Throws std::invalid_argument.
const filecoin::SealProofInfo& registered_proof_arg(const std::string& text) {
  if (all_digits(text)) return filecoin::seal_proof_info_by_id(registered_proof_id(text));
  return filecoin::seal_proof_info(text);
}

// --registered-proof of `prove window-post` / `prove winning-post`: a RegisteredPoStProof name or
// id of that type. Throws std::invalid_argument.
const filecoin::PoStProofInfo& post_proof_arg(const std::string& text, bool winning) {
  const filecoin::PoStProofInfo* info = nullptr;
  try {
    info = all_digits(text) ? &filecoin::post_proof_info_by_id(registered_proof_id(text))
                            : &filecoin::post_proof_info(text);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("--registered-proof " + text + ": " + e.what());
  }
  if ((info->type == filecoin::PoStType::kWinning) != winning) {
    throw std::invalid_argument(fmt::format(
        "--registered-proof {}: {} is a {} proof; `cuzk prove {}` takes a {} one (e.g. {})", text, info->name,
        winning ? "WindowPoSt" : "WinningPoSt", winning ? "winning-post" : "window-post",
        winning ? "WinningPoSt" : "WindowPoSt", winning ? "StackedDrgWinning32GiBV1" : "StackedDrgWindow32GiBV1_2"));
  }
  return *info;
}

// --registered-proof of `prove snap`: a RegisteredUpdateProof name or id. Throws
// std::invalid_argument.
const filecoin::UpdateProofInfo& update_proof_arg(const std::string& text) {
  try {
    return all_digits(text) ? filecoin::update_proof_info_by_id(registered_proof_id(text))
                            : filecoin::update_proof_info(text);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("--registered-proof " + text + ": " + e.what());
  }
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The hex digits of text after an optional 0x; nullopt when another character is there.
std::optional<std::string_view> hex_digits(std::string_view text) {
  if (text.starts_with("0x") || text.starts_with("0X")) text.remove_prefix(2);
  if (!std::all_of(text.begin(), text.end(), [](char c) { return hex_digit(c) >= 0; })) return std::nullopt;
  return text;
}

// RFC 4648 base32, lower case, without padding (multibase 'b', as CIDs are written); nullopt for
// another character or bits left over that are not zero padding.
std::optional<std::string> base32_decode(std::string_view text) {
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : text) {
    int v = c >= 'a' && c <= 'z' ? c - 'a' : c >= '2' && c <= '7' ? c - '2' + 26 : -1;
    if (v < 0) return std::nullopt;
    acc = acc << 5 | uint32_t(v);
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out += char(acc >> bits & 0xff);
      acc &= (uint32_t(1) << bits) - 1;
    }
  }
  if (bits >= 5 || acc != 0) return std::nullopt;
  return out;
}

// The digest of a commitment's CID (go-fil-commcid: CIDv1, codec fil-commitment-sealed with
// poseidon-bls12_381-a2-fc1 for a CommR, fil-commitment-unsealed with sha2-256-trunc254-padded for a
// CommD, a 32-byte digest: the raw commitment). Throws std::invalid_argument naming the option.
std::string commitment_from_cid(const std::string& text, const std::string& option, bool sealed) {
  constexpr uint64_t kSealedCodec = 0xf102, kUnsealedCodec = 0xf101, kPoseidonHash = 0xb401, kShaTruncHash = 0x1012;
  const std::string kind = sealed ? "CommR" : "CommD";
  std::optional<std::string> bytes;
  if (text.size() > 1 && text[0] == 'b') bytes = base32_decode(std::string_view(text).substr(1));
  if (!bytes) {
    throw std::invalid_argument(
        fmt::format("{} {}: give the {} as 64 hex digits (its 32 raw bytes) or as its CID ({}...)", option, text, kind,
                    sealed ? "bagboea4b5abc" : "baga6ea4seaq"));
  }
  size_t at = 0;
  auto varint = [&]() {
    uint64_t v = 0;
    for (int shift = 0; shift < 63; shift += 7) {
      if (at >= bytes->size()) throw std::invalid_argument(fmt::format("{} {}: the CID ends early", option, text));
      const uint8_t b = uint8_t((*bytes)[at++]);
      v |= uint64_t(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
    throw std::invalid_argument(fmt::format("{} {}: a CID field is longer than a varint", option, text));
  };
  const uint64_t version = varint(), codec = varint(), hash = varint(), length = varint();
  const uint64_t want_codec = sealed ? kSealedCodec : kUnsealedCodec,
                 want_hash = sealed ? kPoseidonHash : kShaTruncHash;
  if (version != 1 || codec != want_codec || hash != want_hash) {
    throw std::invalid_argument(fmt::format(
        "{} {}: a CIDv{} of codec {:#x} and hash {:#x}; a {} is a CIDv1 of {} ({:#x}) and {} ({:#x})", option, text,
        version, codec, hash, kind, sealed ? "fil-commitment-sealed" : "fil-commitment-unsealed", want_codec,
        sealed ? "poseidon-bls12_381-a2-fc1" : "sha2-256-trunc254-padded", want_hash));
  }
  if (length != 32 || bytes->size() - at != 32) {
    throw std::invalid_argument(
        fmt::format("{} {}: the CID's digest is {} bytes; a {} is 32", option, text, bytes->size() - at, kind));
  }
  return bytes->substr(at);
}

// The "registered_proof" of a Commit1 output's JSON, without parsing the rest (tens of MB for
// 32 GiB): filecoin-proofs-api writes it first. Empty when absent.
std::string c1_registered_proof(std::string_view json) {
  const std::string_view key = "\"registered_proof\"";
  size_t at = json.find(key);
  if (at == std::string_view::npos) return {};
  at += key.size();
  while (at < json.size() && (std::isspace(static_cast<unsigned char>(json[at])) || json[at] == ':')) ++at;
  if (at >= json.size() || json[at] != '"') return {};
  size_t end = json.find('"', at + 1);
  if (end == std::string_view::npos) return {};
  return std::string(json.substr(at + 1, end - at - 1));
}

// Writes through a temporary file and a rename, so a reader never sees half a proof.
bool write_file(const std::string& path, const std::string& bytes, std::string& error) {
  std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) {
      error = "cannot open " + tmp + ": " + std::strerror(errno);
      return false;
    }
    f.write(bytes.data(), std::streamsize(bytes.size()));
    if (!f.flush()) {
      error = "cannot write " + tmp + ": " + std::strerror(errno);
      return false;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    error = "cannot rename " + tmp + " to " + path + ": " + std::strerror(errno);
    std::remove(tmp.c_str());
    return false;
  }
  return true;
}

}  // namespace

uint64_t parse_miner(const std::string& text) {
  std::string digits = text;
  if (digits.size() > 2 && (digits[0] == 't' || digits[0] == 'f') && digits[1] == '0') digits = digits.substr(2);
  bool ok = !digits.empty() && digits.size() <= 19 &&
            std::all_of(digits.begin(), digits.end(), [](unsigned char c) { return std::isdigit(c); });
  if (!ok) {
    throw std::invalid_argument("--miner " + text +
                                ": give the miner's ID address (t01000, f01000) or its actor id (1000)");
  }
  return std::stoull(digits);
}

std::string parse_hex32(const std::string& text, const std::string& option) {
  std::optional<std::string_view> digits = hex_digits(text);
  if (!digits || digits->size() != 64) {
    throw std::invalid_argument(fmt::format("{} {}: give 32 bytes as 64 hex digits{}", option, text,
                                            digits ? fmt::format(" ({} given)", digits->size()) : " (0-9, a-f)"));
  }
  std::string out(32, '\0');
  for (size_t i = 0; i < 32; i++) out[i] = char(hex_digit((*digits)[2 * i]) << 4 | hex_digit((*digits)[2 * i + 1]));
  return out;
}

std::string parse_commitment(const std::string& text, const std::string& option, bool sealed) {
  std::string raw = hex_digits(text) ? parse_hex32(text, option) : commitment_from_cid(text, option, sealed);
  ff::Fr x;
  if (!ff::Fr::from_bytes_le(reinterpret_cast<const uint8_t*>(raw.data()), x)) {
    throw std::invalid_argument(fmt::format(
        "{} {}: not a commitment: its 32 bytes, read little-endian, are not below the BLS12-381 scalar field's "
        "modulus",
        option, text));
  }
  return raw;
}

std::string curio_c1_envelope(const std::string& c1_json, uint64_t sector_number, uint64_t sector_size) {
  // Phase1Out is a []byte: Go's encoding/json writes it as standard base64 with padding.
  const std::string b64 = kinds::base64_encode(c1_json);
  // Go writes SectorNum as int64 (Curio converts the sector number with int64()).
  return fmt::format("{{\"SectorNum\":{},\"Phase1Out\":\"{}\",\"SectorSize\":{}}}", int64_t(sector_number), b64,
                     sector_size);
}

void install_interrupt_handler() {
  std::signal(SIGINT, [](int) { g_interrupted = 1; });
}

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

Client::Client(ClientOptions options) : options_(std::move(options)) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(-1);  // status documents of busy daemons can be large
  args.SetMaxSendMessageSize(-1);     // PoRep requests carry Commit1 outputs (~70 MB in base64 for 32 GiB)
  if (options_.credentials && !options_.tls_server_name.empty()) {
    args.SetSslTargetNameOverride(options_.tls_server_name);
  }
  std::shared_ptr<grpc::ChannelCredentials> credentials =
      options_.credentials ? options_.credentials : grpc::InsecureChannelCredentials();
  stub_ = v1::ProvingEngine::NewStub(grpc::CreateCustomChannel(options_.addr, credentials, args));
}

int Client::fail(const std::string& what, const grpc::Status& s) {
  std::string hint;
  if (s.error_code() == grpc::StatusCode::UNAVAILABLE) {
    if (options_.credentials) {
      hint = fmt::format(
          " (is cuzk-daemon running and listening on {} with TLS? --tls-ca must be the CA that signed its "
          "certificate, --tls-server-name a name the certificate carries, and a daemon with tls_client_ca needs "
          "--tls-cert and --tls-key signed by that CA)",
          options_.addr);
    } else if (!options_.addr.starts_with("unix:")) {
      hint = fmt::format(
          " (is cuzk-daemon running and listening on {}? set it with --addr; if it serves TLS, give --tls-ca)",
          options_.addr);
    } else {
      hint = fmt::format(" (is cuzk-daemon running and listening on {}? set it with --addr)", options_.addr);
    }
  }
  // gRPC refuses a request over the daemon's max_request_bytes itself ("Received message larger
  // than max (N vs. M)"): too large, not busy, and retrying will not help.
  if (s.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED &&
      s.error_message().find("larger than max") != std::string::npos) {
    std::cerr << "cuzk: " << what << ": the request is too large for the daemon (" << s.error_message()
              << "; sizes in bytes): raise the daemon's limit, [daemon] max_request_bytes in its configuration or "
                 "--max-request-bytes\n";
    return kInvalid;
  }
  std::cerr << "cuzk: " << what << ": " << s.error_message() << hint << "\n";
  return exit_code_for(s.error_code());
}

void Client::progress(const std::string& id, double elapsed) {
  v1::GetStatusRequest req;
  req.set_job_id(id);
  v1::GetStatusResponse resp;
  auto ctx = context(std::chrono::seconds(5));
  if (!stub_->GetStatus(ctx.get(), req, &resp).ok()) return;
  std::string parts;
  for (const v1::PartitionStage& p : resp.job().partitions()) {
    parts += fmt::format("{}p{} {}{}", parts.empty() ? "" : ", ", p.partition(), p.stage(),
                         p.worker().empty() ? "" : " (" + p.worker() + ")");
  }
  std::cerr << fmt::format("cuzk: [{:.0f}s] {} {}{}{}\n", elapsed, id, state_name(resp.job().state()),
                           parts.empty() ? "" : ": ", parts);
}

int Client::report(const v1::AwaitProofResponse& r, const std::string& out) {
  const bool completed = r.status() == v1::AwaitProofResponse::COMPLETED;
  if (completed && !out.empty()) {
    std::string error;
    if (!write_file(out, r.proof(), error)) {
      std::cerr << "cuzk: " << error << "\n";
      return kOutputError;
    }
  }
  if (options_.json) {
    nlohmann::json j = {{"request_id", r.job_id()},
                        {"state", state_name(r.state())},
                        {"status", v1::AwaitProofResponse::Status_Name(r.status())},
                        {"verified", r.verified()},
                        {"proof_bytes", r.proof().size()},
                        {"timings", timings_json(r.timings())}};
    if (!out.empty() && completed) j["out"] = out;
    if (!r.error_message().empty()) j["error"] = r.error_message();
    std::cout << j.dump(2) << "\n";
  } else {
    const v1::Timings& t = r.timings();
    std::cout << fmt::format("request   {}\nstate     {}\n", r.job_id(), state_name(r.state()));
    if (!r.error_message().empty()) std::cout << "error     " << r.error_message() << "\n";
    if (completed) {
      std::cout << fmt::format("verified  {}\nproof     {} bytes{}\n",
                               r.verified() ? "true" : "false (verification off)", r.proof().size(),
                               out.empty() ? "" : " -> " + out);
    }
    std::cout << fmt::format(
        "timings   queue {:.3f} s, params {:.3f} s, synthesis {:.3f} s, gpu {:.3f} s, finalize {:.3f} s, "
        "verify {:.3f} s, total {:.3f} s\n",
        t.queue_wait(), t.param_load(), t.synthesis(), t.gpu(), t.finalize(), t.verify(), t.total());
  }
  switch (r.status()) {
    case v1::AwaitProofResponse::COMPLETED:
      return kOk;
    case v1::AwaitProofResponse::CANCELLED:
      return kCancelled;
    default:
      return kProofFailed;
  }
}

int Client::wait_and_report(const std::string& id, const std::string& out, bool cancel_on_interrupt) {
  auto start = Clock::now();
  auto last_progress = start;
  for (;;) {
    double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    if (g_interrupted) {
      if (cancel_on_interrupt) {
        std::cerr << "cuzk: interrupted; cancelling " << id << "\n";
        cancel(id);
      }
      return kInterrupted;
    }
    if (options_.timeout_seconds > 0 && elapsed >= options_.timeout_seconds) {
      std::cerr << fmt::format(
          "cuzk: {} still not done after {:.0f} s (--timeout); it keeps running: "
          "collect it with `cuzk await {}`\n",
          id, elapsed, id);
      return kTimeout;
    }
    if (options_.progress_seconds > 0 &&
        std::chrono::duration<double>(Clock::now() - last_progress).count() >= options_.progress_seconds) {
      progress(id, elapsed);
      last_progress = Clock::now();
    }
    // Short waits so that progress, --timeout and Ctrl-C are handled promptly.
    v1::AwaitProofRequest req;
    req.set_job_id(id);
    req.set_timeout_ms(1000);
    v1::AwaitProofResponse r;
    auto ctx = context(std::chrono::seconds(31));
    grpc::Status s = stub_->AwaitProof(ctx.get(), req, &r);
    if (!s.ok()) return fail("waiting for " + id, s);
    if (ended(r)) return report(r, out);
  }
}

int Client::submit_and_wait(const v1::SubmitProofRequest& req, const std::string& what, const std::string& out,
                            std::chrono::seconds submit_deadline) {
  v1::SubmitProofResponse resp;
  auto ctx = context(submit_deadline);
  grpc::Status s = stub_->SubmitProof(ctx.get(), req, &resp);
  if (!s.ok()) return fail("submit", s);
  std::cerr << fmt::format("cuzk: submitted {} ({}){}\n", resp.job_id(), what,
                           resp.queue_position() ? fmt::format(", {} job(s) ahead", resp.queue_position()) : "");
  return wait_and_report(resp.job_id(), out, true);
}

int Client::prove(const ProofArgs& a) {
  v1::SubmitProofRequest req;
  try {
    req = make_request(a);
  } catch (const std::invalid_argument& e) {
    std::cerr << "cuzk: " << e.what() << "\n";
    return kUsage;
  }
  return submit_and_wait(
      req, fmt::format("{} constraints x {} partition{}", a.constraints, a.partitions, a.partitions == 1 ? "" : "s"),
      a.out, kShortCall);
}

int Client::prove_porep(const PoRepArgs& a) {
  v1::SubmitProofRequest req;
  std::string c1;
  const filecoin::SealProofInfo* info = nullptr;
  try {
    req.set_miner_id(parse_miner(a.miner));
    set_priority(a.priority, req);
    if (!a.registered_proof.empty()) info = &registered_proof_arg(a.registered_proof);
  } catch (const std::invalid_argument& e) {
    std::cerr << "cuzk: " << e.what() << "\n";
    return kUsage;
  }
  try {
    c1 = read_file(a.c1, "Commit1 output");
    if (!info) {
      std::string name = c1_registered_proof(c1);
      if (name.empty()) {
        throw std::runtime_error(a.c1 +
                                 " has no registered_proof: is it a Commit1 output (SealCommitPhase1Output JSON)?");
      }
      info = &filecoin::seal_proof_info(name);
    }
  } catch (const std::exception& e) {
    std::cerr << "cuzk: " << e.what() << "\n";
    return kInputError;
  }
  req.set_request_id(a.request_id);
  req.set_proof_kind(v1::POREP_SEAL_COMMIT);
  req.set_sector_size(info->sector_size);
  req.set_registered_proof(info->id());
  req.set_sector_number(a.sector);
  req.set_vanilla_proof(curio_c1_envelope(c1, a.sector, info->sector_size));
  c1 = {};
  // The daemon reads and checks the Commit1 output before it answers (seconds for 32 GiB).
  return submit_and_wait(req, fmt::format("PoRep {}, miner t0{}, sector {}", info->name, req.miner_id(), a.sector),
                         a.out, std::chrono::seconds(600));
}

namespace {

std::span<const uint8_t> byte_span(std::string_view bytes) {
  return {reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()};
}

// Curio's snap-vproof.json (Go's encoding/json of the [][]byte GenerateUpdateVanillaProofs
// returns: an array of base64 strings), else nullopt. Throws std::runtime_error naming the file for
// a JSON array that does not hold base64 strings.
std::optional<std::vector<std::string>> curio_snap_vanilla_json(const std::string& path, const std::string& text) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos || text[first] != '[') return std::nullopt;
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_array()) return std::nullopt;  // bincode that starts with '[' (0x5b)
  std::vector<std::string> out;
  for (size_t i = 0; i < j.size(); i++) {
    if (!j[i].is_string()) {
      throw std::runtime_error(
          fmt::format("{}: element {} of the JSON array is not a string; Curio's snap-vproof.json holds one base64 "
                      "PartitionProof per partition",
                      path, i));
    }
    try {
      out.push_back(kinds::base64_decode(j[i].get<std::string>()));
    } catch (const std::invalid_argument& e) {
      throw std::runtime_error(fmt::format("{}: element {} is not base64: {}", path, i, e.what()));
    }
  }
  return out;
}

}  // namespace

int Client::prove_post(const PoStArgs& a, bool winning) {
  const char* kind = winning ? "WinningPoSt" : "WindowPoSt";
  v1::SubmitProofRequest req;
  // Curio's levels (WinningPoStCuzk: CRITICAL, WindowPoStCuzk: HIGH); --priority changes them.
  req.set_priority(winning ? v1::CRITICAL : v1::HIGH);
  const filecoin::PoStProofInfo* info = nullptr;
  std::string randomness;
  try {
    req.set_miner_id(parse_miner(a.miner));
    set_priority(a.priority, req);
    info = &post_proof_arg(a.registered_proof, winning);
    randomness = parse_hex32(a.randomness, "--randomness");
  } catch (const std::invalid_argument& e) {
    std::cerr << "cuzk: " << e.what() << "\n";
    return kUsage;
  }
  const size_t most = winning ? 1 : info->params.sector_count;
  if (a.vanilla.empty() || a.vanilla.size() > most) {
    std::cerr << fmt::format("cuzk: {} vanilla proofs given; {} takes {}\n", a.vanilla.size(), info->name,
                             winning ? std::string("one (--vanilla FILE: the challenged sector's)")
                                     : fmt::format("1 to {} (--vanilla FILE for each sector of the partition)", most));
    return kUsage;
  }
  // Each file is checked here, so that a wrong or broken file is named; whether its openings are
  // the challenges of this randomness and partition the daemon checks when it answers.
  std::map<uint64_t, std::string> sectors;  // sector id -> its file
  try {
    for (const std::string& path : a.vanilla) {
      std::string bytes = read_file(path, "vanilla proof");
      filecoin::FallbackPoStSectorProof proof;
      try {
        proof = filecoin::read_fallback_post_sector_proof(byte_span(bytes), *info);
      } catch (const std::invalid_argument& e) {
        throw std::runtime_error(
            fmt::format("{}: not a bincode FallbackPoStSectorProof of {}: {}", path, info->name, e.what()));
      }
      if (proof.sectors.size() != 1) {
        throw std::runtime_error(fmt::format(
            "{}: holds {} sector proofs; one is expected (one sector's vanilla proof, as GenerateSingleVanillaProof "
            "writes it)",
            path, proof.sectors.size()));
      }
      if (auto [it, fresh] = sectors.emplace(proof.sector_id, path); !fresh) {
        throw std::runtime_error(fmt::format("{} and {} both prove sector {}", it->second, path, proof.sector_id));
      }
      req.add_vanilla_proofs(std::move(bytes));
    }
  } catch (const std::exception& e) {
    std::cerr << "cuzk: " << e.what() << "\n";
    return kInputError;
  }
  req.set_request_id(a.request_id);
  req.set_proof_kind(winning ? v1::WINNING_POST : v1::WINDOW_POST_PARTITION);
  req.set_sector_size(info->params.sector_size);
  req.set_registered_proof(info->id());
  req.set_randomness(randomness);
  if (!winning) req.set_partition_index(a.partition);
  const std::string what =
      winning ? fmt::format("{} {}, miner t0{}, sector {}", kind, info->name, req.miner_id(), sectors.begin()->first)
              : fmt::format("{} {}, miner t0{}, partition {}, {} sector{}", kind, info->name, req.miner_id(),
                            a.partition, sectors.size(), sectors.size() == 1 ? "" : "s");
  // The daemon checks every opening before it answers.
  return submit_and_wait(req, what, a.out, std::chrono::seconds(600));
}

int Client::prove_snap(const SnapArgs& a) {
  v1::SubmitProofRequest req;
  req.set_priority(v1::NORMAL);  // as Curio's ProveUpdateCuzk; --priority changes it
  const filecoin::UpdateProofInfo* info = nullptr;
  try {
    req.set_miner_id(parse_miner(a.miner));
    set_priority(a.priority, req);
    info = &update_proof_arg(a.registered_proof);
    req.set_comm_r_old(parse_commitment(a.comm_r_old, "--comm-r-old", true));
    req.set_comm_r_new(parse_commitment(a.comm_r_new, "--comm-r-new", true));
    req.set_comm_d_new(parse_commitment(a.comm_d_new, "--comm-d-new", false));
  } catch (const std::invalid_argument& e) {
    std::cerr << "cuzk: " << e.what() << "\n";
    return kUsage;
  }
  // The partitions in order, each named by its file (and its place in a snap-vproof.json).
  std::vector<std::pair<std::string, std::string>> parts;
  try {
    for (const std::string& path : a.vanilla) {
      std::string text = read_file(path, "vanilla proof");
      if (std::optional<std::vector<std::string>> list = curio_snap_vanilla_json(path, text)) {
        for (size_t i = 0; i < list->size(); i++) parts.emplace_back(fmt::format("{} [{}]", path, i), (*list)[i]);
      } else {
        parts.emplace_back(path, std::move(text));
      }
    }
  } catch (const std::exception& e) {
    std::cerr << "cuzk: " << e.what() << "\n";
    return kInputError;
  }
  const size_t partitions = info->params.partition_count;
  if (parts.size() != partitions) {
    std::cerr << fmt::format(
        "cuzk: {} vanilla proofs given; {} has {} partition{}: give one PartitionProof per partition in partition "
        "order (--vanilla FILE each), or Curio's snap-vproof.json\n",
        parts.size(), info->name, partitions, partitions == 1 ? "" : "s");
    return kUsage;
  }
  // Each partition is read here, so that a wrong or broken file is named; whether it fits the
  // commitments and its partition the daemon checks when it answers.
  for (size_t k = 0; k < parts.size(); k++) {
    auto& [name, bytes] = parts[k];
    try {
      filecoin::read_empty_sector_update_partition_proof(byte_span(bytes), info->params);
    } catch (const std::invalid_argument& e) {
      std::cerr << fmt::format("cuzk: {}: not a bincode PartitionProof of {} (partition {}): {}\n", name, info->name, k,
                               e.what());
      return kInputError;
    }
    req.add_vanilla_proofs(std::move(bytes));
  }
  parts = {};
  req.set_request_id(a.request_id);
  req.set_proof_kind(v1::SNAP_DEALS_UPDATE);
  req.set_sector_size(info->sector_size);
  req.set_registered_proof(info->id());
  req.set_sector_number(a.sector);
  // The daemon checks every partition as the verifier does before it answers.
  return submit_and_wait(req,
                         fmt::format("SnapDeals {}, miner t0{}, sector {}, {} partition{}", info->name, req.miner_id(),
                                     a.sector, partitions, partitions == 1 ? "" : "s"),
                         a.out, std::chrono::seconds(600));
}

int Client::submit(const ProofArgs& a) {
  v1::SubmitProofRequest req;
  try {
    req = make_request(a);
  } catch (const std::invalid_argument& e) {
    std::cerr << "cuzk: " << e.what() << "\n";
    return kUsage;
  }
  v1::SubmitProofResponse resp;
  auto ctx = context(kShortCall);
  grpc::Status s = stub_->SubmitProof(ctx.get(), req, &resp);
  if (!s.ok()) return fail("submit", s);
  if (options_.json) {
    std::cout << nlohmann::json{{"request_id", resp.job_id()},
                                {"state", state_name(resp.state())},
                                {"queue_position", resp.queue_position()}}
                     .dump()
              << "\n";
  } else {
    std::cout << resp.job_id() << "\n";
  }
  return kOk;
}

int Client::await(const std::string& id, const std::string& out) { return wait_and_report(id, out, false); }

int Client::cancel(const std::string& id) {
  v1::CancelProofRequest req;
  req.set_job_id(id);
  v1::CancelProofResponse resp;
  auto ctx = context(kShortCall);
  grpc::Status s = stub_->CancelProof(ctx.get(), req, &resp);
  if (!s.ok()) return fail("cancel " + id, s);
  std::cout << fmt::format(
      "{}: {}\n", id,
      resp.was_running() ? "cancelled" : std::string("already ended (") + state_name(resp.state()) + ")");
  return kOk;
}

int Client::status(const std::string& id) {
  v1::GetStatusRequest req;
  req.set_job_id(id);
  v1::GetStatusResponse resp;
  auto ctx = context(kShortCall);
  grpc::Status s = stub_->GetStatus(ctx.get(), req, &resp);
  if (!s.ok()) return fail(id.empty() ? "status" : "status of " + id, s);
  if (options_.json) {
    if (id.empty()) {
      std::cout << resp.status_json();
    } else {
      const v1::JobStatus& j = resp.job();
      nlohmann::json parts = nlohmann::json::array();
      for (const v1::PartitionStage& p : j.partitions()) {
        parts.push_back({{"partition", p.partition()}, {"stage", p.stage()}, {"worker", p.worker()}});
      }
      nlohmann::json doc = {{"request_id", j.job_id()},
                            {"state", state_name(j.state())},
                            {"partitions", parts},
                            {"timings", timings_json(j.timings())}};
      if (!j.proof_kind().empty()) doc["proof_kind"] = j.proof_kind();
      if (!j.error().empty()) doc["error"] = j.error();
      std::cout << doc.dump(2) << "\n";
    }
    return kOk;
  }
  if (!id.empty()) {
    const v1::JobStatus& j = resp.job();
    std::cout << fmt::format("request   {}\nstate     {}\n", j.job_id(), state_name(j.state()));
    if (!j.proof_kind().empty()) std::cout << "kind      " << j.proof_kind() << "\n";
    if (!j.error().empty()) std::cout << "error     " << j.error() << "\n";
    for (const v1::PartitionStage& p : j.partitions()) {
      std::cout << fmt::format("partition {:<3} {}{}\n", p.partition(), p.stage(),
                               p.worker().empty() ? "" : " (" + p.worker() + ")");
    }
    return kOk;
  }
  auto gib = [](double b) { return b / double(1 << 30); };
  std::cout << fmt::format(
      "daemon    {}, up {} s\njobs      {} active; {} completed, {} failed, {} cancelled\n"
      "queue     {} partition(s) waiting for admission, {} waiting for a GPU\n"
      "budget    {:.2f} of {:.2f} GiB used\n",
      resp.draining() ? "shutting down" : "serving", resp.uptime_seconds(), resp.jobs_active(),
      resp.total_proofs_completed(), resp.total_proofs_failed(), resp.total_proofs_cancelled(),
      resp.queued_partitions(), resp.gpu_queue_depth(), gib(double(resp.budget_used_bytes())),
      gib(double(resp.budget_total_bytes())));
  for (const v1::QueueStatus& q : resp.queues()) {
    std::cout << fmt::format("kind      {}: {} pending, {} in progress\n", q.proof_kind(), q.pending(),
                             q.in_progress());
  }
  for (const v1::GPUStatus& g : resp.gpus()) {
    std::cout << fmt::format("device    {} {}{}{}\n", g.ordinal(), g.name(),
                             g.vram_total_bytes()
                                 ? fmt::format(", {:.1f} of {:.1f} GiB free", gib(double(g.vram_free_bytes())),
                                               gib(double(g.vram_total_bytes())))
                                 : "",
                             g.current_job_id().empty() ? ", idle" : ", proving " + g.current_job_id());
  }
  for (const v1::ParamSetStatus& p : resp.params()) {
    std::cout << fmt::format("params    {}{}: {:.2f} GiB host, {:.2f} GiB device{}\n", p.param_id(),
                             p.circuit_id().empty() ? "" : " (" + p.circuit_id() + ")", gib(double(p.host_bytes())),
                             gib(double(p.device_bytes())), p.in_use() ? ", in use" : "");
  }
  return kOk;
}

int Client::metrics() {
  v1::GetMetricsResponse resp;
  auto ctx = context(kShortCall);
  grpc::Status s = stub_->GetMetrics(ctx.get(), v1::GetMetricsRequest(), &resp);
  if (!s.ok()) return fail("metrics", s);
  std::cout << resp.prometheus_text();
  return kOk;
}

int Client::preload(const std::string& param_id, const ProofArgs& c, bool from_circuit) {
  v1::PreloadParamsRequest req;
  req.set_param_id(param_id);
  if (from_circuit) {
    req.mutable_synthetic()->set_constraints(c.constraints);
    req.mutable_synthetic()->set_public_inputs(c.public_inputs);
    req.mutable_synthetic()->set_seed(c.seed);
  }
  v1::PreloadParamsResponse resp;
  grpc::ClientContext ctx;  // no deadline: generating large synthetic parameters takes long
  grpc::Status s = stub_->PreloadParams(&ctx, req, &resp);
  if (!s.ok()) return fail("preload", s);
  std::cout << fmt::format("{}: resident ({:.1f} MiB in host memory)\n", resp.param_id(),
                           double(resp.host_bytes()) / (1 << 20));
  return kOk;
}

int Client::evict(const std::string& param_id) {
  v1::EvictParamsRequest req;
  req.set_param_id(param_id);
  v1::EvictParamsResponse resp;
  auto ctx = context(kShortCall);
  grpc::Status s = stub_->EvictParams(ctx.get(), req, &resp);
  if (!s.ok()) return fail("evict " + param_id, s);
  std::cout << param_id << ": " << (resp.evicted() ? "evicted" : "was not resident") << "\n";
  return kOk;
}

namespace {

struct VerifyingKeyFile {
  groth16::VerifyingKey vk;
  std::string path;
  bool test = false;  // cuzk's TEST parameters: valid against themselves only, never on chain
};

// --vk, else the published .vk, the published .params, then our TEST parameters in the
// directory. Throws std::runtime_error naming what was looked for.
VerifyingKeyFile find_verifying_key(const PoRepArgs& a, const filecoin::SealProofInfo& info) {
  if (!a.vk.empty()) return {groth16::read_verifying_key(a.vk), a.vk, false};
  const std::filesystem::path dir =
      a.param_cache.empty() ? filecoin::parameter_cache_dir() : std::filesystem::path(a.param_cache);
  const filecoin::ParameterId id = filecoin::porep_parameter_id(info);
  const std::string test_name = filecoin::test_parameters_name(info);
  for (const std::string& name : {id.vk_name(), id.params_name(), test_name}) {
    std::optional<std::filesystem::path> path = filecoin::find_parameter_file(name, dir);
    if (!path) continue;
    if (name == id.vk_name()) return {groth16::read_verifying_key(path->string()), path->string(), false};
    return {groth16::ParameterFile::open(path->string()).decode_verifying_key(groth16::ReadMode::kChecked),
            path->string(), name == test_name};
  }
  throw std::runtime_error(
      fmt::format("no verifying key for {} in {}: looked for {}, {} and {} (cuzk's TEST parameters); give --vk FILE or "
                  "--param-cache DIR",
                  info.name, dir.string(), id.vk_name(), id.params_name(), test_name));
}

}  // namespace

int verify_porep(const PoRepArgs& a, bool json) {
  uint64_t miner = 0;
  try {
    miner = parse_miner(a.miner);
  } catch (const std::invalid_argument& e) {
    std::cerr << "cuzk: " << e.what() << "\n";
    return kUsage;
  }
  filecoin::SealCommitPhase1Output c1;
  std::string proof;
  try {
    c1 = filecoin::read_seal_commit_phase1_file(a.c1);
    proof = read_file(a.proof, "proof");
  } catch (const std::exception& e) {
    std::cerr << "cuzk: " << e.what() << "\n";
    return kInputError;
  }
  const filecoin::SealProofInfo& info = filecoin::seal_proof_info(c1.registered_proof);
  if (!a.registered_proof.empty()) {
    try {
      const filecoin::SealProofInfo& given = registered_proof_arg(a.registered_proof);
      if (given.proof != info.proof) {
        std::cerr << fmt::format("cuzk: --registered-proof {} differs from the Commit1 output's {}\n", given.name,
                                 info.name);
        return kUsage;
      }
    } catch (const std::invalid_argument& e) {
      std::cerr << "cuzk: " << e.what() << "\n";
      return kUsage;
    }
  }
  if (info.feature == filecoin::SealFeature::kNonInteractive) {
    std::cerr << fmt::format(
        "cuzk: {} is non-interactive PoRep, whose proofs are SnarkPack aggregates: cuzk does not verify them\n",
        info.name);
    return kUnsupported;
  }
  VerifyingKeyFile key;
  try {
    key = find_verifying_key(a, info);
  } catch (const std::exception& e) {
    std::cerr << "cuzk: " << e.what() << "\n";
    return kInputError;
  }
  filecoin::SealVerifyInputs in;
  in.prover_id = filecoin::prover_id_from_actor_id(miner);
  in.sector_id = a.sector;
  in.ticket = c1.ticket;
  in.seed = c1.seed;
  in.comm_r = c1.comm_r;
  in.comm_d = c1.comm_d;
  bool valid = false;
  std::string why;
  try {
    const auto* bytes = reinterpret_cast<const uint8_t*>(proof.data());
    valid = filecoin::verify_seal(groth16::PreparedVerifyingKey(key.vk), info, in, {bytes, proof.size()});
    if (!valid) why = "the proof does not verify against these public inputs and this verifying key";
  } catch (const std::invalid_argument& e) {
    why = e.what();  // wrong length, a point that does not decode
  }
  if (json) {
    nlohmann::json j = {{"valid", valid},
                        {"registered_proof", info.name},
                        {"miner", miner},
                        {"sector", a.sector},
                        {"partitions", info.partitions},
                        {"verifying_key", key.path},
                        {"test_parameters", key.test}};
    if (!valid) j["error"] = why;
    std::cout << j.dump(2) << "\n";
  } else if (valid) {
    std::cout << fmt::format("valid     {} ({}, miner t0{}, sector {}, {} partition{})\nkey       {}{}\n", a.proof,
                             info.name, miner, a.sector, info.partitions, info.partitions == 1 ? "" : "s", key.path,
                             key.test ? " (cuzk's TEST parameters: such proofs never verify on chain)" : "");
  } else {
    std::cerr << fmt::format("cuzk: {} is not a valid proof for {}, miner t0{}, sector {}: {}\n", a.proof, info.name,
                             miner, a.sector, why);
  }
  return valid ? kOk : kProofInvalid;
}

FilecoinCommands::FilecoinCommands(CLI::App& app) {
  CLI::App* prove = app.get_subcommand("prove");
  prove_porep_ = prove->add_subcommand(
      "porep", "Prove a Filecoin PoRep Commit2 from a Commit1 output (sent as Curio sends it); Ctrl-C cancels it");
  prove_porep_->add_option("--c1", args_.c1, "The Commit1 output (SealCommitPhase1Output JSON)")->required();
  prove_porep_->add_option("--miner", args_.miner, "The miner: t01000, f01000 or 1000")->required();
  prove_porep_->add_option("--sector", args_.sector, "The sector number")->required();
  prove_porep_->add_option("--registered-proof", args_.registered_proof,
                           "RegisteredSealProof name or id (default: the Commit1 output's)");
  prove_porep_->add_option("--request-id", args_.request_id, "Job id (default: the daemon picks one)");
  prove_porep_->add_option("--priority", args_.priority,
                           "low, normal, high or critical, or -999..999 within normal (default normal)");
  prove_porep_->add_option("--out", args_.out,
                           "Write the proof bytes (192 per partition, as seal_commit_phase2 returns them) here");
  prove_porep_->add_flag("--json", json_, "Print the result as JSON");

  // The options the PoSt commands share.
  auto post_options = [this](CLI::App* cmd, bool winning) {
    cmd->add_option("--vanilla", post_.vanilla,
                    winning ? "The challenged sector's vanilla proof: a bincode FallbackPoStSectorProof (its 66 "
                              "openings) as filecoin-ffi's GenerateSingleVanillaProof writes it"
                            : "A sector's vanilla proof: a bincode FallbackPoStSectorProof as filecoin-ffi's "
                              "GenerateSingleVanillaProof writes it (cuzk-bench post-vanilla makes one); repeat it "
                              "for each sector of the partition")
        ->required()
        ->type_name("FILE");
    cmd->add_option("--registered-proof", post_.registered_proof,
                    winning ? "RegisteredPoStProof name or id, e.g. StackedDrgWinning32GiBV1 or 3"
                            : "RegisteredPoStProof name or id, e.g. StackedDrgWindow32GiBV1_2 or 13")
        ->required();
    cmd->add_option("--miner", post_.miner, "The miner: t01000, f01000 or 1000")->required();
    cmd->add_option("--randomness", post_.randomness,
                    "The challenge randomness the vanilla proofs were made with: 32 bytes as 64 hex digits")
        ->required();
    if (!winning) {
      cmd->add_option("--partition", post_.partition,
                      "The partition's index in the deadline (the vanilla proofs' challenges depend on it)")
          ->required();
    }
    cmd->add_option("--request-id", post_.request_id, "Job id (default: the daemon picks one)");
    cmd->add_option("--priority", post_.priority,
                    winning ? "low, normal, high or critical, or -999..999 within critical (default critical, as "
                              "Curio sends WinningPoSt)"
                            : "low, normal, high or critical, or -999..999 within high (default high, as Curio sends "
                              "WindowPoSt)");
    cmd->add_option("--out", post_.out, "Write the proof bytes (192) here");
    cmd->add_flag("--json", json_, "Print the result as JSON");
  };
  prove_window_post_ = prove->add_subcommand(
      "window-post",
      "Prove one WindowPoSt partition from its sectors' vanilla proofs (sent as Curio sends them); Ctrl-C cancels it");
  post_options(prove_window_post_, false);
  prove_winning_post_ = prove->add_subcommand(
      "winning-post",
      "Prove a WinningPoSt from the challenged sector's vanilla proof (sent as Curio sends it); Ctrl-C cancels it");
  post_options(prove_winning_post_, true);

  prove_snap_ = prove->add_subcommand(
      "snap",
      "Prove a SnapDeals update (EmptySectorUpdate) from its partitions' vanilla proofs (sent as Curio sends them); "
      "Ctrl-C cancels it");
  prove_snap_
      ->add_option("--vanilla", snap_.vanilla,
                   "The update's vanilla proofs: a bincode PartitionProof per partition, in partition order (repeat "
                   "the option; 1 at 2 KiB, 4 at 8 MiB, 16 from 512 MiB), or Curio's snap-vproof.json (all of them, "
                   "as GenerateUpdateVanillaProofs returns them)")
      ->required()
      ->type_name("FILE");
  prove_snap_
      ->add_option("--registered-proof", snap_.registered_proof,
                   "RegisteredUpdateProof name or id, e.g. StackedDrg32GiBV1 or 3")
      ->required();
  prove_snap_->add_option("--miner", snap_.miner, "The miner: t01000, f01000 or 1000")->required();
  prove_snap_->add_option("--sector", snap_.sector, "The sector number")->required();
  prove_snap_
      ->add_option("--comm-r-old", snap_.comm_r_old,
                   "The sector key's CommR (the replica before the update): 64 hex digits of its 32 raw bytes, or "
                   "its CID (bagboea4b5abc...)")
      ->required();
  prove_snap_
      ->add_option("--comm-r-new", snap_.comm_r_new,
                   "The updated replica's CommR: 64 hex digits of its 32 raw bytes, or its CID (bagboea4b5abc...)")
      ->required();
  prove_snap_
      ->add_option("--comm-d-new", snap_.comm_d_new,
                   "The new data's CommD: 64 hex digits of its 32 raw bytes, or its CID (baga6ea4seaq...)")
      ->required();
  prove_snap_->add_option("--request-id", snap_.request_id, "Job id (default: the daemon picks one)");
  prove_snap_->add_option("--priority", snap_.priority,
                          "low, normal, high or critical, or -999..999 within normal (default normal)");
  prove_snap_->add_option("--out", snap_.out, "Write the proof bytes (192 per partition, concatenated) here");
  prove_snap_->add_flag("--json", json_, "Print the result as JSON");

  CLI::App* verify = app.add_subcommand("verify", "Check a proof locally (no daemon needed)");
  verify_ = verify;
  // Either a subcommand (porep) or --snarkjs.
  verify->require_subcommand(0, 1);
  verify
      ->add_option("--snarkjs", snarkjs_files_,
                   "Check a snarkjs Groth16 proof (bls12381): VK PUBLIC PROOF, i.e. verification_key.json, "
                   "public.json and proof.json")
      ->expected(3)
      ->type_name("VK PUBLIC PROOF");
  verify->add_flag("--json", json_, "Print the result as JSON");
  verify_porep_ = verify->add_subcommand("porep", "Check a PoRep proof as Filecoin's verify_seal does");
  verify_porep_->add_option("--c1", args_.c1, "The Commit1 output the proof was made from")->required();
  verify_porep_->add_option("--miner", args_.miner, "The miner: t01000, f01000 or 1000")->required();
  verify_porep_->add_option("--sector", args_.sector, "The sector number")->required();
  verify_porep_->add_option("--proof", args_.proof, "The proof bytes (192 per partition)")->required();
  CLI::Option* vk = verify_porep_->add_option("--vk", args_.vk, "The verifying key (.vk file)");
  verify_porep_
      ->add_option("--param-cache", args_.param_cache,
                   "Directory of the parameter files (default $FIL_PROOFS_PARAMETER_CACHE, else "
                   "/var/tmp/filecoin-proof-parameters): the .vk, the .params, or cuzk's TEST parameters")
      ->excludes(vk);
  verify_porep_->add_option("--registered-proof", args_.registered_proof,
                            "RegisteredSealProof name or id (checked against the Commit1 output's)");
  verify_porep_->add_flag("--json", json_, "Print the result as JSON");
}

std::optional<int> FilecoinCommands::run(const ClientOptions& options) const {
  if (prove_porep_->parsed()) {
    ClientOptions o = options;
    o.json = o.json || json_;
    install_interrupt_handler();
    return Client(o).prove_porep(args_);
  }
  if (prove_window_post_->parsed() || prove_winning_post_->parsed() || prove_snap_->parsed()) {
    ClientOptions o = options;
    o.json = o.json || json_;
    install_interrupt_handler();
    Client client(o);
    if (prove_snap_->parsed()) return client.prove_snap(snap_);
    return client.prove_post(post_, prove_winning_post_->parsed());
  }
  if (verify_porep_->parsed()) return verify_porep(args_, json_ || options.json);
  if (verify_->parsed()) {
    if (snarkjs_files_.size() != 3) {
      std::cerr << "cuzk: verify needs a subcommand (porep) or --snarkjs VK PUBLIC PROOF\n";
      return kUsage;
    }
    return verify_snarkjs(snarkjs_files_[0], snarkjs_files_[1], snarkjs_files_[2], json_ || options.json);
  }
  return std::nullopt;
}

int verify_snarkjs(const std::string& vk_path, const std::string& public_path, const std::string& proof_path,
                   bool json) {
  bool valid = false;
  std::string why;
  try {
    const snarkjs::VerifyingKey vk = snarkjs::verifying_key_from_json(snarkjs::read_text_file(vk_path), vk_path);
    const std::vector<ff::Fr> inputs =
        snarkjs::public_signals_from_json(snarkjs::read_text_file(public_path), public_path);
    const snarkjs::Proof proof = snarkjs::proof_from_json(snarkjs::read_text_file(proof_path), proof_path);
    if (inputs.size() + 1 != vk.ic.size()) {
      throw snarkjs::FormatError(fmt::format("{} has {} public signals, {} expects {}", public_path, inputs.size(),
                                             vk_path, vk.ic.size() - 1));
    }
    valid = snarkjs::verify(vk, inputs, proof);
    if (!valid) why = "the proof does not verify against these public signals and this verification key";
  } catch (const std::exception& e) {
    if (json) {
      std::cout << nlohmann::json{{"valid", false}, {"error", e.what()}}.dump(2) << "\n";
    } else {
      std::cerr << "cuzk: " << e.what() << "\n";
    }
    return kInputError;
  }
  if (json) {
    nlohmann::json j = {
        {"valid", valid}, {"verification_key", vk_path}, {"public", public_path}, {"proof", proof_path}};
    if (!valid) j["error"] = why;
    std::cout << j.dump(2) << "\n";
  } else if (valid) {
    std::cout << fmt::format("valid     {} (snarkjs Groth16, bls12381)\nkey       {}\n", proof_path, vk_path);
  } else {
    std::cerr << fmt::format("cuzk: {} is not a valid proof: {}\n", proof_path, why);
  }
  return valid ? kOk : kProofInvalid;
}

}  // namespace cuzk::cli

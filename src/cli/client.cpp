#include "cli/client.hpp"

#include <chrono>
#include <csignal>
#include <fmt/format.h>
#include <grpcpp/grpcpp.h>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/client_channel.hpp"
#include "cli/client_files.hpp"
#include "cli/exit_codes.hpp"
#include "cli/job_text.hpp"

namespace cuzk::cli {

namespace v1 = cuzk::v1;
using Clock = std::chrono::steady_clock;

namespace {

volatile std::sig_atomic_t g_interrupted = 0;

// AwaitProof's answer is final (the job ended) unless the wait timed out.
bool ended(const v1::AwaitProofResponse& r) {
  return r.status() == v1::AwaitProofResponse::COMPLETED || r.status() == v1::AwaitProofResponse::FAILED ||
         r.status() == v1::AwaitProofResponse::CANCELLED;
}

}  // namespace

void install_interrupt_handler() {
  std::signal(SIGINT, [](int) { g_interrupted = 1; });
}

std::unique_ptr<grpc::ClientContext> Client::context(std::chrono::milliseconds deadline) {
  auto ctx = std::make_unique<grpc::ClientContext>();
  ctx->set_deadline(std::chrono::system_clock::now() + deadline);
  return ctx;
}

Client::Client(ClientOptions options) : options_(std::move(options)), stub_(connect(options_)) {}

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

}  // namespace cuzk::cli

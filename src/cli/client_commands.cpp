#include "cli/client_commands.hpp"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fmt/format.h>
#include <fstream>
#include <grpcpp/grpcpp.h>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/exit_codes.hpp"

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

bool ended(v1::JobState s) {
  return s == v1::JOB_STATE_SUCCEEDED || s == v1::JOB_STATE_FAILED || s == v1::JOB_STATE_CANCELLED;
}

nlohmann::json timings_json(const v1::Timings& t) {
  return {
      {"queue_wait", t.queue_wait()}, {"param_load", t.param_load()}, {"synthesis", t.synthesis()}, {"gpu", t.gpu()},
      {"finalize", t.finalize()},     {"verify", t.verify()},         {"total", t.total()}};
}

v1::ProofRequest make_request(const ProofArgs& a) {
  v1::ProofRequest req;
  req.set_request_id(a.request_id);
  req.set_param_id(a.param_id);
  req.set_priority(a.priority);
  req.set_kind(v1::PROOF_KIND_SYNTHETIC);
  v1::SyntheticInputs* s = req.mutable_synthetic();
  s->set_constraints(a.constraints);
  s->set_public_inputs(a.public_inputs);
  s->set_seed(a.seed);
  s->set_partitions(a.partitions);
  return req;
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

void install_interrupt_handler() {
  std::signal(SIGINT, [](int) { g_interrupted = 1; });
}

Client::Client(ClientOptions options) : options_(std::move(options)) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(-1);  // status documents of busy daemons can be large
  stub_ =
      v1::ProvingEngine::NewStub(grpc::CreateCustomChannel(options_.addr, grpc::InsecureChannelCredentials(), args));
}

int Client::fail(const std::string& what, const grpc::Status& s) {
  std::string hint;
  if (s.error_code() == grpc::StatusCode::UNAVAILABLE) {
    hint = fmt::format(" (is cuzk-daemon running and listening on {}? set it with --addr)", options_.addr);
  }
  std::cerr << "cuzk: " << what << ": " << s.error_message() << hint << "\n";
  return exit_code_for(s.error_code());
}

void Client::progress(const std::string& id, double elapsed) {
  v1::GetStatusRequest req;
  req.set_request_id(id);
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

int Client::report(const v1::ProofResult& r, const std::string& out) {
  if (r.state() == v1::JOB_STATE_SUCCEEDED && !out.empty()) {
    std::string error;
    if (!write_file(out, r.proof(), error)) {
      std::cerr << "cuzk: " << error << "\n";
      return kOutputError;
    }
  }
  if (options_.json) {
    nlohmann::json j = {{"request_id", r.request_id()},
                        {"state", state_name(r.state())},
                        {"verified", r.verified()},
                        {"proof_bytes", r.proof().size()},
                        {"timings", timings_json(r.timings())}};
    if (!out.empty() && r.state() == v1::JOB_STATE_SUCCEEDED) j["out"] = out;
    if (!r.error().empty()) j["error"] = r.error();
    std::cout << j.dump(2) << "\n";
  } else {
    const v1::Timings& t = r.timings();
    std::cout << fmt::format("request   {}\nstate     {}\n", r.request_id(), state_name(r.state()));
    if (!r.error().empty()) std::cout << "error     " << r.error() << "\n";
    if (r.state() == v1::JOB_STATE_SUCCEEDED) {
      std::cout << fmt::format("verified  {}\nproof     {} bytes{}\n",
                               r.verified() ? "true" : "false (verification off)", r.proof().size(),
                               out.empty() ? "" : " -> " + out);
    }
    std::cout << fmt::format(
        "timings   queue {:.3f} s, params {:.3f} s, synthesis {:.3f} s, gpu {:.3f} s, finalize {:.3f} s, "
        "verify {:.3f} s, total {:.3f} s\n",
        t.queue_wait(), t.param_load(), t.synthesis(), t.gpu(), t.finalize(), t.verify(), t.total());
  }
  switch (r.state()) {
    case v1::JOB_STATE_SUCCEEDED:
      return kOk;
    case v1::JOB_STATE_CANCELLED:
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
    req.set_request_id(id);
    req.set_timeout_ms(1000);
    v1::ProofResult r;
    auto ctx = context(std::chrono::seconds(31));
    grpc::Status s = stub_->AwaitProof(ctx.get(), req, &r);
    if (!s.ok()) return fail("waiting for " + id, s);
    if (ended(r.state())) return report(r, out);
  }
}

int Client::prove(const ProofArgs& a) {
  v1::SubmitProofResponse resp;
  auto ctx = context(kShortCall);
  grpc::Status s = stub_->SubmitProof(ctx.get(), make_request(a), &resp);
  if (!s.ok()) return fail("submit", s);
  std::cerr << fmt::format("cuzk: submitted {} ({} constraints x {} partition{})\n", resp.request_id(), a.constraints,
                           a.partitions, a.partitions == 1 ? "" : "s");
  return wait_and_report(resp.request_id(), a.out, true);
}

int Client::submit(const ProofArgs& a) {
  v1::SubmitProofResponse resp;
  auto ctx = context(kShortCall);
  grpc::Status s = stub_->SubmitProof(ctx.get(), make_request(a), &resp);
  if (!s.ok()) return fail("submit", s);
  if (options_.json) {
    std::cout << nlohmann::json{{"request_id", resp.request_id()}, {"state", state_name(resp.state())}}.dump() << "\n";
  } else {
    std::cout << resp.request_id() << "\n";
  }
  return kOk;
}

int Client::await(const std::string& id, const std::string& out) { return wait_and_report(id, out, false); }

int Client::cancel(const std::string& id) {
  v1::CancelProofRequest req;
  req.set_request_id(id);
  v1::CancelProofResponse resp;
  auto ctx = context(kShortCall);
  grpc::Status s = stub_->CancelProof(ctx.get(), req, &resp);
  if (!s.ok()) return fail("cancel " + id, s);
  std::cout << fmt::format(
      "{}: {}\n", id, resp.cancelled() ? "cancelled" : std::string("already ended (") + state_name(resp.state()) + ")");
  return kOk;
}

int Client::status(const std::string& id) {
  v1::GetStatusRequest req;
  req.set_request_id(id);
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
      nlohmann::json doc = {{"request_id", j.request_id()},
                            {"state", state_name(j.state())},
                            {"partitions", parts},
                            {"timings", timings_json(j.timings())}};
      if (!j.error().empty()) doc["error"] = j.error();
      std::cout << doc.dump(2) << "\n";
    }
    return kOk;
  }
  if (!id.empty()) {
    const v1::JobStatus& j = resp.job();
    std::cout << fmt::format("request   {}\nstate     {}\n", j.request_id(), state_name(j.state()));
    if (!j.error().empty()) std::cout << "error     " << j.error() << "\n";
    for (const v1::PartitionStage& p : j.partitions()) {
      std::cout << fmt::format("partition {:<3} {}{}\n", p.partition(), p.stage(),
                               p.worker().empty() ? "" : " (" + p.worker() + ")");
    }
    return kOk;
  }
  auto gib = [](int64_t b) { return double(b) / double(1 << 30); };
  std::cout << fmt::format(
      "daemon    {}\njobs      {} active\nqueue     {} partition(s) waiting for admission, {} waiting for a GPU\n"
      "budget    {:.2f} of {:.2f} GiB used\n",
      resp.draining() ? "shutting down" : "serving", resp.jobs_active(), resp.queued_partitions(),
      resp.gpu_queue_depth(), gib(resp.budget_used_bytes()), gib(resp.budget_total_bytes()));
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

}  // namespace cuzk::cli

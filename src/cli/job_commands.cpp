// The commands of synthetic jobs and of any job by its id: prove, submit, await, cancel.
#include <fmt/format.h>
#include <grpcpp/grpcpp.h>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>

#include "cli/client.hpp"
#include "cli/exit_codes.hpp"
#include "cli/job_text.hpp"
#include "cli/option_parsing.hpp"

namespace cuzk::cli {

namespace v1 = cuzk::v1;

namespace {

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

// The request, or nullopt after saying on stderr what is wrong with the arguments.
std::optional<v1::SubmitProofRequest> request_or_say_why(const ProofArgs& a) {
  try {
    return make_request(a);
  } catch (const std::invalid_argument& e) {
    std::cerr << "cuzk: " << e.what() << "\n";
    return std::nullopt;
  }
}

}  // namespace

int Client::prove(const ProofArgs& a) {
  const auto req = request_or_say_why(a);
  if (!req) return kUsage;
  return submit_and_wait(
      *req, fmt::format("{} constraints x {} partition{}", a.constraints, a.partitions, a.partitions == 1 ? "" : "s"),
      a.out, kShortCall);
}

int Client::submit(const ProofArgs& a) {
  const auto req = request_or_say_why(a);
  if (!req) return kUsage;
  v1::SubmitProofResponse resp;
  auto ctx = context(kShortCall);
  grpc::Status s = stub_->SubmitProof(ctx.get(), *req, &resp);
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

}  // namespace cuzk::cli

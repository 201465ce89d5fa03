// What the daemon says about itself: `cuzk status [ID]` and `cuzk metrics`.
#include <fmt/format.h>
#include <grpcpp/grpcpp.h>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/client.hpp"
#include "cli/exit_codes.hpp"
#include "cli/job_text.hpp"

namespace cuzk::cli {

namespace v1 = cuzk::v1;

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

}  // namespace cuzk::cli

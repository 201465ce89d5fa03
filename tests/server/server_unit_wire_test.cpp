// The daemon's pieces without a daemon: results and status as Curio reads them, the wire messages
// against Curio's proto, the status-code mapping and the Prometheus text.
#include <array>
#include <fmt/format.h>
#include <fstream>
#include <iterator>
#include <optional>
#include <unistd.h>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "daemon_metrics_text.hpp"
#include "kinds/filecoin_kinds.hpp"
#include "server/address.hpp"
#include "server/config_file.hpp"
#include "server/convert.hpp"
#include "server/metrics.hpp"
#include "server/platform_dirs.hpp"
#include "server/service.hpp"
#include "server/size.hpp"
#include "server/status_codes.hpp"
#include "test_support.hpp"

namespace {

using namespace cuzk::server;
using cuzk::test::has_sample;
namespace v1 = cuzk::v1;

TEST(ServerUnitTest, ResultsAsCurioReadsThem) {
  using S = v1::AwaitProofResponse;
  cuzk::engine::JobResult r;
  r.request_id = "porep-1000-7";
  r.state = cuzk::engine::JobState::kSucceeded;
  r.proof.assign(192, 0xab);
  r.verified = true;
  r.timings.queue_wait = 0.0104;
  r.timings.param_load = 1.5;
  r.timings.synthesis = 2.0006;
  r.timings.gpu = 1.25;
  r.timings.total = 5.0;
  S out;
  to_proto(r, &out);
  EXPECT_EQ(out.job_id(), "porep-1000-7");
  EXPECT_EQ(out.status(), S::COMPLETED);
  EXPECT_EQ(out.proof().size(), 192u);
  EXPECT_TRUE(out.error_message().empty());
  EXPECT_EQ(out.queue_wait_ms(), 10u);
  EXPECT_EQ(out.srs_load_ms(), 1500u);
  EXPECT_EQ(out.synthesis_ms(), 2001u);
  EXPECT_EQ(out.gpu_compute_ms(), 1250u);
  EXPECT_EQ(out.total_ms(), 5000u);
  EXPECT_EQ(out.state(), v1::JOB_STATE_SUCCEEDED);
  EXPECT_TRUE(out.verified());
  EXPECT_DOUBLE_EQ(out.timings().gpu(), 1.25);

  // A failure: the error in error_message, never in proof.
  r.state = cuzk::engine::JobState::kFailed;
  r.error = "partition 3: synthesis failed";
  S failed;
  to_proto(r, &failed);
  EXPECT_EQ(failed.status(), S::FAILED);
  EXPECT_TRUE(failed.proof().empty());
  EXPECT_EQ(failed.error_message(), r.error);

  r.state = cuzk::engine::JobState::kCancelled;
  r.error = "cancelled by a client";
  S cancelled;
  to_proto(r, &cancelled);
  EXPECT_EQ(cancelled.status(), S::CANCELLED);
  EXPECT_TRUE(cancelled.proof().empty());

  // Still running when the await's timeout passed.
  r.state = cuzk::engine::JobState::kRunning;
  r.error.clear();
  S timeout;
  to_proto(r, &timeout);
  EXPECT_EQ(timeout.status(), S::TIMEOUT);
  EXPECT_EQ(timeout.state(), v1::JOB_STATE_RUNNING);
  EXPECT_TRUE(timeout.proof().empty());
}

TEST(ServerUnitTest, StatusAsCurioReadsIt) {
  cuzk::engine::EngineSnapshot s;
  s.jobs_completed = 7;
  s.jobs_failed = 2;
  s.jobs_cancelled = 1;
  s.uptime_seconds = 99.7;
  s.jobs_active = 3;
  s.buffers.pinned_pool_bytes = 1000;
  s.buffers.abc_pinned_bytes = 24;
  s.buffers.budget_total = 1 << 30;
  s.buffers.budget_used = 1 << 20;
  s.kinds.push_back({"porep", 2, 1});
  s.kinds.push_back({"synthetic", 0, 1});
  cuzk::engine::DeviceStatus busy{0, "NVIDIA H200", 150ull << 30, 100ull << 30, "porep-1000-7", "porep", {}, {}};
  cuzk::engine::DeviceStatus idle{1, "NVIDIA H200", 150ull << 30, 140ull << 30, "", "", {}, {}};
  s.devices = {busy, idle};
  std::string porep32 = param_id_for_circuit("porep-32g");
  s.params.push_back({porep32, 40ll << 30, 30ll << 30, true, 3});
  s.params.push_back({"synthetic-1024-4-seed7", 5000, 0, false});
  v1::GetStatusResponse out;
  to_proto(s, &out);

  ASSERT_EQ(out.gpus_size(), 2);
  EXPECT_EQ(out.gpus(0).name(), "NVIDIA H200");
  EXPECT_EQ(out.gpus(0).vram_free_bytes(), 100ull << 30);
  EXPECT_EQ(out.gpus(0).current_job_id(), "porep-1000-7");
  EXPECT_EQ(out.gpus(0).current_proof_kind(), "porep-c2");
  EXPECT_EQ(out.gpus(1).ordinal(), 1u);
  EXPECT_TRUE(out.gpus(1).current_job_id().empty());

  // Curio's back-pressure: the sum of pending + in_progress over queues.
  uint32_t pending = 0;
  for (const v1::QueueStatus& q : out.queues()) pending += q.pending() + q.in_progress();
  EXPECT_EQ(pending, 4u);
  ASSERT_EQ(out.queues_size(), 2);
  EXPECT_EQ(out.queues(0).proof_kind(), "porep-c2");
  EXPECT_EQ(out.queues(0).pending(), 2u);
  EXPECT_EQ(out.queues(0).in_progress(), 1u);

  ASSERT_EQ(out.loaded_srs_size(), 2);
  EXPECT_EQ(out.loaded_srs(0).circuit_id(), "porep-32g");
  EXPECT_EQ(out.loaded_srs(0).tier(), v1::SRSStatus::HOT);
  EXPECT_EQ(out.loaded_srs(0).size_bytes(), 40ull << 30);
  EXPECT_EQ(out.loaded_srs(0).ref_count(), 3u);  // the jobs that prove with it
  EXPECT_EQ(out.loaded_srs(0).param_id(), porep32);
  EXPECT_EQ(out.loaded_srs(1).circuit_id(), "synthetic-1024-4-seed7");  // no circuit id: ours
  EXPECT_EQ(out.loaded_srs(1).tier(), v1::SRSStatus::WARM);
  EXPECT_EQ(out.loaded_srs(1).ref_count(), 0u);
  ASSERT_EQ(out.params_size(), 2);
  EXPECT_EQ(out.params(0).circuit_id(), "porep-32g");

  EXPECT_EQ(out.total_proofs_completed(), 7u);
  EXPECT_EQ(out.total_proofs_failed(), 2u);
  EXPECT_EQ(out.total_proofs_cancelled(), 1u);
  EXPECT_EQ(out.uptime_seconds(), 99u);
  EXPECT_EQ(out.pinned_memory_bytes(), 1024u);
  EXPECT_EQ(out.jobs_active(), 3u);
  EXPECT_EQ(out.budget_total_bytes(), 1 << 30);
}

// Curio's proto (curio extern/cuzk/cuzk-proto/proto/cuzk/v1/proving.proto): every field keeps its
// name, number, type and cardinality here, every enum value its number, every method its
// messages. Fields of cuzk's own must never take these numbers.
TEST(ServerUnitTest, WireCompatibleWithCurio) {
  using FD = google::protobuf::FieldDescriptor;
  struct Field {
    const char* message;
    const char* name;
    int number;
    FD::Type type;
    bool repeated;
  };
  const Field curio[] = {
      {"SubmitProofRequest", "request_id", 1, FD::TYPE_STRING, false},
      {"SubmitProofRequest", "proof_kind", 2, FD::TYPE_ENUM, false},
      {"SubmitProofRequest", "sector_size", 3, FD::TYPE_UINT64, false},
      {"SubmitProofRequest", "registered_proof", 4, FD::TYPE_UINT64, false},
      {"SubmitProofRequest", "priority", 5, FD::TYPE_ENUM, false},
      {"SubmitProofRequest", "vanilla_proof", 10, FD::TYPE_BYTES, false},
      {"SubmitProofRequest", "vanilla_proofs", 11, FD::TYPE_BYTES, true},
      {"SubmitProofRequest", "sector_number", 20, FD::TYPE_UINT64, false},
      {"SubmitProofRequest", "miner_id", 21, FD::TYPE_UINT64, false},
      {"SubmitProofRequest", "randomness", 22, FD::TYPE_BYTES, false},
      {"SubmitProofRequest", "partition_index", 23, FD::TYPE_UINT32, false},
      {"SubmitProofRequest", "comm_r_old", 30, FD::TYPE_BYTES, false},
      {"SubmitProofRequest", "comm_r_new", 31, FD::TYPE_BYTES, false},
      {"SubmitProofRequest", "comm_d_new", 32, FD::TYPE_BYTES, false},
      {"SubmitProofResponse", "job_id", 1, FD::TYPE_STRING, false},
      {"SubmitProofResponse", "queue_position", 2, FD::TYPE_UINT32, false},
      {"SubmitProofResponse", "assigned_gpu", 3, FD::TYPE_STRING, false},
      {"AwaitProofRequest", "job_id", 1, FD::TYPE_STRING, false},
      {"AwaitProofRequest", "timeout_ms", 2, FD::TYPE_UINT64, false},
      {"AwaitProofResponse", "job_id", 1, FD::TYPE_STRING, false},
      {"AwaitProofResponse", "status", 2, FD::TYPE_ENUM, false},
      {"AwaitProofResponse", "proof", 3, FD::TYPE_BYTES, false},
      {"AwaitProofResponse", "error_message", 4, FD::TYPE_STRING, false},
      {"AwaitProofResponse", "queue_wait_ms", 10, FD::TYPE_UINT64, false},
      {"AwaitProofResponse", "srs_load_ms", 11, FD::TYPE_UINT64, false},
      {"AwaitProofResponse", "synthesis_ms", 12, FD::TYPE_UINT64, false},
      {"AwaitProofResponse", "gpu_compute_ms", 13, FD::TYPE_UINT64, false},
      {"AwaitProofResponse", "total_ms", 14, FD::TYPE_UINT64, false},
      {"ProveRequest", "submit", 1, FD::TYPE_MESSAGE, false},
      {"ProveResponse", "result", 1, FD::TYPE_MESSAGE, false},
      {"CancelProofRequest", "job_id", 1, FD::TYPE_STRING, false},
      {"CancelProofResponse", "was_running", 1, FD::TYPE_BOOL, false},
      {"GetStatusResponse", "gpus", 1, FD::TYPE_MESSAGE, true},
      {"GetStatusResponse", "loaded_srs", 2, FD::TYPE_MESSAGE, true},
      {"GetStatusResponse", "queues", 3, FD::TYPE_MESSAGE, true},
      {"GetStatusResponse", "total_proofs_completed", 4, FD::TYPE_UINT64, false},
      {"GetStatusResponse", "total_proofs_failed", 5, FD::TYPE_UINT64, false},
      {"GetStatusResponse", "uptime_seconds", 6, FD::TYPE_UINT64, false},
      {"GetStatusResponse", "pinned_memory_bytes", 7, FD::TYPE_UINT64, false},
      {"GetStatusResponse", "pinned_memory_limit_bytes", 8, FD::TYPE_UINT64, false},
      {"GPUStatus", "ordinal", 1, FD::TYPE_UINT32, false},
      {"GPUStatus", "name", 2, FD::TYPE_STRING, false},
      {"GPUStatus", "vram_total_bytes", 3, FD::TYPE_UINT64, false},
      {"GPUStatus", "vram_free_bytes", 4, FD::TYPE_UINT64, false},
      {"GPUStatus", "current_job_id", 5, FD::TYPE_STRING, false},
      {"GPUStatus", "current_proof_kind", 6, FD::TYPE_STRING, false},
      {"SRSStatus", "circuit_id", 1, FD::TYPE_STRING, false},
      {"SRSStatus", "tier", 2, FD::TYPE_ENUM, false},
      {"SRSStatus", "size_bytes", 3, FD::TYPE_UINT64, false},
      {"SRSStatus", "ref_count", 4, FD::TYPE_UINT32, false},
      {"QueueStatus", "proof_kind", 1, FD::TYPE_STRING, false},
      {"QueueStatus", "pending", 2, FD::TYPE_UINT32, false},
      {"QueueStatus", "in_progress", 3, FD::TYPE_UINT32, false},
      {"PreloadSrsRequest", "circuit_id", 1, FD::TYPE_STRING, false},
      {"PreloadSrsResponse", "already_loaded", 1, FD::TYPE_BOOL, false},
      {"PreloadSrsResponse", "load_time_ms", 2, FD::TYPE_UINT64, false},
      {"EvictSrsRequest", "circuit_id", 1, FD::TYPE_STRING, false},
      {"EvictSrsResponse", "was_loaded", 1, FD::TYPE_BOOL, false},
      {"EvictSrsResponse", "freed_bytes", 2, FD::TYPE_UINT64, false},
      {"GetMetricsResponse", "prometheus_text", 1, FD::TYPE_STRING, false},
  };
  const google::protobuf::FileDescriptor* file = v1::SubmitProofRequest::descriptor()->file();
  EXPECT_EQ(file->package(), "cuzk.v1");
  for (const Field& c : curio) {
    std::string full = std::string("cuzk.v1.") + c.message;
    const google::protobuf::Descriptor* m = file->pool()->FindMessageTypeByName(full);
    ASSERT_NE(m, nullptr) << full;
    const FD* f = m->FindFieldByNumber(c.number);
    ASSERT_NE(f, nullptr) << full << " #" << c.number;
    EXPECT_EQ(f->name(), c.name) << full << " #" << c.number;
    EXPECT_EQ(f->type(), c.type) << full << "." << c.name;
    EXPECT_EQ(f->is_repeated(), c.repeated) << full << "." << c.name;
  }
  auto enum_values = [&](const google::protobuf::EnumDescriptor* e, std::vector<std::pair<std::string, int>> expected) {
    ASSERT_NE(e, nullptr);
    for (const auto& [name, number] : expected) {
      const google::protobuf::EnumValueDescriptor* v = e->FindValueByNumber(number);
      ASSERT_NE(v, nullptr) << e->full_name() << " " << number;
      EXPECT_EQ(v->name(), name) << e->full_name();
    }
  };
  enum_values(v1::ProofKind_descriptor(), {{"PROOF_KIND_UNSPECIFIED", 0},
                                           {"POREP_SEAL_COMMIT", 1},
                                           {"SNAP_DEALS_UPDATE", 2},
                                           {"WINDOW_POST_PARTITION", 3},
                                           {"WINNING_POST", 4}});
  enum_values(v1::Priority_descriptor(),
              {{"PRIORITY_UNSPECIFIED", 0}, {"LOW", 1}, {"NORMAL", 2}, {"HIGH", 3}, {"CRITICAL", 4}});
  enum_values(v1::AwaitProofResponse::Status_descriptor(),
              {{"UNKNOWN", 0}, {"COMPLETED", 1}, {"FAILED", 2}, {"CANCELLED", 3}, {"TIMEOUT", 4}});
  enum_values(v1::SRSStatus::Tier_descriptor(), {{"HOT", 0}, {"WARM", 1}, {"COLD", 2}});
  const google::protobuf::ServiceDescriptor* service = file->FindServiceByName("ProvingEngine");
  ASSERT_NE(service, nullptr);
  const std::vector<std::array<std::string, 3>> methods = {{"SubmitProof", "SubmitProofRequest", "SubmitProofResponse"},
                                                           {"AwaitProof", "AwaitProofRequest", "AwaitProofResponse"},
                                                           {"Prove", "ProveRequest", "ProveResponse"},
                                                           {"CancelProof", "CancelProofRequest", "CancelProofResponse"},
                                                           {"GetStatus", "GetStatusRequest", "GetStatusResponse"},
                                                           {"GetMetrics", "GetMetricsRequest", "GetMetricsResponse"},
                                                           {"PreloadSRS", "PreloadSrsRequest", "PreloadSrsResponse"},
                                                           {"EvictSRS", "EvictSrsRequest", "EvictSrsResponse"}};
  for (const auto& [name, in, out] : methods) {
    const google::protobuf::MethodDescriptor* m = service->FindMethodByName(name);
    ASSERT_NE(m, nullptr) << name;
    EXPECT_EQ(m->input_type()->name(), in);
    EXPECT_EQ(m->output_type()->name(), out);
  }
}

TEST(ServerUnitTest, EveryEngineErrorHasAStatusCode) {
  using C = cuzk::engine::EngineError::Code;
  EXPECT_EQ(to_grpc_code(C::kInvalidArgument), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(to_grpc_code(C::kResourceExhausted), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_EQ(to_grpc_code(C::kNotFound), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(to_grpc_code(C::kAlreadyExists), grpc::StatusCode::ALREADY_EXISTS);
  EXPECT_EQ(to_grpc_code(C::kFailedPrecondition), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(to_grpc_code(C::kUnavailable), grpc::StatusCode::UNAVAILABLE);
  grpc::Status s = to_grpc_status(cuzk::engine::EngineError(C::kResourceExhausted, "queue full"));
  EXPECT_EQ(s.error_message(), "queue full");
}

TEST(ServerUnitTest, PrometheusText) {
  cuzk::engine::EngineSnapshot s;
  s.backend = "cpu";
  s.policy = "budget";
  s.jobs_completed = 5;
  s.buffers.budget_total = 1000;
  s.buffers.budget_used = 250;
  s.buffers.stages[0].partitions = 2;
  s.buffers.stages[0].bytes[0] = 4096;
  cuzk::engine::Histogram h;
  h.observe(0.0001);  // the first bucket
  h.observe(1e9);     // +Inf only
  s.phase_seconds.push_back({"total", h});
  s.params.push_back({"synthetic-\"quoted\"\\\n", 10, 0, true});  // escaped by the serializer
  s.kinds.push_back({"porep", 2, 1});
  s.devices.push_back({0,
                       "NVIDIA H200",
                       1000,
                       600,
                       "job-1",
                       "porep",
                       "separate scratch 0.0 GB",
                       {{"scratch", 17}, {"available", 900}}});
  s.devices.back().busy_seconds = 2.5;
  s.buffers.input_jobs = 1;
  s.buffers.input_bytes = 12345;
  cuzk::engine::KindTotals winning{"winning-post", 3, 1, {}};
  winning.seconds.observe(4.9);
  winning.seconds.observe(6);
  s.kind_totals.push_back(winning);
  s.kind_totals.push_back({"synthetic", 1, 0, {}});
  s.param_files_refused = 2;
  DaemonMetrics d;
  d.rpc.push_back({"Prove", "OK", 3});
  std::string m = render_prometheus(s, d);

  EXPECT_NE(m.find("# TYPE cuzk_proofs_completed_total counter\ncuzk_proofs_completed_total 5\n"), std::string::npos);
  EXPECT_NE(m.find("cuzk_budget_free_bytes 750\n"), std::string::npos);
  std::string first = cuzk::engine::stage_name(cuzk::engine::Stage(0));
  std::string cls = cuzk::engine::buffer_class_name(cuzk::engine::BufferClass(0));
  EXPECT_NE(m.find("cuzk_stage_partitions{stage=\"" + first + "\"} 2\n"), std::string::npos);
  EXPECT_TRUE(has_sample(m, "cuzk_stage_buffer_bytes{stage=\"" + first + "\",class=\"" + cls + "\"} 4096\n"));
  // Buckets are cumulative: 1 in the first bucket, 2 at +Inf.
  EXPECT_NE(m.find("cuzk_phase_duration_seconds_bucket{phase=\"total\",le=\"+Inf\"} 2\n"), std::string::npos);
  EXPECT_NE(m.find("cuzk_phase_duration_seconds_count{phase=\"total\"} 2\n"), std::string::npos);
  double b0 = cuzk::engine::Histogram::bounds()[0];
  EXPECT_NE(m.find(fmt::format("cuzk_phase_duration_seconds_bucket{{phase=\"total\",le=\"{}\"}} 1\n", b0)),
            std::string::npos);
  EXPECT_NE(m.find("param_id=\"synthetic-\\\"quoted\\\"\\\\\\n\""), std::string::npos);
  EXPECT_TRUE(has_sample(m, "cuzk_rpc_requests_total{method=\"Prove\",code=\"OK\"} 3\n"));
  EXPECT_NE(m.find("cuzk_kind_jobs{kind=\"porep\",state=\"pending\"} 2\n"), std::string::npos);
  EXPECT_NE(m.find("cuzk_kind_jobs{kind=\"porep\",state=\"in_progress\"} 1\n"), std::string::npos);
  EXPECT_TRUE(has_sample(m, "cuzk_device_memory_bytes{ordinal=\"0\",name=\"NVIDIA H200\",memory=\"free\"} 600\n"));
  EXPECT_TRUE(has_sample(m, "cuzk_device_busy{ordinal=\"0\",name=\"NVIDIA H200\"} 1\n"));
  EXPECT_TRUE(has_sample(m, "cuzk_device_memory_plan_bytes{ordinal=\"0\",name=\"NVIDIA H200\",use=\"scratch\"} 17\n"));
  EXPECT_TRUE(
      has_sample(m, "cuzk_device_memory_plan_bytes{ordinal=\"0\",name=\"NVIDIA H200\",use=\"available\"} 900\n"));
  EXPECT_NE(m.find("cuzk_input_bytes 12345\n"), std::string::npos);
  EXPECT_TRUE(has_sample(m, "cuzk_device_busy_seconds_total{ordinal=\"0\",name=\"NVIDIA H200\"} 2.5\n"));
  EXPECT_NE(m.find("\ncuzk_param_files_refused_total 2\n"), std::string::npos);
  // Per kind: the snapshot's kinds, and every Filecoin kind from the start (at 0).
  EXPECT_TRUE(has_sample(m, "cuzk_kind_proofs_completed_total{kind=\"winning-post\"} 3\n"));
  EXPECT_TRUE(has_sample(m, "cuzk_kind_proofs_failed_total{kind=\"winning-post\"} 1\n"));
  EXPECT_TRUE(has_sample(m, "cuzk_kind_proofs_completed_total{kind=\"synthetic\"} 1\n"));
  for (const char* kind : {"winning-post", "window-post", "snap-deals"}) {
    EXPECT_TRUE(has_sample(m, fmt::format("cuzk_kind_jobs{{kind=\"{}\",state=\"pending\"}} 0\n", kind))) << kind;
    EXPECT_TRUE(has_sample(m, fmt::format("cuzk_kind_jobs{{kind=\"{}\",state=\"in_progress\"}} 0\n", kind))) << kind;
  }
  for (const char* kind : {"porep", "window-post", "snap-deals"}) {
    EXPECT_TRUE(has_sample(m, fmt::format("cuzk_kind_proofs_completed_total{{kind=\"{}\"}} 0\n", kind))) << kind;
    EXPECT_TRUE(has_sample(m, fmt::format("cuzk_kind_proofs_failed_total{{kind=\"{}\"}} 0\n", kind))) << kind;
    EXPECT_TRUE(has_sample(m, fmt::format("cuzk_kind_proof_duration_seconds_count{{kind=\"{}\"}} 0\n", kind))) << kind;
  }
  // The alerts' threshold (packaging/prometheus/cuzk-alerts.yml): WinningPoSt within 5 s.
  EXPECT_TRUE(has_sample(m, "cuzk_kind_proof_duration_seconds_bucket{kind=\"winning-post\",le=\"5\"} 1\n"));
  EXPECT_TRUE(has_sample(m, "cuzk_kind_proof_duration_seconds_count{kind=\"winning-post\"} 2\n"));
}

}  // namespace

#include "server/convert.hpp"

#include <cctype>

#include "server/status_codes.hpp"

namespace cuzk::server {

namespace v1 = cuzk::v1;

void check_request_id(const std::string& id, bool allow_empty) {
  if (id.empty()) {
    if (allow_empty) return;
    throw InvalidRequest("request_id is empty");
  }
  // The engine's rule (the id also names files and log lines).
  if (id.size() > kMaxRequestIdBytes) {
    throw InvalidRequest("request_id is " + std::to_string(id.size()) + " bytes; at most " +
                         std::to_string(kMaxRequestIdBytes) + " are allowed");
  }
  if (id.front() == '.') throw InvalidRequest("request_id cannot start with '.'");
  for (unsigned char c : id) {
    if (!std::isalnum(c) && c != '.' && c != '_' && c != '-') {
      throw InvalidRequest("request_id may hold letters, digits, '.', '_' and '-' only (found byte " +
                           std::to_string(int(c)) + ")");
    }
  }
}

void check_param_id(const std::string& id) {
  if (id.empty()) throw InvalidRequest("param_id is empty");
  if (id.size() > kMaxParamIdBytes) throw InvalidRequest("param_id is longer than 128 bytes");
  if (id == "." || id == "..") throw InvalidRequest("param_id cannot be '.' or '..'");
  for (unsigned char c : id) {
    if (c <= 0x20 || c >= 0x7f || c == '/') {
      throw InvalidRequest("param_id may hold printable ASCII only, without spaces or '/'");
    }
  }
}

engine::CircuitDescription to_circuit(const v1::SyntheticInputs& in) {
  if (in.constraints() == 0) throw InvalidRequest("synthetic.constraints is 0; give the circuit size, e.g. 65536");
  engine::CircuitDescription c;
  c.kind = "synthetic";
  c.constraints = in.constraints();
  c.public_inputs = in.public_inputs();
  c.seed = in.seed();
  return c;
}

engine::JobRequest to_job_request(const v1::ProofRequest& req, size_t max_partitions) {
  check_request_id(req.request_id(), true);
  engine::JobRequest job;
  job.request_id = req.request_id();
  if (!req.param_id().empty()) check_param_id(req.param_id());
  job.param_id = req.param_id();
  job.priority = req.priority();
  switch (req.inputs_case()) {
    case v1::ProofRequest::kSynthetic: {
      if (req.kind() != v1::PROOF_KIND_UNSPECIFIED && req.kind() != v1::PROOF_KIND_SYNTHETIC) {
        throw InvalidRequest("proof kind " + v1::ProofKind_Name(req.kind()) + " does not take synthetic inputs");
      }
      const v1::SyntheticInputs& s = req.synthetic();
      uint64_t n = s.partitions() == 0 ? 1 : s.partitions();
      if (n > max_partitions) {
        throw InvalidRequest("synthetic.partitions is " + std::to_string(n) + "; this daemon allows at most " +
                             std::to_string(max_partitions) + " per job (engine.max_partitions_per_job)");
      }
      job.partitions.assign(n, to_circuit(s));
      break;
    }
    case v1::ProofRequest::INPUTS_NOT_SET:
      if (req.kind() != v1::PROOF_KIND_UNSPECIFIED && req.kind() != v1::PROOF_KIND_SYNTHETIC) {
        throw InvalidRequest("proof kind " + v1::ProofKind_Name(req.kind()) +
                             " is not supported by this daemon yet (only synthetic proofs are)");
      }
      throw InvalidRequest("the request has no inputs (set synthetic)");
  }
  return job;
}

v1::JobState to_proto(engine::JobState s) {
  switch (s) {
    case engine::JobState::kQueued:
      return v1::JOB_STATE_QUEUED;
    case engine::JobState::kRunning:
      return v1::JOB_STATE_RUNNING;
    case engine::JobState::kSucceeded:
      return v1::JOB_STATE_SUCCEEDED;
    case engine::JobState::kFailed:
      return v1::JOB_STATE_FAILED;
    case engine::JobState::kCancelled:
      return v1::JOB_STATE_CANCELLED;
  }
  return v1::JOB_STATE_UNSPECIFIED;
}

void to_proto(const engine::JobTimings& t, v1::Timings* out) {
  out->set_queue_wait(t.queue_wait);
  out->set_param_load(t.param_load);
  out->set_synthesis(t.synthesis);
  out->set_gpu(t.gpu);
  out->set_finalize(t.finalize);
  out->set_verify(t.verify);
  out->set_total(t.total);
}

void to_proto(const engine::JobResult& r, v1::ProofResult* out) {
  out->set_request_id(r.request_id);
  out->set_state(to_proto(r.state));
  out->set_error(r.error);
  out->set_proof(std::string(r.proof.begin(), r.proof.end()));
  to_proto(r.timings, out->mutable_timings());
  out->set_verified(r.verified);
}

}  // namespace cuzk::server

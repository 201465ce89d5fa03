#include "server/convert.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <map>
#include <stdexcept>

#include "kinds/filecoin_kinds.hpp"
#include "server/status_codes.hpp"

namespace cuzk::server {

namespace v1 = cuzk::v1;

namespace {

// The prefixes of Curio's circuit ids ("porep-32g", "wpost-32g", "winning-32g", "snap-32g").
constexpr std::array<std::string_view, 4> kCircuitPrefixes = {"porep-", "wpost-", "winning-", "snap-"};

uint64_t to_ms(double seconds) {
  return std::isfinite(seconds) && seconds > 0 ? uint64_t(std::llround(seconds * 1000)) : 0;
}

void synthetic_job(const v1::SubmitProofRequest& req, size_t max_partitions, engine::JobRequest& job) {
  if (!req.vanilla_proof().empty() || req.vanilla_proofs_size() > 0) {
    throw InvalidRequest("a SYNTHETIC proof takes the synthetic field, not vanilla_proof(s)");
  }
  const v1::SyntheticInputs& s = req.synthetic();
  uint64_t n = s.partitions() == 0 ? 1 : s.partitions();
  if (n > max_partitions) {
    throw InvalidRequest("synthetic.partitions is " + std::to_string(n) + "; this daemon allows at most " +
                         std::to_string(max_partitions) + " per job (engine.max_partitions_per_job)");
  }
  job.partitions.assign(n, to_circuit(s));
}

void porep_job(const v1::SubmitProofRequest& req, engine::JobRequest& job) {
  if (req.has_synthetic()) throw InvalidRequest("proof_kind POREP_SEAL_COMMIT does not take synthetic inputs");
  if (req.vanilla_proofs_size() > 0) {
    throw InvalidRequest(
        "vanilla_proofs is for PoSt and SnapDeals; a PoRep Commit2 takes its Commit1 output in "
        "vanilla_proof");
  }
  if (req.vanilla_proof().empty()) {
    throw InvalidRequest(
        "vanilla_proof is empty; a PoRep Commit2 needs the Commit1 output (Curio's envelope "
        "{\"SectorNum\",\"Phase1Out\",\"SectorSize\"} or the SealCommitPhase1Output JSON)");
  }
  kinds::PoRepRequest p;
  p.vanilla_proof = req.vanilla_proof();
  p.registered_proof = req.registered_proof();
  p.miner_id = req.miner_id();
  p.sector_number = req.sector_number();
  p.sector_size = req.sector_size();
  try {
    job.input = kinds::make_porep_input(p);
  } catch (const kinds::UnsupportedProof& e) {
    throw Unimplemented(e.what());
  } catch (const std::invalid_argument& e) {
    // kinds::InvalidProofRequest, and any other refusal of the input itself.
    throw InvalidRequest(e.what());
  }
}

std::string post_request_id(std::string id) {
  for (char& c : id) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') c = '_';
  }
  if (!id.empty() && id.front() == '.') id.front() = '_';
  return id;
}

void snap_job(const v1::SubmitProofRequest& req, engine::JobRequest& job) {
  if (req.has_synthetic()) throw InvalidRequest("proof_kind SNAP_DEALS_UPDATE does not take synthetic inputs");
  if (!req.vanilla_proof().empty()) {
    throw InvalidRequest(
        "vanilla_proof is for PoRep; SNAP_DEALS_UPDATE takes one bincode PartitionProof per partition in "
        "vanilla_proofs");
  }
  kinds::SnapRequest p;
  for (const std::string& v : req.vanilla_proofs()) p.vanilla_proofs.emplace_back(v);
  p.registered_proof = req.registered_proof();
  p.comm_r_old = req.comm_r_old();
  p.comm_r_new = req.comm_r_new();
  p.comm_d_new = req.comm_d_new();
  p.sector_size = req.sector_size();
  p.miner_id = req.miner_id();
  p.sector_number = req.sector_number();
  try {
    job.input = kinds::make_snap_input(p);
  } catch (const kinds::UnsupportedProof& e) {
    throw Unimplemented(e.what());
  } catch (const std::invalid_argument& e) {
    throw InvalidRequest(e.what());
  }
}

void post_job(const v1::SubmitProofRequest& req, engine::JobRequest& job) {
  const bool winning = req.proof_kind() == v1::WINNING_POST;
  const std::string name = v1::ProofKind_Name(req.proof_kind());
  if (req.has_synthetic()) throw InvalidRequest("proof_kind " + name + " does not take synthetic inputs");
  if (!req.vanilla_proof().empty()) {
    throw InvalidRequest("vanilla_proof is for PoRep; " + name +
                         " takes one bincode FallbackPoStSectorProof per sector in vanilla_proofs");
  }
  kinds::PoStRequest p;
  p.winning = winning;
  for (const std::string& v : req.vanilla_proofs()) p.vanilla_proofs.emplace_back(v);
  p.registered_proof = req.registered_proof();
  p.miner_id = req.miner_id();
  p.randomness = req.randomness();
  p.partition_index = req.partition_index();
  p.sector_size = req.sector_size();
  try {
    job.input = kinds::make_post_input(p);
  } catch (const kinds::UnsupportedProof& e) {
    throw Unimplemented(e.what());
  } catch (const std::invalid_argument& e) {
    throw InvalidRequest(e.what());
  }
}

}  // namespace

void check_request_id(const std::string& id, bool allow_empty) {
  if (id.empty()) {
    if (allow_empty) return;
    throw InvalidRequest("job id is empty");
  }
  // The engine's rule (the id also names files and log lines).
  if (id.size() > kMaxRequestIdBytes) {
    throw InvalidRequest("job id is " + std::to_string(id.size()) + " bytes; at most " +
                         std::to_string(kMaxRequestIdBytes) + " are allowed");
  }
  if (id.front() == '.') throw InvalidRequest("job id cannot start with '.'");
  for (unsigned char c : id) {
    if (!std::isalnum(c) && c != '.' && c != '_' && c != '-') {
      throw InvalidRequest("job id may hold letters, digits, '.', '_' and '-' only (found byte " +
                           std::to_string(int(c)) + ")");
    }
  }
}

void check_param_id(const std::string& id) {
  if (id.empty()) throw InvalidRequest("param_id is empty");
  if (id.size() > kMaxParamIdBytes) {
    throw InvalidRequest("param_id is longer than " + std::to_string(kMaxParamIdBytes) + " bytes");
  }
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

int engine_priority(const v1::SubmitProofRequest& req) {
  if (req.priority_offset() < -kMaxPriorityOffset || req.priority_offset() > kMaxPriorityOffset) {
    throw InvalidRequest("priority_offset is " + std::to_string(req.priority_offset()) + "; it must be within -" +
                         std::to_string(kMaxPriorityOffset) + " .. " + std::to_string(kMaxPriorityOffset));
  }
  int level = req.priority();
  if (level == v1::PRIORITY_UNSPECIFIED) {
    // The kind's default, as Curio's Rust daemon chooses it.
    level = req.proof_kind() == v1::WINNING_POST            ? v1::CRITICAL
            : req.proof_kind() == v1::WINDOW_POST_PARTITION ? v1::HIGH
                                                            : v1::NORMAL;
  } else if (level < v1::LOW || level > v1::CRITICAL) {
    level = v1::NORMAL;  // a level from a newer client: as Curio's Rust daemon reads it
  }
  return level * 1000 + req.priority_offset();
}

engine::JobRequest to_job_request(const v1::SubmitProofRequest& req, size_t max_partitions) {
  // The kind first: a daemon that cannot make the proof says so whatever else is in the request.
  v1::ProofKind kind = req.proof_kind();
  switch (int(kind)) {
    case v1::SNAP_DEALS_UPDATE:
    case v1::WINDOW_POST_PARTITION:
    case v1::WINNING_POST:
      break;
    case v1::PROOF_KIND_UNSPECIFIED:
      if (!req.has_synthetic()) {
        throw InvalidRequest("proof_kind is not set (POREP_SEAL_COMMIT, or SYNTHETIC with the synthetic field)");
      }
      kind = v1::SYNTHETIC;
      break;
    case v1::POREP_SEAL_COMMIT:
      break;
    case v1::SYNTHETIC:
      if (!req.has_synthetic()) throw InvalidRequest("proof_kind SYNTHETIC needs the synthetic field");
      break;
    default:
      throw Unimplemented("proof_kind " + std::to_string(int(kind)) +
                          " is not known to this cuzk daemon (a newer client?); it proves POREP_SEAL_COMMIT, "
                          "SNAP_DEALS_UPDATE, WINDOW_POST_PARTITION, WINNING_POST and SYNTHETIC");
  }
  const bool post = kind == v1::WINDOW_POST_PARTITION || kind == v1::WINNING_POST;
  // Curio names WindowPoSt requests "wdpost-<miner>-<partition>-[r0 r1 ... r7]" (Go's %d of the
  // randomness bytes): for the PoSt kinds the characters the engine's ids do not take become '_'.
  const std::string request_id = post ? post_request_id(req.request_id()) : req.request_id();
  check_request_id(request_id, true);
  if (!req.param_id().empty()) check_param_id(req.param_id());
  engine::JobRequest job;
  job.request_id = request_id;
  job.param_id = req.param_id();
  job.priority = engine_priority(req);
  if (kind == v1::SYNTHETIC) {
    synthetic_job(req, max_partitions, job);
  } else if (post) {
    post_job(req, job);
  } else if (kind == v1::SNAP_DEALS_UPDATE) {
    snap_job(req, job);
  } else {
    porep_job(req, job);
  }
  return job;
}

std::string wire_kind_name(std::string_view engine_kind) {
  if (engine_kind == "porep") return "porep-c2";
  if (engine_kind == "snap-deals") return "snap-update";
  return std::string(engine_kind);
}

std::string param_id_for_circuit(const std::string& circuit_id) {
  if (circuit_id.empty()) throw InvalidRequest("circuit_id is empty (e.g. \"porep-32g\")");
  if (std::optional<std::string> id = kinds::param_id_for_circuit_id(circuit_id)) {
    check_param_id(*id);
    return *id;
  }
  for (std::string_view prefix : kCircuitPrefixes) {
    if (circuit_id.starts_with(prefix)) {
      std::string known;
      for (const auto& [c, stem] : kinds::circuit_ids()) {
        if (c.starts_with(prefix)) known += (known.empty() ? "" : ", ") + c;
      }
      throw engine::EngineError(engine::EngineError::Code::kNotFound,
                                "unknown circuit id '" + circuit_id + "' (known: " + known + ", or a parameter id)");
    }
  }
  // One of cuzk's own parameter ids (synthetic sets, ...): the engine knows whether it exists.
  check_param_id(circuit_id);
  return circuit_id;
}

std::optional<std::string> circuit_id_for_param(const std::string& param_id) {
  static const std::map<std::string, std::string> table = [] {
    std::map<std::string, std::string> t;
    for (const auto& [circuit, stem] : kinds::circuit_ids()) t.emplace(stem, circuit);
    return t;
  }();
  auto it = table.find(param_id);
  if (it == table.end()) return std::nullopt;
  return it->second;
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

void to_proto(const engine::JobResult& r, v1::AwaitProofResponse* out) {
  using S = v1::AwaitProofResponse;
  out->set_job_id(r.request_id);
  switch (r.state) {
    case engine::JobState::kSucceeded:
      out->set_status(S::COMPLETED);
      out->set_proof(std::string(r.proof.begin(), r.proof.end()));
      break;
    case engine::JobState::kFailed:
      out->set_status(S::FAILED);
      break;
    case engine::JobState::kCancelled:
      out->set_status(S::CANCELLED);
      break;
    case engine::JobState::kQueued:
    case engine::JobState::kRunning:
      out->set_status(S::TIMEOUT);
      break;
  }
  if (r.state == engine::JobState::kFailed || r.state == engine::JobState::kCancelled) {
    out->set_error_message(r.error);
  }
  out->set_queue_wait_ms(to_ms(r.timings.queue_wait));
  out->set_srs_load_ms(to_ms(r.timings.param_load));
  out->set_synthesis_ms(to_ms(r.timings.synthesis));
  out->set_gpu_compute_ms(to_ms(r.timings.gpu));
  out->set_total_ms(to_ms(r.timings.total));
  out->set_state(to_proto(r.state));
  out->set_verified(r.verified);
  to_proto(r.timings, out->mutable_timings());
}

void to_proto(const engine::EngineSnapshot& s, v1::GetStatusResponse* out) {
  for (const engine::DeviceStatus& d : s.devices) {
    v1::GPUStatus* g = out->add_gpus();
    g->set_ordinal(uint32_t(std::max(d.ordinal, 0)));
    g->set_name(d.name);
    g->set_vram_total_bytes(d.memory_total);
    g->set_vram_free_bytes(d.memory_free);
    // The card proves an urgent partition on its lane when its own prover is idle.
    const bool lane = d.current_job.empty() && d.urgent_lane && !d.urgent_lane->current_job.empty();
    const std::string& job = lane ? d.urgent_lane->current_job : d.current_job;
    const std::string& kind = lane ? d.urgent_lane->current_kind : d.current_kind;
    g->set_current_job_id(job);
    if (!kind.empty()) g->set_current_proof_kind(wire_kind_name(kind));
  }
  for (const engine::ParamStatus& p : s.params) {
    std::optional<std::string> circuit = circuit_id_for_param(p.param_id);
    v1::SRSStatus* srs = out->add_loaded_srs();
    srs->set_circuit_id(circuit.value_or(p.param_id));
    // Device bytes per set are known only while one set is resident (engine::ParamStatus).
    const int64_t device_bytes = std::max<int64_t>(p.device_bytes.value_or(0), 0);
    srs->set_tier(device_bytes > 0 ? v1::SRSStatus::HOT : v1::SRSStatus::WARM);
    srs->set_size_bytes(uint64_t(std::max<int64_t>(p.host_bytes, 0)));
    srs->set_ref_count(p.jobs);
    srs->set_param_id(p.param_id);
    srs->set_device_bytes(uint64_t(device_bytes));
    v1::ParamSetStatus* ps = out->add_params();
    ps->set_param_id(p.param_id);
    if (circuit) ps->set_circuit_id(*circuit);
    ps->set_host_bytes(p.host_bytes);
    ps->set_device_bytes(device_bytes);
    ps->set_in_use(p.in_use);
  }
  for (const engine::KindQueue& k : s.kinds) {
    v1::QueueStatus* q = out->add_queues();
    q->set_proof_kind(wire_kind_name(k.kind));
    q->set_pending(k.pending);
    q->set_in_progress(k.in_progress);
  }
  out->set_total_proofs_completed(s.jobs_completed);
  out->set_total_proofs_failed(s.jobs_failed);
  out->set_uptime_seconds(uint64_t(std::max(s.uptime_seconds, 0.0)));
  const engine::TrackerSnapshot& b = s.buffers;
  // The staging pool and the a/b/c locked for uploads (the kept copies are part of the latter).
  out->set_pinned_memory_bytes(uint64_t(std::max<int64_t>(b.pinned_pool_bytes + b.abc_pinned_bytes, 0)));
  out->set_pinned_memory_limit_bytes(0);
  out->set_queued_partitions(s.queued_partitions);
  out->set_gpu_queue_depth(s.gpu_queue_depth);
  out->set_jobs_active(s.jobs_active);
  out->set_budget_total_bytes(b.budget_total);
  out->set_budget_used_bytes(b.budget_used);
  out->set_total_proofs_cancelled(s.jobs_cancelled);
}

}  // namespace cuzk::server

// The PoRep Commit2 kind: a Commit1 output, parsed and checked once at submit, proved partition
// by partition with the StackedDRG circuit.
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>

#include "filecoin/parameter_files.hpp"
#include "filecoin/porep/challenges.hpp"
#include "filecoin/porep/circuit.hpp"
#include "filecoin/porep/commit1.hpp"
#include "filecoin/porep/commit1_check.hpp"
#include "filecoin/porep/graph.hpp"
#include "filecoin/porep/public_inputs.hpp"
#include "kinds/base64.hpp"
#include "kinds/filecoin_kinds.hpp"
#include "kinds/input_bytes.hpp"
#include "r1cs/proving_assignment.hpp"
#include "r1cs/shape.hpp"

namespace cuzk::kinds {
namespace {

using filecoin::SealProofInfo;

// One partition's shape, counted once per registered proof's circuit on a blank circuit with one
// challenge, plus what each further challenge adds (they all have the same shape).
engine::CircuitShape porep_shape(const SealProofInfo& info) {
  static std::mutex mutex;
  static std::map<filecoin::RegisteredSealProof, engine::CircuitShape> cache;
  std::lock_guard lock(mutex);
  auto it = cache.find(info.proof);
  if (it != cache.end()) return it->second;
  SealProofInfo one = info;
  one.challenges_per_partition = 1;
  r1cs::ShapeCounter cs;
  filecoin::StackedCircuit::blank(one).synthesize(cs);
  const auto& parts = filecoin::StackedCircuit::part_shapes(info);
  r1cs::SectionShape each = parts.head;
  for (const auto& l : parts.labels) each.constraints += l.constraints, each.aux += l.aux, each.inputs += l.inputs;
  each.constraints += parts.tail.constraints;
  each.aux += parts.tail.aux;
  each.inputs += parts.tail.inputs;
  const uint64_t more = info.challenges_per_partition - 1;
  engine::CircuitShape s;
  s.inputs = cs.num_inputs() + more * each.inputs;
  s.constraints = cs.num_constraints() + more * each.constraints + s.inputs;  // with the input constraints
  s.aux = cs.num_aux() + more * each.aux;
  s.scratch_bytes = kSynthesisScratchBytes;
  cache[info.proof] = s;
  return s;
}

// The parsed Commit1 output's heap bytes (the tracker's `input` class).
uint64_t commit_phase1_bytes(const filecoin::SealCommitPhase1Output& c1) {
  uint64_t b = sizeof(c1);
  auto column = [](const filecoin::ColumnProof& c) {
    return sizeof(c) + c.column.rows.size() * sizeof(ff::Fr) + merkle_bytes(c.inclusion_proof);
  };
  for (const auto& partition : c1.vanilla_proofs) {
    for (const auto& p : partition) {
      b += sizeof(p) + merkle_bytes(p.comm_d_proofs) + merkle_bytes(p.comm_r_last_proof);
      b += column(p.replica_column_proofs.c_x);
      for (const auto& c : p.replica_column_proofs.drg_parents) b += column(c);
      for (const auto& c : p.replica_column_proofs.exp_parents) b += column(c);
      for (const auto& l : p.labeling_proofs) b += sizeof(l) + l.parents.size() * sizeof(ff::Fr);
      b += p.encoding_proof.parents.size() * sizeof(ff::Fr);
    }
  }
  return b;
}

class PoRepInput final : public engine::ProofInput {
 public:
  PoRepInput(filecoin::SealCommitPhase1Output c1, uint64_t miner, uint64_t sector)
      : c1_(std::move(c1)),
        info_(filecoin::seal_proof_info(c1_.registered_proof)),
        miner_(miner),
        sector_(sector),
        graph_(info_),
        shape_(porep_shape(info_)),
        param_id_(filecoin::porep_parameter_id(info_).stem),
        bytes_(commit_phase1_bytes(c1_)) {
    c1_.replica_id.to_bytes_le(replica_id_.data());
  }
  std::string kind() const override { return std::string(kPoRepKind); }
  std::string describe() const override {
    return std::string(info_.name) + ", miner t0" + std::to_string(miner_) + ", sector " + std::to_string(sector_);
  }
  uint32_t partitions() const override { return uint32_t(info_.partitions); }
  engine::CircuitShape shape() const override { return shape_; }
  std::string param_id() const override { return param_id_; }
  void synthesize(uint32_t k, r1cs::ConstraintSystem& assignment) const override {
    filecoin::StackedCircuit::from_commit_phase1(c1_, k).synthesize(assignment);
  }
  std::optional<std::vector<ff::Fr>> public_inputs(uint32_t k) const override {
    return filecoin::porep_public_inputs(info_, graph_, replica_id_, c1_.comm_d, c1_.comm_r, c1_.seed, k);
  }
  uint64_t input_bytes() const override { return bytes_; }

 private:
  filecoin::SealCommitPhase1Output c1_;
  const SealProofInfo& info_;
  uint64_t miner_, sector_;
  filecoin::StackedBucketGraph graph_;
  engine::CircuitShape shape_;
  std::string param_id_;
  uint64_t bytes_;
  filecoin::Bytes32 replica_id_{};
};

// Curio's envelope (lib/ffi/cuzk_funcs.go c1OutputWrapper): Go's encoding/json of
// {SectorNum int64, Phase1Out []byte (base64), SectorSize uint64}. Returns the inner JSON and
// fills the envelope's numbers; nullopt when the document is not an envelope.
struct Envelope {
  std::string phase1_out;
  std::optional<int64_t> sector_num;
  std::optional<uint64_t> sector_size;
};

std::optional<Envelope> read_envelope(std::string_view text) {
  // A Commit1 output starts with {"registered_proof"; an envelope has Phase1Out.
  if (text.find("\"Phase1Out\"") == std::string_view::npos) return std::nullopt;
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw InvalidProofRequest(std::string("vanilla_proof: not JSON: ") + e.what());
  }
  if (!doc.is_object() || !doc.contains("Phase1Out")) return std::nullopt;
  Envelope env;
  try {
    const auto& p1 = doc.at("Phase1Out");
    if (!p1.is_string()) throw InvalidProofRequest("vanilla_proof.Phase1Out: a base64 string is expected");
    env.phase1_out = base64_decode(p1.get_ref<const std::string&>());
    if (doc.contains("SectorNum")) env.sector_num = doc.at("SectorNum").get<int64_t>();
    if (doc.contains("SectorSize")) env.sector_size = doc.at("SectorSize").get<uint64_t>();
  } catch (const nlohmann::json::exception& e) {
    throw InvalidProofRequest(std::string("vanilla_proof: SectorNum and SectorSize must be numbers: ") + e.what());
  } catch (const std::invalid_argument& e) {
    throw InvalidProofRequest(std::string("vanilla_proof.Phase1Out: ") + e.what());
  }
  return env;
}

}  // namespace

std::shared_ptr<const engine::ProofInput> make_porep_input(const PoRepRequest& r) {
  const SealProofInfo* info = nullptr;
  try {
    info = &filecoin::seal_proof_info_by_id(r.registered_proof);
  } catch (const std::invalid_argument& e) {
    throw InvalidProofRequest(std::string("registered_proof: ") + e.what());
  }
  if (info->feature == filecoin::SealFeature::kNonInteractive) {
    throw UnsupportedProof(std::string(info->name) +
                           ": non-interactive PoRep proofs are SnarkPack aggregates of their partitions' proofs, "
                           "which cuzk does not make yet");
  }
  if (r.sector_size != 0 && r.sector_size != info->sector_size) {
    throw InvalidProofRequest("sector_size " + std::to_string(r.sector_size) + " is not " + std::string(info->name) +
                              "'s " + std::to_string(info->sector_size));
  }
  if (r.miner_id == 0) throw InvalidProofRequest("miner_id is 0; give the miner's actor id (t01000: 1000)");
  std::string owned;
  std::string_view c1_json = r.vanilla_proof;
  if (auto env = read_envelope(r.vanilla_proof)) {
    if (env->sector_num && uint64_t(*env->sector_num) != r.sector_number) {
      throw InvalidProofRequest("vanilla_proof.SectorNum " + std::to_string(*env->sector_num) +
                                " differs from sector_number " + std::to_string(r.sector_number));
    }
    // 0: not given (Curio's PSProve leaves sizes out), taken from the registered proof.
    if (env->sector_size && *env->sector_size != 0 && *env->sector_size != info->sector_size) {
      throw InvalidProofRequest("vanilla_proof.SectorSize " + std::to_string(*env->sector_size) + " is not " +
                                std::string(info->name) + "'s " + std::to_string(info->sector_size));
    }
    owned = std::move(env->phase1_out);
    c1_json = owned;
  }
  filecoin::SealCommitPhase1Output c1;
  try {
    c1 = filecoin::read_seal_commit_phase1(c1_json);
  } catch (const filecoin::C1FormatError& e) {
    throw InvalidProofRequest(std::string("the Commit1 output: ") + e.what());
  }
  if (c1.registered_proof != info->proof) {
    throw InvalidProofRequest("registered_proof " + std::to_string(r.registered_proof) + " (" +
                              std::string(info->name) + ") differs from the Commit1 output's " +
                              std::string(filecoin::seal_proof_info(c1.registered_proof).name));
  }
  try {
    filecoin::check_seal_commit_phase1(
        c1, filecoin::SealCommitIdentity{filecoin::prover_id_from_actor_id(r.miner_id), r.sector_number},
        filecoin::C1Structure::kValidatedByReader);
  } catch (const filecoin::SealCommitCheckError& e) {
    throw InvalidProofRequest(std::string(e.what()) + " (miner t0" + std::to_string(r.miner_id) + ", sector " +
                              std::to_string(r.sector_number) + ")");
  }
  return std::make_shared<PoRepInput>(std::move(c1), r.miner_id, r.sector_number);
}

}  // namespace cuzk::kinds

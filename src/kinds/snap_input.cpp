// The SnapDeals kind: an EmptySectorUpdate proof from the per-partition vanilla proofs Curio sends
// (bincode PartitionProof), parsed and checked against the commitments once at submit, proved
// partition by partition with the EmptySectorUpdate circuit.
#include <map>
#include <mutex>
#include <string>

#include "filecoin/snap/circuit.hpp"
#include "filecoin/snap/public_inputs.hpp"
#include "filecoin/snap/registered_proofs.hpp"
#include "filecoin/snap/vanilla_proof.hpp"
#include "kinds/filecoin_kinds.hpp"
#include "kinds/input_bytes.hpp"
#include "r1cs/proving_assignment.hpp"
#include "r1cs/shape.hpp"

namespace cuzk::kinds {
namespace {

using filecoin::EmptySectorUpdateParams;
using filecoin::EmptySectorUpdatePartitionProof;
using filecoin::EmptySectorUpdatePublicInputs;
using filecoin::UpdateProofInfo;

r1cs::ShapeCounter count_blank(const EmptySectorUpdateParams& params, size_t challenges) {
  EmptySectorUpdateParams p = params;
  p.challenge_count = challenges;
  r1cs::ShapeCounter cs;
  filecoin::EmptySectorUpdateCircuit::blank(p).synthesize(cs);
  return cs;
}

// One partition's shape without synthesizing the whole blank circuit (81 M constraints at 32 GiB,
// seconds at every first submit): it is base + digests * digest + challenges * challenge, digests =
// ceil(challenges / challenges_per_digest) (gen_challenge_bits), so three small blank circuits
// give the three terms (rust-fil-proofs' 32 GiB count checks it, engine_snap_test).
engine::CircuitShape snap_shape(const EmptySectorUpdateParams& params) {
  static std::mutex mutex;
  static std::map<uint64_t, engine::CircuitShape> cache;
  std::lock_guard lock(mutex);
  if (auto it = cache.find(params.sector_size()); it != cache.end()) return it->second;
  const size_t per_digest = params.challenges_per_digest();
  const uint64_t n = params.challenge_count, digests = params.digests_per_partition();
  engine::CircuitShape s;
  s.scratch_bytes = kSynthesisScratchBytes;
  if (per_digest + 4 >= n) {
    // The three would count more challenges than the circuit has (2 KiB, 8 MiB).
    const r1cs::ShapeCounter all = count_blank(params, n);
    s.inputs = all.num_inputs();
    s.constraints = all.num_constraints() + s.inputs;  // with the input constraints
    s.aux = all.num_aux();
  } else {
    const r1cs::ShapeCounter one = count_blank(params, 1), two = count_blank(params, 2);
    const r1cs::ShapeCounter next = count_blank(params, per_digest + 1);  // the second digest's first challenge
    auto extrapolate = [&](uint64_t c1, uint64_t c2, uint64_t c_next) {
      const uint64_t challenge = c2 - c1;
      const uint64_t digest = c_next - c1 - per_digest * challenge;
      return c1 + (digests - 1) * digest + (n - 1) * challenge;
    };
    s.inputs = one.num_inputs();  // ONE and the four public inputs, whatever the challenges
    s.constraints = extrapolate(one.num_constraints(), two.num_constraints(), next.num_constraints()) + s.inputs;
    s.aux = extrapolate(one.num_aux(), two.num_aux(), next.num_aux());
  }
  cache[params.sector_size()] = s;
  return s;
}

uint64_t partition_bytes(const EmptySectorUpdatePartitionProof& p) {
  uint64_t b = sizeof(p) + p.apex_leafs.size() * sizeof(ff::Fr);
  for (const auto& c : p.challenge_proofs) {
    b += merkle_bytes(c.proof_r_old) + merkle_bytes(c.proof_d_new) + merkle_bytes(c.proof_r_new);
  }
  return b;
}

class SnapInput final : public engine::ProofInput {
 public:
  SnapInput(const UpdateProofInfo& info, uint64_t miner, uint64_t sector, EmptySectorUpdatePublicInputs commitments,
            std::vector<EmptySectorUpdatePartitionProof> partitions)
      : info_(info),
        miner_(miner),
        sector_(sector),
        commitments_(commitments),
        partitions_(std::move(partitions)),
        shape_(snap_shape(info.params)),
        param_id_(info.params.parameter_id().stem) {
    bytes_ = sizeof(*this);
    for (const auto& p : partitions_) bytes_ += partition_bytes(p);
  }
  std::string kind() const override { return std::string(kSnapDealsKind); }
  std::string describe() const override {
    return std::string(info_.name) + " update, miner t0" + std::to_string(miner_) + ", sector " +
           std::to_string(sector_);
  }
  uint32_t partitions() const override { return uint32_t(partitions_.size()); }
  engine::CircuitShape shape() const override { return shape_; }
  std::string param_id() const override { return param_id_; }
  void synthesize(uint32_t k, r1cs::ConstraintSystem& assignment) const override {
    filecoin::EmptySectorUpdateCircuit::from_vanilla(info_.params, inputs_of(k), partitions_.at(k))
        .synthesize(assignment);
  }
  std::optional<std::vector<ff::Fr>> public_inputs(uint32_t k) const override {
    const auto in = filecoin::empty_sector_update_public_inputs(info_.params, inputs_of(k));
    return std::vector<ff::Fr>(in.begin(), in.end());
  }
  uint64_t input_bytes() const override { return bytes_; }

 private:
  EmptySectorUpdatePublicInputs inputs_of(uint32_t k) const {
    if (k >= partitions_.size()) throw std::out_of_range("partition " + std::to_string(k) + " of a SnapDeals job");
    EmptySectorUpdatePublicInputs in = commitments_;
    in.k = k;
    return in;
  }

  const UpdateProofInfo& info_;
  uint64_t miner_, sector_;
  EmptySectorUpdatePublicInputs commitments_;  // h and the three commitments (k per partition)
  std::vector<EmptySectorUpdatePartitionProof> partitions_;
  engine::CircuitShape shape_;
  std::string param_id_;
  uint64_t bytes_ = 0;
};

// filecoin-proofs' as_safe_commitment: 32 raw bytes (Curio takes them out of the CID) that are a
// canonical field element.
ff::Fr commitment(std::string_view bytes, const char* field) {
  if (bytes.size() != 32) {
    throw InvalidProofRequest(std::string(field) + " is " + std::to_string(bytes.size()) +
                              " bytes; 32 are expected (the raw commitment, not its CID)");
  }
  ff::Fr out;
  if (!ff::Fr::from_bytes_le(reinterpret_cast<const uint8_t*>(bytes.data()), out)) {
    throw InvalidProofRequest(std::string(field) +
                              " is not a field element (little-endian, below the BLS12-381 scalar modulus): not a "
                              "commitment");
  }
  return out;
}

const UpdateProofInfo& update_info(uint64_t registered_proof) {
  try {
    return filecoin::update_proof_info_by_id(registered_proof);
  } catch (const std::invalid_argument& e) {
    throw InvalidProofRequest(std::string("registered_proof: ") + e.what() + " (a RegisteredUpdateProof id)");
  }
}

}  // namespace

engine::CircuitShape snap_partition_shape(uint64_t registered_proof) {
  return snap_shape(update_info(registered_proof).params);
}

std::shared_ptr<const engine::ProofInput> make_snap_input(const SnapRequest& r) {
  const UpdateProofInfo* info = &update_info(r.registered_proof);
  const EmptySectorUpdateParams& params = info->params;
  if (r.sector_size != 0 && r.sector_size != info->sector_size) {
    throw InvalidProofRequest("sector_size " + std::to_string(r.sector_size) + " is not " + std::string(info->name) +
                              "'s " + std::to_string(info->sector_size));
  }
  EmptySectorUpdatePublicInputs in;
  in.h = params.h_default;  // what filecoin-proofs' SectorUpdateConfig uses
  in.comm_r_old = commitment(r.comm_r_old, "comm_r_old");
  in.comm_r_new = commitment(r.comm_r_new, "comm_r_new");
  in.comm_d_new = commitment(r.comm_d_new, "comm_d_new");
  const size_t n = params.partition_count;
  if (r.vanilla_proofs.size() != n) {
    throw InvalidProofRequest("vanilla_proofs holds " + std::to_string(r.vanilla_proofs.size()) + " proofs; " +
                              std::string(info->name) + " has " + std::to_string(n) + " partition" +
                              (n == 1 ? "" : "s") + ", one bincode PartitionProof each, in partition order");
  }
  std::vector<EmptySectorUpdatePartitionProof> proofs;
  proofs.reserve(n);
  for (size_t k = 0; k < n; k++) {
    const auto& b = r.vanilla_proofs[k];
    try {
      proofs.push_back(filecoin::read_empty_sector_update_partition_proof(
          std::span(reinterpret_cast<const uint8_t*>(b.data()), b.size()), params));
    } catch (const std::invalid_argument& e) {
      throw InvalidProofRequest("vanilla_proofs[" + std::to_string(k) + "]: " + e.what());
    }
  }
  // Each partition as the verifier checks it (vanilla.rs verify), so that a wrong commitment or
  // order is refused here rather than as a proof that fails to verify.
  auto reason = [&](size_t k, size_t as) {
    EmptySectorUpdatePublicInputs p = in;
    p.k = as;
    return filecoin::verify_empty_sector_update_partition(params, p, proofs[k]);
  };
  for (size_t k = 0; k < n; k++) {
    const std::string why = reason(k, k);
    if (why.empty()) continue;
    const std::string at = "vanilla_proofs[" + std::to_string(k) + "]: ";
    if (why.starts_with("challenge")) {
      // The challenges depend on the partition: another partition's proof opens other nodes.
      for (size_t j = 0; j < n; j++) {
        if (j != k && reason(k, j).empty()) {
          throw InvalidProofRequest(at + "is partition " + std::to_string(j) +
                                    "'s proof; send one per partition in partition order");
        }
      }
    }
    throw InvalidProofRequest(at + why +
                              " (does the proof belong to this update's comm_r_old, comm_r_new and comm_d_new, and "
                              "to partition " +
                              std::to_string(k) + "?)");
  }
  return std::make_shared<SnapInput>(*info, r.miner_id, r.sector_number, in, std::move(proofs));
}

}  // namespace cuzk::kinds

// The PoSt kinds: WinningPoSt and one WindowPoSt partition from the per-sector vanilla proofs
// Curio sends (bincode FallbackPoStSectorProof), parsed and checked once at submit, proved with
// the FallbackPoSt circuit (one partition per job).
#include <algorithm>
#include <map>
#include <mutex>
#include <string>

#include "filecoin/parameter_files.hpp"
#include "filecoin/post/challenges.hpp"
#include "filecoin/post/circuit.hpp"
#include "filecoin/post/public_inputs.hpp"
#include "filecoin/post/registered_proofs.hpp"
#include "filecoin/post/vanilla_proof.hpp"
#include "kinds/filecoin_kinds.hpp"
#include "kinds/input_bytes.hpp"
#include "r1cs/proving_assignment.hpp"
#include "r1cs/shape.hpp"

namespace cuzk::kinds {
namespace {

using filecoin::FallbackPoStParams;
using filecoin::FallbackPoStSectorWitness;
using filecoin::PoStProofInfo;
using filecoin::PoStType;

// One partition's shape: one sector's counts on a blank circuit (every sector has the same
// shape, and the circuit has nothing besides its sectors and ONE), times sector_count.
engine::CircuitShape post_shape(const FallbackPoStParams& params) {
  static std::mutex mutex;
  static std::map<std::pair<uint64_t, size_t>, engine::CircuitShape> cache;
  std::lock_guard lock(mutex);
  const auto key = std::pair{params.sector_size, params.challenge_count * 100000 + params.sector_count};
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  FallbackPoStParams one = params;
  one.sector_count = 1;
  r1cs::ShapeCounter cs;
  filecoin::FallbackPoStCircuit::blank(one).synthesize(cs);
  const uint64_t n = params.sector_count;
  engine::CircuitShape s;
  s.inputs = 1 + n * (cs.num_inputs() - 1);
  s.constraints = n * cs.num_constraints() + s.inputs;  // with the input constraints
  s.aux = n * cs.num_aux();
  s.scratch_bytes = kSynthesisScratchBytes;
  cache[key] = s;
  return s;
}

uint64_t witness_bytes(const FallbackPoStSectorWitness& w) {
  uint64_t b = sizeof(w) + w.leafs.size() * sizeof(ff::Fr);
  for (const auto& p : w.paths) {
    b += sizeof(p) + p.indices.size() * sizeof(size_t);
    for (const auto& level : p.siblings) b += sizeof(level) + level.size() * sizeof(ff::Fr);
  }
  return b;
}

class PoStInput final : public engine::ProofInput {
 public:
  PoStInput(const PoStProofInfo& info, uint64_t miner, uint32_t partition, filecoin::Bytes32 randomness,
            std::vector<filecoin::PoStPublicSector> pub, std::vector<FallbackPoStSectorWitness> witnesses)
      : info_(info),
        miner_(miner),
        partition_(partition),
        randomness_(randomness),
        pub_(std::move(pub)),
        witnesses_(std::move(witnesses)),
        shape_(post_shape(info.params)),
        param_id_((info.type == PoStType::kWinning ? filecoin::winning_post_parameter_id(info.params.sector_size)
                                                   : filecoin::window_post_parameter_id(info.params.sector_size))
                      .stem) {
    bytes_ = sizeof(*this) + pub_.size() * sizeof(filecoin::PoStPublicSector);
    for (const auto& w : witnesses_) bytes_ += witness_bytes(w);
  }
  std::string kind() const override {
    return std::string(info_.type == PoStType::kWinning ? kWinningPoStKind : kWindowPoStKind);
  }
  std::string describe() const override {
    std::string d = std::string(info_.name) + ", miner t0" + std::to_string(miner_);
    if (info_.type == PoStType::kWindow) d += ", partition " + std::to_string(partition_);
    return d + ", " + std::to_string(first_sectors()) + " sector" + (first_sectors() == 1 ? "" : "s");
  }
  uint32_t partitions() const override { return 1; }
  engine::CircuitShape shape() const override { return shape_; }
  std::string param_id() const override { return param_id_; }
  void synthesize(uint32_t k, r1cs::ConstraintSystem& assignment) const override {
    if (k != 0) throw std::out_of_range("a PoSt job has one partition");
    // The witnesses are the partition's own (the circuit does not depend on its index).
    filecoin::FallbackPoStCircuit::partition(info_.params, witnesses_, 0).synthesize(assignment);
  }
  std::optional<std::vector<ff::Fr>> public_inputs(uint32_t k) const override {
    if (k != 0) throw std::out_of_range("a PoSt job has one partition");
    // fallback_post_public_inputs over the proof's sectors, for partition_ alone: its sectors are
    // at sector index partition_ * sector_count onwards, the last one repeated to fill it.
    const FallbackPoStParams& p = info_.params;
    const size_t first = size_t(partition_) * p.sector_count;
    std::vector<ff::Fr> in;
    in.reserve(p.sector_count * (1 + p.challenge_count));
    for (size_t i = 0; i < p.sector_count; i++) {
      const size_t j = std::min(i, pub_.size() - 1);
      in.push_back(pub_[j].comm_r);
      for (uint64_t leaf : filecoin::fallback_post_leaf_challenges(p, randomness_, pub_[j].id, first + j)) {
        in.push_back(ff::Fr::from_u64(leaf));
      }
    }
    return in;
  }
  uint64_t input_bytes() const override { return bytes_; }

 private:
  // The request's sectors (WinningPoSt: 1).
  size_t first_sectors() const { return info_.type == PoStType::kWinning ? 1 : pub_.size(); }

  const PoStProofInfo& info_;
  uint64_t miner_;
  uint32_t partition_;
  filecoin::Bytes32 randomness_;
  // The partition's sectors in the verifier's order (sorted by id; WinningPoSt: the sector
  // repeated sector_count times).
  std::vector<filecoin::PoStPublicSector> pub_;
  std::vector<FallbackPoStSectorWitness> witnesses_;  // the circuit's sectors of the partition
  engine::CircuitShape shape_;
  std::string param_id_;
  uint64_t bytes_ = 0;
};

}  // namespace

std::shared_ptr<const engine::ProofInput> make_post_input(const PoStRequest& r) {
  const PoStProofInfo* info = nullptr;
  try {
    info = &filecoin::post_proof_info_by_id(r.registered_proof);
  } catch (const std::invalid_argument& e) {
    throw InvalidProofRequest(std::string("registered_proof: ") + e.what() + " (a RegisteredPoStProof id)");
  }
  const bool winning = info->type == PoStType::kWinning;
  if (r.winning != winning) {
    throw InvalidProofRequest("registered_proof " + std::to_string(r.registered_proof) + " is " +
                              std::string(info->name) + ", not a " + (r.winning ? "WinningPoSt" : "WindowPoSt") +
                              " proof");
  }
  const FallbackPoStParams& params = info->params;
  if (r.sector_size != 0 && r.sector_size != params.sector_size) {
    throw InvalidProofRequest("sector_size " + std::to_string(r.sector_size) + " is not " + std::string(info->name) +
                              "'s " + std::to_string(params.sector_size));
  }
  if (r.randomness.size() != 32) {
    throw InvalidProofRequest("randomness is " + std::to_string(r.randomness.size()) + " bytes; 32 are expected");
  }
  filecoin::Bytes32 randomness{};
  std::copy(r.randomness.begin(), r.randomness.end(), randomness.begin());
  randomness[31] &= 0x3f;  // as Lotus and Curio clear it before the FFI (a field element)
  const size_t max_sectors = winning ? filecoin::kWinningPostSectorCount : params.sector_count;
  if (r.vanilla_proofs.empty() || r.vanilla_proofs.size() > max_sectors) {
    throw InvalidProofRequest("vanilla_proofs holds " + std::to_string(r.vanilla_proofs.size()) + " proofs; " +
                              std::string(info->name) + " takes " +
                              (winning ? std::string("one (the challenged sector's)")
                                       : "1 to " + std::to_string(max_sectors) + " (one per sector of the partition)"));
  }
  if (winning && r.partition_index != 0) {
    throw InvalidProofRequest("partition_index is " + std::to_string(r.partition_index) +
                              "; WinningPoSt has one partition");
  }
  std::vector<filecoin::FallbackPoStSectorProof> vanilla;
  vanilla.reserve(r.vanilla_proofs.size());
  for (size_t i = 0; i < r.vanilla_proofs.size(); i++) {
    const auto& b = r.vanilla_proofs[i];
    try {
      vanilla.push_back(filecoin::read_fallback_post_sector_proof(
          std::span(reinterpret_cast<const uint8_t*>(b.data()), b.size()), *info));
    } catch (const std::invalid_argument& e) {
      throw InvalidProofRequest("vanilla_proofs[" + std::to_string(i) + "]: " + e.what());
    }
    if (vanilla.back().sectors.size() != 1) {
      throw InvalidProofRequest("vanilla_proofs[" + std::to_string(i) + "] (sector " +
                                std::to_string(vanilla.back().sector_id) +
                                "): " + std::to_string(vanilla.back().sectors.size()) +
                                " sector proofs; one is expected (generate_single_vanilla_proof)");
    }
  }
  // The verifier's order: sectors sorted by id (verify_window_post's BTreeMap of replicas).
  std::stable_sort(vanilla.begin(), vanilla.end(),
                   [](const auto& a, const auto& b) { return a.sector_id < b.sector_id; });
  for (size_t i = 1; i < vanilla.size(); i++) {
    if (vanilla[i].sector_id == vanilla[i - 1].sector_id) {
      throw InvalidProofRequest("vanilla_proofs: sector " + std::to_string(vanilla[i].sector_id) + " appears twice");
    }
  }
  // Every opening is the leaf the verifier challenges (a wrong randomness or sector says so here,
  // not as a proof that fails to verify).
  const size_t first = size_t(r.partition_index) * params.sector_count;
  for (size_t i = 0; i < vanilla.size(); i++) {
    const auto& v = vanilla[i];
    const auto& openings = v.sectors[0].inclusion_proofs;
    const auto challenged = filecoin::post_vanilla_challenges(*info, randomness, v.sector_id, first + i);
    for (size_t n = 0; n < openings.size(); n++) {
      const uint64_t expected = challenged.at(n);
      const uint64_t opened = openings[n].path_index(params.tree_r);
      if (opened != expected) {
        throw InvalidProofRequest(
            "vanilla proof of sector " + std::to_string(v.sector_id) + ": opening " + std::to_string(n) + " is leaf " +
            std::to_string(opened) + ", but the randomness challenges leaf " + std::to_string(expected) +
            (winning ? std::string() : " (partition_index " + std::to_string(r.partition_index) + ")") +
            ": wrong randomness, sector or partition");
      }
    }
  }
  std::vector<filecoin::PoStPublicSector> pub;
  std::vector<FallbackPoStSectorWitness> witnesses;
  if (winning) {
    pub.assign(params.sector_count, filecoin::PoStPublicSector{vanilla[0].sector_id, vanilla[0].comm_r});
  } else {
    for (const auto& v : vanilla) pub.push_back({v.sector_id, v.comm_r});
  }
  try {
    for (const auto& v : vanilla) {
      auto w = filecoin::sector_witnesses(*info, v);
      for (auto& x : w) witnesses.push_back(std::move(x));
    }
  } catch (const std::invalid_argument& e) {
    throw InvalidProofRequest(std::string("vanilla_proofs: ") + e.what());
  }
  vanilla.clear();
  return std::make_shared<PoStInput>(*info, r.miner_id, r.partition_index, randomness, std::move(pub),
                                     std::move(witnesses));
}

}  // namespace cuzk::kinds

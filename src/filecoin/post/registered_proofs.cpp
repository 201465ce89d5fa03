#include "filecoin/post/registered_proofs.hpp"

#include <array>
#include <stdexcept>
#include <string>

#include "filecoin/parameter_files.hpp"

namespace cuzk::filecoin {
namespace {

std::array<PoStProofInfo, kRegisteredPoStProofs> make_post_table() {
  std::array<PoStProofInfo, kRegisteredPoStProofs> t{};
  static std::array<std::string, kRegisteredPoStProofs> names;
  // Rows of five sector sizes: Winning V1, Window V1, Window V1_2.
  for (size_t row = 0; row < 3; row++) {
    for (size_t s = 0; s < 5; s++) {
      const size_t id = row * 5 + s;
      // StackedDrg<size>V1_1 (ids 5..9) has the sector size's tree R.
      const SealProofInfo& seal = seal_proof_info(RegisteredSealProof(5 + s));
      PoStProofInfo& i = t[id];
      i.proof = RegisteredPoStProof(id);
      i.type = row == 0 ? PoStType::kWinning : PoStType::kWindow;
      names[id] = std::string("StackedDrg") + (row == 0 ? "Winning" : "Window") + std::string(seal.sector_size_name()) +
                  (row == 2 ? "V1_2" : "V1");
      i.name = names[id];
      i.seal_proof = seal.proof;
      FallbackPoStParams& p = i.params;
      p.sector_size = seal.sector_size;
      p.tree_r = seal.tree_r;
      p.api_version = row == 2 ? ApiVersion::kV1_2_0 : ApiVersion::kV1_0_0;
      if (row == 0) {
        // winning_post_setup_params: challenge_count / sector_count sectors in the circuit.
        p.sector_count = kWinningPostChallengeCount / kWinningPostSectorCount;
        p.challenge_count = kWinningPostChallengeCount / p.sector_count;
      } else {
        p.sector_count = window_post_sector_count(seal.sector_size);
        p.challenge_count = kWindowPostChallengeCount;
      }
    }
  }
  return t;
}

const std::array<PoStProofInfo, kRegisteredPoStProofs>& post_table() {
  static const auto t = make_post_table();
  return t;
}

}  // namespace

size_t FallbackPoStParams::partitions(size_t sectors) const {
  if (sector_count == 0) throw std::invalid_argument("FallbackPoSt: sector_count is 0");
  return sectors == 0 ? 1 : (sectors + sector_count - 1) / sector_count;
}

void FallbackPoStParams::validate() const {
  if (sector_count == 0 || challenge_count == 0) {
    throw std::invalid_argument("FallbackPoSt: sector_count and challenge_count must be positive");
  }
  tree_r.validate();
  if (tree_r.leaves() != nodes()) {
    throw std::invalid_argument("FallbackPoSt: tree R " + tree_r.name() + " has " + std::to_string(tree_r.leaves()) +
                                " leaves, the sector " + std::to_string(nodes()) + " nodes");
  }
}

std::span<const PoStProofInfo> post_proofs() { return post_table(); }

const PoStProofInfo& post_proof_info(RegisteredPoStProof p) { return post_proof_info_by_id(uint64_t(p)); }

const PoStProofInfo& post_proof_info_by_id(uint64_t id) {
  if (id >= kRegisteredPoStProofs) {
    throw std::invalid_argument("unknown registered PoSt proof id " + std::to_string(id) + " (known: 0.." +
                                std::to_string(kRegisteredPoStProofs - 1) + ")");
  }
  return post_table()[id];
}

const PoStProofInfo& post_proof_info(std::string_view name) {
  for (const PoStProofInfo& i : post_table()) {
    if (i.name == name) return i;
  }
  std::string known;
  for (const PoStProofInfo& i : post_table()) known += (known.empty() ? "" : ", ") + std::string(i.name);
  throw std::invalid_argument("unknown registered PoSt proof \"" + std::string(name) + "\" (known: " + known + ")");
}

}  // namespace cuzk::filecoin

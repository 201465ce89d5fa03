#include "filecoin/post/vanilla_proof.hpp"

#include <string>

#include "filecoin/common/bincode.hpp"

namespace cuzk::filecoin {
namespace {

// The shared bincode reader (common/bincode.hpp), failing with this file's error type.
class Reader : public BincodeReader {
 public:
  explicit Reader(std::span<const uint8_t> data)
      : BincodeReader(data, "FallbackPoStSectorProof",
                      [](const std::string& m) { throw PoStVanillaProofFormatError(m); }) {}
};

MerkleProof read_merkle_proof(Reader& r, const std::string& field, const gadgets::PorTreeShape& shape) {
  return read_bincode_merkle_proof(r, field, shape);
}

}  // namespace

FallbackPoStSectorProof read_fallback_post_sector_proof(std::span<const uint8_t> bincode,
                                                        const gadgets::PorTreeShape& tree_r, size_t challenges) {
  tree_r.validate();
  Reader r(bincode);
  FallbackPoStSectorProof out;
  out.sector_id = r.u64("sector_id");
  out.comm_r = r.domain("comm_r");
  const uint64_t sectors = r.u64("vanilla_proof.sectors length");
  // Each SectorProof has at least its length and two roots: refuses absurd counts before
  // allocating.
  if (sectors == 0) r.fail("vanilla_proof.sectors", "no sector proof");
  if (sectors > r.left() / 72) {
    r.fail("vanilla_proof.sectors", "truncated or malformed: " + std::to_string(sectors) +
                                        " sector proofs cannot fit in the " + std::to_string(r.left()) + " bytes left");
  }
  for (uint64_t s = 0; s < sectors; s++) {
    const std::string at = "vanilla_proof.sectors[" + std::to_string(s) + "]";
    PoStSectorProof sp;
    r.length(at + ".inclusion_proofs", challenges, "the challenge count");
    for (size_t i = 0; i < challenges; i++) {
      sp.inclusion_proofs.push_back(read_merkle_proof(r, at + ".inclusion_proofs[" + std::to_string(i) + "]", tree_r));
    }
    sp.comm_c = r.domain(at + ".comm_c");
    sp.comm_r_last = r.domain(at + ".comm_r_last");
    for (size_t i = 0; i < sp.inclusion_proofs.size(); i++) {
      if (sp.inclusion_proofs[i].root != sp.comm_r_last) {
        r.fail(at + ".inclusion_proofs[" + std::to_string(i) + "]", "root differs from comm_r_last");
      }
    }
    out.sectors.push_back(std::move(sp));
  }
  if (r.left() != 0) r.fail("end", std::to_string(r.left()) + " bytes after the proof");
  return out;
}

FallbackPoStSectorProof read_fallback_post_sector_proof(std::span<const uint8_t> bincode, const PoStProofInfo& proof) {
  const FallbackPoStParams& p = proof.params;
  const size_t challenges = proof.type == PoStType::kWinning ? p.sector_count * p.challenge_count : p.challenge_count;
  return read_fallback_post_sector_proof(bincode, p.tree_r, challenges);
}

std::vector<uint8_t> write_fallback_post_sector_proof(const FallbackPoStSectorProof& proof) {
  BincodeWriter w;
  w.u64(proof.sector_id);
  w.domain(proof.comm_r);
  w.u64(proof.sectors.size());
  for (const PoStSectorProof& s : proof.sectors) {
    w.u64(s.inclusion_proofs.size());
    for (const MerkleProof& p : s.inclusion_proofs) w.merkle_proof(p);
    w.domain(s.comm_c);
    w.domain(s.comm_r_last);
  }
  return std::move(w.out);
}

}  // namespace cuzk::filecoin

#include "filecoin/fallback_post_vanilla_proof.hpp"

#include <string>

namespace cuzk::filecoin {
namespace {

class Reader {
 public:
  explicit Reader(std::span<const uint8_t> data) : data_(data) {}

  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw PoStVanillaProofFormatError("FallbackPoStSectorProof: " + field + ": " + what + " (at byte " +
                                      std::to_string(pos_) + " of " + std::to_string(data_.size()) + ")");
  }
  const uint8_t* take(size_t n, const std::string& field) {
    if (data_.size() - pos_ < n) {
      fail(field,
           "truncated: " + std::to_string(n) + " bytes needed, " + std::to_string(data_.size() - pos_) + " left");
    }
    const uint8_t* p = data_.data() + pos_;
    pos_ += n;
    return p;
  }
  uint64_t u64(const std::string& field) {
    const uint8_t* p = take(8, field);
    uint64_t v = 0;
    for (size_t i = 0; i < 8; i++) v |= uint64_t(p[i]) << (8 * i);
    return v;
  }
  uint32_t u32(const std::string& field) {
    const uint8_t* p = take(4, field);
    return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
  }
  Fr domain(const std::string& field) {
    const uint8_t* p = take(32, field);
    Fr x;
    if (!Fr::from_bytes_le(p, x)) fail(field, "not a canonical field element");
    return x;
  }
  // A sequence length that must equal `expected`.
  void length(const std::string& field, uint64_t expected, const std::string& why) {
    const uint64_t n = u64(field + " length");
    if (n != expected) fail(field, std::to_string(n) + " elements, " + why + " needs " + std::to_string(expected));
  }
  size_t left() const { return data_.size() - pos_; }

 private:
  std::span<const uint8_t> data_;
  size_t pos_ = 0;
};

// One group of levels (base, sub or top) of arity `arity`.
std::vector<PathElement> read_path(Reader& r, const std::string& field, size_t levels, size_t arity) {
  r.length(field + ".path", levels, "tree R");
  std::vector<PathElement> out(levels);
  for (size_t l = 0; l < levels; l++) {
    const std::string at = field + ".path[" + std::to_string(l) + "]";
    r.length(at + ".hashes", arity - 1, "a level of arity " + std::to_string(arity));
    for (size_t h = 0; h < arity - 1; h++) out[l].hashes.push_back(r.domain(at + ".hashes[" + std::to_string(h) + "]"));
    const uint64_t index = r.u64(at + ".index");
    if (index >= arity) r.fail(at + ".index", std::to_string(index) + " >= arity " + std::to_string(arity));
    out[l].index = uint32_t(index);
  }
  return out;
}

MerkleProof read_merkle_proof(Reader& r, const std::string& field, const gadgets::PorTreeShape& shape) {
  MerkleProof p;
  const uint32_t tag = r.u32(field + ".data (variant)");
  const uint32_t expected = shape.top_arity ? 2 : shape.sub_arity ? 1 : 0;
  static const char* const kNames[3] = {"Single", "Sub", "Top"};
  if (tag > 2) r.fail(field + ".data", "unknown ProofData variant " + std::to_string(tag));
  if (tag != expected) {
    r.fail(field + ".data", std::string(kNames[tag]) + " proof, tree R " + shape.name() + " needs " + kNames[expected]);
  }
  const std::string d = field + ".data." + kNames[tag];
  if (tag == 0) {
    p.kind = MerkleProof::Kind::kSingle;
    p.root = r.domain(d + ".root");
    p.leaf = r.domain(d + ".leaf");
    p.base = read_path(r, d, shape.base_levels, shape.base_arity);
    return p;
  }
  p.kind = tag == 1 ? MerkleProof::Kind::kSub : MerkleProof::Kind::kTop;
  p.base = read_path(r, d + ".base_proof", shape.base_levels, shape.base_arity);
  p.sub = read_path(r, d + ".sub_proof", 1, shape.sub_arity);
  if (tag == 2) p.top = read_path(r, d + ".top_proof", 1, shape.top_arity);
  p.root = r.domain(d + ".root");
  p.leaf = r.domain(d + ".leaf");
  return p;
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

}  // namespace cuzk::filecoin

#include "filecoin/common/bincode.hpp"

#include <stdexcept>

namespace cuzk::filecoin {

void BincodeReader::fail(const std::string& field, const std::string& reason) const {
  fail_(what_ + ": " + field + ": " + reason + " (at byte " + std::to_string(pos_) + " of " +
        std::to_string(data_.size()) + ")");
  // fail_ must throw; never continue reading past a failure.
  throw std::logic_error("BincodeReader: the failure handler returned");
}

const uint8_t* BincodeReader::take(size_t n, const std::string& field) {
  if (data_.size() - pos_ < n) {
    fail(field, "truncated: " + std::to_string(n) + " bytes needed, " + std::to_string(data_.size() - pos_) + " left");
  }
  const uint8_t* p = data_.data() + pos_;
  pos_ += n;
  return p;
}

uint64_t BincodeReader::u64(const std::string& field) {
  const uint8_t* p = take(8, field);
  uint64_t v = 0;
  for (size_t i = 0; i < 8; i++) v |= uint64_t(p[i]) << (8 * i);
  return v;
}

uint32_t BincodeReader::u32(const std::string& field) {
  const uint8_t* p = take(4, field);
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

Fr BincodeReader::domain(const std::string& field) {
  const uint8_t* p = take(32, field);
  Fr x;
  if (!Fr::from_bytes_le(p, x)) fail(field, "not a canonical field element");
  return x;
}

void BincodeReader::length(const std::string& field, uint64_t expected, const std::string& why) {
  const uint64_t n = u64(field + " length");
  if (n != expected) fail(field, std::to_string(n) + " elements, " + why + " needs " + std::to_string(expected));
}

namespace {

// One group of levels (base, sub or top) of arity `arity`.
std::vector<PathElement> read_path(BincodeReader& r, const std::string& field, size_t levels, size_t arity,
                                   const std::string& tree) {
  r.length(field + ".path", levels, tree);
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

}  // namespace

MerkleProof read_bincode_merkle_proof(BincodeReader& r, const std::string& field, const gadgets::PorTreeShape& shape,
                                      const std::string& tree) {
  MerkleProof p;
  const uint32_t tag = r.u32(field + ".data (variant)");
  const uint32_t expected = shape.top_arity ? 2 : shape.sub_arity ? 1 : 0;
  static const char* const kNames[3] = {"Single", "Sub", "Top"};
  if (tag > 2) r.fail(field + ".data", "unknown ProofData variant " + std::to_string(tag));
  if (tag != expected) {
    r.fail(field + ".data",
           std::string(kNames[tag]) + " proof, " + tree + " " + shape.name() + " needs " + kNames[expected]);
  }
  const std::string d = field + ".data." + kNames[tag];
  if (tag == 0) {
    p.kind = MerkleProof::Kind::kSingle;
    p.root = r.domain(d + ".root");
    p.leaf = r.domain(d + ".leaf");
    p.base = read_path(r, d, shape.base_levels, shape.base_arity, tree);
    return p;
  }
  p.kind = tag == 1 ? MerkleProof::Kind::kSub : MerkleProof::Kind::kTop;
  p.base = read_path(r, d + ".base_proof", shape.base_levels, shape.base_arity, tree);
  p.sub = read_path(r, d + ".sub_proof", 1, shape.sub_arity, tree);
  if (tag == 2) p.top = read_path(r, d + ".top_proof", 1, shape.top_arity, tree);
  p.root = r.domain(d + ".root");
  p.leaf = r.domain(d + ".leaf");
  return p;
}

void BincodeWriter::u64(uint64_t v) {
  for (int i = 0; i < 8; i++) out.push_back(uint8_t(v >> (8 * i)));
}

void BincodeWriter::u32(uint32_t v) {
  for (int i = 0; i < 4; i++) out.push_back(uint8_t(v >> (8 * i)));
}

void BincodeWriter::domain(const Fr& x) {
  uint8_t b[32];
  x.to_bytes_le(b);
  out.insert(out.end(), b, b + 32);
}

void BincodeWriter::merkle_proof(const MerkleProof& p) {
  auto path = [&](const std::vector<PathElement>& levels) {
    u64(levels.size());
    for (const PathElement& e : levels) {
      u64(e.hashes.size());
      for (const Fr& h : e.hashes) domain(h);
      u64(e.index);
    }
  };
  using K = MerkleProof::Kind;
  u32(p.kind == K::kSingle ? 0 : p.kind == K::kSub ? 1 : 2);
  if (p.kind == K::kSingle) {
    domain(p.root), domain(p.leaf), path(p.base);
    return;
  }
  path(p.base), path(p.sub);
  if (p.kind == K::kTop) path(p.top);
  domain(p.root), domain(p.leaf);
}

}  // namespace cuzk::filecoin

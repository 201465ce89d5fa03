// The Commit1 output written as serde_json::to_string writes it (compact, declaration order).
#include <cstdint>
#include <string>
#include <vector>

#include "filecoin/porep/commit1.hpp"
#include "filecoin/porep/commit1_format.hpp"

namespace cuzk::filecoin {

using namespace c1_format;

namespace {

class Writer {
 public:
  std::string out;

  void raw(std::string_view s) { out.append(s); }
  void uint(uint64_t x) {
    char buf[24];
    char* e = buf + sizeof buf;
    char* p = e;
    do {
      *--p = char('0' + x % 10);
      x /= 10;
    } while (x);
    out.append(p, size_t(e - p));
  }
  void bytes(const uint8_t* b) {
    // At most 32 * 4 + 1 characters.
    char buf[32 * 4 + 2];
    char* p = buf;
    *p++ = '[';
    for (size_t i = 0; i < 32; i++) {
      const unsigned x = b[i];
      if (x >= 100) *p++ = char('0' + x / 100);
      if (x >= 10) *p++ = char('0' + x / 10 % 10);
      *p++ = char('0' + x % 10);
      *p++ = ',';
    }
    p[-1] = ']';
    out.append(buf, size_t(p - buf));
  }
  void fr(const Fr& x) {
    uint8_t b[32];
    x.to_bytes_le(b);
    bytes(b);
  }
  void frs(const std::vector<Fr>& v) {
    raw("[");
    for (size_t i = 0; i < v.size(); i++) {
      if (i) raw(",");
      fr(v[i]);
    }
    raw("]");
  }
  void inclusion_path(const std::vector<PathElement>& path) {
    raw("{\"path\":[");
    for (size_t i = 0; i < path.size(); i++) {
      if (i) raw(",");
      raw("{\"hashes\":");
      frs(path[i].hashes);
      raw(",\"index\":");
      uint(path[i].index);
      raw("}");
    }
    raw("]}");
  }
  void merkle(const MerkleProof& p) {
    switch (p.kind) {
      case MerkleProof::Kind::kSingle:
        raw("{\"data\":{\"Single\":{\"root\":");
        fr(p.root);
        raw(",\"leaf\":");
        fr(p.leaf);
        raw(",\"path\":");
        inclusion_path(p.base);
        break;
      case MerkleProof::Kind::kSub:
        raw("{\"data\":{\"Sub\":{\"base_proof\":");
        inclusion_path(p.base);
        raw(",\"sub_proof\":");
        inclusion_path(p.sub);
        raw(",\"root\":");
        fr(p.root);
        raw(",\"leaf\":");
        fr(p.leaf);
        break;
      case MerkleProof::Kind::kTop:
        raw("{\"data\":{\"Top\":{\"base_proof\":");
        inclusion_path(p.base);
        raw(",\"sub_proof\":");
        inclusion_path(p.sub);
        raw(",\"top_proof\":");
        inclusion_path(p.top);
        raw(",\"root\":");
        fr(p.root);
        raw(",\"leaf\":");
        fr(p.leaf);
        break;
    }
    raw("}}}");
  }
  void column_proof(const ColumnProof& cp) {
    raw("{\"column\":{\"index\":");
    uint(cp.column.index);
    raw(",\"rows\":");
    frs(cp.column.rows);
    raw(",\"_h\":null},\"inclusion_proof\":");
    merkle(cp.inclusion_proof);
    raw("}");
  }
  void column_proofs(const std::vector<ColumnProof>& v) {
    raw("[");
    for (size_t i = 0; i < v.size(); i++) {
      if (i) raw(",");
      column_proof(v[i]);
    }
    raw("]");
  }
  void labeling(const LabelingProof& lp) {
    raw("{\"parents\":");
    frs(lp.parents);
    raw(",\"layer_index\":");
    uint(lp.layer_index);
    raw(",\"node\":");
    uint(lp.node);
    raw("}");
  }
  void proof(const VanillaSealProof& p) {
    raw("{\"comm_d_proofs\":");
    merkle(p.comm_d_proofs);
    raw(",\"comm_r_last_proof\":");
    merkle(p.comm_r_last_proof);
    raw(",\"replica_column_proofs\":{\"c_x\":");
    column_proof(p.replica_column_proofs.c_x);
    raw(",\"drg_parents\":");
    column_proofs(p.replica_column_proofs.drg_parents);
    raw(",\"exp_parents\":");
    column_proofs(p.replica_column_proofs.exp_parents);
    raw("},\"labeling_proofs\":[");
    for (size_t i = 0; i < p.labeling_proofs.size(); i++) {
      if (i) raw(",");
      labeling(p.labeling_proofs[i]);
    }
    raw("],\"encoding_proof\":");
    labeling(p.encoding_proof);
    raw("}");
  }
};

}  // namespace

std::string write_seal_commit_phase1(const SealCommitPhase1Output& c1) {
  const SealProofInfo& info = seal_proof_info(c1.registered_proof);
  Writer w;
  // About 115 characters per field element; count them for one reservation.
  size_t elements = 0;
  auto merkle_elements = [](const MerkleProof& p) {
    size_t n = 2;
    for (const auto* v : {&p.base, &p.sub, &p.top}) {
      for (const PathElement& pe : *v) n += pe.hashes.size() + 1;
    }
    return n;
  };
  for (const auto& part : c1.vanilla_proofs) {
    for (const VanillaSealProof& p : part) {
      elements += merkle_elements(p.comm_d_proofs) + merkle_elements(p.comm_r_last_proof);
      const ReplicaColumnProof& r = p.replica_column_proofs;
      elements += merkle_elements(r.c_x.inclusion_proof) + r.c_x.column.rows.size() + 1;
      for (const auto* list : {&r.drg_parents, &r.exp_parents}) {
        for (const ColumnProof& cp : *list) elements += merkle_elements(cp.inclusion_proof) + cp.column.rows.size() + 1;
      }
      for (const LabelingProof& lp : p.labeling_proofs) elements += lp.parents.size() + 1;
      elements += p.encoding_proof.parents.size() + 1;
    }
  }
  w.out.reserve(256 + elements * 132);
  w.raw("{\"registered_proof\":\"");
  w.raw(info.name);
  w.raw("\",\"vanilla_proofs\":{\"");
  w.raw(vanilla_proofs_variant(info));
  w.raw("\":[");
  for (size_t k = 0; k < c1.vanilla_proofs.size(); k++) {
    if (k) w.raw(",");
    w.raw("[");
    for (size_t i = 0; i < c1.vanilla_proofs[k].size(); i++) {
      if (i) w.raw(",");
      w.proof(c1.vanilla_proofs[k][i]);
    }
    w.raw("]");
  }
  w.raw("]},\"comm_r\":");
  w.bytes(c1.comm_r.data());
  w.raw(",\"comm_d\":");
  w.bytes(c1.comm_d.data());
  w.raw(",\"replica_id\":");
  w.fr(c1.replica_id);
  w.raw(",\"seed\":");
  w.bytes(c1.seed.data());
  w.raw(",\"ticket\":");
  w.bytes(c1.ticket.data());
  w.raw("}");
  return std::move(w.out);
}

}  // namespace cuzk::filecoin

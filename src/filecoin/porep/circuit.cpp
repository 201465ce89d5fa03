#include "filecoin/porep/circuit.hpp"

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <tbb/task_group.h>

#include "filecoin/common/merkle_tree.hpp"
#include "gadgets/hashers.hpp"
#include "gadgets/label.hpp"
#include "gadgets/multipack.hpp"
#include "gadgets/poseidon.hpp"
#include "gadgets/uint32.hpp"
#include "gadgets/uint64.hpp"
#include "r1cs/shape.hpp"

namespace cuzk::filecoin {

using gadgets::AllocatedNum;
using gadgets::Boolean;
using gadgets::PorPath;
using gadgets::PorRoot;
using gadgets::PorTreeShape;
using r1cs::ConstraintSystem;
using r1cs::Namespace;

namespace {

constexpr size_t kDrgParents = 6, kExpParents = 8;

// storage-proofs-core util.rs reverse_bit_numbering: pad to whole bytes with constant zeros,
// then reverse the bits within each byte (little-endian numbering to bellperson's byte order).
std::vector<Boolean> reverse_bit_numbering(std::vector<Boolean> bits) {
  while (bits.size() % 8 != 0) bits.push_back(Boolean::constant(false));
  std::vector<Boolean> out;
  out.reserve(bits.size());
  for (size_t i = 0; i < bits.size(); i += 8) {
    for (size_t j = 8; j-- > 0;) out.push_back(bits[i + j]);
  }
  return out;
}

// stacked/circuit/hash.rs hash_single_column: Poseidon of the column (arity = layers: 2 or 11).
AllocatedNum hash_single_column_circuit(ConstraintSystem& cs, const std::vector<AllocatedNum>& rows) {
  if (rows.size() != 2 && rows.size() != 11) {
    throw std::invalid_argument("hash_single_column: columns of 2 or 11 layers only, got " +
                                std::to_string(rows.size()));
  }
  return gadgets::poseidon_hash_circuit(cs, rows, gadgets::poseidon_constants(rows.size()));
}

// stacked/circuit/params.rs enforce_inclusion: the PoR circuit with both the leaf and the root
// already allocated and the root private (one public input: the leaf index).
void enforce_inclusion(ConstraintSystem& cs, const PorTreeShape& shape, const PorPath& path, const AllocatedNum& root,
                       const AllocatedNum& leaf) {
  gadgets::por_inclusion(cs, shape, leaf, path, PorRoot::of(root), /*private_root=*/true);
}

StackedChallengeWitness::ParentColumn parent_column(const ColumnProof& p) {
  return {p.column.rows, por_path(p.inclusion_proof)};
}

}  // namespace

StackedChallengeWitness challenge_witness(const VanillaSealProof& p) {
  if (p.labeling_proofs.empty()) throw std::invalid_argument("no labeling proofs");
  StackedChallengeWitness w;
  w.challenge = p.labeling_proofs[0].node;
  w.data_leaf = p.comm_d_proofs.leaf;
  w.comm_d_path = por_path(p.comm_d_proofs);
  w.comm_r_last_path = por_path(p.comm_r_last_proof);
  w.comm_c_path = por_path(p.replica_column_proofs.c_x.inclusion_proof);
  for (const auto& col : p.replica_column_proofs.drg_parents) w.drg_parents.push_back(parent_column(col));
  for (const auto& col : p.replica_column_proofs.exp_parents) w.exp_parents.push_back(parent_column(col));
  return w;
}

struct StackedCircuit::ChallengeVars {
  AllocatedNum data_leaf;
  std::vector<std::vector<AllocatedNum>> drg, exp;  // the parents' columns
  gadgets::UInt64 challenge;
};

StackedCircuit::StackedCircuit(const SealProofInfo& info, const Fr& replica_id, const Fr& comm_d, const Fr& comm_r,
                               const Fr& comm_r_last, const Fr& comm_c, std::vector<StackedChallengeWitness> challenges)
    : info_(&info),
      replica_id_(replica_id),
      comm_d_(comm_d),
      comm_r_(comm_r),
      comm_r_last_(comm_r_last),
      comm_c_(comm_c),
      challenges_(std::move(challenges)) {
  if (challenges_.size() != info.challenges_per_partition) {
    throw std::invalid_argument(std::string(info.name) + ": a partition has " +
                                std::to_string(info.challenges_per_partition) + " challenges, got " +
                                std::to_string(challenges_.size()));
  }
  auto check_path = [&](const PorPath& p, const PorTreeShape& shape, const std::string& what) {
    const auto arities = shape.level_arities();
    if (p.siblings.size() != arities.size() || p.indices.size() != arities.size()) {
      throw std::invalid_argument(what + ": " + std::to_string(p.siblings.size()) + " levels, " +
                                  std::string(info_->name) + " needs " + std::to_string(arities.size()));
    }
    for (size_t l = 0; l < arities.size(); l++) {
      if (p.siblings[l].size() + 1 != arities[l] || p.indices[l] >= arities[l]) {
        throw std::invalid_argument(what + ": level " + std::to_string(l) + " does not fit arity " +
                                    std::to_string(arities[l]));
      }
    }
  };
  for (size_t i = 0; i < challenges_.size(); i++) {
    const auto& w = challenges_[i];
    const std::string at = "challenge " + std::to_string(i);
    check_path(w.comm_d_path, info.tree_d, at + " comm_d path");
    check_path(w.comm_r_last_path, info.tree_r, at + " comm_r_last path");
    check_path(w.comm_c_path, info.tree_r, at + " comm_c path");
    if (w.drg_parents.size() != kDrgParents || w.exp_parents.size() != kExpParents) {
      throw std::invalid_argument(at + ": 6 DRG and 8 expander parents are required");
    }
    for (const auto* group : {&w.drg_parents, &w.exp_parents}) {
      for (const auto& col : *group) {
        if (col.rows.size() != info.layers) {
          throw std::invalid_argument(at + ": a parent column has " + std::to_string(col.rows.size()) +
                                      " rows, the proof has " + std::to_string(info.layers) + " layers");
        }
        check_path(col.path, info.tree_r, at + " parent column path");
      }
    }
  }
}

StackedCircuit StackedCircuit::from_commit_phase1(const SealCommitPhase1Output& c1, size_t k) {
  const SealProofInfo& info = seal_proof_info(c1.registered_proof);
  if (k >= c1.vanilla_proofs.size()) {
    throw std::invalid_argument("partition " + std::to_string(k) + " requested of a Commit1 output with " +
                                std::to_string(c1.vanilla_proofs.size()));
  }
  const auto& proofs = c1.vanilla_proofs[k];
  if (proofs.empty()) throw std::invalid_argument("partition " + std::to_string(k) + " has no vanilla proofs");
  Fr comm_d, comm_r;
  if (!Fr::from_bytes_le(c1.comm_d.data(), comm_d) || !Fr::from_bytes_le(c1.comm_r.data(), comm_r)) {
    throw std::invalid_argument("comm_d or comm_r is not a canonical field element");
  }
  const Fr comm_r_last = proofs[0].comm_r_last_proof.root;
  const Fr comm_c = proofs[0].replica_column_proofs.c_x.inclusion_proof.root;
  std::vector<StackedChallengeWitness> ws;
  ws.reserve(proofs.size());
  for (size_t i = 0; i < proofs.size(); i++) {
    const VanillaSealProof& p = proofs[i];
    if (p.comm_r_last_proof.root != comm_r_last) {
      throw std::invalid_argument("partition " + std::to_string(k) + " challenge " + std::to_string(i) +
                                  ": comm_r_last differs from the first challenge's (inconsistent comm_r_lasts)");
    }
    if (p.replica_column_proofs.c_x.inclusion_proof.root != comm_c) {
      throw std::invalid_argument("partition " + std::to_string(k) + " challenge " + std::to_string(i) +
                                  ": comm_c differs from the first challenge's (inconsistent comm_cs)");
    }
    try {
      ws.push_back(challenge_witness(p));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("partition " + std::to_string(k) + " challenge " + std::to_string(i) + ": " +
                                  e.what());
    }
  }
  return StackedCircuit(info, c1.replica_id, comm_d, comm_r, comm_r_last, comm_c, std::move(ws));
}

StackedCircuit StackedCircuit::blank(const SealProofInfo& info) {
  StackedChallengeWitness w;
  w.data_leaf = Fr::zero();
  w.comm_d_path = blank_por_path(info.tree_d);
  w.comm_r_last_path = blank_por_path(info.tree_r);
  w.comm_c_path = blank_por_path(info.tree_r);
  const StackedChallengeWitness::ParentColumn col{std::vector<Fr>(info.layers, Fr::zero()),
                                                  blank_por_path(info.tree_r)};
  w.drg_parents.assign(kDrgParents, col);
  w.exp_parents.assign(kExpParents, col);
  std::vector<StackedChallengeWitness> ws(info.challenges_per_partition, w);
  const Fr z = Fr::zero();
  return StackedCircuit(info, z, z, z, z, z, std::move(ws));
}

void StackedCircuit::synthesize(ConstraintSystem& cs) const {
  AllocatedNum replica_id, comm_d, comm_r, comm_r_last, comm_c;
  {
    Namespace ns(cs, "replica_id");
    replica_id = AllocatedNum::alloc(cs, replica_id_);
  }
  {
    Namespace ns(cs, "replica_id_input");
    replica_id.inputize(cs);
  }
  std::vector<Boolean> replica_id_bits;
  {
    Namespace ns(cs, "replica_id_bits");
    replica_id_bits = reverse_bit_numbering(replica_id.to_bits_le(cs));
  }
  {
    Namespace ns(cs, "comm_d");
    comm_d = AllocatedNum::alloc(cs, comm_d_);
  }
  {
    Namespace ns(cs, "comm_d_input");
    comm_d.inputize(cs);
  }
  {
    Namespace ns(cs, "comm_r");
    comm_r = AllocatedNum::alloc(cs, comm_r_);
  }
  {
    Namespace ns(cs, "comm_r_input");
    comm_r.inputize(cs);
  }
  {
    Namespace ns(cs, "comm_r_last");
    comm_r_last = AllocatedNum::alloc(cs, comm_r_last_);
  }
  {
    Namespace ns(cs, "comm_c");
    comm_c = AllocatedNum::alloc(cs, comm_c_);
  }
  {
    AllocatedNum hash;
    {
      Namespace ns(cs, "H_comm_c_comm_r_last");
      const AllocatedNum pair[2] = {comm_c, comm_r_last};
      hash = gadgets::poseidon_hash_circuit(cs, pair, gadgets::poseidon_constants(2));
    }
    gadgets::enforce_equal(cs, "enforce comm_r = H(comm_c || comm_r_last)", comm_r, hash);
  }
  if (synthesize_challenges_in_sections(cs, comm_d, comm_c, comm_r_last, replica_id_bits)) return;
  for (size_t i = 0; i < challenges_.size(); i++) {
    Namespace ns(cs, "challenge_" + std::to_string(i));
    const ChallengeVars v = synthesize_head(cs, challenges_[i], comm_d, comm_c);
    std::vector<AllocatedNum> labels;
    for (size_t layer = 1; layer <= info_->layers; layer++) {
      labels.push_back(synthesize_label(cs, layer, v, replica_id_bits));
    }
    synthesize_tail(cs, challenges_[i], v, labels, comm_c, comm_r_last);
  }
}

StackedCircuit::ChallengeVars StackedCircuit::synthesize_head(ConstraintSystem& cs, const StackedChallengeWitness& w,
                                                              const AllocatedNum& comm_d,
                                                              const AllocatedNum& comm_c) const {
  const SealProofInfo& info = *info_;
  ChallengeVars v;
  // The data leaf and its inclusion in tree D.
  {
    Namespace ns(cs, "data_leaf");
    v.data_leaf = AllocatedNum::alloc(cs, w.data_leaf);
  }
  {
    Namespace ns(cs, "comm_d_inclusion");
    enforce_inclusion(cs, info.tree_d, w.comm_d_path, comm_d, v.data_leaf);
  }
  // The parents' columns, each hashed and included in tree C.
  auto alloc_columns = [&](const std::vector<StackedChallengeWitness::ParentColumn>& parents, const char* kind) {
    std::vector<std::vector<AllocatedNum>> columns;
    columns.reserve(parents.size());
    for (size_t i = 0; i < parents.size(); i++) {
      const std::string name = std::string(kind) + "_parent_" + std::to_string(i);
      std::vector<AllocatedNum> rows;
      {
        Namespace ns(cs, name + "_num");
        Namespace col(cs, "column");
        for (size_t r = 0; r < parents[i].rows.size(); r++) {
          Namespace row(cs, "column_num_row_" + std::to_string(r));
          rows.push_back(AllocatedNum::alloc(cs, parents[i].rows[r]));
        }
      }
      AllocatedNum hash;
      {
        Namespace ns(cs, name + "_constraint");
        hash = hash_single_column_circuit(cs, rows);
      }
      {
        Namespace ns(cs, name + "_inclusion");
        enforce_inclusion(cs, info.tree_r, parents[i].path, comm_c, hash);
      }
      columns.push_back(std::move(rows));
    }
    return columns;
  };
  v.drg = alloc_columns(w.drg_parents, "drg");
  v.exp = alloc_columns(w.exp_parents, "exp");
  // The challenge, public as one packed u64.
  {
    Namespace ns(cs, "challenge");
    v.challenge = gadgets::UInt64::alloc(cs, w.challenge);
  }
  {
    Namespace ns(cs, "challenge input");
    gadgets::pack_into_inputs(cs, v.challenge.bits());
  }
  return v;
}

AllocatedNum StackedCircuit::synthesize_label(ConstraintSystem& cs, size_t layer, const ChallengeVars& v,
                                              const std::vector<Boolean>& replica_id_bits) const {
  Namespace ns(cs, "labeling_" + std::to_string(layer));
  std::vector<std::vector<Boolean>> parents;
  parents.reserve(gadgets::kLabelParents);
  for (const auto& col : v.drg) {
    Namespace b(cs, "drg_parent_" + std::to_string(parents.size()) + "_bits");
    parents.push_back(reverse_bit_numbering(col[layer - 1].to_bits_le(cs)));
  }
  // Expander parents from layer 2 on, with the previous layer's labels.
  if (layer > 1) {
    for (const auto& col : v.exp) {
      Namespace b(cs, "exp_parent_" + std::to_string(parents.size()) + "_bits");
      parents.push_back(reverse_bit_numbering(col[layer - 2].to_bits_le(cs)));
    }
  }
  // Repeated to 37 as the labeling hashes them: 14 + 14 + 9, or 6 x 6 + 1 in layer 1.
  const size_t distinct = parents.size();
  while (parents.size() + distinct <= gadgets::kLabelParents) {
    for (size_t i = 0; i < distinct; i++) parents.push_back(parents[i]);
  }
  for (size_t i = 0; parents.size() < gadgets::kLabelParents; i++) parents.push_back(parents[i]);
  Namespace cl(cs, "create_label");
  return gadgets::create_label_circuit(cs, replica_id_bits, parents, gadgets::UInt32::constant(uint32_t(layer)),
                                       v.challenge);
}

void StackedCircuit::synthesize_tail(ConstraintSystem& cs, const StackedChallengeWitness& w, const ChallengeVars& v,
                                     const std::vector<AllocatedNum>& labels, const AllocatedNum& comm_c,
                                     const AllocatedNum& comm_r_last) const {
  const SealProofInfo& info = *info_;
  // The encoding (last label + data leaf) included in tree R.
  {
    AllocatedNum encoded;
    {
      Namespace ns(cs, "encode_node");
      encoded = gadgets::encode(cs, labels.back(), v.data_leaf);
    }
    Namespace ns(cs, "comm_r_last_data_inclusion");
    enforce_inclusion(cs, info.tree_r, w.comm_r_last_path, comm_r_last, encoded);
  }
  // The challenged column's hash included in tree C.
  AllocatedNum column_hash;
  {
    Namespace ns(cs, "c_x_column_hash");
    column_hash = hash_single_column_circuit(cs, labels);
  }
  Namespace ns(cs, "c_x_inclusion");
  enforce_inclusion(cs, info.tree_r, w.comm_c_path, comm_c, column_hash);
}

const StackedCircuit::PartShapes& StackedCircuit::part_shapes(const SealProofInfo& info) {
  // Keyed by what decides the shape; counted once per process on a blank circuit.
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<PartShapes>> cache;
  const std::string key = std::to_string(info.layers) + "/" + info.tree_r.name() + "/" + info.tree_d.name();
  std::lock_guard lock(mutex);
  auto& slot = cache[key];
  if (slot) return *slot;
  SealProofInfo one = info;
  one.challenges_per_partition = 1;
  const StackedCircuit blank_one = blank(one);
  r1cs::ShapeCounter cs;
  const Fr z = Fr::zero();
  const AllocatedNum comm_d = AllocatedNum::alloc(cs, z), comm_c = AllocatedNum::alloc(cs, z),
                     comm_r_last = AllocatedNum::alloc(cs, z);
  const auto replica_id_bits = reverse_bit_numbering(AllocatedNum::alloc(cs, z).to_bits_le(cs));
  auto measure = [&](auto&& part) {
    const size_t c0 = cs.num_constraints(), a0 = cs.num_aux(), i0 = cs.num_inputs();
    part();
    return r1cs::SectionShape{cs.num_constraints() - c0, cs.num_aux() - a0, cs.num_inputs() - i0};
  };
  auto shapes = std::make_unique<PartShapes>();
  const auto& w = blank_one.challenges_[0];
  ChallengeVars v;
  shapes->head = measure([&] { v = blank_one.synthesize_head(cs, w, comm_d, comm_c); });
  std::vector<AllocatedNum> labels;
  for (size_t layer = 1; layer <= info.layers; layer++) {
    shapes->labels.push_back(
        measure([&] { labels.push_back(blank_one.synthesize_label(cs, layer, v, replica_id_bits)); }));
  }
  shapes->tail = measure([&] { blank_one.synthesize_tail(cs, w, v, labels, comm_c, comm_r_last); });
  slot = std::move(shapes);
  return *slot;
}

bool StackedCircuit::synthesize_challenges_in_sections(ConstraintSystem& cs, const AllocatedNum& comm_d,
                                                       const AllocatedNum& comm_c, const AllocatedNum& comm_r_last,
                                                       const std::vector<Boolean>& replica_id_bits) const {
  const size_t n = challenges_.size(), layers = info_->layers, per = layers + 2;
  if (!cs.takes_sections()) return false;
  const PartShapes& ps = part_shapes(*info_);
  std::vector<r1cs::SectionShape> shapes;
  shapes.reserve(n * per);
  for (size_t i = 0; i < n; i++) {
    shapes.push_back(ps.head);
    shapes.insert(shapes.end(), ps.labels.begin(), ps.labels.end());
    shapes.push_back(ps.tail);
  }
  auto sections = cs.open_sections(shapes);
  if (sections.empty()) return false;
  // A challenge's labels start when its head is closed, its tail when its last label is.
  std::vector<ChallengeVars> vars(n);
  std::vector<std::vector<AllocatedNum>> labels(n, std::vector<AllocatedNum>(layers));
  std::unique_ptr<std::atomic<size_t>[]> labels_left(new std::atomic<size_t>[n]);
  for (size_t i = 0; i < n; i++) labels_left[i] = layers;
  tbb::task_group tasks;
  for (size_t i = 0; i < n; i++) {
    tasks.run([&, i] {
      r1cs::SectionSystem& head = *sections[i * per];
      vars[i] = synthesize_head(head, challenges_[i], comm_d, comm_c);
      head.close();
      for (size_t l = 0; l < layers; l++) {
        tasks.run([&, i, l] {
          r1cs::SectionSystem& s = *sections[i * per + 1 + l];
          labels[i][l] = synthesize_label(s, l + 1, vars[i], replica_id_bits);
          s.close();
          if (labels_left[i].fetch_sub(1) != 1) return;
          r1cs::SectionSystem& tail = *sections[i * per + per - 1];
          synthesize_tail(tail, challenges_[i], vars[i], labels[i], comm_c, comm_r_last);
          tail.close();
        });
      }
    });
  }
  tasks.wait();
  return true;
}

}  // namespace cuzk::filecoin

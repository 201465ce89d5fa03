#include "filecoin/post/circuit.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <tbb/parallel_for.h>

#include "filecoin/common/merkle_tree.hpp"
#include "gadgets/num.hpp"
#include "gadgets/poseidon.hpp"
#include "r1cs/shape.hpp"

namespace cuzk::filecoin {

using gadgets::AllocatedNum;
using gadgets::PorPath;
using r1cs::ConstraintSystem;
using r1cs::Namespace;

FallbackPoStSectorWitness FallbackPoStSectorWitness::from_vanilla(const Fr& comm_r, const PoStSectorProof& proof) {
  FallbackPoStSectorWitness w;
  w.comm_r = comm_r;
  w.comm_c = proof.comm_c;
  w.comm_r_last = proof.comm_r_last;
  for (const MerkleProof& p : proof.inclusion_proofs) {
    w.leafs.push_back(p.leaf);
    w.paths.push_back(por_path(p));
  }
  return w;
}

FallbackPoStSectorWitness FallbackPoStSectorWitness::blank(const FallbackPoStParams& params) {
  FallbackPoStSectorWitness w;
  w.comm_r = w.comm_c = w.comm_r_last = Fr::zero();
  w.leafs.assign(params.challenge_count, Fr::zero());
  w.paths.assign(params.challenge_count, blank_por_path(params.tree_r));
  return w;
}

std::vector<FallbackPoStSectorWitness> sector_witnesses(const PoStProofInfo& proof,
                                                        const FallbackPoStSectorProof& vanilla) {
  const FallbackPoStParams& p = proof.params;
  std::vector<FallbackPoStSectorWitness> out;
  if (proof.type == PoStType::kWindow) {
    for (const PoStSectorProof& sp : vanilla.sectors) {
      if (sp.inclusion_proofs.size() != p.challenge_count) {
        throw std::invalid_argument(std::string(proof.name) + ": a sector proof has " +
                                    std::to_string(sp.inclusion_proofs.size()) + " inclusion proofs, " +
                                    std::to_string(p.challenge_count) + " required");
      }
      out.push_back(FallbackPoStSectorWitness::from_vanilla(vanilla.comm_r, sp));
    }
    return out;
  }
  // WinningPoSt: one SectorProof whose openings become sectors of challenge_count each.
  if (vanilla.sectors.size() != 1 || vanilla.sectors[0].inclusion_proofs.size() != p.sector_count * p.challenge_count) {
    throw std::invalid_argument(std::string(proof.name) + ": one sector proof of " +
                                std::to_string(p.sector_count * p.challenge_count) + " inclusion proofs required");
  }
  const PoStSectorProof& sp = vanilla.sectors[0];
  for (size_t s = 0; s < p.sector_count; s++) {
    PoStSectorProof one{{}, sp.comm_c, sp.comm_r_last};
    one.inclusion_proofs.assign(sp.inclusion_proofs.begin() + s * p.challenge_count,
                                sp.inclusion_proofs.begin() + (s + 1) * p.challenge_count);
    out.push_back(FallbackPoStSectorWitness::from_vanilla(vanilla.comm_r, one));
  }
  return out;
}

FallbackPoStCircuit::FallbackPoStCircuit(FallbackPoStParams params, std::vector<FallbackPoStSectorWitness> sectors)
    : params_(std::move(params)), sectors_(std::move(sectors)) {
  params_.validate();
  if (sectors_.size() != params_.sector_count) {
    throw std::invalid_argument("FallbackPoSt circuit: a partition has " + std::to_string(params_.sector_count) +
                                " sectors, got " + std::to_string(sectors_.size()));
  }
  const auto arities = params_.tree_r.level_arities();
  for (size_t s = 0; s < sectors_.size(); s++) {
    const auto& w = sectors_[s];
    const std::string at = "FallbackPoSt circuit: sector " + std::to_string(s);
    if (w.leafs.size() != params_.challenge_count || w.paths.size() != params_.challenge_count) {
      throw std::invalid_argument(at + " has " + std::to_string(w.leafs.size()) + " leaves and " +
                                  std::to_string(w.paths.size()) + " paths, " +
                                  std::to_string(params_.challenge_count) + " challenges required");
    }
    for (size_t c = 0; c < w.paths.size(); c++) {
      const PorPath& p = w.paths[c];
      if (p.siblings.size() != arities.size() || p.indices.size() != arities.size()) {
        throw std::invalid_argument(at + " challenge " + std::to_string(c) + ": the path has " +
                                    std::to_string(p.siblings.size()) + " levels, tree R " + params_.tree_r.name() +
                                    " has " + std::to_string(arities.size()));
      }
      for (size_t l = 0; l < arities.size(); l++) {
        if (p.siblings[l].size() + 1 != arities[l] || p.indices[l] >= arities[l]) {
          throw std::invalid_argument(at + " challenge " + std::to_string(c) + ": path level " + std::to_string(l) +
                                      " does not fit arity " + std::to_string(arities[l]));
        }
      }
    }
  }
}

FallbackPoStCircuit FallbackPoStCircuit::partition(const FallbackPoStParams& params,
                                                   std::span<const FallbackPoStSectorWitness> sectors, size_t k) {
  if (params.sector_count == 0) throw std::invalid_argument("FallbackPoSt circuit: sector_count is 0");
  const size_t first = k * params.sector_count;
  if (first >= sectors.size()) {
    throw std::invalid_argument("FallbackPoSt circuit: partition " + std::to_string(k) + " of " +
                                std::to_string(sectors.size()) + " sectors at " + std::to_string(params.sector_count) +
                                " per partition has no sector");
  }
  const size_t n = std::min(params.sector_count, sectors.size() - first);
  std::vector<FallbackPoStSectorWitness> chunk(sectors.begin() + first, sectors.begin() + first + n);
  while (chunk.size() < params.sector_count) chunk.push_back(chunk.back());
  return FallbackPoStCircuit(params, std::move(chunk));
}

FallbackPoStCircuit FallbackPoStCircuit::blank(const FallbackPoStParams& params) {
  params.validate();
  return FallbackPoStCircuit(
      params, std::vector<FallbackPoStSectorWitness>(params.sector_count, FallbackPoStSectorWitness::blank(params)));
}

void FallbackPoStCircuit::synthesize_sector(ConstraintSystem& cs, const FallbackPoStParams& params,
                                            const FallbackPoStSectorWitness& w) {
  AllocatedNum comm_r_last, comm_c, comm_r;
  {
    Namespace ns(cs, "comm_r_last");
    comm_r_last = AllocatedNum::alloc(cs, w.comm_r_last);
  }
  {
    Namespace ns(cs, "comm_c");
    comm_c = AllocatedNum::alloc(cs, w.comm_c);
  }
  {
    Namespace ns(cs, "comm_r");
    comm_r = AllocatedNum::alloc(cs, w.comm_r);
  }
  {
    Namespace ns(cs, "comm_r_input");
    comm_r.inputize(cs);
  }
  {
    AllocatedNum hash;
    {
      Namespace ns(cs, "H_comm_c_comm_r_last");
      const AllocatedNum pair[2] = {comm_c, comm_r_last};
      hash = gadgets::poseidon_hash_circuit(cs, pair, gadgets::poseidon_constants(2));
    }
    gadgets::enforce_equal(cs, "enforce_comm_c_comm_r_last_hash_comm_r", comm_r, hash);
  }
  // PoRCircuit with the leaf a value (allocated as "value") and the root comm_r_last, private.
  for (size_t i = 0; i < w.leafs.size(); i++) {
    Namespace ns(cs, "challenge_inclusion_" + std::to_string(i));
    AllocatedNum leaf;
    {
      Namespace v(cs, "value");
      leaf = AllocatedNum::alloc(cs, w.leafs[i]);
    }
    gadgets::por_inclusion(cs, params.tree_r, leaf, w.paths[i], gadgets::PorRoot::of(comm_r_last),
                           /*private_root=*/true);
  }
}

void FallbackPoStCircuit::synthesize(ConstraintSystem& cs) const {
  Namespace outer(cs, "outer namespace");
  if (synthesize_sectors_in_sections(cs)) return;
  for (size_t i = 0; i < sectors_.size(); i++) {
    Namespace ns(cs, "sector_" + std::to_string(i));
    synthesize_sector(cs, params_, sectors_[i]);
  }
}

bool FallbackPoStCircuit::synthesize_sectors_in_sections(ConstraintSystem& cs) const {
  // One sector gains nothing from sections.
  if (!cs.takes_sections() || sectors_.size() < 2) return false;
  // Every sector has the shape of a blank one.
  r1cs::ShapeCounter counter;
  synthesize_sector(counter, params_, FallbackPoStSectorWitness::blank(params_));
  const r1cs::SectionShape shape{counter.num_constraints(), counter.num_aux(), counter.num_inputs() - 1};
  const std::vector<r1cs::SectionShape> shapes(sectors_.size(), shape);
  auto sections = cs.open_sections(shapes);
  if (sections.empty()) return false;
  tbb::parallel_for(size_t(0), sectors_.size(), [&](size_t i) {
    r1cs::SectionSystem& s = *sections[i];
    synthesize_sector(s, params_, sectors_[i]);
    s.close();
  });
  return true;
}

}  // namespace cuzk::filecoin

#include "filecoin/snap/vanilla_proof.hpp"

#include <algorithm>

#include "filecoin/common/bincode.hpp"
#include "filecoin/common/merkle_tree.hpp"
#include "filecoin/snap/challenges.hpp"
#include "gadgets/hashers.hpp"

namespace cuzk::filecoin {

EmptySectorUpdatePartitionProof read_empty_sector_update_partition_proof(std::span<const uint8_t> bincode,
                                                                         const EmptySectorUpdateParams& params) {
  BincodeReader r(bincode, params.poseidon ? "EmptySectorUpdate-Poseidon PartitionProof" : "PartitionProof",
                  [](const std::string& m) { throw UpdateVanillaProofFormatError(m); });
  const std::string tree_d = params.poseidon ? "tree D (Poseidon)" : "tree D";
  EmptySectorUpdatePartitionProof out;
  out.comm_c = r.domain("comm_c");
  if (!params.poseidon) {
    r.length("apex_leafs", params.apex_leaf_count, "the apex leaf count");
    for (size_t i = 0; i < params.apex_leaf_count; i++) {
      out.apex_leafs.push_back(r.domain("apex_leafs[" + std::to_string(i) + "]"));
    }
  }
  r.length("challenge_proofs", params.challenge_count, "the challenge count");
  for (size_t i = 0; i < params.challenge_count; i++) {
    const std::string at = "challenge_proofs[" + std::to_string(i) + "]";
    UpdateChallengeProof c;
    c.proof_r_old = read_bincode_merkle_proof(r, at + ".proof_r_old", params.tree_r);
    c.proof_d_new = read_bincode_merkle_proof(r, at + ".proof_d_new", params.tree_d, tree_d);
    c.proof_r_new = read_bincode_merkle_proof(r, at + ".proof_r_new", params.tree_r);
    if (i > 0) {
      const UpdateChallengeProof& first = out.challenge_proofs[0];
      if (c.proof_r_old.root != first.proof_r_old.root) {
        r.fail(at + ".proof_r_old.root", "differs from challenge_proofs[0]'s");
      }
      if (c.proof_d_new.root != first.proof_d_new.root) {
        r.fail(at + ".proof_d_new.root", "differs from challenge_proofs[0]'s");
      }
      if (c.proof_r_new.root != first.proof_r_new.root) {
        r.fail(at + ".proof_r_new.root", "differs from challenge_proofs[0]'s");
      }
    }
    out.challenge_proofs.push_back(std::move(c));
  }
  if (r.left() != 0) r.fail("end", std::to_string(r.left()) + " bytes after the proof");
  return out;
}

std::vector<uint8_t> write_empty_sector_update_partition_proof(const EmptySectorUpdatePartitionProof& proof,
                                                               const EmptySectorUpdateParams& params) {
  BincodeWriter w;
  w.domain(proof.comm_c);
  if (!params.poseidon) {
    w.u64(proof.apex_leafs.size());
    for (const Fr& x : proof.apex_leafs) w.domain(x);
  } else if (!proof.apex_leafs.empty()) {
    throw std::invalid_argument("EmptySectorUpdate-Poseidon PartitionProof has no apex leaves");
  }
  w.u64(proof.challenge_proofs.size());
  for (const UpdateChallengeProof& c : proof.challenge_proofs) {
    w.merkle_proof(c.proof_r_old);
    w.merkle_proof(c.proof_d_new);
    w.merkle_proof(c.proof_r_new);
  }
  return std::move(w.out);
}

std::string verify_empty_sector_update_partition(const EmptySectorUpdateParams& params,
                                                 const EmptySectorUpdatePublicInputs& in,
                                                 const EmptySectorUpdatePartitionProof& proof) {
  if (in.k >= params.partition_count) return "partition index exceeds the partition count";
  if (!params.h_allowed(in.h)) return "h not allowed for the sector size";
  if (proof.apex_leafs.size() != params.apex_leaf_count) return "wrong number of apex leaves";
  if (proof.challenge_proofs.size() != params.challenge_count) return "wrong number of challenge proofs";

  // The apex tree, leaves first (binary SHA-256, as tree D).
  std::vector<std::vector<Fr>> apex{proof.apex_leafs};
  for (size_t row = 0; row < params.apex_leaf_bit_len; row++) {
    std::vector<Fr> next;
    for (size_t i = 0; i + 1 < apex.back().size(); i += 2) {
      const Fr pair[2] = {apex.back()[i], apex.back()[i + 1]};
      next.push_back(gadgets::sha256_node_hash(pair));
    }
    apex.push_back(std::move(next));
  }
  const size_t apex_leafs_height = params.challenge_bit_len - params.partition_bit_len - params.apex_leaf_bit_len;

  const Fr root_r_old = proof.challenge_proofs[0].proof_r_old.root;
  const Fr root_r_new = proof.challenge_proofs[0].proof_r_new.root;
  if (gadgets::poseidon_node_hash(std::vector<Fr>{proof.comm_c, root_r_old}) != in.comm_r_old) {
    return "comm_r_old != H(comm_c, root_r_old)";
  }
  if (gadgets::poseidon_node_hash(std::vector<Fr>{proof.comm_c, root_r_new}) != in.comm_r_new) {
    return "comm_r_new != H(comm_c, root_r_new)";
  }
  const Fr phi = empty_sector_update_phi(in.comm_d_new, in.comm_r_old);
  const auto challenges = empty_sector_update_challenges(params, in.comm_r_new, in.k);
  for (size_t i = 0; i < challenges.size(); i++) {
    const uint32_t c = challenges[i];
    const UpdateChallengeProof& p = proof.challenge_proofs[i];
    const std::string at = "challenge " + std::to_string(i) + " (node " + std::to_string(c) + "): ";
    if (!merkle_proof_valid(params.tree_r, p.proof_r_old, c) || p.proof_r_old.root != root_r_old) {
      return at + "invalid tree R old opening";
    }
    if (!merkle_proof_valid(params.tree_d, p.proof_d_new, c) || p.proof_d_new.root != in.comm_d_new) {
      return at + "invalid tree D new opening";
    }
    if (!merkle_proof_valid(params.tree_r, p.proof_r_new, c) || p.proof_r_new.root != root_r_new) {
      return at + "invalid tree R new opening";
    }
    const Fr rho = empty_sector_update_rho(phi, empty_sector_update_high(params, in.h, c));
    if (p.proof_r_old.leaf + p.proof_d_new.leaf * rho != p.proof_r_new.leaf) {
      return at + "label_r_new != label_r_old + label_d_new * rho";
    }
    if (!params.poseidon) {
      // Each apex-path sibling is a node of the apex tree's row (vanilla.rs checks membership).
      for (size_t row = 0; row < params.apex_leaf_bit_len; row++) {
        const Fr& sibling = p.proof_d_new.base.at(apex_leafs_height + row).hashes.at(0);
        if (std::find(apex[row].begin(), apex[row].end(), sibling) == apex[row].end()) {
          return at + "apex path inconsistent with the apex leaves";
        }
      }
    }
  }
  return "";
}

EmptySectorUpdatePublicInputs SectorUpdateProofs::public_inputs(size_t k) const {
  EmptySectorUpdatePublicInputs in;
  in.k = k;
  in.h = h;
  in.comm_r_old = comm_r_old;
  in.comm_d_new = comm_d_new;
  in.comm_r_new = comm_r_new;
  return in;
}

std::vector<std::vector<uint8_t>> SectorUpdateProofs::partition_bincode() const {
  std::vector<std::vector<uint8_t>> out;
  out.reserve(partitions.size());
  for (const auto& p : partitions) out.push_back(write_empty_sector_update_partition_proof(p, params));
  return out;
}

}  // namespace cuzk::filecoin

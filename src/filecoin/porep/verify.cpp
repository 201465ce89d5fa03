#include "filecoin/porep/verify.hpp"

#include <stdexcept>
#include <string>

#include "filecoin/porep/challenges.hpp"
#include "filecoin/porep/graph.hpp"
#include "filecoin/porep/public_inputs.hpp"
#include "groth16/verifier.hpp"

namespace cuzk::filecoin {

std::vector<std::vector<ff::Fr>> seal_public_inputs(const SealProofInfo& proof, const SealVerifyInputs& in) {
  const Bytes32 rid = replica_id(in.prover_id, in.sector_id, in.ticket, in.comm_d, proof.porep_id());
  const StackedBucketGraph graph(proof);
  std::vector<std::vector<ff::Fr>> out;
  for (size_t k = 0; k < proof.partitions; k++) {
    out.push_back(porep_public_inputs(proof, graph, rid, in.comm_d, in.comm_r, in.seed, k));
  }
  return out;
}

bool verify_seal(const groth16::PreparedVerifyingKey& vk, const SealProofInfo& proof, const SealVerifyInputs& in,
                 std::span<const uint8_t> proof_bytes) {
  if (proof.feature == SealFeature::kNonInteractive) {
    throw std::invalid_argument(std::string(proof.name) +
                                ": non-interactive seal proofs are SnarkPack aggregates, which cuzk does not verify");
  }
  if (proof_bytes.size() != proof.partitions * groth16::kProofBytes) {
    throw std::invalid_argument(std::string(proof.name) + " proofs are " + std::to_string(proof.partitions) + " x " +
                                std::to_string(groth16::kProofBytes) + " bytes, got " +
                                std::to_string(proof_bytes.size()));
  }
  const auto proofs = groth16::decode_proofs(proof_bytes);
  const auto inputs = seal_public_inputs(proof, in);
  return groth16::verify_proofs_batch(vk, proofs, inputs);
}

}  // namespace cuzk::filecoin

#include "filecoin/porep/public_inputs.hpp"

#include <array>
#include <stdexcept>
#include <string>

#include "filecoin/porep/challenges.hpp"

namespace cuzk::filecoin {

using ff::Fr;

Fr commitment_to_fr(const Bytes32& bytes, const char* what) {
  Fr x;
  if (!Fr::from_bytes_le(bytes.data(), x)) {
    throw std::invalid_argument(std::string(what) + " is not a canonical field element (a 32-byte little-endian " +
                                "integer below the BLS12-381 scalar modulus)");
  }
  return x;
}

std::vector<Fr> porep_public_inputs(const StackedBucketGraph& graph, const Fr& replica_id, const Fr& comm_d,
                                    const Fr& comm_r, std::span<const uint64_t> challenges) {
  std::vector<Fr> in;
  in.reserve(3 + kPoRepInputsPerChallenge * challenges.size());
  in.push_back(replica_id);
  in.push_back(comm_d);
  in.push_back(comm_r);
  std::array<uint32_t, kBaseDegree> drg;
  std::array<uint32_t, kExpDegree> exp;
  for (uint64_t c : challenges) {
    const Fr challenge = Fr::from_u64(c);
    in.push_back(challenge);  // tree D leaf index
    graph.drg_parents(c, drg);
    for (uint32_t p : drg) in.push_back(Fr::from_u64(p));
    graph.expander_parents(c, exp);
    for (uint32_t p : exp) in.push_back(Fr::from_u64(p));
    in.push_back(challenge);  // the challenge (UInt64::pack_into_input)
    in.push_back(challenge);  // tree R leaf index
    in.push_back(challenge);  // tree C leaf index of the challenged column
  }
  return in;
}

std::vector<Fr> porep_public_inputs(const SealProofInfo& proof, const StackedBucketGraph& graph,
                                    const Bytes32& replica_id, const Bytes32& comm_d, const Bytes32& comm_r,
                                    const Bytes32& seed, size_t k) {
  const Fr rid = commitment_to_fr(replica_id, "replica_id");
  const Fr cd = commitment_to_fr(comm_d, "comm_d");
  const Fr cr = commitment_to_fr(comm_r, "comm_r");
  if (cd.is_zero()) throw std::invalid_argument("comm_d is zero (refused, as filecoin-proofs' verify_seal does)");
  if (cr.is_zero()) throw std::invalid_argument("comm_r is zero (refused, as filecoin-proofs' verify_seal does)");
  const auto challenges = seal_challenges(proof, replica_id, comm_r, seed, k);
  return porep_public_inputs(graph, rid, cd, cr, challenges);
}

}  // namespace cuzk::filecoin

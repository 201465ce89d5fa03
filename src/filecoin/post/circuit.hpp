// The FallbackPoSt circuit of one partition, shared by WinningPoSt and WindowPoSt
// (storage-proofs-post fallback/circuit.rs FallbackPoStCircuit, Sector::synthesize), variable for
// variable and constraint for constraint as rust-fil-proofs allocates and enforces them, so that
// Filecoin's published parameters fit it. For each of sector_count sectors:
//
//   comm_r_last, comm_c, comm_r (aux; comm_r made public), comm_r = Poseidon(comm_c, comm_r_last);
//   then per challenge the challenged leaf (aux) and its inclusion in tree R under the private
//   root comm_r_last (the path's index bits packed into one public input: the leaf index).
//
// Public inputs (after ONE): per sector comm_r then challenge_count leaf indexes
// (post/public_inputs.hpp). A partition with fewer sectors repeats its last sector.
#pragma once

#include <span>
#include <vector>

#include "filecoin/post/registered_proofs.hpp"
#include "filecoin/post/vanilla_proof.hpp"
#include "gadgets/por.hpp"
#include "r1cs/constraint_system.hpp"

namespace cuzk::filecoin {

// What the circuit takes of one sector (fallback/circuit.rs Sector).
struct FallbackPoStSectorWitness {
  Fr comm_r, comm_c, comm_r_last;
  std::vector<Fr> leafs;                // one per challenge
  std::vector<gadgets::PorPath> paths;  // their tree R paths, base level first

  // Sector::circuit: comm_c and comm_r_last from the vanilla proof, the leaves and paths of its
  // inclusion proofs; comm_r is the public sector's.
  static FallbackPoStSectorWitness from_vanilla(const Fr& comm_r, const PoStSectorProof& proof);
  // Sector::blank_circuit: zeros, every path index 0.
  static FallbackPoStSectorWitness blank(const FallbackPoStParams& params);
};

// The circuit's sectors from one sector's vanilla proof (filecoin-proofs post_util.rs
// single_partition_vanilla_proofs): for WindowPoSt one per SectorProof; for WinningPoSt one per
// inclusion proof of its single SectorProof (66 sectors of one challenge, all with the sector's
// comm_r, comm_c and comm_r_last). Throws std::invalid_argument when the counts do not fit.
std::vector<FallbackPoStSectorWitness> sector_witnesses(const PoStProofInfo& proof,
                                                        const FallbackPoStSectorProof& vanilla);

class FallbackPoStCircuit final : public r1cs::Circuit {
 public:
  // Exactly params.sector_count sectors of params.challenge_count challenges each, with paths of
  // tree R's shape; throws std::invalid_argument naming the sector and challenge otherwise.
  FallbackPoStCircuit(FallbackPoStParams params, std::vector<FallbackPoStSectorWitness> sectors);

  // Partition k of all the proof's sectors (in the verifier's order): sectors k * sector_count
  // onwards, the last one repeated when fewer remain (FallbackPoStCompound::circuit with the
  // vanilla proofs padded as prove_all_partitions pads them). Throws std::invalid_argument when
  // partition k is empty.
  static FallbackPoStCircuit partition(const FallbackPoStParams& params,
                                       std::span<const FallbackPoStSectorWitness> sectors, size_t k);
  // FallbackPoStCompound::blank_circuit: the shape of the circuit for params.
  static FallbackPoStCircuit blank(const FallbackPoStParams& params);

  void synthesize(r1cs::ConstraintSystem& cs) const override;
  // One sector (Sector::synthesize), in the caller's namespace.
  static void synthesize_sector(r1cs::ConstraintSystem& cs, const FallbackPoStParams& params,
                                const FallbackPoStSectorWitness& sector);

  const FallbackPoStParams& params() const { return params_; }
  const std::vector<FallbackPoStSectorWitness>& sectors() const { return sectors_; }

 private:
  // The sectors in parallel sections of cs; false when cs takes no sections.
  bool synthesize_sectors_in_sections(r1cs::ConstraintSystem& cs) const;

  FallbackPoStParams params_;
  std::vector<FallbackPoStSectorWitness> sectors_;
};

}  // namespace cuzk::filecoin

// PoRep challenge derivation and replica_id, bit-exact with rust-fil-proofs:
// storage-proofs-porep/src/stacked/vanilla/challenges.rs (InteractiveChallenges, SynthChallenges /
// SynthChallengeGenerator, NiChallenges) and stacked/vanilla/params.rs (generate_replica_id,
// PublicInputs::challenges, which picks the derivation by the proof's feature). Challenges are
// node indexes in [1, nodes): every derivation reduces 32 bytes, read as a little-endian integer,
// modulo nodes - 1 and adds 1, so node 0 is never challenged.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "filecoin/common/chacha.hpp"
#include "filecoin/porep/registered_proofs.hpp"

namespace cuzk::filecoin {

// A miner's prover_id: the payload of its ID address, the actor id as unsigned LEB128,
// zero-padded to 32 bytes (filecoin-ffi toProverID). 1000 -> e8 07 00 ...
Bytes32 prover_id_from_actor_id(uint64_t actor_id);

// params.rs generate_replica_id: SHA-256(prover_id || sector_id as u64 big-endian || ticket ||
// comm_d || porep_id) with the top two bits of byte 31 cleared (bytes_into_fr_repr_safe).
Bytes32 replica_id(const Bytes32& prover_id, uint64_t sector_id, const Bytes32& ticket, const Bytes32& comm_d,
                   const Bytes32& porep_id);

// challenges.rs bigint_to_challenge: (LE-int(bytes) mod (nodes - 1)) + 1.
uint64_t challenge_from_bytes(std::span<const uint8_t, 32> bytes, uint64_t nodes);

// In every derivation `nodes` must be in 2 .. 2^32-1 (std::invalid_argument otherwise), and k is
// the partition index as params.rs passes it, `k as u8`.

// InteractiveChallenges::derive (V1, V1_1): for i < n, j = n * k + i as u32,
// challenge = SHA-256(replica_id || seed || j as u32 LE) reduced.
std::vector<uint64_t> interactive_challenges(uint64_t nodes, const Bytes32& replica_id, const Bytes32& seed, uint8_t k,
                                             size_t n);

// NiChallenges::derive (V1_2 NonInteractivePoRep): as interactive, with
// SHA-256("filecoin.io|PoRep|1|NonInteractive|1" || replica_id || comm_r || j as u32 LE); no seed.
std::vector<uint64_t> non_interactive_challenges(uint64_t nodes, const Bytes32& replica_id, const Bytes32& comm_r,
                                                 uint8_t k, size_t n);

// synthetic::SynthChallengeGenerator (V1_1 SyntheticPoRep). Synthetic challenge i is keystream
// bytes [32i, 32i + 32) of ChaCha20 (nonce "synth-porep\0") keyed by BLAKE2b-256 with key
// "filecoin.io|PoRep|1|Synthetic|1|Generation" over replica_id || comm_r, reduced. The PoRep
// challenges of partition k are the synthetic challenges at the indexes given by keystream bytes
// [4nk, 4n(k+1)) of ChaCha20 keyed by BLAKE2b-256 with key "filecoin.io|PoRep|1|Synthetic|1|Selection"
// over replica_id || seed, each a u32 LE modulo the number of synthetic challenges.
// replica_id and comm_r must be canonical Fr encodings (Rust converts them to Fr and panics
// otherwise); std::invalid_argument if not.
class SyntheticChallengeGenerator {
 public:
  static constexpr uint64_t kDefaultCount = uint64_t(1) << 18;  // DEFAULT_SYNTH_CHALLENGE_COUNT
  static uint64_t default_count(uint64_t nodes) { return nodes < kDefaultCount ? nodes : kDefaultCount; }

  // SynthChallengeGenerator::default: default_count(nodes) synthetic challenges.
  SyntheticChallengeGenerator(uint64_t nodes, const Bytes32& replica_id, const Bytes32& comm_r);
  // SynthChallengeGenerator::new with an explicit count (< 2^32; Rust's tests use small ones).
  SyntheticChallengeGenerator(uint64_t nodes, const Bytes32& replica_id, const Bytes32& comm_r, uint64_t count);

  uint64_t count() const { return count_; }
  // gen_synth_challenge(i); std::out_of_range for i >= count().
  uint64_t challenge(uint64_t i) const;
  // The whole set, in index order (the generator as an iterator; derive_synthetic).
  std::vector<uint64_t> all() const;
  // gen_partition_synth_indexes(n, seed, k).
  std::vector<uint64_t> partition_indexes(size_t n, const Bytes32& seed, size_t k) const;
  // gen_porep_partition_challenges(n, seed, k): challenge(i) for each of partition_indexes.
  std::vector<uint64_t> partition_challenges(size_t n, const Bytes32& seed, size_t k) const;

 private:
  uint64_t nodes_;
  uint64_t count_;
  Bytes32 replica_id_;
  Bytes32 generation_key_;
};

// SynthChallenges::derive, ::derive_indexes and ::derive_synthetic.
std::vector<uint64_t> synthetic_challenges(uint64_t nodes, const Bytes32& replica_id, const Bytes32& comm_r,
                                           const Bytes32& seed, uint8_t k, size_t n);
std::vector<uint64_t> synthetic_challenge_indexes(uint64_t nodes, const Bytes32& replica_id, const Bytes32& comm_r,
                                                  const Bytes32& seed, uint8_t k, size_t n);
std::vector<uint64_t> synthetic_challenge_set(uint64_t nodes, const Bytes32& replica_id, const Bytes32& comm_r);

// params.rs PublicInputs::challenges with a seed, for partition k of `proof`: interactive for V1 and
// V1_1, synthetic for the SyntheticPoRep proofs, non-interactive (seed unused) for the
// NonInteractivePoRep proofs; proof.challenges_per_partition challenges. Throws
// std::out_of_range for k >= proof.partitions.
std::vector<uint64_t> seal_challenges(const SealProofInfo& proof, const Bytes32& replica_id, const Bytes32& comm_r,
                                      const Bytes32& seed, size_t k);

}  // namespace cuzk::filecoin

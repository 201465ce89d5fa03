#include "filecoin/porep/challenges.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <string_view>

#include "ff/fr.hpp"
#include "filecoin/common/blake2b.hpp"
#include "gadgets/sha256.hpp"

namespace cuzk::filecoin {
namespace {

constexpr std::array<uint8_t, 12> kSynthNonce = {'s', 'y', 'n', 't', 'h', '-', 'p', 'o', 'r', 'e', 'p', 0};
constexpr std::string_view kSynthGenerationKey = "filecoin.io|PoRep|1|Synthetic|1|Generation";
constexpr std::string_view kSynthSelectionKey = "filecoin.io|PoRep|1|Synthetic|1|Selection";
constexpr std::string_view kNiTag = "filecoin.io|PoRep|1|NonInteractive|1";
constexpr size_t kSynthChallengeSize = 32;  // SYNTH_CHALLENGE_SIZE
constexpr size_t kSynthIndexSize = 4;       // SYNTH_INDEX_SIZE

void check_nodes(uint64_t nodes) {
  if (nodes < 2 || nodes > 0xffffffffull)
    throw std::invalid_argument("PoRep challenges: sector of " + std::to_string(nodes) +
                                " nodes; challenges need 2 .. 2^32-1 nodes");
}

void check_fr(const Bytes32& bytes, const char* what) {
  ff::Fr f;
  if (!ff::Fr::from_bytes_le(bytes.data(), f))
    throw std::invalid_argument(std::string("synthetic PoRep challenges: ") + what +
                                " is not a canonical BLS12-381 scalar (little-endian, below r)");
}

std::span<const uint8_t> as_bytes(std::string_view s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

// chacha20_gen / chacha20_select: BLAKE2b-256 keyed by the tag over a || b.
Bytes32 synth_key(std::string_view tag, const Bytes32& a, const Bytes32& b) {
  Bytes32 key;
  Blake2b(32, as_bytes(tag)).update(a).update(b).finalize(key);
  return key;
}

void put_le32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = uint8_t(v >> (8 * i));
}

}  // namespace

Bytes32 prover_id_from_actor_id(uint64_t actor_id) {
  Bytes32 out{};
  size_t i = 0;
  do {
    uint8_t b = actor_id & 0x7f;
    actor_id >>= 7;
    if (actor_id) b |= 0x80;
    out[i++] = b;
  } while (actor_id);
  return out;
}

Bytes32 replica_id(const Bytes32& prover_id, uint64_t sector_id, const Bytes32& ticket, const Bytes32& comm_d,
                   const Bytes32& porep_id) {
  std::array<uint8_t, 32 + 8 + 32 + 32 + 32> msg;
  auto it = std::copy(prover_id.begin(), prover_id.end(), msg.begin());
  for (int i = 7; i >= 0; i--) *it++ = uint8_t(sector_id >> (8 * i));
  it = std::copy(ticket.begin(), ticket.end(), it);
  it = std::copy(comm_d.begin(), comm_d.end(), it);
  std::copy(porep_id.begin(), porep_id.end(), it);
  Bytes32 id = gadgets::sha256_native(msg);
  id[31] &= 0x3f;
  return id;
}

uint64_t challenge_from_bytes(std::span<const uint8_t, 32> bytes, uint64_t nodes) {
  check_nodes(nodes);
  const uint64_t m = nodes - 1;
  unsigned __int128 rem = 0;
  for (size_t limb = 4; limb-- > 0;) {
    uint64_t w = 0;
    for (size_t b = 8; b-- > 0;) w = w << 8 | bytes[8 * limb + b];
    rem = ((rem << 64) | w) % m;
  }
  return uint64_t(rem) + 1;
}

std::vector<uint64_t> interactive_challenges(uint64_t nodes, const Bytes32& replica_id, const Bytes32& seed, uint8_t k,
                                             size_t n) {
  check_nodes(nodes);
  std::array<uint8_t, 32 + 32 + 4> msg;
  std::copy(replica_id.begin(), replica_id.end(), msg.begin());
  std::copy(seed.begin(), seed.end(), msg.begin() + 32);
  std::vector<uint64_t> out(n);
  for (size_t i = 0; i < n; i++) {
    put_le32(msg.data() + 64, uint32_t(n * k + i));
    out[i] = challenge_from_bytes(gadgets::sha256_native(msg), nodes);
  }
  return out;
}

std::vector<uint64_t> non_interactive_challenges(uint64_t nodes, const Bytes32& replica_id, const Bytes32& comm_r,
                                                 uint8_t k, size_t n) {
  check_nodes(nodes);
  std::array<uint8_t, kNiTag.size() + 32 + 32 + 4> msg;
  auto it = std::copy(kNiTag.begin(), kNiTag.end(), msg.begin());
  it = std::copy(replica_id.begin(), replica_id.end(), it);
  std::copy(comm_r.begin(), comm_r.end(), it);
  std::vector<uint64_t> out(n);
  for (size_t i = 0; i < n; i++) {
    put_le32(msg.data() + msg.size() - 4, uint32_t(n * k + i));
    out[i] = challenge_from_bytes(gadgets::sha256_native(msg), nodes);
  }
  return out;
}

SyntheticChallengeGenerator::SyntheticChallengeGenerator(uint64_t nodes, const Bytes32& replica_id,
                                                         const Bytes32& comm_r)
    : SyntheticChallengeGenerator(nodes, replica_id, comm_r, default_count(nodes)) {}

SyntheticChallengeGenerator::SyntheticChallengeGenerator(uint64_t nodes, const Bytes32& replica_id,
                                                         const Bytes32& comm_r, uint64_t count)
    : nodes_(nodes), count_(count), replica_id_(replica_id) {
  check_nodes(nodes);
  if (count == 0 || count > 0xffffffffull)
    throw std::invalid_argument("synthetic PoRep challenges: " + std::to_string(count) +
                                " synthetic challenges; the count must be in 1 .. 2^32-1");
  check_fr(replica_id, "replica_id");
  check_fr(comm_r, "comm_r");
  generation_key_ = synth_key(kSynthGenerationKey, replica_id, comm_r);
}

uint64_t SyntheticChallengeGenerator::challenge(uint64_t i) const {
  if (i >= count_)
    throw std::out_of_range("synthetic PoRep challenges: index " + std::to_string(i) + " of " + std::to_string(count_) +
                            " synthetic challenges");
  ChaCha20Ietf prf(generation_key_, kSynthNonce);
  // Rust seeks to (i * 32) as u32; i < 2^32 / 32 for every count used (2^18 at most).
  prf.seek(uint32_t(i * kSynthChallengeSize));
  std::array<uint8_t, kSynthChallengeSize> bytes;
  prf.keystream(bytes);
  return challenge_from_bytes(bytes, nodes_);
}

std::vector<uint64_t> SyntheticChallengeGenerator::all() const {
  ChaCha20Ietf prf(generation_key_, kSynthNonce);
  std::vector<uint64_t> out(count_);
  std::array<uint8_t, kSynthChallengeSize> bytes;
  for (auto& c : out) {
    prf.keystream(bytes);
    c = challenge_from_bytes(bytes, nodes_);
  }
  return out;
}

std::vector<uint64_t> SyntheticChallengeGenerator::partition_indexes(size_t n, const Bytes32& seed, size_t k) const {
  ChaCha20Ietf prf(synth_key(kSynthSelectionKey, replica_id_, seed), kSynthNonce);
  prf.seek(uint32_t(k * n * kSynthIndexSize));  // try_seek((first_porep_challenge * 4) as u32)
  std::vector<uint8_t> bytes(n * kSynthIndexSize);
  prf.keystream(bytes);
  std::vector<uint64_t> out(n);
  for (size_t i = 0; i < n; i++) {
    const uint8_t* p = bytes.data() + kSynthIndexSize * i;
    const uint32_t v = uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
    out[i] = v % count_;
  }
  return out;
}

std::vector<uint64_t> SyntheticChallengeGenerator::partition_challenges(size_t n, const Bytes32& seed, size_t k) const {
  std::vector<uint64_t> out = partition_indexes(n, seed, k);
  for (auto& i : out) i = challenge(i);
  return out;
}

std::vector<uint64_t> synthetic_challenges(uint64_t nodes, const Bytes32& replica_id, const Bytes32& comm_r,
                                           const Bytes32& seed, uint8_t k, size_t n) {
  return SyntheticChallengeGenerator(nodes, replica_id, comm_r).partition_challenges(n, seed, k);
}

std::vector<uint64_t> synthetic_challenge_indexes(uint64_t nodes, const Bytes32& replica_id, const Bytes32& comm_r,
                                                  const Bytes32& seed, uint8_t k, size_t n) {
  return SyntheticChallengeGenerator(nodes, replica_id, comm_r).partition_indexes(n, seed, k);
}

std::vector<uint64_t> synthetic_challenge_set(uint64_t nodes, const Bytes32& replica_id, const Bytes32& comm_r) {
  return SyntheticChallengeGenerator(nodes, replica_id, comm_r).all();
}

std::vector<uint64_t> seal_challenges(const SealProofInfo& proof, const Bytes32& replica_id, const Bytes32& comm_r,
                                      const Bytes32& seed, size_t k) {
  if (k >= proof.partitions)
    throw std::out_of_range("PoRep challenges: partition " + std::to_string(k) + " of " + std::string(proof.name) +
                            ", which has " + std::to_string(proof.partitions) + " partitions");
  const size_t n = proof.challenges_per_partition;
  const uint8_t k8 = uint8_t(k);  // params.rs passes `k as u8`; k < partitions <= 126 here
  switch (proof.feature) {
    case SealFeature::kInteractive:
      return interactive_challenges(proof.nodes, replica_id, seed, k8, n);
    case SealFeature::kSynthetic:
      return synthetic_challenges(proof.nodes, replica_id, comm_r, seed, k8, n);
    case SealFeature::kNonInteractive:
      return non_interactive_challenges(proof.nodes, replica_id, comm_r, k8, n);
  }
  throw std::invalid_argument("PoRep challenges: unknown feature of " + std::string(proof.name));
}

}  // namespace cuzk::filecoin

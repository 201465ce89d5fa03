// What each client command was given on its command line, once CLI11 has parsed it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cuzk::cli {

struct ProofArgs {
  bool demo = false;  // the demo job: 2^16 constraints, 8 public inputs, seed 1, one partition
  uint64_t constraints = uint64_t(1) << 16;
  uint32_t public_inputs = 8;
  uint64_t seed = 1;
  uint32_t partitions = 1;
  std::string request_id, param_id;
  // A level (low, normal, high, critical) or an integer: the order within the normal level,
  // higher first (-999 .. 999). Empty: normal.
  std::string priority;
  std::string out;  // proof bytes go here
};

// A Filecoin PoRep Commit2: `cuzk prove porep` and `cuzk verify porep`.
struct PoRepArgs {
  std::string c1;     // the Commit1 output (SealCommitPhase1Output JSON)
  std::string miner;  // the miner's ID address or actor id: t01000, f01000 or 1000
  uint64_t sector = 0;
  std::string registered_proof;  // name or id; empty: the Commit1 output's
  std::string request_id, priority;
  std::string out;  // prove: the proof bytes go here
  // verify: the proof, and its verifying key from a .vk file or the parameter files in a directory.
  std::string proof, vk, param_cache, param_cache_dir;
};

// A WindowPoSt partition or a WinningPoSt: `cuzk prove window-post` and `cuzk prove winning-post`.
struct PoStArgs {
  // One bincode FallbackPoStSectorProof per sector (filecoin-ffi's GenerateSingleVanillaProof, as
  // Curio sends them): WinningPoSt the challenged sector's; WindowPoSt the partition's sectors.
  std::vector<std::string> vanilla;
  std::string registered_proof;  // RegisteredPoStProof name or id
  std::string miner;             // t01000, f01000 or 1000
  std::string randomness;        // the 32-byte challenge seed as 64 hex digits
  uint32_t partition = 0;        // WindowPoSt: the partition's index in the deadline
  std::string request_id, priority;
  std::string out;  // the proof bytes (192) go here
};

// A SnapDeals update: `cuzk prove snap`.
struct SnapArgs {
  // One bincode PartitionProof per partition in partition order (filecoin-ffi's
  // GenerateUpdateVanillaProofs), or Curio's snap-vproof.json (a JSON array of them in base64).
  std::vector<std::string> vanilla;
  std::string registered_proof;  // RegisteredUpdateProof name or id
  std::string miner;
  uint64_t sector = 0;
  // 64 hex digits of the raw 32 bytes, or the CID (bagboea4b5abc... sealed, baga6ea4seaq... unsealed).
  std::string comm_r_old, comm_r_new, comm_d_new;
  std::string request_id, priority;
  std::string out;  // the proof bytes (192 per partition) go here
};

}  // namespace cuzk::cli

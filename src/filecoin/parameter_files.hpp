// Filecoin's published Groth16 parameter files (rust-fil-proofs storage-proofs-core
// parameter_cache.rs, settings.rs; filecoin-proofs param.rs; fil-proofs-param paramfetch.rs):
// the file name of each circuit, the parameter cache directory, the parameters.json manifest
// and the integrity digest paramfetch checks.
//
// File names: "v28-<cache_prefix>-<sha256(identifier) as lowercase hex>" plus ".params" (the
// Groth16 parameters), ".vk" (the verifying key) or ".meta" (written locally by rust-fil-proofs
// when it generates parameters; never published). The identifier strings are the circuits'
// ParameterSetMetadata::identifier() (stacked/vanilla/params.rs, drgraph.rs,
// stacked/vanilla/graph.rs, fallback/vanilla.rs, storage-proofs-update vanilla.rs); the prefixes
// are CacheableParameters::cache_prefix(). Neither contains porep_id, api_version or features:
// V1, V1_1, SyntheticPoRep and NI-PoRep of one sector size share one parameter file.
//
// Digest (parameter_cache.rs::verify_production_entry, filecoin-proofs param.rs
// get_digest_for_file_within_cache): BLAKE2b-512 (no key, 64-byte output) of the whole file,
// lowercase hex, first 32 hex characters (128 bits) — `b2sum FILE | head -c 32`.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "filecoin/porep/registered_proofs.hpp"

namespace cuzk::filecoin {

// parameter_cache.rs VERSION: bumped when circuits change.
constexpr unsigned kParameterCacheVersion = 28;

// fallback PoSt constants (filecoin-proofs constants.rs).
constexpr size_t kWinningPostChallengeCount = 66;  // WINNING_POST_CHALLENGE_COUNT
constexpr size_t kWinningPostSectorCount = 1;      // WINNING_POST_SECTOR_COUNT
constexpr size_t kWindowPostChallengeCount = 10;   // WINDOW_POST_CHALLENGE_COUNT

// The circuits with published parameters.
enum class ParameterCircuit : uint8_t {
  kPoRep,                      // StackedDRG seal (every RegisteredSealProof of one size)
  kWinningPoSt,                // FallbackPoSt, 66 sectors x 1 challenge
  kWindowPoSt,                 // FallbackPoSt, WINDOW_POST_SECTOR_COUNT sectors x 10 challenges
  kEmptySectorUpdate,          // SnapDeals (storage-proofs-update compound.rs)
  kEmptySectorUpdatePoseidon,  // SnapDeals, Poseidon variant (storage-proofs-update poseidon/)
};
constexpr size_t kParameterCircuits = 5;
// "PoRep", "WinningPoSt", "WindowPoSt", "EmptySectorUpdate", "EmptySectorUpdatePoseidon".
std::string_view parameter_circuit_name(ParameterCircuit c);

// The name of one circuit's parameter files.
struct ParameterId {
  ParameterCircuit circuit = ParameterCircuit::kPoRep;
  uint64_t sector_size = 0;
  std::string identifier;  // ParameterSetMetadata::identifier(), hashed into the name
  std::string prefix;      // cache_prefix(): "stacked-proof-of-replication-merkletree-..."
  std::string stem;        // "v28-<prefix>-<sha256(identifier) hex>"

  std::string params_name() const { return stem + ".params"; }
  std::string vk_name() const { return stem + ".vk"; }
  std::string meta_name() const { return stem + ".meta"; }  // local only, not published
};

// "v<VERSION>-<prefix>-<sha256(identifier) lowercase hex>" (cache_identifier, parameter_id).
std::string parameter_file_stem(std::string_view prefix, std::string_view identifier);

// filecoin-proofs PUBLISHED_SECTOR_SIZES: 2 KiB, 8 MiB, 512 MiB, 32 GiB, 64 GiB (bytes).
std::span<const uint64_t> published_sector_sizes();
// Tree R / tree C as MerkleTreeTrait::display() writes it: "merkletree-poseidon_hasher-8-8-0".
// By sector size: throws std::invalid_argument for a size without published parameters.
std::string tree_r_display(uint64_t sector_size);
// By shape: throws std::invalid_argument unless the hasher is Poseidon.
std::string tree_r_display(const gadgets::PorTreeShape& shape);
// WINDOW_POST_SECTOR_COUNT: 2 for the test sizes, 2349 for 32 GiB, 2300 for 64 GiB.
size_t window_post_sector_count(uint64_t sector_size);

// PoRep: "layered_drgporep::PublicParams{ graph: stacked_graph::StackedGraph{expansion_degree: 8
// base_graph: drgraph::BucketGraph{size: <nodes>; degree: 6; hasher: poseidon_hasher} },
// challenges: LayerChallenges { layers: <L>, max_count: <challenges/partition> }, tree: <tree R> }".
ParameterId porep_parameter_id(const SealProofInfo& proof);
// The same from the sector size (identical for all four seal proof versions of a size).
ParameterId porep_parameter_id(uint64_t sector_size);
// "FallbackPoSt::PublicParams{sector_size: <bytes>, challenge_count: 1, sector_count: 66}".
ParameterId winning_post_parameter_id(uint64_t sector_size);
// "FallbackPoSt::PublicParams{sector_size: <bytes>, challenge_count: 10, sector_count: <n>}".
ParameterId window_post_parameter_id(uint64_t sector_size);
// "empty_sector_update::PublicParams{ sector_nodes: <nodes> }"; prefix "empty-sector-update-"
// or, with poseidon, "empty-sector-update-poseidon-" (published for 32 GiB and 64 GiB only).
ParameterId empty_sector_update_parameter_id(uint64_t sector_size, bool poseidon = false);
// Any of the above; throws std::invalid_argument for an unpublished sector size.
ParameterId parameter_id(ParameterCircuit circuit, uint64_t sector_size);

// The parameter cache (settings.rs): $FIL_PROOFS_PARAMETER_CACHE when set and not empty, else
// "/var/tmp/filecoin-proof-parameters"; the search over them is parameter_search.hpp's.
// (rust-fil-proofs also reads a parameter_cache key from ./rust-fil-proofs.config.toml below the
// environment; not supported.)
constexpr std::string_view kParameterCacheEnv = "FIL_PROOFS_PARAMETER_CACHE";
constexpr std::string_view kDefaultParameterCacheDir = "/var/tmp/filecoin-proof-parameters";
// `name` (a plain file name) in `dir`: the path when it is a regular file (symlinks followed),
// nullopt when absent. Throws std::invalid_argument for a name with a directory part,
// std::runtime_error when the path exists but is not a file.
std::optional<std::filesystem::path> find_parameter_file(std::string_view name, const std::filesystem::path& dir);

// One parameters.json entry (parameter_cache.rs ParameterData).
struct ParameterFileEntry {
  std::string cid;     // IPFS CID
  std::string digest;  // 32 lowercase hex characters (see the top of this file)
  uint64_t sector_size = 0;
  bool operator==(const ParameterFileEntry&) const = default;
};
// File name ("v28-....params" / ".vk") -> entry.
using ParameterManifest = std::map<std::string, ParameterFileEntry, std::less<>>;

// Parses parameters.json text; errors (std::runtime_error) name `source`, the entry and the
// field. Unknown fields are ignored, as serde does.
ParameterManifest parse_parameter_manifest(std::string_view json_text, std::string_view source = "parameters.json");
ParameterManifest read_parameter_manifest(const std::filesystem::path& path);
// rust-fil-proofs parameters.json at 87348a74 (the v28 files), built in.
const ParameterManifest& published_parameter_manifest();

// Digest progress: bytes hashed so far and the file size when hashing began. Called after
// every chunk (8 MiB) and once at the end; an exception it throws aborts the hashing.
using DigestProgress = std::function<void(uint64_t done, uint64_t total)>;

// kParameterDigestHexChars hex characters of BLAKE2b-512 over the whole file, streamed.
constexpr size_t kParameterDigestHexChars = 32;
std::string parameter_digest(const std::filesystem::path& path, const DigestProgress& progress = {});

// Thrown when a file's digest differs from the expected one.
class ParameterDigestMismatch : public std::runtime_error {
 public:
  ParameterDigestMismatch(std::filesystem::path path, std::string expected, std::string found);
  const std::filesystem::path& path() const { return path_; }
  const std::string& expected() const { return expected_; }
  const std::string& found() const { return found_; }

 private:
  std::filesystem::path path_;
  std::string expected_, found_;
};

// Hashes the file and compares with `expected` (32 hex characters, either case). Throws
// ParameterDigestMismatch naming the file, the expected and the found digest;
// std::invalid_argument when `expected` is not 32 hex characters; std::runtime_error on I/O.
void verify_parameter_digest(const std::filesystem::path& path, std::string_view expected,
                             const DigestProgress& progress = {});
// Looks the file name up in `manifest` (std::runtime_error when it is not listed) and verifies
// its digest; returns the entry.
const ParameterFileEntry& verify_parameter_file(const std::filesystem::path& path,
                                                const ParameterManifest& manifest = published_parameter_manifest(),
                                                const DigestProgress& progress = {});

}  // namespace cuzk::filecoin

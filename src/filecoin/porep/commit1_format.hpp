// The Commit1 output's JSON format as filecoin-proofs-api writes it: names and constants shared
// by its reader (porep/commit1_read.cpp), its check against the registered proof
// (porep/commit1_shape_check.cpp) and its writer (porep/commit1_write.cpp). Internal to them.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "filecoin/porep/commit1.hpp"
#include "filecoin/porep/graph.hpp"

namespace cuzk::filecoin::c1_format {

// stacked/vanilla/proof.rs TOTAL_PARENTS: a labeling proof holds 37 parent labels, the node's
// kBaseDegree parents (layer 1) or kBaseDegree + kExpDegree (later layers; porep/graph.hpp) repeated
// until 37 are filled.
constexpr size_t kTotalParents = 37;

constexpr std::string_view kSizeNames[5] = {"2KiB", "8MiB", "512MiB", "32GiB", "64GiB"};
// filecoin-proofs-api seal.rs VanillaSealProof, one variant per sector size.
constexpr std::string_view kVariants[5] = {"StackedDrg2KiBV1", "StackedDrg8MiBV1", "StackedDrg512MiBV1",
                                           "StackedDrg32GiBV1", "StackedDrg64GiBV1"};

inline std::string_view kind_name(MerkleProof::Kind k) {
  switch (k) {
    case MerkleProof::Kind::kSingle:
      return "Single";
    case MerkleProof::Kind::kSub:
      return "Sub";
    default:
      return "Top";
  }
}

inline bool canonical(const Bytes32& b) {
  Fr x;
  return Fr::from_bytes_le(b.data(), x);
}

inline std::string idx(size_t i) { return "[" + std::to_string(i) + "]"; }

}  // namespace cuzk::filecoin::c1_format

// Test helpers for the PoSt kinds: the first miner's two real 2 KiB presealed sectors (tree R
// rebuilt from each sealed replica) and their vanilla proofs written as Curio sends them (bincode
// FallbackPoStSectorProof, post/vanilla_proof.hpp).
#pragma once

#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "filecoin/common/merkle_tree.hpp"
#include "filecoin/generators/post_vanilla_prover.hpp"
#include "filecoin/post/challenges.hpp"
#include "filecoin/post/registered_proofs.hpp"
#include "filecoin/post/vanilla_proof.hpp"
#include "test_support.hpp"

namespace cuzk::test::post {

using ff::Fr;
using filecoin::Bytes32;
using filecoin::RegisteredPoStProof;

struct Sector {
  uint64_t id = 0;
  Fr comm_r, comm_c;
  std::unique_ptr<filecoin::MerkleTree> tree;
};

inline Fr fr_from_hex(const std::string& s) {
  const auto b = test::hex_bytes(s);
  Fr x;
  if (b.size() != 32 || !Fr::from_bytes_le(b.data(), x)) throw std::invalid_argument("not an Fr: " + s);
  return x;
}

// The first miner's two presealed sectors; empty when the test data is absent.
inline std::vector<Sector> preseal_sectors() {
  const std::string dir = test::testdata_dir() + "/filecoin/post/preseal-2KiB";
  std::vector<Sector> out;
  if (!std::filesystem::exists(dir + "/sectors.json")) return out;
  const auto j = nlohmann::json::parse(std::ifstream(dir + "/sectors.json"));
  const auto tree_r = filecoin::post_proof_info(RegisteredPoStProof::kStackedDrgWindow2KiBV1_2).params.tree_r;
  const auto& m = j.at("miners").at(0);
  const std::string miner = m.at("miner");
  for (const auto& s : m.at("sectors")) {
    Sector t;
    t.id = s.at("sector_number");
    t.comm_r = fr_from_hex(s.at("comm_r_hex"));
    t.comm_c = fr_from_hex(s.at("p_aux_comm_c_hex"));
    const auto replica = test::read_file(dir + "/" + miner + "/sealed/s-" + miner + "-" + std::to_string(t.id));
    std::vector<Fr> leaves(64);
    for (size_t i = 0; i < 64; i++) EXPECT_TRUE(Fr::from_bytes_le(replica.data() + 32 * i, leaves[i]));
    t.tree = std::make_unique<filecoin::MerkleTree>(tree_r, std::move(leaves));
    out.push_back(std::move(t));
  }
  return out;
}

// One sector's vanilla proof as generate_single_vanilla_proof makes it: the leaves `params`
// challenges at sector_index, in bincode.
inline std::string vanilla_bincode(const filecoin::FallbackPoStParams& params, const Sector& s,
                                   const Bytes32& randomness, size_t sector_index) {
  // The WindowPoSt numbers of params (the kinds tests pass WindowPoSt or WinningPoSt ones as such).
  filecoin::PoStProofInfo info{};
  info.type = filecoin::PoStType::kWindow;
  info.params = params;
  auto p = filecoin::post_vanilla_proof_of_tree(info, *s.tree, s.comm_c, s.id, randomness, sector_index);
  EXPECT_EQ(p.comm_r, s.comm_r) << "sector " << s.id << ": Poseidon(comm_c, comm_r_last) is not its comm_r";
  const auto bytes = filecoin::write_fallback_post_sector_proof(p);
  return std::string(bytes.begin(), bytes.end());
}

inline Bytes32 randomness_of(uint64_t seed) {
  std::mt19937_64 rng(seed);
  Bytes32 r{};
  for (auto& x : r) x = uint8_t(rng());
  r[31] &= 0x3f;
  return r;
}

inline std::string_view view(const Bytes32& r) { return {reinterpret_cast<const char*>(r.data()), r.size()}; }

}  // namespace cuzk::test::post

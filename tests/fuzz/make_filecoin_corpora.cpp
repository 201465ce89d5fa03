// Writes the seed corpora of the Filecoin fuzz targets (post_vanilla_bincode,
// snap_vanilla_bincode, commit1_json) from the generators the tests use: sparse PoSt sectors,
// sparse 2 KiB / 8 MiB sector updates and a generated 2 KiB sector's Commit1 output. Inputs over
// 128 KiB are left out (the repository stays small). Build target fuzz_make_filecoin_corpora; run
// with tests/fuzz/corpus as the argument.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "filecoin/generators/sparse_post_sector.hpp"
#include "filecoin/generators/sparse_sector_update.hpp"
#include "filecoin/generators/test_sector.hpp"
#include "filecoin/porep/commit1.hpp"
#include "filecoin/porep/registered_proofs.hpp"
#include "filecoin/post/registered_proofs.hpp"
#include "filecoin/post/vanilla_proof.hpp"
#include "filecoin/snap/registered_proofs.hpp"

using namespace cuzk::filecoin;
namespace fs = std::filesystem;

namespace {

constexpr size_t kMaxFile = 128 * 1024;

void write(const fs::path& dir, const std::string& name, uint8_t selector, const std::vector<uint8_t>& body,
           bool with_selector = true) {
  std::vector<uint8_t> bytes;
  if (with_selector) bytes.push_back(selector);
  bytes.insert(bytes.end(), body.begin(), body.end());
  if (bytes.size() > kMaxFile) {
    std::printf("skip %s/%s: %zu bytes\n", dir.filename().c_str(), name.c_str(), bytes.size());
    return;
  }
  fs::create_directories(dir);
  std::ofstream(dir / name, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  std::printf("wrote %s/%s: %zu bytes\n", dir.filename().c_str(), name.c_str(), bytes.size());
}

// A few variants of a valid input: cut short, one byte more, one byte of the first field and a
// domain value's top byte corrupted.
void write_variants(const fs::path& dir, const std::string& name, uint8_t selector, std::vector<uint8_t> body,
                    bool variants = true) {
  write(dir, name, selector, body);
  if (!variants || body.size() < 64) return;
  auto v = body;
  v.resize(v.size() / 2);
  write(dir, name + "_truncated", selector, v);
  v = body;
  v.push_back(0);
  write(dir, name + "_trailing", selector, v);
  v = body;
  v[8] ^= 0x01;  // a byte of the first field after the leading u64 (a root or comm_r: accepted)
  write(dir, name + "_byte8", selector, v);
  v = body;
  v[v.size() - 1] = 0xff;  // the last domain value's top byte: not a canonical Fr
  write(dir, name + "_not_canonical", selector, v);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
    return 2;
  }
  const fs::path root = argv[1];

  // post_vanilla_bincode: selector indexes its kProofs (post_vanilla_bincode.cpp).
  const RegisteredPoStProof post[] = {
      RegisteredPoStProof::kStackedDrgWinning2KiBV1,
      RegisteredPoStProof::kStackedDrgWindow2KiBV1,
      RegisteredPoStProof::kStackedDrgWindow2KiBV1_2,
      RegisteredPoStProof::kStackedDrgWindow8MiBV1_2,
  };
  Bytes32 randomness{};
  for (size_t i = 0; i < 32; i++) randomness[i] = uint8_t(3 * i + 1);
  randomness[31] &= 0x3f;
  for (size_t s = 0; s < std::size(post); s++) {
    const PoStProofInfo& info = post_proof_info(post[s]);
    const auto bytes = write_fallback_post_sector_proof(sparse_post_vanilla_proof(info, randomness, 10 + s, 0, 7));
    // Malformed variants of the smallest only: the corpus stays under 200 KB.
    write_variants(root / "post_vanilla_bincode", std::string(info.name), uint8_t(s), bytes, s == 1);
  }

  // snap_vanilla_bincode: selector 0 = 2 KiB, 1 = 8 MiB.
  const uint64_t snap_sizes[] = {2 * 1024, 8 * 1024 * 1024};
  for (size_t s = 0; s < 2; s++) {
    const auto update = make_sparse_sector_update(EmptySectorUpdateParams::from_sector_size(snap_sizes[s]), 5);
    const auto parts = update.partition_bincode();
    write_variants(root / "snap_vanilla_bincode", "update_" + std::to_string(snap_sizes[s]) + "_p0", uint8_t(s),
                   parts.at(0), s == 0);
  }

  // commit1_json: a generated 2 KiB sector's Commit1 output (no selector byte; about 100 KB), and
  // its first 16 KiB, cut mid-document (a prefix the reader refuses).
  const std::string c1 =
      write_seal_commit_phase1(generate_commit_phase1(seal_proof_info(RegisteredSealProof::kStackedDrg2KiBV1_1)));
  std::vector<uint8_t> json(c1.begin(), c1.end());
  write(root / "commit1_json", "c1_2KiB", 0, json, false);
  json.resize(std::min<size_t>(json.size(), 16 * 1024));
  write(root / "commit1_json", "c1_2KiB_prefix", 0, json, false);
  return 0;
}

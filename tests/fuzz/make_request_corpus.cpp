// Writes the seed corpus of the submit_request target: one request of each kind that the
// conversion accepts (synthetic; a generated 2 KiB sector's Commit1 output; WinningPoSt and
// WindowPoSt over sparse 2 KiB sectors; a sparse 2 KiB SnapDeals update), as protobuf bytes, and a
// few it refuses. Build target fuzz_make_request_corpus; run with tests/fuzz/corpus as the argument.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "cuzk/v1/proving.pb.h"
#include "filecoin/generators/sparse_post_sector.hpp"
#include "filecoin/generators/sparse_sector_update.hpp"
#include "filecoin/generators/test_sector.hpp"
#include "filecoin/porep/commit1.hpp"
#include "filecoin/porep/registered_proofs.hpp"
#include "filecoin/post/registered_proofs.hpp"
#include "filecoin/snap/registered_proofs.hpp"

using namespace cuzk;
using namespace cuzk::filecoin;
namespace fs = std::filesystem;

namespace {

void write(const fs::path& dir, const std::string& name, const v1::SubmitProofRequest& req) {
  fs::create_directories(dir);
  const std::string bytes = req.SerializeAsString();
  std::ofstream(dir / name, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
  std::printf("wrote %s/%s: %zu bytes\n", dir.filename().c_str(), name.c_str(), bytes.size());
}

std::string bytes_of(const Fr& x) {
  std::string b(32, '\0');
  x.to_bytes_le(reinterpret_cast<uint8_t*>(b.data()));
  return b;
}

v1::SubmitProofRequest post_request(RegisteredPoStProof proof, size_t sectors, v1::ProofKind kind) {
  const PoStProofInfo& info = post_proof_info(proof);
  Bytes32 randomness{};
  for (size_t i = 0; i < 32; i++) randomness[i] = uint8_t(5 * i + 2);
  randomness[31] &= 0x3f;
  v1::SubmitProofRequest req;
  req.set_request_id(kind == v1::WINNING_POST ? "winning-1000-[1 2 3]" : "wdpost-1000-0-[1 2 3]");
  req.set_proof_kind(kind);
  req.set_sector_size(info.params.sector_size);
  req.set_registered_proof(info.id());
  req.set_miner_id(1000);
  req.set_randomness(std::string(randomness.begin(), randomness.end()));
  for (size_t i = 0; i < sectors; i++) {
    const auto b = write_fallback_post_sector_proof(sparse_post_vanilla_proof(info, randomness, 20 + i, i, 3 + i));
    req.add_vanilla_proofs(std::string(b.begin(), b.end()));
  }
  return req;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR (tests/fuzz/corpus)\n", argv[0]);
    return 2;
  }
  const fs::path dir = fs::path(argv[1]) / "submit_request";

  v1::SubmitProofRequest synthetic;
  synthetic.set_request_id("synthetic-1");
  synthetic.set_proof_kind(v1::SYNTHETIC);
  synthetic.set_priority(v1::HIGH);
  synthetic.set_priority_offset(-3);
  synthetic.mutable_synthetic()->set_constraints(4096);
  synthetic.mutable_synthetic()->set_public_inputs(2);
  synthetic.mutable_synthetic()->set_seed(9);
  synthetic.mutable_synthetic()->set_partitions(3);
  write(dir, "synthetic", synthetic);
  synthetic.set_proof_kind(v1::PROOF_KIND_UNSPECIFIED);
  synthetic.set_param_id("synthetic-4096");
  write(dir, "synthetic_unspecified_kind", synthetic);

  const SealProofInfo& seal = seal_proof_info(RegisteredSealProof::kStackedDrg2KiBV1_1);
  TestSectorOptions options;
  options.sector_id = 4;
  v1::SubmitProofRequest porep;
  porep.set_request_id("porep-1000-4");
  porep.set_proof_kind(v1::POREP_SEAL_COMMIT);
  porep.set_sector_size(seal.sector_size);
  porep.set_registered_proof(seal.id());
  porep.set_miner_id(1000);
  porep.set_sector_number(4);
  porep.set_vanilla_proof(write_seal_commit_phase1(generate_commit_phase1(seal, options)));
  write(dir, "porep_2KiB", porep);
  porep.set_sector_number(5);  // not the Commit1 output's sector
  write(dir, "porep_2KiB_wrong_sector", porep);

  write(dir, "winning_2KiB", post_request(RegisteredPoStProof::kStackedDrgWinning2KiBV1, 1, v1::WINNING_POST));
  write(dir, "window_2KiB_V1_2",
        post_request(RegisteredPoStProof::kStackedDrgWindow2KiBV1_2, 2, v1::WINDOW_POST_PARTITION));
  auto wrong = post_request(RegisteredPoStProof::kStackedDrgWindow2KiBV1_2, 2, v1::WINDOW_POST_PARTITION);
  wrong.mutable_randomness()->at(0) ^= 1;
  write(dir, "window_2KiB_wrong_randomness", wrong);

  const auto& update_info = update_proof_info_by_id(0);
  const auto update = make_sparse_sector_update(update_info.params, 5);
  v1::SubmitProofRequest snap;
  snap.set_request_id("snap-1000-6");
  snap.set_proof_kind(v1::SNAP_DEALS_UPDATE);
  snap.set_sector_size(2048);
  snap.set_registered_proof(update_info.id());
  snap.set_miner_id(1000);
  snap.set_sector_number(6);
  for (const auto& b : update.partition_bincode()) snap.add_vanilla_proofs(std::string(b.begin(), b.end()));
  snap.set_comm_r_old(bytes_of(update.comm_r_old));
  snap.set_comm_r_new(bytes_of(update.comm_r_new));
  snap.set_comm_d_new(bytes_of(update.comm_d_new));
  write(dir, "snap_2KiB", snap);

  v1::SubmitProofRequest unknown;
  unknown.set_proof_kind(v1::ProofKind(77));
  write(dir, "unknown_kind", unknown);
  return 0;
}

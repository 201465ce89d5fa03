// Writes the seed corpus of the param_file target: a small synthetic circuit's parameters in our
// layout (digest trailer over several 4 KiB blocks, and over one block), in Filecoin's layout (no
// trailer), its .vk, and a few broken variants. The first byte of each file is the target's
// selector (bit 0: the .vk reader; bits 1-2: the chunk size). Build target
// fuzz_make_groth16_corpora; run with tests/fuzz/corpus as the argument.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "circuits/synthetic.hpp"
#include "groth16/param_file.hpp"
#include "groth16/setup.hpp"

using namespace cuzk;
namespace fs = std::filesystem;

namespace {

std::vector<uint8_t> slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write(const fs::path& dir, const std::string& name, uint8_t selector, const std::vector<uint8_t>& body) {
  fs::create_directories(dir);
  std::ofstream out(dir / name, std::ios::binary);
  out.put(char(selector));
  out.write(reinterpret_cast<const char*>(body.data()), std::streamsize(body.size()));
  std::printf("wrote %s/%s: %zu bytes\n", dir.filename().c_str(), name.c_str(), body.size() + 1);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR (tests/fuzz/corpus)\n", argv[0]);
    return 2;
  }
  const fs::path dir = fs::path(argv[1]) / "param_file";
  // 16 constraints, 2 public inputs: a file of a few KiB with every section non-empty.
  circuits::SyntheticCircuit circuit(16, 2);
  groth16::Parameters params = groth16::generate_parameters(circuit, groth16::ToxicWaste::random());

  const fs::path tmp = fs::temp_directory_path() / "cuzk-fuzz-seed.params";
  groth16::write_parameters(params, tmp, 4096);
  auto ours = slurp(tmp);
  groth16::write_parameters(params, tmp, groth16::kParamDigestBlock);
  auto one_block = slurp(tmp);
  groth16::write_verifying_key(params.vk, tmp);
  auto vk = slurp(tmp);
  fs::remove(tmp);
  std::vector<uint8_t> filecoin(ours.begin(), ours.end() - groth16::kParamDigestTrailerBytes);

  write(dir, "params_blocks_4k", 0, ours);
  write(dir, "params_one_block_chunk_16k", 4, one_block);
  write(dir, "params_filecoin_layout", 2, filecoin);
  write(dir, "vk", 1, vk);
  write(dir, "params_as_vk", 1, filecoin);

  auto v = ours;
  v[v.size() / 2] ^= 0x10;  // a point's byte: the digest no longer matches (or the point is off the curve)
  write(dir, "params_flipped", 0, v);
  v = filecoin;
  v.resize(v.size() - 7);  // cut inside the last b_g2 point
  write(dir, "params_truncated", 0, v);
  v = vk;
  v[0] |= 0x40;  // alpha_g1 flagged infinity
  write(dir, "vk_infinity_flag", 1, v);
  return 0;
}

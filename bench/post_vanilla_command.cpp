// cuzk-bench post-vanilla: one sector's PoSt vanilla proof as Curio hands it to the daemon (bincode
// FallbackPoStSectorProof, what filecoin-ffi's GenerateSingleVanillaProof returns), from a sealed
// replica file (tree R rebuilt in memory: sectors up to 512 MiB) or from a sparse sector of any
// size (test data only: no sealed replica has its leaves).
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

#include "bench/commands.hpp"
#include "filecoin/generators/post_vanilla_prover.hpp"
#include "filecoin/generators/sparse_post_sector.hpp"
#include "filecoin/post/vanilla_proof.hpp"
#include "gadgets/hashers.hpp"

namespace cuzk::bench {
namespace {

std::vector<uint8_t> bytes_from_hex(const std::string& hex, const char* what) {
  if (hex.size() != 64) throw std::invalid_argument(std::string(what) + ": 64 hex digits (32 bytes) expected");
  std::vector<uint8_t> out(32);
  for (size_t i = 0; i < 32; i++) {
    const std::string pair = hex.substr(2 * i, 2);
    if (pair.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos) {
      throw std::invalid_argument(std::string(what) + ": '" + pair + "' is not a hex byte");
    }
    out[i] = uint8_t(std::stoul(pair, nullptr, 16));
  }
  return out;
}

// 32 bytes in the order Filecoin writes commitments (little-endian field element).
ff::Fr fr_from_hex(const std::string& hex, const char* what) {
  const auto b = bytes_from_hex(hex, what);
  ff::Fr x;
  if (!ff::Fr::from_bytes_le(b.data(), x)) throw std::invalid_argument(std::string(what) + " is not a field element");
  return x;
}

std::string hex_of(const ff::Fr& x) {
  uint8_t b[32];
  x.to_bytes_le(b);
  std::string s;
  for (uint8_t v : b) s += "0123456789abcdef"[v >> 4], s += "0123456789abcdef"[v & 15];
  return s;
}

std::vector<uint8_t> read_whole_file(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw std::runtime_error("cannot open " + path + ": " + std::strerror(errno));
  std::vector<uint8_t> out;
  uint8_t buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.insert(out.end(), buf, buf + n);
  const bool failed = std::ferror(f);
  std::fclose(f);
  if (failed) throw std::runtime_error("cannot read " + path);
  return out;
}

}  // namespace

int run_post_vanilla_command(const PostVanillaArgs& a) {
  try {
    const auto& info = filecoin::post_proof_info(a.proof);
    filecoin::Bytes32 randomness{};
    if (!a.randomness.empty()) {
      const auto r = bytes_from_hex(a.randomness, "--randomness");
      std::copy(r.begin(), r.end(), randomness.begin());
    }
    randomness[31] &= 0x3f;  // as Lotus clears it
    if (a.replica.empty() == !a.sparse) throw std::invalid_argument("give --replica FILE (with --comm-c) or --sparse");
    filecoin::FallbackPoStSectorProof proof;
    if (a.sparse) {
      proof = filecoin::sparse_post_vanilla_proof(info, randomness, a.sector_id, a.sector_index, a.seed);
    } else {
      if (a.comm_c.empty()) throw std::invalid_argument("--replica needs --comm-c HEX (the sector's p_aux comm_c)");
      const auto replica = read_whole_file(a.replica);
      proof = filecoin::post_vanilla_proof_from_replica(info, replica, fr_from_hex(a.comm_c, "--comm-c"), a.sector_id,
                                                        randomness, a.sector_index);
      if (!a.comm_r.empty() && proof.comm_r != fr_from_hex(a.comm_r, "--comm-r")) {
        throw std::invalid_argument("Poseidon(comm_c, tree R's root) is " + hex_of(proof.comm_r) +
                                    ", not the given comm_r: a wrong replica, comm_c or sector size");
      }
    }
    const auto bytes = filecoin::write_fallback_post_sector_proof(proof);
    std::FILE* f = std::fopen(a.out.c_str(), "wb");
    if (!f) throw std::runtime_error("cannot write " + a.out + ": " + std::strerror(errno));
    const bool written = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
    if (std::fclose(f) != 0 || !written)
      throw std::runtime_error("cannot write " + a.out + ": " + std::strerror(errno));
    std::printf("wrote %s: %s vanilla proof of sector %llu (%zu openings, %zu bytes), comm_r %s%s\n", a.out.c_str(),
                std::string(info.name).c_str(), (unsigned long long)a.sector_id,
                proof.sectors[0].inclusion_proofs.size(), bytes.size(), hex_of(proof.comm_r).c_str(),
                a.sparse ? " (SPARSE test sector: no real replica has it)" : "");
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cuzk-bench post-vanilla: %s\n", e.what());
    return 2;
  }
}

}  // namespace cuzk::bench

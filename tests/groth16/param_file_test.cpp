// Parameter and .vk files: byte-for-byte round trips in both read modes, and clear errors for
// truncated, oversized, corrupted, infinity and off-subgroup content.
#include "groth16/param_file.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <thread>

#include <gtest/gtest.h>

#include "groth16/setup.hpp"
#include "test_support.hpp"

namespace cuzk::groth16 {
namespace {

using ff::Fp;
using r1cs::ConstraintSystem;
using r1cs::Variable;

// A few multiplications with two public inputs: every section is non-empty.
struct SmallCircuit : r1cs::Circuit {
  void synthesize(ConstraintSystem& cs) const override {
    Variable x = cs.alloc_input("x", Fr::from_u64(3));
    Variable y = cs.alloc_input("y", Fr::from_u64(9));
    Variable w = cs.alloc("w", Fr::from_u64(3));
    Variable v = cs.alloc("v", Fr::from_u64(27));
    cs.enforce("x = w", x, Variable::one(), w);
    cs.enforce("w^2 = y", w, w, y);
    cs.enforce("y w = v", y, w, v);
  }
};

class ParamFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto rng = test::make_rng();
    params_ = generate_parameters(
        SmallCircuit{}, {Fr::random(rng), Fr::random(rng), Fr::random(rng), Fr::random(rng), Fr::random(rng)});
    dir_ = std::filesystem::temp_directory_path() / ("cuzk-params-" + std::to_string(test::run_seed()) + "-" +
                                                     ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    path_ = (dir_ / "small.params").string();
    write_parameters(params_, path_);
    bytes_ = test::read_file(path_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string write_bytes(const std::vector<uint8_t>& b, const std::string& name) {
    std::string p = (dir_ / name).string();
    std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
    return p;
  }
  // The error text of decoding path, or "" when it decodes.
  static std::string error_of(const std::string& path, ReadMode mode = ReadMode::kChecked) {
    try {
      ParameterFile::open(path).decode(mode);
    } catch (const std::exception& e) {
      return e.what();
    }
    return "";
  }

  Parameters params_;
  std::filesystem::path dir_;
  std::string path_;
  std::vector<uint8_t> bytes_;
};

TEST_F(ParamFileTest, RoundTripsByteForByte) {
  EXPECT_EQ(bytes_.size(), parameters_file_size(params_));
  for (ReadMode mode : {ReadMode::kChecked, ReadMode::kUnchecked}) {
    Parameters back = ParameterFile::open(path_).decode(mode);
    EXPECT_EQ(back, params_);
    std::string again = (dir_ / "again.params").string();
    write_parameters(back, again);
    EXPECT_EQ(test::read_file(again), bytes_);
  }
  auto f = ParameterFile::open(path_);
  EXPECT_TRUE(f.has_proving_key());
  EXPECT_EQ(f.h().count, params_.h.size());
  EXPECT_EQ(f.b_g2().count, params_.b_g2.size());
}

TEST_F(ParamFileTest, VerifyingKeyFiles) {
  std::string vk_path = (dir_ / "small.vk").string();
  write_verifying_key(params_.vk, vk_path);
  EXPECT_EQ(read_verifying_key(vk_path), params_.vk);
  // The .vk is a prefix of the parameters file.
  auto vk_bytes = test::read_file(vk_path);
  EXPECT_TRUE(std::equal(vk_bytes.begin(), vk_bytes.end(), bytes_.begin()));
  EXPECT_EQ(read_verifying_key(path_), params_.vk);
  EXPECT_FALSE(ParameterFile::open(vk_path).has_proving_key());
  EXPECT_NE(error_of(vk_path).find("only a verifying key"), std::string::npos);
}

TEST_F(ParamFileTest, StructuralErrors) {
  EXPECT_NE(error_of((dir_ / "missing").string()).find("cannot open"), std::string::npos);
  EXPECT_NE(error_of(write_bytes({}, "empty")).find("truncated"), std::string::npos);
  // Truncations everywhere: a clear error, never a crash.
  for (size_t cut : {size_t(10), size_t(600), bytes_.size() / 2, bytes_.size() - 1}) {
    std::vector<uint8_t> t(bytes_.begin(), bytes_.begin() + cut);
    std::string err = error_of(write_bytes(t, "cut"));
    EXPECT_FALSE(err.empty()) << cut;
    EXPECT_TRUE(err.find("truncated") != std::string::npos || err.find("claims") != std::string::npos ||
                err.find("unexpected") != std::string::npos || err.find("only a verifying key") != std::string::npos)
        << cut << ": " << err;
  }
  auto longer = bytes_;
  longer.push_back(0);
  EXPECT_NE(error_of(write_bytes(longer, "long")).find("1 unexpected bytes"), std::string::npos);
  // An absurd count in the h header.
  const size_t h_header = ParameterFile::open(path_).h().offset - 4;
  auto huge = bytes_;
  huge[h_header] = 0xff;
  std::string err = error_of(write_bytes(huge, "huge"));
  EXPECT_NE(err.find("section h claims"), std::string::npos) << err;
}

TEST_F(ParamFileTest, PointErrorsNameSectionAndIndex) {
  auto f = ParameterFile::open(path_);
  // Off the curve: change the last byte of l[1]'s y.
  auto bad = bytes_;
  bad[f.l().offset + 96 + 95] ^= 1;
  std::string err = error_of(write_bytes(bad, "offcurve"));
  EXPECT_NE(err.find("l point 1: point is not on the curve"), std::string::npos) << err;
  // A coordinate >= p.
  bad = bytes_;
  std::fill(bad.begin() + long(f.a().offset), bad.begin() + long(f.a().offset) + 48, 0x1f);
  err = error_of(write_bytes(bad, "range"), ReadMode::kUnchecked);
  EXPECT_NE(err.find("a point 0: coordinate is not below the field modulus"), std::string::npos) << err;
  // The point at infinity, rejected in both modes.
  bad = bytes_;
  std::fill(bad.begin() + long(f.b_g2().offset), bad.begin() + long(f.b_g2().offset) + 192, 0);
  bad[f.b_g2().offset] = 0x40;
  for (ReadMode mode : {ReadMode::kChecked, ReadMode::kUnchecked}) {
    err = error_of(write_bytes(bad, "inf"), mode);
    EXPECT_NE(err.find("b_g2 point 0 is the point at infinity"), std::string::npos) << err;
  }
  // On the curve but outside the subgroup: the checked mode rejects it, the unchecked accepts.
  Fp x = Fp::from_u64(1), y;
  while (!(x.sqr() * x + ec::G1Curve::b()).sqrt(y)) x += Fp::one();
  ec::G1Affine outside{x, y};
  ASSERT_FALSE(ec::g1_is_in_subgroup(outside));
  bad = bytes_;
  ec::g1_encode_uncompressed(outside, std::span<uint8_t, 96>(bad.data() + f.h().offset + 96, 96));
  std::string path = write_bytes(bad, "subgroup");
  err = error_of(path);
  EXPECT_NE(err.find("h point 1: point is not in the prime-order subgroup"), std::string::npos) << err;
  // Unchecked, our file's digest trailer still refuses it; a file without one (Filecoin's
  // published files, checked against parameters.json instead) is read as it is.
  err = error_of(path, ReadMode::kUnchecked);
  EXPECT_NE(err.find("corrupt"), std::string::npos) << err;
  bad.resize(bad.size() - kParamDigestTrailerBytes);
  EXPECT_EQ(error_of(write_bytes(bad, "subgroup-untrailed"), ReadMode::kUnchecked), "");
}

// A chain of n squarings: files of a few dozen KiB, read in several 4 KiB chunks.
struct ChainCircuit : r1cs::Circuit {
  size_t n;
  explicit ChainCircuit(size_t n) : n(n) {}
  void synthesize(ConstraintSystem& cs) const override {
    Fr value = Fr::from_u64(3);
    Variable x = cs.alloc_input("x", value);
    Variable prev = x;
    for (size_t i = 0; i < n; i++) {
      value = value * value;
      Variable next = cs.alloc("v", value);
      cs.enforce("v = prev^2", prev, prev, next);
      prev = next;
    }
  }
};

class ParamFileLoadTest : public ParamFileTest {
 protected:
  void SetUp() override {
    ParamFileTest::SetUp();
    auto rng = test::make_rng();
    chain_ = generate_parameters(ChainCircuit(300),
                                 {Fr::random(rng), Fr::random(rng), Fr::random(rng), Fr::random(rng), Fr::random(rng)});
    chain_path_ = (dir_ / "chain.params").string();
    write_parameters(chain_, chain_path_, 4096);
    ASSERT_GT(std::filesystem::file_size(chain_path_), size_t(8) * 4096);
  }
  std::string load_error(const std::function<void(ParameterFile&)>& setup, ReadMode mode = ReadMode::kUnchecked) {
    try {
      ParameterFile f = ParameterFile::open(chain_path_);
      f.set_chunk_bytes(4096);
      setup(f);
      f.decode(mode);
    } catch (const std::exception& e) {
      return e.what();
    }
    return "";
  }
  Parameters chain_;
  std::string chain_path_;
};

TEST_F(ParamFileLoadTest, ChunkedReadsDecodeTheSameParameters) {
  for (size_t chunk : {size_t(4096), size_t(3 * 4096), size_t(64) << 20}) {
    ParameterFile f = ParameterFile::open(chain_path_);
    EXPECT_TRUE(f.has_digest());
    f.set_chunk_bytes(chunk);
    size_t reads = 0;
    f.set_read_hook([&](size_t) { reads++; });
    for (ReadMode mode : {ReadMode::kChecked, ReadMode::kUnchecked}) EXPECT_EQ(f.decode(mode), chain_) << chunk;
    EXPECT_EQ(f.decode_verifying_key(ReadMode::kChecked), chain_.vk);
    if (chunk == 4096) {
      EXPECT_GT(reads, 16u);
    }
  }
}

// Decoding from a MAP_SHARED mapping died of SIGBUS when the file was truncated (`cp` over it)
// while it loaded; read into our own buffers, it is an error naming the file.
TEST_F(ParamFileLoadTest, TruncatedWhileLoadingIsAnErrorNotASignal) {
  for (size_t at_read : {size_t(1), size_t(5)}) {
    size_t reads = 0;
    std::string err = load_error([&](ParameterFile& f) {
      f.set_read_hook([&, at_read](size_t offset) {
        if (reads++ == at_read) std::filesystem::resize_file(chain_path_, offset / 2);
      });
    });
    EXPECT_NE(err.find(chain_path_ + ": changed or truncated while loading"), std::string::npos) << err;
    write_parameters(chain_, chain_path_, 4096);
  }
  // Rewritten in place with the same size: the modification time tells.
  std::string err = load_error([&](ParameterFile& f) {
    f.set_read_hook([&](size_t offset) {
      if (offset == 4096) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));  // a later modification time
        std::fstream(chain_path_, std::ios::binary | std::ios::in | std::ios::out).put('\x7f');
      }
    });
  });
  EXPECT_NE(err.find(chain_path_ + ": changed or truncated while loading"), std::string::npos) << err;
}

// One flipped bit in h made every proof fail verification ("a prover bug"), and with verification
// off gave proofs of points off the subgroup: the digest trailer refuses the file when loaded.
TEST_F(ParamFileLoadTest, ACorruptFileIsRefusedNamingBothDigests) {
  auto bytes = test::read_file(chain_path_);
  const ParameterFile f = ParameterFile::open(chain_path_);
  ASSERT_GT(f.h().count, 200u);
  bytes[f.h().offset + 197 * 96 + 47] ^= 1;  // the low bit of h[197].x: still a field element
  std::string path = write_bytes(bytes, "flipped.params");
  for (ReadMode mode : {ReadMode::kUnchecked, ReadMode::kChecked}) {
    std::string err = error_of(path, mode);
    EXPECT_NE(err.find(path + ": "), std::string::npos) << err;
    if (mode == ReadMode::kUnchecked) {
      EXPECT_NE(err.find("corrupt: its contents digest to "), std::string::npos) << err;
      EXPECT_NE(err.find("but it was written with digest "), std::string::npos) << err;
    }
  }
  // A damaged trailer is refused too.
  bytes = test::read_file(chain_path_);
  bytes.back() ^= 1;
  EXPECT_NE(error_of(write_bytes(bytes, "trailer.params"), ReadMode::kUnchecked).find("corrupt"), std::string::npos);
}

}  // namespace
}  // namespace cuzk::groth16

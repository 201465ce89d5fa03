#include "interop/snarkjs/zkey_file.hpp"

#include <atomic>
#include <bit>
#include <tbb/parallel_for.h>

namespace cuzk::snarkjs {
namespace {

constexpr uint32_t kGroth16Protocol = 1;
constexpr size_t kCoefficientBytes = 12 + kFrBytes;

// Decodes count points of one section in parallel; the first bad one (lowest index) is reported.
template <class Point, class Decode>
std::vector<Point> read_points(SectionReader& in, size_t count, size_t point_bytes, const char* name, Decode decode) {
  in.expect_remaining(uint64_t(count) * point_bytes, std::to_string(count) + " " + name + " points");
  const uint64_t base = in.offset();
  const std::span<const uint8_t> bytes = in.bytes(count * point_bytes, name);
  std::vector<Point> points(count);
  std::atomic<size_t> first_bad{count};
  tbb::parallel_for(tbb::blocked_range<size_t>(0, count, 1024), [&](const tbb::blocked_range<size_t>& r) {
    for (size_t i = r.begin(); i < r.end(); i++) {
      if (decode(bytes.data() + i * point_bytes, points[i])) {
        size_t seen = first_bad.load();
        while (i < seen && !first_bad.compare_exchange_weak(seen, i)) {
        }
        return;
      }
    }
  });
  if (const size_t bad = first_bad.load(); bad < count) {
    Point p;
    in.fail_at(base + bad * point_bytes, std::string(name) + " point " + std::to_string(bad),
               decode(bytes.data() + bad * point_bytes, p));
  }
  return points;
}

std::vector<G1Affine> read_g1_points(SectionReader& in, size_t count, const char* name, PointCheck check) {
  return read_points<G1Affine>(in, count, kG1Bytes, name,
                               [check](const uint8_t* b, G1Affine& p) { return decode_g1(b, check, p); });
}

std::vector<G2Affine> read_g2_points(SectionReader& in, size_t count, const char* name, PointCheck check) {
  return read_points<G2Affine>(in, count, kG2Bytes, name,
                               [check](const uint8_t* b, G2Affine& p) { return decode_g2(b, check, p); });
}

}  // namespace

unsigned Zkey::log_domain_size() const { return unsigned(std::countr_zero(domain_size)); }

Zkey read_zkey(const std::string& path, const ZkeyReadOptions& options) {
  return parse_zkey(BinaryFile::read(path, "zkey", 2), options);
}

Zkey parse_zkey(const BinaryFile& file, const ZkeyReadOptions& options) {
  const PointCheck bulk = options.check_subgroup ? PointCheck::kOnCurveAndSubgroup : PointCheck::kOnCurve;
  Zkey z;
  {
    SectionReader p = file.reader(1, "protocol");
    const uint32_t protocol = p.u32("protocol id");
    if (protocol != kGroth16Protocol) {
      p.fail_at(p.offset() - 4, "protocol id",
                "protocol " + std::to_string(protocol) +
                    " is not Groth16 (1); PLONK (2) and FFLONK (10) keys are "
                    "not supported");
    }
    p.expect_end();
  }
  {
    SectionReader h = file.reader(2, "Groth16 header");
    expect_prime(h, Fp::modulus().limb, "base field q", "base field prime");
    expect_prime(h, Fr::modulus().limb, "scalar field r", "scalar field prime");
    z.vars = h.u32("signal count");
    z.publics = h.u32("public signal count");
    const uint64_t domain_at = h.offset();
    z.domain_size = h.u32("domain size");
    if (z.vars == 0 || uint64_t(z.publics) + 1 > z.vars) {
      h.fail_at(domain_at - 8, "signal counts",
                std::to_string(z.publics) + " public signals and the 1 wire do not fit " + std::to_string(z.vars) +
                    " signals");
    }
    if (!std::has_single_bit(z.domain_size) || z.domain_size < 2) {
      h.fail_at(domain_at, "domain size", std::to_string(z.domain_size) + " is not a power of two above 1");
    }
    z.alpha_g1 = read_g1(h, "alpha_1");
    z.beta_g1 = read_g1(h, "beta_1");
    z.beta_g2 = read_g2(h, "beta_2");
    z.gamma_g2 = read_g2(h, "gamma_2");
    z.delta_g1 = read_g1(h, "delta_1");
    z.delta_g2 = read_g2(h, "delta_2");
    h.expect_end();
  }
  {
    SectionReader in = file.reader(3, "IC");
    z.ic = read_g1_points(in, size_t(z.publics) + 1, "IC", PointCheck::kOnCurveAndSubgroup);
  }
  {
    SectionReader in = file.reader(4, "coefficients");
    const uint32_t count = in.u32("coefficient count");
    in.expect_remaining(uint64_t(count) * kCoefficientBytes, std::to_string(count) + " coefficients of 44 bytes");
    const uint64_t base = in.offset();
    const std::span<const uint8_t> bytes = in.bytes(size_t(count) * kCoefficientBytes, "coefficients");
    z.coefficients.resize(count);
    auto u32_at = [&](size_t at) {
      return uint32_t(bytes[at]) | uint32_t(bytes[at + 1]) << 8 | uint32_t(bytes[at + 2]) << 16 |
             uint32_t(bytes[at + 3]) << 24;
    };
    for (uint32_t i = 0; i < count; i++) {
      const size_t at = size_t(i) * kCoefficientBytes;
      ZkeyCoefficient& c = z.coefficients[i];
      c.matrix = u32_at(at);
      c.constraint = u32_at(at + 4);
      c.signal = u32_at(at + 8);
      bool ok = false;
      c.value = decode_zkey_coefficient(bytes.data() + at + 12, ok);
      const std::string field = "coefficient " + std::to_string(i);
      if (c.matrix > 1) in.fail_at(base + at, field, "matrix " + std::to_string(c.matrix) + " is not 0 (A) or 1 (B)");
      if (c.constraint >= z.domain_size) {
        in.fail_at(base + at + 4, field,
                   "constraint " + std::to_string(c.constraint) + " is outside the domain of " +
                       std::to_string(z.domain_size));
      }
      if (c.signal >= z.vars) {
        in.fail_at(base + at + 8, field,
                   "signal " + std::to_string(c.signal) + " is out of range (" + std::to_string(z.vars) + " signals)");
      }
      if (!ok) in.fail_at(base + at + 12, field, "value is not below the scalar field modulus r");
    }
  }
  {
    SectionReader in = file.reader(5, "A points");
    z.a = read_g1_points(in, z.vars, "A", bulk);
  }
  {
    SectionReader in = file.reader(6, "B1 points");
    z.b_g1 = read_g1_points(in, z.vars, "B1", bulk);
  }
  {
    SectionReader in = file.reader(7, "B2 points");
    z.b_g2 = read_g2_points(in, z.vars, "B2", bulk);
  }
  {
    SectionReader in = file.reader(8, "C points");
    z.c = read_g1_points(in, size_t(z.vars) - z.publics - 1, "C", bulk);
  }
  {
    SectionReader in = file.reader(9, "H points");
    z.h = read_g1_points(in, z.domain_size, "H", bulk);
  }
  return z;
}

}  // namespace cuzk::snarkjs

#include "interop/snarkjs/zkey_file.hpp"

#include <atomic>
#include <bit>
#include <stdexcept>
#include <tbb/parallel_for.h>

#include "interop/snarkjs/checked_keys.hpp"

namespace cuzk::snarkjs {
namespace {

constexpr uint32_t kGroth16Protocol = 1;
constexpr size_t kCoefficientBytes = 12 + kFrBytes;
constexpr uint32_t kZkeyVersion = 1;  // what zkey_new.js writes
constexpr uint32_t kZkeySections = 10;
constexpr size_t kCircuitHashBytes = 64;  // blake2b-512, section 10's first field

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

Zkey read_zkey(const std::string& path, const ZkeyReadOptions& options, ZkeyReadReport* report) {
  const BinaryFile file = BinaryFile::read(path, "zkey", 2);
  if (options.checked_keys_dir.empty() || !options.check_subgroup) return parse_zkey(file, options);
  const CheckedKeys memo(options.checked_keys_dir);
  ZkeyReadReport r;
  r.sha256 = CheckedKeys::digest(file.bytes());
  r.remembered = memo.contains(r.sha256);
  ZkeyReadOptions parse_options = options;
  parse_options.check_subgroup = !r.remembered;
  Zkey z = parse_zkey(file, parse_options);
  if (!r.remembered) r.not_recorded = memo.remember(r.sha256, file.bytes().size());
  if (report) *report = std::move(r);
  return z;
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

namespace {

template <class Point, class Encode>
void write_points(BinaryFileWriter& out, uint32_t section, const std::vector<Point>& points, size_t point_bytes,
                  Encode encode) {
  out.begin_section(section);
  const std::span<uint8_t> room = out.reserve(points.size() * point_bytes);
  tbb::parallel_for(tbb::blocked_range<size_t>(0, points.size(), 4096), [&](const tbb::blocked_range<size_t>& r) {
    for (size_t i = r.begin(); i < r.end(); i++) encode(points[i], room.data() + i * point_bytes);
  });
  out.end_section();
}

void write_g1_points(BinaryFileWriter& out, uint32_t section, const std::vector<G1Affine>& points) {
  write_points(out, section, points, kG1Bytes, [](const G1Affine& p, uint8_t* b) { encode_g1(p, b); });
}

}  // namespace

std::vector<uint8_t> serialize_zkey(const Zkey& z) {
  if (z.a.size() != z.vars || z.b_g1.size() != z.vars || z.b_g2.size() != z.vars ||
      z.ic.size() != size_t(z.publics) + 1 || z.c.size() + z.publics + 1 != z.vars || z.h.size() != z.domain_size) {
    throw std::invalid_argument("serialize_zkey: the key's point counts disagree with its header");
  }
  BinaryFileWriter out("zkey", kZkeyVersion, kZkeySections);
  out.begin_section(1);
  out.u32(kGroth16Protocol);
  out.end_section();

  out.begin_section(2);
  write_prime(out, Fp::modulus().limb);
  write_prime(out, Fr::modulus().limb);
  out.u32(z.vars);
  out.u32(z.publics);
  out.u32(z.domain_size);
  uint8_t g1[kG1Bytes], g2[kG2Bytes];
  for (const G1Affine* p : {&z.alpha_g1, &z.beta_g1}) {
    encode_g1(*p, g1);
    out.bytes(g1);
  }
  for (const G2Affine* p : {&z.beta_g2, &z.gamma_g2}) {
    encode_g2(*p, g2);
    out.bytes(g2);
  }
  encode_g1(z.delta_g1, g1);
  out.bytes(g1);
  encode_g2(z.delta_g2, g2);
  out.bytes(g2);
  out.end_section();

  write_g1_points(out, 3, z.ic);

  out.begin_section(4);
  out.u32(uint32_t(z.coefficients.size()));
  for (const ZkeyCoefficient& c : z.coefficients) {
    out.u32(c.matrix);
    out.u32(c.constraint);
    out.u32(c.signal);
    uint8_t v[kFrBytes];
    encode_zkey_coefficient(c.value, v);
    out.bytes(v);
  }
  out.end_section();

  write_g1_points(out, 5, z.a);
  write_g1_points(out, 6, z.b_g1);
  write_points(out, 7, z.b_g2, kG2Bytes, [](const G2Affine& p, uint8_t* b) { encode_g2(p, b); });
  write_g1_points(out, 8, z.c);
  write_g1_points(out, 9, z.h);

  out.begin_section(10);
  const uint8_t no_hash[kCircuitHashBytes] = {};
  out.bytes(no_hash);
  out.u32(0);  // contributions
  out.end_section();
  return std::move(out).finish();
}

void write_zkey(const Zkey& zkey, const std::string& path) { write_binary_file(path, serialize_zkey(zkey), "zkey"); }

}  // namespace cuzk::snarkjs

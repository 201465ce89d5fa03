#include "interop/snarkjs/encoding.hpp"

#include <algorithm>
#include <vector>

namespace cuzk::snarkjs {
namespace {

template <size_t N>
ff::BigInt<N> load_limbs(const uint8_t* bytes) {
  ff::BigInt<N> r = ff::BigInt<N>::zero();
  for (size_t i = 0; i < 8 * N; i++) r.limb[i / 8] |= uint64_t(bytes[i]) << (8 * (i % 8));
  return r;
}

template <size_t N>
void store_limbs(const ff::BigInt<N>& v, uint8_t* out) {
  for (size_t i = 0; i < 8 * N; i++) out[i] = uint8_t(v.limb[i / 8] >> (8 * (i % 8)));
}

template <size_t N>
bool below(const ff::BigInt<N>& a, const ff::BigInt<N>& m) {
  for (size_t i = N; i-- > 0;) {
    if (a.limb[i] != m.limb[i]) return a.limb[i] < m.limb[i];
  }
  return false;
}

}  // namespace

std::string to_decimal(std::span<const uint64_t> limbs) {
  std::vector<uint64_t> v(limbs.begin(), limbs.end());
  std::string digits;
  auto is_zero = [&] { return std::all_of(v.begin(), v.end(), [](uint64_t w) { return w == 0; }); };
  while (!is_zero()) {
    unsigned __int128 rem = 0;
    for (size_t i = v.size(); i-- > 0;) {
      const unsigned __int128 cur = (rem << 64) | v[i];
      v[i] = uint64_t(cur / 10);
      rem = cur % 10;
    }
    digits += char('0' + int(rem));
  }
  if (digits.empty()) return "0";
  std::reverse(digits.begin(), digits.end());
  return digits;
}

bool from_decimal(std::string_view text, std::span<uint64_t> limbs) {
  if (text.empty() || text.size() > 200) return false;
  std::fill(limbs.begin(), limbs.end(), 0);
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    unsigned __int128 carry = uint64_t(c - '0');
    for (uint64_t& w : limbs) {
      const unsigned __int128 cur = (unsigned __int128)w * 10 + carry;
      w = uint64_t(cur);
      carry = cur >> 64;
    }
    if (carry) return false;
  }
  return true;
}

std::string to_decimal(const Fr& v) { return to_decimal(std::span<const uint64_t>(v.to_canonical().limb)); }
std::string to_decimal(const Fp& v) { return to_decimal(std::span<const uint64_t>(v.to_canonical().limb)); }

void expect_prime(SectionReader& in, std::span<const uint64_t> expected, std::string_view expected_name,
                  std::string_view field) {
  const uint64_t at = in.offset();
  const uint32_t n8 = in.u32(std::string(field) + " byte width");
  if (n8 == 0 || n8 % 8 != 0 || n8 > 64) in.fail_at(at, field, "byte width " + std::to_string(n8) + " is not valid");
  const std::span<const uint8_t> bytes = in.bytes(n8, field);
  std::vector<uint64_t> prime(n8 / 8, 0);
  for (size_t i = 0; i < n8; i++) prime[i / 8] |= uint64_t(bytes[i]) << (8 * (i % 8));
  if (n8 != 8 * expected.size() || !std::equal(prime.begin(), prime.end(), expected.begin())) {
    in.fail_at(at, field,
               "the prime is " + to_decimal(prime) + ", not BLS12-381's " + std::string(expected_name) +
                   " (cuzk supports only bls12381 files: compile with `circom --prime bls12381` and set up with a "
                   "bls12381 powers of tau)");
  }
}

Fr read_canonical_fr(SectionReader& in, std::string_view field) {
  const uint64_t at = in.offset();
  Fr v;
  if (!Fr::from_bytes_le(in.bytes(kFrBytes, field).data(), v)) {
    in.fail_at(at, field, "value is not below the BLS12-381 scalar field modulus r");
  }
  return v;
}

Fr decode_zkey_coefficient(const uint8_t* bytes, bool& ok) {
  const ff::BigInt<4> stored = load_limbs<4>(bytes);
  ok = below(stored, Fr::modulus());
  // stored = v R^2: read as a Montgomery representation it is v R; one more factor R^-1 (the
  // Montgomery form of R^-1 is the integer 1) gives v.
  return Fr::from_montgomery(stored) * Fr::from_montgomery(ff::BigInt<4>::from_u64(1));
}

void encode_zkey_coefficient(const Fr& v, uint8_t* out) {
  // v R as a field element has the Montgomery representation v R^2 mod r.
  static const Fr r_mod_r = Fr::from_u64(2).pow(256);
  store_limbs((v * r_mod_r).mont, out);
}

void write_prime(BinaryFileWriter& out, std::span<const uint64_t> prime) {
  out.u32(uint32_t(8 * prime.size()));
  for (uint64_t limb : prime) {
    uint8_t b[8];
    for (int i = 0; i < 8; i++) b[i] = uint8_t(limb >> (8 * i));
    out.bytes(b);
  }
}

bool decode_fp_montgomery(const uint8_t* bytes, Fp& out) {
  const ff::BigInt<6> stored = load_limbs<6>(bytes);
  if (!below(stored, Fp::modulus())) return false;
  out = Fp::from_montgomery(stored);
  return true;
}

void encode_fp_montgomery(const Fp& v, uint8_t* out) { store_limbs(v.mont, out); }

const char* decode_g1(const uint8_t* bytes, PointCheck check, G1Affine& out) {
  if (!decode_fp_montgomery(bytes, out.x) || !decode_fp_montgomery(bytes + kFpBytes, out.y)) {
    return "a coordinate is not below the base field modulus q";
  }
  if (out.is_infinity()) return nullptr;
  if (!out.is_on_curve()) return "the G1 point is not on the curve";
  if (check == PointCheck::kOnCurveAndSubgroup && !ec::g1_is_in_subgroup(out)) {
    return "the G1 point is not in the prime-order subgroup";
  }
  return nullptr;
}

const char* decode_g2(const uint8_t* bytes, PointCheck check, G2Affine& out) {
  if (!decode_fp_montgomery(bytes, out.x.c0) || !decode_fp_montgomery(bytes + kFpBytes, out.x.c1) ||
      !decode_fp_montgomery(bytes + 2 * kFpBytes, out.y.c0) || !decode_fp_montgomery(bytes + 3 * kFpBytes, out.y.c1)) {
    return "a coordinate is not below the base field modulus q";
  }
  if (out.is_infinity()) return nullptr;
  if (!out.is_on_curve()) return "the G2 point is not on the curve";
  if (check == PointCheck::kOnCurveAndSubgroup && !ec::g2_is_in_subgroup(out)) {
    return "the G2 point is not in the prime-order subgroup";
  }
  return nullptr;
}

G1Affine read_g1(SectionReader& in, std::string_view field, PointCheck check) {
  const uint64_t at = in.offset();
  G1Affine p;
  if (const char* why = decode_g1(in.bytes(kG1Bytes, field).data(), check, p)) in.fail_at(at, field, why);
  return p;
}

G2Affine read_g2(SectionReader& in, std::string_view field, PointCheck check) {
  const uint64_t at = in.offset();
  G2Affine p;
  if (const char* why = decode_g2(in.bytes(kG2Bytes, field).data(), check, p)) in.fail_at(at, field, why);
  return p;
}

void encode_g1(const G1Affine& p, uint8_t* out) {
  encode_fp_montgomery(p.x, out);
  encode_fp_montgomery(p.y, out + kFpBytes);
}

void encode_g2(const G2Affine& p, uint8_t* out) {
  encode_fp_montgomery(p.x.c0, out);
  encode_fp_montgomery(p.x.c1, out + kFpBytes);
  encode_fp_montgomery(p.y.c0, out + 2 * kFpBytes);
  encode_fp_montgomery(p.y.c1, out + 3 * kFpBytes);
}

}  // namespace cuzk::snarkjs

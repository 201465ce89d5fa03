#include "interop/snarkjs/json_io.hpp"

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "interop/snarkjs/binary_file.hpp"
#include "interop/snarkjs/encoding.hpp"
#include "interop/snarkjs/zkey_file.hpp"
#include "pairing/pairing.hpp"

namespace cuzk::snarkjs {
namespace {

using Json = nlohmann::ordered_json;

constexpr const char* kCurveName = "bls12381";

Json fp2_json(const Fp2& v) { return Json::array({to_decimal(v.c0), to_decimal(v.c1)}); }

Json g1_json(const G1Affine& p) {
  if (p.is_infinity()) return Json::array({"0", "1", "0"});
  return Json::array({to_decimal(p.x), to_decimal(p.y), "1"});
}

Json g2_json(const G2Affine& p) {
  if (p.is_infinity()) return Json::array({Json::array({"0", "0"}), Json::array({"1", "0"}), Json::array({"0", "0"})});
  return Json::array({fp2_json(p.x), fp2_json(p.y), Json::array({"1", "0"})});
}

Json fp12_json(const ff::Fp12& v) {
  auto fp6 = [](const ff::Fp6& w) { return Json::array({fp2_json(w.c0), fp2_json(w.c1), fp2_json(w.c2)}); };
  return Json::array({fp6(v.c0), fp6(v.c1)});
}

// Reading: every error names the document and the JSON path of the bad value.
class Reader {
 public:
  // expected_object: whether the document must be an object (else an array).
  Reader(std::string_view text, const std::string& name, bool expected_object) : name_(name) {
    try {
      doc_ = Json::parse(text);
    } catch (const Json::parse_error& e) {
      throw FormatError(name_ + ": not valid JSON at byte offset " + std::to_string(e.byte) + ": " + e.what());
    } catch (const Json::exception& e) {
      // The parser's other refusals (a number beyond double's range: out_of_range 406).
      throw FormatError(name_ + ": not valid JSON: " + e.what());
    }
    if (expected_object && !doc_.is_object()) fail("", "expected a JSON object");
    if (!expected_object && !doc_.is_array()) fail("", "expected a JSON array of decimal strings");
  }
  const Json& doc() const { return doc_; }

  [[noreturn]] void fail(const std::string& path, const std::string& detail) const {
    throw FormatError(name_ + ": " + (path.empty() ? "document" : path) + ": " + detail);
  }

  const Json& member(const Json& object, const char* key, const std::string& path) const {
    auto it = object.find(key);
    if (it == object.end()) fail(path + "." + key, "missing");
    return *it;
  }

  const Json& element(const Json& array, size_t i, const std::string& path) const {
    if (!array.is_array()) fail(path, "expected an array, found " + std::string(array.type_name()));
    if (i >= array.size()) fail(path, "expected at least " + std::to_string(i + 1) + " elements");
    return array[i];
  }

  // A decimal string (or a non-negative JSON integer) below the modulus of F.
  template <class F>
  F number(const Json& v, const std::string& path) const {
    std::string text;
    if (v.is_string()) {
      text = v.get<std::string>();
    } else if (v.is_number_unsigned()) {
      text = std::to_string(v.get<uint64_t>());
    } else {
      fail(path, "expected a decimal string, found " + std::string(v.type_name()));
    }
    typename F::Limbs limbs;
    F out;
    if (!from_decimal(text, limbs.limb) || !F::from_limbs_checked(limbs, out)) {
      fail(path, "\"" + text.substr(0, 100) + "\" is not a decimal number below the field modulus");
    }
    return out;
  }

  Fp2 fp2(const Json& v, const std::string& path) const {
    if (!v.is_array() || v.size() != 2) fail(path, "expected [c0, c1]");
    return Fp2{number<Fp>(v[0], path + "[0]"), number<Fp>(v[1], path + "[1]")};
  }

  template <class Curve, class ParseField>
  ec::AffinePoint<Curve> point(const Json& v, const std::string& path, ParseField parse) const {
    if (!v.is_array() || (v.size() != 3 && v.size() != 2)) fail(path, "expected a point [x, y, z]");
    using Field = typename Curve::Field;
    const Field x = parse(v[0], path + "[0]"), y = parse(v[1], path + "[1]");
    const Field z = v.size() == 3 ? parse(v[2], path + "[2]") : Field::one();
    if (z.is_zero()) return ec::AffinePoint<Curve>::infinity();
    const ec::JacobianPoint<Curve> j{x, y, z};
    if (!j.is_on_curve()) fail(path, "the point is not on the curve");
    return j.to_affine();
  }

  G1Affine g1(const Json& v, const std::string& path) const {
    G1Affine p =
        point<ec::G1Curve>(v, path, [this](const Json& e, const std::string& at) { return number<Fp>(e, at); });
    if (!p.is_infinity() && !ec::g1_is_in_subgroup(p)) fail(path, "the G1 point is not in the prime-order subgroup");
    return p;
  }

  G2Affine g2(const Json& v, const std::string& path) const {
    G2Affine p = point<ec::G2Curve>(v, path, [this](const Json& e, const std::string& at) { return fp2(e, at); });
    if (!p.is_infinity() && !ec::g2_is_in_subgroup(p)) fail(path, "the G2 point is not in the prime-order subgroup");
    return p;
  }

  // protocol and curve, when present, must be Groth16 over bls12381.
  void expect_groth16_bls12381(bool required) const {
    for (const auto& [key, expected] : {std::pair{"protocol", "groth16"}, std::pair{"curve", kCurveName}}) {
      auto it = doc_.find(key);
      if (it == doc_.end()) {
        if (required) fail(std::string(".") + key, "missing (expected \"" + std::string(expected) + "\")");
        continue;
      }
      if (!it->is_string() || it->get<std::string>() != expected) {
        fail(std::string(".") + key, "expected \"" + std::string(expected) + "\", found " + it->dump() +
                                         (std::string(key) == "curve" ? " (cuzk supports only bls12381)" : ""));
      }
    }
  }

 private:
  std::string name_;
  Json doc_;
};

}  // namespace

VerifyingKey verifying_key_from_zkey(const Zkey& zkey) {
  return VerifyingKey{zkey.alpha_g1, zkey.beta_g2, zkey.gamma_g2, zkey.delta_g2, zkey.ic};
}

std::string proof_to_json(const Proof& proof) {
  Json j;
  j["pi_a"] = g1_json(proof.a);
  j["pi_b"] = g2_json(proof.b);
  j["pi_c"] = g1_json(proof.c);
  j["protocol"] = "groth16";
  j["curve"] = kCurveName;
  return j.dump(1);
}

std::string public_signals_to_json(std::span<const ff::Fr> signals) {
  Json j = Json::array();
  for (const Fr& v : signals) j.push_back(to_decimal(v));
  return j.dump(1);
}

std::string verifying_key_to_json(const VerifyingKey& vk) {
  Json j;
  j["protocol"] = "groth16";
  j["curve"] = kCurveName;
  j["nPublic"] = vk.ic.size() - 1;
  j["vk_alpha_1"] = g1_json(vk.alpha_g1);
  j["vk_beta_2"] = g2_json(vk.beta_g2);
  j["vk_gamma_2"] = g2_json(vk.gamma_g2);
  j["vk_delta_2"] = g2_json(vk.delta_g2);
  // ffjavascript's final exponentiation gives the cube of the reduced pairing (its hard part is
  // 3 (p^4 - p^2 + 1) / r; checked against snarkjs' export in the tests): written as snarkjs
  // writes it. No verifier reads this value.
  const ff::Fp12 alpha_beta = pairing::ate_pairing(vk.alpha_g1, vk.beta_g2);
  j["vk_alphabeta_12"] = fp12_json(alpha_beta * alpha_beta * alpha_beta);
  Json ic = Json::array();
  for (const G1Affine& p : vk.ic) ic.push_back(g1_json(p));
  j["IC"] = ic;
  return j.dump(1);
}

Proof proof_from_json(std::string_view text, const std::string& name) {
  Reader in(text, name, true);
  in.expect_groth16_bls12381(false);
  const Json& d = in.doc();
  return Proof{in.g1(in.member(d, "pi_a", ""), ".pi_a"), in.g2(in.member(d, "pi_b", ""), ".pi_b"),
               in.g1(in.member(d, "pi_c", ""), ".pi_c")};
}

std::vector<ff::Fr> public_signals_from_json(std::string_view text, const std::string& name) {
  Reader in(text, name, false);
  std::vector<ff::Fr> out;
  for (size_t i = 0; i < in.doc().size(); i++) {
    std::string path = "[";  // built step by step: GCC 12 warns falsely (-Wrestrict) on "[" + s + "]"
    path += std::to_string(i);
    path += ']';
    out.push_back(in.number<Fr>(in.doc()[i], path));
  }
  return out;
}

VerifyingKey verifying_key_from_json(std::string_view text, const std::string& name) {
  Reader in(text, name, true);
  in.expect_groth16_bls12381(true);
  const Json& d = in.doc();
  VerifyingKey vk;
  vk.alpha_g1 = in.g1(in.member(d, "vk_alpha_1", ""), ".vk_alpha_1");
  vk.beta_g2 = in.g2(in.member(d, "vk_beta_2", ""), ".vk_beta_2");
  vk.gamma_g2 = in.g2(in.member(d, "vk_gamma_2", ""), ".vk_gamma_2");
  vk.delta_g2 = in.g2(in.member(d, "vk_delta_2", ""), ".vk_delta_2");
  const Json& ic = in.member(d, "IC", "");
  if (!ic.is_array() || ic.empty()) in.fail(".IC", "expected a non-empty array of G1 points");
  for (size_t i = 0; i < ic.size(); i++) vk.ic.push_back(in.g1(ic[i], ".IC[" + std::to_string(i) + "]"));
  const Json& n = in.member(d, "nPublic", "");
  if (!n.is_number_unsigned() || n.get<uint64_t>() + 1 != vk.ic.size()) {
    in.fail(".nPublic", "expected " + std::to_string(vk.ic.size() - 1) + " (IC has " + std::to_string(vk.ic.size()) +
                            " points), found " + n.dump());
  }
  return vk;
}

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw FormatError(path + ": cannot open the file");
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void write_text_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;  // as snarkjs writes its documents: no newline at the end
  if (!out.flush()) throw FormatError(path + ": cannot write the file");
}

}  // namespace cuzk::snarkjs

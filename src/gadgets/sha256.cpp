#include "gadgets/sha256.hpp"

#include <optional>
#include <stdexcept>
#include <string>

namespace cuzk::gadgets {

namespace {

constexpr uint32_t kRoundConstants[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

constexpr uint32_t kIv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                             0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

// A word that is either known (computed) or a list of addends whose sum is deferred until
// the word is needed, so that several additions share one addmany (bellperson's Maybe).
struct Maybe {
  std::optional<UInt32> concrete;
  std::vector<UInt32> deferred;

  UInt32 compute(MultiEq& cs, const char* ns, std::span<const UInt32> others) const {
    if (concrete) return *concrete;
    std::vector<UInt32> v = deferred;
    v.insert(v.end(), others.begin(), others.end());
    r1cs::Namespace n(cs, ns);
    return UInt32::addmany(cs, v);
  }
};

UInt32 add2(MultiEq& cs, const char* ns, const UInt32& a, const UInt32& b) {
  r1cs::Namespace n(cs, ns);
  const UInt32 ops[2] = {a, b};
  return UInt32::addmany(cs, ops);
}

}  // namespace

std::vector<UInt32> sha256_iv() {
  std::vector<UInt32> iv;
  for (uint32_t v : kIv) iv.push_back(UInt32::constant(v));
  return iv;
}

std::vector<UInt32> sha256_compression_function(ConstraintSystem& outer, std::span<const Boolean> block,
                                                std::span<const UInt32> state) {
  if (block.size() != 512) throw std::invalid_argument("sha256 compression: the block must have 512 bits");
  if (state.size() != 8) throw std::invalid_argument("sha256 compression: the state must have 8 words");
  std::vector<UInt32> w;
  w.reserve(64);
  for (size_t i = 0; i < 16; i++) w.push_back(UInt32::from_bits_be(block.subspan(32 * i, 32)));

  MultiEq cs(outer);
  for (size_t i = 16; i < 64; i++) {
    r1cs::Namespace ns(cs, "w extension " + std::to_string(i));
    UInt32 s0 = w[i - 15].rotr(7);
    {
      r1cs::Namespace n(cs, "first xor for s0");
      s0 = s0.xor_(cs, w[i - 15].rotr(18));
    }
    {
      r1cs::Namespace n(cs, "second xor for s0");
      s0 = s0.xor_(cs, w[i - 15].shr(3));
    }
    UInt32 s1 = w[i - 2].rotr(17);
    {
      r1cs::Namespace n(cs, "first xor for s1");
      s1 = s1.xor_(cs, w[i - 2].rotr(19));
    }
    {
      r1cs::Namespace n(cs, "second xor for s1");
      s1 = s1.xor_(cs, w[i - 2].shr(10));
    }
    r1cs::Namespace n(cs, "computation of w[i]");
    const UInt32 ops[4] = {w[i - 16], s0, w[i - 7], s1};
    w.push_back(UInt32::addmany(cs, ops));
  }

  Maybe a{state[0], {}};
  UInt32 b = state[1], c = state[2], d = state[3];
  Maybe e{state[4], {}};
  UInt32 f = state[5], g = state[6], h = state[7];

  for (size_t i = 0; i < 64; i++) {
    r1cs::Namespace ns(cs, "compression round " + std::to_string(i));
    const UInt32 new_e = e.compute(cs, "deferred e computation", {});
    UInt32 s1 = new_e.rotr(6);
    {
      r1cs::Namespace n(cs, "first xor for s1");
      s1 = s1.xor_(cs, new_e.rotr(11));
    }
    {
      r1cs::Namespace n(cs, "second xor for s1");
      s1 = s1.xor_(cs, new_e.rotr(25));
    }
    UInt32 ch;
    {
      r1cs::Namespace n(cs, "ch");
      ch = UInt32::sha256_ch(cs, new_e, f, g);
    }
    std::vector<UInt32> temp1 = {h, s1, ch, UInt32::constant(kRoundConstants[i]), w[i]};

    const UInt32 new_a = a.compute(cs, "deferred a computation", {});
    UInt32 s0 = new_a.rotr(2);
    {
      r1cs::Namespace n(cs, "first xor for s0");
      s0 = s0.xor_(cs, new_a.rotr(13));
    }
    {
      r1cs::Namespace n(cs, "second xor for s0");
      s0 = s0.xor_(cs, new_a.rotr(22));
    }
    UInt32 maj;
    {
      r1cs::Namespace n(cs, "maj");
      maj = UInt32::sha256_maj(cs, new_a, b, c);
    }

    h = g;
    g = f;
    f = new_e;
    e = Maybe{std::nullopt, temp1};
    e.deferred.push_back(d);
    d = c;
    c = b;
    b = new_a;
    a = Maybe{std::nullopt, temp1};
    a.deferred.push_back(s0);
    a.deferred.push_back(maj);
  }

  std::vector<UInt32> out;
  out.reserve(8);
  out.push_back(a.compute(cs, "deferred h0 computation", std::span<const UInt32>(&state[0], 1)));
  out.push_back(add2(cs, "new h1", state[1], b));
  out.push_back(add2(cs, "new h2", state[2], c));
  out.push_back(add2(cs, "new h3", state[3], d));
  out.push_back(e.compute(cs, "deferred h4 computation", std::span<const UInt32>(&state[4], 1)));
  out.push_back(add2(cs, "new h5", state[5], f));
  out.push_back(add2(cs, "new h6", state[6], g));
  out.push_back(add2(cs, "new h7", state[7], h));
  cs.finish();
  return out;
}

namespace {
std::vector<Boolean> state_bits_be(const std::vector<UInt32>& state) {
  std::vector<Boolean> out;
  out.reserve(256);
  for (const UInt32& word : state) {
    auto bits = word.into_bits_be();
    out.insert(out.end(), bits.begin(), bits.end());
  }
  return out;
}
}  // namespace

std::vector<Boolean> sha256_block_no_padding(ConstraintSystem& cs, std::span<const Boolean> block) {
  if (block.size() != 512) throw std::invalid_argument("sha256_block_no_padding: the block must have 512 bits");
  const auto iv = sha256_iv();
  return state_bits_be(sha256_compression_function(cs, block, iv));
}

std::vector<Boolean> sha256(ConstraintSystem& cs, std::span<const Boolean> message) {
  if (message.size() % 8 != 0) throw std::invalid_argument("sha256: the message must be whole bytes");
  std::vector<Boolean> padded(message.begin(), message.end());
  const uint64_t len = message.size();
  padded.push_back(Boolean::constant(true));
  while ((padded.size() + 64) % 512 != 0) padded.push_back(Boolean::constant(false));
  for (int i = 63; i >= 0; i--) padded.push_back(Boolean::constant((len >> i) & 1));
  std::vector<UInt32> cur = sha256_iv();
  for (size_t i = 0; i < padded.size() / 512; i++) {
    r1cs::Namespace ns(cs, "block " + std::to_string(i));
    cur = sha256_compression_function(cs, std::span<const Boolean>(padded).subspan(512 * i, 512), cur);
  }
  return state_bits_be(cur);
}

// ---- native --------------------------------------------------------------------------------

namespace {
inline uint32_t rotr32(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }
}  // namespace

void sha256_compress_native(std::array<uint32_t, 8>& state, const uint8_t block[64]) {
  uint32_t w[64];
  for (int i = 0; i < 16; i++) {
    w[i] = uint32_t(block[4 * i]) << 24 | uint32_t(block[4 * i + 1]) << 16 | uint32_t(block[4 * i + 2]) << 8 |
           uint32_t(block[4 * i + 3]);
  }
  for (int i = 16; i < 64; i++) {
    const uint32_t s0 = rotr32(w[i - 15], 7) ^ rotr32(w[i - 15], 18) ^ (w[i - 15] >> 3);
    const uint32_t s1 = rotr32(w[i - 2], 17) ^ rotr32(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  uint32_t a = state[0], b = state[1], c = state[2], d = state[3], e = state[4], f = state[5], g = state[6],
           h = state[7];
  for (int i = 0; i < 64; i++) {
    const uint32_t S1 = rotr32(e, 6) ^ rotr32(e, 11) ^ rotr32(e, 25);
    const uint32_t ch = (e & f) ^ (~e & g);
    const uint32_t t1 = h + S1 + ch + kRoundConstants[i] + w[i];
    const uint32_t S0 = rotr32(a, 2) ^ rotr32(a, 13) ^ rotr32(a, 22);
    const uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
    const uint32_t t2 = S0 + maj;
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  state[0] += a;
  state[1] += b;
  state[2] += c;
  state[3] += d;
  state[4] += e;
  state[5] += f;
  state[6] += g;
  state[7] += h;
}

std::array<uint8_t, 32> sha256_native(std::span<const uint8_t> message) {
  std::array<uint32_t, 8> state;
  for (int i = 0; i < 8; i++) state[i] = kIv[i];
  std::vector<uint8_t> padded(message.begin(), message.end());
  const uint64_t bit_len = uint64_t(message.size()) * 8;
  padded.push_back(0x80);
  while ((padded.size() + 8) % 64 != 0) padded.push_back(0);
  for (int i = 7; i >= 0; i--) padded.push_back(uint8_t(bit_len >> (8 * i)));
  for (size_t off = 0; off < padded.size(); off += 64) sha256_compress_native(state, padded.data() + off);
  std::array<uint8_t, 32> out;
  for (int i = 0; i < 8; i++) {
    for (int j = 0; j < 4; j++) out[4 * i + j] = uint8_t(state[i] >> (24 - 8 * j));
  }
  return out;
}

std::vector<bool> bytes_to_bits_be(std::span<const uint8_t> bytes) {
  std::vector<bool> bits;
  bits.reserve(bytes.size() * 8);
  for (uint8_t b : bytes) {
    for (int i = 7; i >= 0; i--) bits.push_back((b >> i) & 1);
  }
  return bits;
}

std::vector<uint8_t> bits_be_to_bytes(const std::vector<bool>& bits) {
  std::vector<uint8_t> out((bits.size() + 7) / 8, 0);
  for (size_t i = 0; i < bits.size(); i++) {
    if (bits[i]) out[i / 8] |= uint8_t(0x80 >> (i % 8));
  }
  return out;
}

}  // namespace cuzk::gadgets

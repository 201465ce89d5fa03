#include "gadgets/hashers.hpp"

#include <stdexcept>
#include <string>

#include "gadgets/multipack.hpp"
#include "gadgets/poseidon.hpp"
#include "gadgets/sha256.hpp"

namespace cuzk::gadgets {

std::array<uint8_t, 32> fr_to_bytes_le(const Fr& x) {
  std::array<uint8_t, 32> b;
  x.to_bytes_le(b.data());
  return b;
}

Fr fr_from_bytes_le(const std::array<uint8_t, 32>& bytes) {
  Fr f;
  if (!Fr::from_bytes_le(bytes.data(), f)) throw std::invalid_argument("fr_from_bytes_le: not a canonical element");
  return f;
}

Fr sha256_truncated(std::span<const uint8_t> data) {
  auto d = sha256_native(data);
  d[31] &= 0x3f;
  return fr_from_bytes_le(d);
}

Fr sha256_node_hash(std::span<const Fr> nodes) {
  std::vector<uint8_t> buf;
  for (const Fr& n : nodes) {
    auto b = fr_to_bytes_le(n);
    buf.insert(buf.end(), b.begin(), b.end());
  }
  return sha256_truncated(buf);
}

namespace {
// Pads bits (least significant first) to whole bytes and reverses each byte's bits.
void append_le_as_bytes(std::vector<Boolean>& out, std::span<const Boolean> bits) {
  std::vector<Boolean> padded(bits.begin(), bits.end());
  while (padded.size() % 8 != 0) padded.push_back(Boolean::constant(false));
  for (size_t i = 0; i < padded.size(); i += 8) {
    for (size_t j = 8; j-- > 0;) out.push_back(padded[i + j]);
  }
}
}  // namespace

AllocatedNum sha256_hash_circuit(ConstraintSystem& cs, std::span<const Boolean> bits) {
  std::vector<Boolean> be;
  {
    r1cs::Namespace ns(cs, "hash");
    be = sha256(cs, bits);
  }
  std::vector<Boolean> le;
  append_le_as_bytes(le, be);  // reversing each byte again gives little-endian bit numbering
  le.resize(kFrCapacity);
  r1cs::Namespace ns(cs, "pack_le");
  return pack_bits(cs, le);
}

AllocatedNum sha256_hash2_circuit(ConstraintSystem& cs, const AllocatedNum& a, const AllocatedNum& b) {
  std::vector<Boolean> abits, bbits;
  {
    r1cs::Namespace ns(cs, "a_bits");
    abits = a.to_bits_le(cs);
  }
  {
    r1cs::Namespace ns(cs, "b_bits");
    bbits = b.to_bits_le(cs);
  }
  std::vector<Boolean> preimage;
  append_le_as_bytes(preimage, abits);
  append_le_as_bytes(preimage, bbits);
  return sha256_hash_circuit(cs, preimage);
}

AllocatedNum sha256_hash_leaf_bits_circuit(ConstraintSystem& cs, std::span<const Boolean> left,
                                           std::span<const Boolean> right) {
  std::vector<Boolean> preimage;
  append_le_as_bytes(preimage, left);
  append_le_as_bytes(preimage, right);
  return sha256_hash_circuit(cs, preimage);
}

AllocatedNum sha256_hash_multi_leaf_circuit(ConstraintSystem& cs, std::span<const AllocatedNum> leaves) {
  std::vector<Boolean> bits;
  for (size_t i = 0; i < leaves.size(); i++) {
    std::vector<Boolean> b;
    {
      r1cs::Namespace ns(cs, std::to_string(i) + "_num_into_bits");
      b = leaves[i].to_bits_le(cs);
    }
    append_le_as_bytes(bits, b);
  }
  return sha256_hash_circuit(cs, bits);
}

Fr poseidon_node_hash(std::span<const Fr> nodes) { return poseidon_hash(nodes, poseidon_constants(nodes.size())); }

AllocatedNum poseidon_hash_multi_leaf_circuit(ConstraintSystem& cs, std::span<const AllocatedNum> leaves) {
  return poseidon_hash_circuit(cs, leaves, poseidon_constants(leaves.size()));
}

Fr node_hash(TreeHasher h, std::span<const Fr> nodes) {
  return h == TreeHasher::kSha256 ? sha256_node_hash(nodes) : poseidon_node_hash(nodes);
}

AllocatedNum node_hash_circuit(TreeHasher h, ConstraintSystem& cs, std::span<const AllocatedNum> leaves) {
  return h == TreeHasher::kSha256 ? sha256_hash_multi_leaf_circuit(cs, leaves)
                                  : poseidon_hash_multi_leaf_circuit(cs, leaves);
}

}  // namespace cuzk::gadgets

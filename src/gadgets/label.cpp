#include "gadgets/label.hpp"

#include <stdexcept>
#include <string>

#include "gadgets/hashers.hpp"
#include "gadgets/multipack.hpp"
#include "gadgets/sha256.hpp"

namespace cuzk::gadgets {

Fr create_label(const std::array<uint8_t, 32>& replica_id, uint32_t layer, uint64_t node,
                std::span<const std::array<uint8_t, 32>> parents) {
  if (parents.size() != kLabelParents) throw std::invalid_argument("create_label: 37 parents are required");
  std::vector<uint8_t> buf(replica_id.begin(), replica_id.end());
  for (int i = 3; i >= 0; i--) buf.push_back(uint8_t(layer >> (8 * i)));
  for (int i = 7; i >= 0; i--) buf.push_back(uint8_t(node >> (8 * i)));
  buf.resize(64, 0);
  for (const auto& p : parents) buf.insert(buf.end(), p.begin(), p.end());
  return sha256_truncated(buf);
}

AllocatedNum create_label_circuit(ConstraintSystem& cs, std::span<const Boolean> replica_id,
                                  const std::vector<std::vector<Boolean>>& parents, const UInt32& layer,
                                  const UInt64& node) {
  if (replica_id.size() < 32 || replica_id.size() > 256) {
    throw std::invalid_argument("create_label_circuit: the replica id must have 32..256 bits");
  }
  if (parents.size() != kLabelParents) throw std::invalid_argument("create_label_circuit: 37 parents are required");
  std::vector<Boolean> data(replica_id.begin(), replica_id.end());
  data.resize(256, Boolean::constant(false));
  const auto layer_bits = layer.into_bits_be();
  data.insert(data.end(), layer_bits.begin(), layer_bits.end());
  const auto node_bits = node.to_bits_be();
  data.insert(data.end(), node_bits.begin(), node_bits.end());
  data.resize(512, Boolean::constant(false));
  for (const auto& p : parents) {
    if (p.size() > 256) throw std::invalid_argument("create_label_circuit: a parent has more than 256 bits");
    data.insert(data.end(), p.begin(), p.end());
    while (data.size() % 256 != 0) data.push_back(Boolean::constant(false));
  }
  std::vector<Boolean> digest;
  {
    r1cs::Namespace ns(cs, "hash");
    digest = sha256(cs, data);
  }
  // reverse_bit_numbering: little-endian bits within each byte.
  std::vector<Boolean> le;
  le.reserve(256);
  for (size_t i = 0; i < digest.size(); i += 8) {
    for (size_t j = 8; j-- > 0;) le.push_back(digest[i + j]);
  }
  le.resize(kFrCapacity);
  r1cs::Namespace ns(cs, "result_num");
  return pack_bits(cs, le);
}

AllocatedNum encode(ConstraintSystem& cs, const AllocatedNum& key, const AllocatedNum& value) {
  r1cs::Namespace ns(cs, "encode_add");
  return add(cs, key, value);
}

AllocatedNum decode(ConstraintSystem& cs, const AllocatedNum& key, const AllocatedNum& value) {
  r1cs::Namespace ns(cs, "decode_sub");
  return sub(cs, value, key);
}

}  // namespace cuzk::gadgets

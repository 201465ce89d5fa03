#include "filecoin/snap/gadgets.hpp"

#include <stdexcept>
#include <string>

#include "filecoin/snap/challenges.hpp"
#include "gadgets/hashers.hpp"
#include "gadgets/multipack.hpp"
#include "gadgets/poseidon.hpp"

namespace cuzk::filecoin::update_gadgets {

using gadgets::Boolean;
using r1cs::LC;
using r1cs::Namespace;
using r1cs::Variable;

namespace {

LC weighted_sum(std::span<const AllocatedBit> bits) {
  LC lc;
  Fr pow2 = Fr::one();
  for (const AllocatedBit& b : bits) {
    lc.add(b.var, pow2);
    pow2 = pow2.dbl();
  }
  return lc;
}

std::vector<Boolean> booleans(std::span<const AllocatedBit> bits) { return {bits.begin(), bits.end()}; }

}  // namespace

std::vector<AllocatedBit> allocated_num_to_allocated_bits(ConstraintSystem& cs, const AllocatedNum& num) {
  auto bits = gadgets::field_into_allocated_bits_le(cs, num.value);
  cs.enforce("binary decomp", weighted_sum(bits), LC(Variable::one()), LC(num.var));
  return bits;
}

void por_no_challenge_input(ConstraintSystem& cs, const gadgets::PorTreeShape& shape,
                            std::span<const AllocatedBit> challenge_bits, const AllocatedNum& leaf,
                            const std::vector<std::vector<AllocatedNum>>& path, const AllocatedNum& root) {
  const auto arities = shape.level_arities();
  if (path.size() != arities.size()) {
    throw std::invalid_argument("por_no_challenge_input: " + std::to_string(path.size()) + " path levels, tree " +
                                shape.name() + " has " + std::to_string(arities.size()));
  }
  AllocatedNum cur = leaf;
  size_t bit = 0;
  for (size_t height = 0; height < arities.size(); height++) {
    const size_t arity = arities[height];
    if (path[height].size() != arity - 1) {
      throw std::invalid_argument("por_no_challenge_input: path element has incorrect number of siblings");
    }
    std::vector<Boolean> index;
    for (size_t a = arity; a > 1; a >>= 1) {
      if (bit >= challenge_bits.size()) throw std::invalid_argument("por_no_challenge_input: no challenge bits left");
      index.emplace_back(challenge_bits[bit++]);
    }
    std::vector<AllocatedNum> preimage;
    {
      Namespace ns(cs, "merkle proof insert (height=" + std::to_string(height) + ")");
      preimage = gadgets::insert(cs, cur, index, path[height]);
    }
    Namespace ns(cs, "merkle proof hash (height=" + std::to_string(height) + ")");
    cur = gadgets::node_hash_circuit(shape.hasher, cs, preimage);
  }
  if (bit != challenge_bits.size()) {
    throw std::invalid_argument("por_no_challenge_input: challenge bit-length and tree arity do not agree");
  }
  cs.enforce("calculated root == provided root", LC(cur.var), LC(Variable::one()), LC(root.var));
}

void apex_por(ConstraintSystem& cs, const std::vector<AllocatedNum>& apex_leafs,
              std::span<const AllocatedBit> partition_bits,
              const std::vector<std::vector<AllocatedNum>>& partition_path, const AllocatedNum& comm_d) {
  std::vector<AllocatedNum> row = apex_leafs;
  for (size_t r = 0; row.size() > 1; r++) {
    std::vector<AllocatedNum> next;
    for (size_t i = 0; i + 1 < row.size(); i += 2) {
      Namespace ns(
          cs, "apex_tree generation hash (tree_row=" + std::to_string(r) + ", siblings=" + std::to_string(i / 2) + ")");
      next.push_back(gadgets::sha256_hash2_circuit(cs, row[i], row[i + 1]));
    }
    row = std::move(next);
  }
  // The partition tree: binary SHA-256 of partition_bits' height.
  gadgets::PorTreeShape top;
  top.hasher = gadgets::TreeHasher::kSha256;
  top.base_arity = 2;
  top.base_levels = partition_bits.size();
  Namespace ns(cs, "partition-tree por");
  por_no_challenge_input(cs, top, partition_bits, row.at(0), partition_path, comm_d);
}

std::vector<std::vector<AllocatedBit>> gen_challenge_bits(ConstraintSystem& cs, const AllocatedNum& comm_r_new,
                                                          const AllocatedNum& partition, size_t challenges,
                                                          size_t bits_per_challenge) {
  const size_t per_digest = gadgets::kFrCapacity / bits_per_challenge;
  const uint64_t digests = (challenges + per_digest - 1) / per_digest;
  std::vector<std::vector<AllocatedBit>> out;
  out.reserve(challenges);
  for (uint64_t j = 0; j < digests; j++) {
    const std::string js = std::to_string(j);
    AllocatedNum digest_index;
    {
      Namespace ns(cs, "digest_index_" + js);
      digest_index = AllocatedNum::alloc(cs, partition.value * Fr::from_u64(digests) + Fr::from_u64(j));
    }
    LC a;
    a.add(partition.var, Fr::from_u64(digests)).add(Variable::one(), Fr::from_u64(j));
    cs.enforce("digest_index_" + js + " == k * digests_per_partition + " + js, a, LC(Variable::one()),
               LC(digest_index.var));
    AllocatedNum digest;
    {
      Namespace ns(cs, "digest_" + js);
      const AllocatedNum pre[2] = {comm_r_new, digest_index};
      digest = gadgets::poseidon_hash_circuit(cs, pre, gen_randomness_poseidon_constants());
    }
    std::vector<AllocatedBit> bits;
    {
      Namespace ns(cs, "digest_" + js + "_bits");
      bits = allocated_num_to_allocated_bits(cs, digest);
    }
    const size_t take = j == digests - 1 ? challenges - out.size() : per_digest;
    for (size_t c = 0; c < take; c++) {
      out.emplace_back(bits.begin() + c * bits_per_challenge, bits.begin() + (c + 1) * bits_per_challenge);
    }
  }
  return out;
}

AllocatedNum get_challenge_high_bits(ConstraintSystem& cs, std::span<const AllocatedBit> c_bits,
                                     std::span<const AllocatedBit> h_select_bits,
                                     const std::array<size_t, kUpdateHsCount>& hs) {
  if (h_select_bits.size() != hs.size()) throw std::invalid_argument("get_challenge_high_bits: h_select bit count");
  const auto bits = booleans(c_bits);
  std::vector<AllocatedNum> scaled;
  for (size_t k = 0; k < hs.size(); k++) {
    const size_t h = hs[k];
    const std::string tag = "(h=" + std::to_string(h) + ", k=" + std::to_string(k) + ")";
    AllocatedNum c_high, c_high_or_zero;
    {
      Namespace ns(cs, "c_high " + tag);
      c_high = gadgets::pack_bits(cs, std::span<const Boolean>(bits).subspan(bits.size() - h));
    }
    {
      Namespace ns(cs, "c_high_or_zero " + tag);
      c_high_or_zero = AllocatedNum::alloc(cs, h_select_bits[k].value ? c_high.value : Fr::zero());
    }
    cs.enforce("c_high_or_zero == c_high * h_select_bit " + tag, LC(c_high.var), LC(h_select_bits[k].var),
               LC(c_high_or_zero.var));
    scaled.push_back(c_high_or_zero);
  }
  Fr sum = Fr::zero();
  LC lc;
  for (const AllocatedNum& x : scaled) {
    sum += x.value;
    lc.add(x.var);
  }
  AllocatedNum selected;
  {
    Namespace ns(cs, "c_high_selected");
    selected = AllocatedNum::alloc(cs, sum);
  }
  cs.enforce("c_high_selected == dot(c_highs, h_select_bits)", lc, LC(Variable::one()), LC(selected.var));
  return selected;
}

AllocatedNum label_r_new(ConstraintSystem& cs, const AllocatedNum& label_r_old, const AllocatedNum& label_d_new,
                         const AllocatedNum& rho) {
  AllocatedNum product;
  {
    Namespace ns(cs, "label_d_new * rho");
    product = label_d_new.mul(cs, rho);
  }
  AllocatedNum out;
  {
    Namespace ns(cs, "label_r_new");
    out = AllocatedNum::alloc(cs, label_r_old.value + product.value);
  }
  LC a(label_r_old.var);
  a.add(product.var);
  cs.enforce("label_r_new == label_r_old + label_d_new * rho", a, LC(Variable::one()), LC(out.var));
  return out;
}

std::vector<AllocatedBit> decompose_public_selector(ConstraintSystem& cs, const AllocatedNum& num, size_t bit_len,
                                                    const char* what) {
  const auto c = num.value.to_canonical();
  std::vector<AllocatedBit> bits;
  for (size_t i = 0; i < bit_len; i++) {
    Namespace ns(cs, std::string(what) + "_bit_" + std::to_string(i));
    bits.push_back(AllocatedBit::alloc(cs, (c.limb[i / 64] >> (i % 64)) & 1));
  }
  cs.enforce(std::string(what) + " binary decomp", weighted_sum(bits), LC(Variable::one()), LC(num.var));
  return bits;
}

}  // namespace cuzk::filecoin::update_gadgets

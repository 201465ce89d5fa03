// PoseidonConstants: the parameters of one arity and hash type, and the optimised schedule the
// circuit uses (neptune preprocessing.rs and mds.rs), built once per arity and shared.
#include <array>
#include <atomic>
#include <map>
#include <mutex>
#include <stdexcept>

#include "gadgets/poseidon.hpp"

namespace cuzk::gadgets {

using namespace poseidon_matrix;

PoseidonConstants PoseidonConstants::create(size_t arity, HashType type, size_t length) {
  PoseidonConstants c;
  c.arity = arity;
  c.width = arity + 1;
  c.partial_rounds = poseidon_partial_rounds(c.width);
  c.hash_type = type;
  c.length = length;
  if (type == HashType::kMerkleTree) {
    if (arity >= 64) throw std::invalid_argument("poseidon: arity too large for a MerkleTree tag");
    c.domain_tag = Fr::from_u64((uint64_t(1) << arity) - 1);
  } else {
    if (length == 0 || length > arity)
      throw std::invalid_argument("poseidon: ConstantLength needs 0 < length <= arity");
    ff::BigInt<4> x = ff::BigInt<4>::zero();
    x.limb[1] = length;  // length * 2^64
    c.domain_tag = Fr::from_canonical(x);
  }
  const size_t t = c.width;
  c.round_constants = poseidon_grain_round_constants(t, c.full_rounds, c.partial_rounds);
  c.m = poseidon_mds(t);
  c.m_inv = invert(c.m);

  // Compressed round constants (neptune preprocessing.rs, all partial rounds preprocessed).
  auto keys = [&](size_t r) { return std::span<const Fr>(c.round_constants).subspan(r * t, t); };
  const size_t half = c.half_full_rounds;
  auto& res = c.compressed_round_constants;
  for (const Fr& k : keys(0)) res.push_back(k);
  for (size_t i = 0; i + 1 < half; i++) {
    for (const Fr& k : right_apply(c.m_inv, keys(i + 1))) res.push_back(k);
  }
  std::vector<Fr> partial_keys;
  const size_t final_round = half + c.partial_rounds;
  std::vector<Fr> acc(keys(final_round).begin(), keys(final_round).end());
  for (size_t i = 0; i < c.partial_rounds; i++) {
    std::vector<Fr> inv = right_apply(c.m_inv, acc);
    partial_keys.push_back(inv[0]);
    inv[0] = Fr::zero();
    auto prev = keys(final_round - i - 1);
    for (size_t j = 0; j < t; j++) inv[j] += prev[j];
    acc = std::move(inv);
  }
  for (const Fr& k : right_apply(c.m_inv, acc)) res.push_back(k);
  for (size_t i = partial_keys.size(); i-- > 0;) res.push_back(partial_keys[i]);
  for (size_t i = 1; i < half; i++) {
    for (const Fr& k : right_apply(c.m_inv, keys(i + final_round))) res.push_back(k);
  }

  // Sparse factorisation of the partial rounds' MDS (neptune factor_to_sparse_matrixes on M^T).
  const Matrix base = transpose(c.m);
  Matrix curr = base;
  std::vector<Matrix> all;
  for (size_t i = 0; i < c.partial_rounds; i++) {
    Matrix mp, mpp;
    factor(curr, mp, mpp);
    all.push_back(std::move(mpp));
    curr = mul(base, mp);
  }
  c.pre_sparse_matrix = curr;
  for (size_t i = all.size(); i-- > 0;) {
    Sparse s;
    for (size_t r = 0; r < t; r++) s.w_hat.push_back(all[i][r][0]);
    s.v_rest.assign(all[i][0].begin() + 1, all[i][0].end());
    c.sparse_matrices.push_back(std::move(s));
  }
  return c;
}

const PoseidonConstants& poseidon_constants(size_t arity) {
  // Read without a lock once built: every Poseidon gadget asks, from every synthesis thread.
  static std::array<std::atomic<const PoseidonConstants*>, 17> built{};
  static std::mutex mu;
  static std::map<size_t, std::unique_ptr<PoseidonConstants>> cache;
  if (arity < built.size()) {
    if (const PoseidonConstants* c = built[arity].load(std::memory_order_acquire)) return *c;
  }
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = cache[arity];
  if (!slot) slot = std::make_unique<PoseidonConstants>(PoseidonConstants::create(arity));
  if (arity < built.size()) built[arity].store(slot.get(), std::memory_order_release);
  return *slot;
}

}  // namespace cuzk::gadgets

// bincode 1.x with its default options, as filecoin-ffi and filecoin-proofs-api serialize vanilla
// proofs (bincode::serialize / deserialize): integers little-endian and fixed width (usize and
// sequence lengths as u64), enum variants as a u32, a domain value (PoseidonDomain, Sha256Domain)
// as its 32 bytes, which must be a canonical field element. Shared by the FallbackPoSt and the
// EmptySectorUpdate vanilla-proof readers, with storage-proofs-core merkle/proof.rs MerkleProof:
// ProofData 0 Single{root, leaf, path}, 1 Sub{base_proof, sub_proof, root, leaf},
// 2 Top{base_proof, sub_proof, top_proof, root, leaf}; a path [ {hashes: [domain], index: usize} ].
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "filecoin/common/merkle_proof.hpp"
#include "gadgets/por.hpp"

namespace cuzk::filecoin {

class BincodeReader {
 public:
  // `fail` throws the caller's exception type with the message it is given (it must not return).
  using FailFn = std::function<void(const std::string& message)>;
  // Messages read "<what>: <field>: <reason> (at byte N of M)".
  BincodeReader(std::span<const uint8_t> data, std::string what, FailFn fail)
      : data_(data), what_(std::move(what)), fail_(std::move(fail)) {}

  [[noreturn]] void fail(const std::string& field, const std::string& reason) const;
  const uint8_t* take(size_t n, const std::string& field);
  uint64_t u64(const std::string& field);
  uint32_t u32(const std::string& field);
  // 32 bytes, a canonical field element.
  Fr domain(const std::string& field);
  // A sequence length that must equal `expected`; `why` names what sets it.
  void length(const std::string& field, uint64_t expected, const std::string& why);
  size_t left() const { return data_.size() - pos_; }
  size_t pos() const { return pos_; }

 private:
  std::span<const uint8_t> data_;
  size_t pos_ = 0;
  std::string what_;
  FailFn fail_;
};

// A MerkleProof of a tree of `shape`: the ProofData variant, level counts and arities, indices
// below the arity. `tree` names the tree in messages ("tree R").
MerkleProof read_bincode_merkle_proof(BincodeReader& r, const std::string& field, const gadgets::PorTreeShape& shape,
                                      const std::string& tree = "tree R");

struct BincodeWriter {
  std::vector<uint8_t> out;
  void u64(uint64_t v);
  void u32(uint32_t v);
  void domain(const Fr& x);
  void merkle_proof(const MerkleProof& p);
};

}  // namespace cuzk::filecoin

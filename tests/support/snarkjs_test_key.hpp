// A snarkjs-convention Groth16 key made from known toxic waste (setup_from_toxic_waste, as
// snarkjs' zkey_new.js and one `zkey contribute` would make it), for a pseudo-random circuit of any size:
// the fixtures in tests/data/snarkjs have a 32-point domain; this one exercises the prover's
// odd-coset H convention, its index permutation and the parallel paths at larger domains.
#pragma once

#include <cstddef>
#include <random>
#include <vector>

#include "interop/snarkjs/r1cs_file.hpp"
#include "interop/snarkjs/zkey_file.hpp"

namespace cuzk::snarkjs::test_keys {

struct TestKey {
  R1cs r1cs;
  Zkey zkey;
  std::vector<ff::Fr> witness;
};

// A chain of `constraints` constraints over 2 public inputs, 1 output and `constraints` internal
// wires (t_k = (u t_(k-1) + v) t_(k-2), pseudo-random u, v), its satisfying witness, and the key.
TestKey make_test_key(size_t constraints, std::mt19937_64& rng);

}  // namespace cuzk::snarkjs::test_keys

// circom's Chain(N) (tests/interop/snarkjs/circuits/chain.circom with public inputs a and b) as
// circom 2.2 compiles it for bls12381, and its witness as snarkjs computes it: the benchmark
// circuit, for machines without node and circom (the GPU machine), byte for byte the files
// circom and snarkjs write (checked against tests/data/snarkjs' Chain(24)).
//   wires: 0 the 1 wire, 1 out, 2 a, 3 b, 4 x, 5 + i acc[i] for i < N - 1 (acc[N - 1] is out);
//   constraint 0: (-x) a = -acc[0]; constraint i: (-acc[i-1]) acc[i-1] = b - acc[i];
//   the wire-to-label map is the identity (label N + 4, acc[N - 1], has no wire).
#pragma once

#include <cstddef>
#include <vector>

#include "ff/fr.hpp"
#include "interop/snarkjs/r1cs_file.hpp"

namespace cuzk::snarkjs {

struct ChainCircuit {
  R1cs r1cs;
  std::vector<ff::Fr> witness;
};

// Throws std::invalid_argument for n = 0 or a circuit beyond 2^31 wires.
ChainCircuit make_chain_circuit(size_t n, const ff::Fr& a, const ff::Fr& b, const ff::Fr& x);

}  // namespace cuzk::snarkjs

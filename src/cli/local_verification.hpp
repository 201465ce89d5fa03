// The client's checks of proofs on this machine, without a daemon: `cuzk verify porep` and
// `cuzk verify --snarkjs`.
#pragma once

#include <string>

#include "cli/command_args.hpp"

namespace cuzk::cli {

// Checks a PoRep proof locally, as Filecoin's verify_seal does (no daemon): the public inputs
// from the Commit1 output's comm_r, comm_d, ticket and seed and the miner and sector; the
// verifying key from --vk, else from the parameter directory (--param-cache, default
// $FIL_PROOFS_PARAMETER_CACHE, else /var/tmp/filecoin-proof-parameters): the published .vk, the
// published .params, then cuzk's TEST parameters (cuzk-TEST-ONLY-<stem>.params).
int verify_porep(const PoRepArgs& a, bool json);

// Checks a snarkjs Groth16 proof locally (no daemon): verification_key.json, public.json and
// proof.json as snarkjs writes them (bls12381), every point checked on the curve and in the
// subgroup. Exit codes: kOk valid, kProofInvalid, kInputError (a file unreadable or malformed).
int verify_snarkjs(const std::string& vk, const std::string& public_signals, const std::string& proof, bool json);

}  // namespace cuzk::cli

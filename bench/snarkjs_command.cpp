// cuzk-bench snarkjs: prove with a snarkjs .zkey and .wtns (CPU or CUDA) into snarkjs'
// proof.json and public.json, verify snarkjs documents, export a .zkey's verification key, and
// make an insecure test key from a .r1cs, write the Chain(N) benchmark circuit without circom.
#include <chrono>
#include <cstdio>
#include <exception>
#include <optional>
#include <vector>

#include "bench/commands.hpp"
#include "groth16/setup.hpp"
#include "interop/snarkjs/chain_circuit.hpp"
#include "interop/snarkjs/json_io.hpp"
#include "interop/snarkjs/known_waste_setup.hpp"
#include "interop/snarkjs/prover.hpp"
#include "interop/snarkjs/r1cs_file.hpp"
#include "interop/snarkjs/verifier.hpp"
#include "interop/snarkjs/wtns_file.hpp"
#include "interop/snarkjs/zkey_file.hpp"
#include "util/elapsed.hpp"

namespace cuzk::bench {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int kValid = 0, kInvalid = 1, kBadInput = 2;

}  // namespace

int run_snarkjs_prove(const SnarkjsArgs& a) {
  try {
    auto t = Clock::now();
    snarkjs::ZkeyReadOptions read_options;
    read_options.checked_keys_dir = a.checked_keys;
    snarkjs::ZkeyReadReport read_report;
    const snarkjs::Zkey zkey = snarkjs::read_zkey(a.zkey, read_options, &read_report);
    const double read_zkey_s = seconds_since(t);
    if (a.checked_keys.empty()) {
      std::printf("zkey: every point checked (no checked-keys directory)\n");
    } else if (read_report.remembered) {
      std::printf("zkey: SHA-256 %.16s... recorded in %s: points checked on the curve, not again for the subgroup\n",
                  read_report.sha256.c_str(), a.checked_keys.c_str());
    } else if (read_report.not_recorded.empty()) {
      std::printf("zkey: every point checked; SHA-256 %.16s... recorded in %s\n", read_report.sha256.c_str(),
                  a.checked_keys.c_str());
    } else {
      std::printf("zkey: every point checked; not recorded: %s\n", read_report.not_recorded.c_str());
    }
    t = Clock::now();
    const std::vector<ff::Fr> witness = snarkjs::read_witness(a.wtns);
    const double read_wtns_s = seconds_since(t);
    if (!a.r1cs.empty()) {
      const snarkjs::R1cs r1cs = snarkjs::read_r1cs(a.r1cs);
      if (std::optional<size_t> bad = snarkjs::first_unsatisfied_constraint(r1cs, witness)) {
        std::fprintf(stderr,
                     "cuzk-bench snarkjs prove: %s does not satisfy %s: constraint %zu is the first that fails\n",
                     a.wtns.c_str(), a.r1cs.c_str(), *bad);
        return kInvalid;
      }
    }
    const auto prover = a.backend == "cuda" ? snarkjs::make_cuda_prover(a.device) : snarkjs::make_cpu_prover();
    const snarkjs::VerifyingKey vk = snarkjs::verifying_key_from_zkey(zkey);
    const std::vector<ff::Fr> inputs = snarkjs::public_signals(zkey, witness);
    std::printf("snarkjs prove: %u signals (%u public), domain 2^%u, %zu coefficients, backend %s\n", zkey.vars,
                zkey.publics, zkey.log_domain_size(), zkey.coefficients.size(), prover->name().c_str());
    std::printf("%4s %10s %10s %10s %10s %10s %10s %8s\n", "rep", "zkey_s", "wtns_s", "upload_s", "h_s", "msm_s",
                "total_s", "verified");
    snarkjs::Proof proof;
    bool all_valid = true;
    for (unsigned rep = 0; rep < a.repeat; rep++) {
      snarkjs::ProveTimings timings;
      proof = prover->prove(zkey, witness, &timings);
      const bool valid = snarkjs::verify(vk, inputs, proof);
      all_valid = all_valid && valid;
      // Reading is done once; the first row carries its cost in the total.
      const double reads = rep == 0 ? read_zkey_s + read_wtns_s : 0;
      std::printf("%4u %10.4f %10.4f %10.4f %10.4f %10.4f %10.4f %8s\n", rep, rep == 0 ? read_zkey_s : 0.0,
                  rep == 0 ? read_wtns_s : 0.0, timings.upload, timings.h, timings.msm, timings.total + reads,
                  valid ? "yes" : "NO");
    }
    if (!all_valid) {
      std::fprintf(stderr,
                   "cuzk-bench snarkjs prove: the proof does not verify (is the witness from this circuit? "
                   "pass --r1cs to check it)\n");
      return kInvalid;
    }
    snarkjs::write_text_file(a.proof, snarkjs::proof_to_json(proof));
    snarkjs::write_text_file(a.public_json, snarkjs::public_signals_to_json(inputs));
    std::printf("wrote %s and %s\n", a.proof.c_str(), a.public_json.c_str());
    return kValid;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cuzk-bench snarkjs prove: %s\n", e.what());
    return kBadInput;
  }
}

int run_snarkjs_verify(const SnarkjsArgs& a) {
  try {
    const snarkjs::VerifyingKey vk = snarkjs::verifying_key_from_json(snarkjs::read_text_file(a.vk), a.vk);
    const std::vector<ff::Fr> inputs =
        snarkjs::public_signals_from_json(snarkjs::read_text_file(a.public_json), a.public_json);
    const snarkjs::Proof proof = snarkjs::proof_from_json(snarkjs::read_text_file(a.proof), a.proof);
    if (inputs.size() + 1 != vk.ic.size()) {
      std::fprintf(stderr, "cuzk-bench snarkjs verify: %s has %zu public signals, %s expects %zu\n",
                   a.public_json.c_str(), inputs.size(), a.vk.c_str(), vk.ic.size() - 1);
      return kBadInput;
    }
    if (snarkjs::verify(vk, inputs, proof)) {
      std::printf("valid\n");
      return kValid;
    }
    std::fprintf(stderr, "cuzk-bench snarkjs verify: %s does not verify against %s and %s\n", a.proof.c_str(),
                 a.vk.c_str(), a.public_json.c_str());
    return kInvalid;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cuzk-bench snarkjs verify: %s\n", e.what());
    return kBadInput;
  }
}

int run_snarkjs_export_vk(const SnarkjsArgs& a) {
  try {
    // The verification key holds only header and IC points, which read_zkey always checks fully;
    // the bulk sections' subgroup checks (minutes for a large key) would check nothing it uses.
    const snarkjs::Zkey zkey = snarkjs::read_zkey(a.zkey, {.check_subgroup = false, .checked_keys_dir = ""});
    snarkjs::write_text_file(a.vk, snarkjs::verifying_key_to_json(snarkjs::verifying_key_from_zkey(zkey)));
    std::printf("wrote %s (%u public signals)\n", a.vk.c_str(), zkey.publics);
    return kValid;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cuzk-bench snarkjs export-vk: %s\n", e.what());
    return kBadInput;
  }
}

int run_snarkjs_setup(const SnarkjsArgs& a) {
  try {
    auto t = Clock::now();
    const snarkjs::R1cs r1cs = snarkjs::read_r1cs(a.r1cs);
    const double read_s = seconds_since(t);
    t = Clock::now();
    const snarkjs::Zkey zkey = snarkjs::setup_from_toxic_waste(r1cs, groth16::ToxicWaste::random());
    const double setup_s = seconds_since(t);
    t = Clock::now();
    snarkjs::write_zkey(zkey, a.zkey);
    std::printf(
        "wrote %s: %zu constraints, %u signals (%u public), domain 2^%u; read %.2f s, setup %.2f s, write "
        "%.2f s\n",
        a.zkey.c_str(), r1cs.constraints.size(), zkey.vars, zkey.publics, zkey.log_domain_size(), read_s, setup_s,
        seconds_since(t));
    std::printf("INSECURE: a single-party setup (its toxic waste was drawn here): for tests and benchmarks only\n");
    return kValid;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cuzk-bench snarkjs setup: %s\n", e.what());
    return kBadInput;
  }
}

int run_snarkjs_chain(const SnarkjsArgs& a) {
  try {
    auto t = Clock::now();
    const snarkjs::ChainCircuit c =
        snarkjs::make_chain_circuit(a.chain_length, ff::Fr::from_u64(3), ff::Fr::from_u64(5), ff::Fr::from_u64(7));
    snarkjs::write_r1cs(c.r1cs, a.r1cs);
    snarkjs::write_witness(c.witness, a.wtns);
    std::printf("wrote %s and %s: Chain(%llu), %u wires, %.2f s\n", a.r1cs.c_str(), a.wtns.c_str(),
                static_cast<unsigned long long>(a.chain_length), c.r1cs.wires, seconds_since(t));
    return kValid;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cuzk-bench snarkjs chain: %s\n", e.what());
    return kBadInput;
  }
}

}  // namespace cuzk::bench

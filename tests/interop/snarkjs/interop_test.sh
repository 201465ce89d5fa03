#!/usr/bin/env bash
# cuzk against snarkjs (issue 28), label `interop`: a Chain(N) circom circuit compiled for
# BLS12-381 with a fresh powers of tau and zkey, then
#   - snarkjs' proof is accepted by `cuzk verify --snarkjs` and `cuzk-bench snarkjs verify`, and
#     rejected by both once tampered (a public input changed, the proof's A and C swapped);
#   - cuzk's verification key export is what snarkjs verifies with;
#   - cuzk-bench's CPU proof is accepted by `snarkjs groth16 verify`, with snarkjs' public
#     signals, and rejected once tampered;
#   - the same for the CUDA backend when nvidia-smi sees a GPU (else reported as skipped);
#   - a key from `cuzk-bench snarkjs setup` (known toxic waste) is one snarkjs reads, exports a
#     verification key from and proves with: its proof and cuzk's verify under that key;
#   - with --checked-keys, the second read of a key skips the subgroup checks it passed.
#
# Usage: interop_test.sh BUILD_DIR NPM_DIR
#   BUILD_DIR: cuzk's build directory (bench/cuzk-bench, src/cli/cuzk; CUZK_BENCH_BIN and
#              CUZK_BIN override the paths; CUZK_HAS_CUDA=0 says the build has no CUDA backend)
#   NPM_DIR:   where `npm ci` installed tests/interop/snarkjs/package-lock.json
# Environment: CHAIN_N (constraints, default 100), KEEP_WORK=1 keeps the work directory.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=snarkjs_steps.sh
source "$HERE/snarkjs_steps.sh"

[[ $# -eq 2 ]] || snarkjs_fail "usage: $0 BUILD_DIR NPM_DIR"
BUILD_DIR="$(cd "$1" && pwd)"
NPM_DIR="$2"
CUZK_BENCH_BIN="${CUZK_BENCH_BIN:-$BUILD_DIR/bench/cuzk-bench}"
CUZK_BIN="${CUZK_BIN:-$BUILD_DIR/src/cli/cuzk}"
CHAIN_N="${CHAIN_N:-100}"

snarkjs_require_tools
[[ -x "$CUZK_BENCH_BIN" ]] || snarkjs_fail "cuzk-bench not found at $CUZK_BENCH_BIN (build target cuzk-bench)"
[[ -x "$CUZK_BIN" ]] || snarkjs_fail "cuzk not found at $CUZK_BIN (build target cuzk)"

WORK="$(mktemp -d "$BUILD_DIR/snarkjs-interop.XXXXXX")"
finish() {
    local rc=$?
    if [[ $rc -eq 0 && "${KEEP_WORK:-0}" != 1 ]]; then
        rm -rf "$WORK"
    else
        echo "work directory kept: $WORK"
    fi
}
trap finish EXIT

# The smallest power of tau that holds Chain(N): snarkjs needs 2^power > N + 3 public signals.
ptau_power=1
while ((1 << ptau_power <= CHAIN_N + 3)); do ptau_power=$((ptau_power + 1)); done

echo "== Chain($CHAIN_N) for bls12381, powers of tau 2^$ptau_power, setup, witness, snarkjs proof"
snarkjs_compile_chain "$WORK" "$CHAIN_N"
snarkjs_make_ptau "$WORK" "$ptau_power"
snarkjs_setup_zkey "$WORK" "$WORK/chain_main.r1cs" "$WORK/pot_final.ptau"
snarkjs_write_input "$WORK/input.json"
snarkjs_witness "$WORK/chain_main_js/chain_main.wasm" "$WORK/input.json" "$WORK/chain.wtns"
snarkjs_prove "$WORK/chain.zkey" "$WORK/chain.wtns" "$WORK/snarkjs_proof.json" "$WORK/snarkjs_public.json"
VK="$WORK/verification_key.json"
snarkjs_verifies "$VK" "$WORK/snarkjs_public.json" "$WORK/snarkjs_proof.json" ||
    snarkjs_fail "snarkjs rejects its own proof: the npm install or the circuit is broken, not cuzk"

failures=0
check() {
    echo "ok: $*"
}
failed() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

# expect_exit WHAT CODES -- COMMAND...: runs COMMAND and checks its exit status is one of CODES
# (space-separated); prints the command's output when it is not.
expect_exit() {
    local what="$1" codes="$2"
    shift 3
    local log rc=0
    log="$("$@" 2>&1)" || rc=$?
    if [[ " $codes " == *" $rc "* ]]; then
        check "$what (exit $rc)"
    else
        echo "$log" | tail -20 >&2
        failed "$what: expected exit status $codes, got $rc from: $*"
    fi
}

expect_snarkjs_accepts() {
    if snarkjs_verifies "$VK" "$2" "$3"; then check "$1"; else failed "$1: snarkjs groth16 verify rejects $3 with $2"; fi
}
expect_snarkjs_rejects() {
    if snarkjs_verifies "$VK" "$2" "$3"; then failed "$1: snarkjs groth16 verify accepts $3 with $2"; else check "$1"; fi
}

# tamper_public IN OUT: public input a (the second public signal) plus one.
tamper_public() {
    node -e '
const fs = require("fs");
const pub = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
pub[1] = (BigInt(pub[1]) + 1n).toString();
fs.writeFileSync(process.argv[2], JSON.stringify(pub, null, 1));' "$1" "$2"
}
# tamper_swap_a_c IN OUT: the proof with A and C exchanged (still well-formed G1 points).
tamper_swap_a_c() {
    node -e '
const fs = require("fs");
const proof = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
[proof.pi_a, proof.pi_c] = [proof.pi_c, proof.pi_a];
fs.writeFileSync(process.argv[2], JSON.stringify(proof, null, 1));' "$1" "$2"
}
# tamper_off_curve IN OUT: A's y coordinate plus one, a point off the curve: bad input, not a
# proof that fails the pairing check.
tamper_off_curve() {
    node -e '
const fs = require("fs");
const proof = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
proof.pi_a[1] = (BigInt(proof.pi_a[1]) + 1n).toString();
fs.writeFileSync(process.argv[2], JSON.stringify(proof, null, 1));' "$1" "$2"
}

# Exit codes: cuzk-bench snarkjs verify 0 valid, 1 invalid, 2 bad input; cuzk verify 0 ok,
# 12 proof does not verify, 13 malformed input (src/cli/exit_codes.hpp).
expect_cuzk_verdict() {
    local what="$1" public="$2" proof="$3" verdict="$4"
    local bench_codes cli_codes
    case "$verdict" in
    valid) bench_codes="0" cli_codes="0" ;;
    invalid) bench_codes="1" cli_codes="12" ;;
    malformed) bench_codes="2" cli_codes="13" ;;
    esac
    expect_exit "cuzk-bench snarkjs verify: $what" "$bench_codes" -- \
        "$CUZK_BENCH_BIN" snarkjs verify "$VK" "$public" "$proof"
    expect_exit "cuzk verify --snarkjs: $what" "$cli_codes" -- \
        "$CUZK_BIN" verify --snarkjs "$VK" "$public" "$proof"
}

echo "== snarkjs' proof under cuzk's verifiers"
tamper_public "$WORK/snarkjs_public.json" "$WORK/snarkjs_public_tampered.json"
tamper_swap_a_c "$WORK/snarkjs_proof.json" "$WORK/snarkjs_proof_swapped.json"
tamper_off_curve "$WORK/snarkjs_proof.json" "$WORK/snarkjs_proof_off_curve.json"
expect_cuzk_verdict "snarkjs' proof accepted" "$WORK/snarkjs_public.json" "$WORK/snarkjs_proof.json" valid
expect_cuzk_verdict "snarkjs' proof with public input a+1 rejected" \
    "$WORK/snarkjs_public_tampered.json" "$WORK/snarkjs_proof.json" invalid
expect_cuzk_verdict "snarkjs' proof with A and C swapped rejected" \
    "$WORK/snarkjs_public.json" "$WORK/snarkjs_proof_swapped.json" invalid
expect_cuzk_verdict "snarkjs' proof with A off the curve rejected as bad input" \
    "$WORK/snarkjs_public.json" "$WORK/snarkjs_proof_off_curve.json" malformed

echo "== cuzk-bench snarkjs export-vk"
expect_exit "export-vk" "0" -- "$CUZK_BENCH_BIN" snarkjs export-vk "$WORK/chain.zkey" "$WORK/cuzk_vk.json"
if [[ ! -f "$WORK/cuzk_vk.json" ]]; then
    failed "cuzk-bench snarkjs export-vk wrote no $WORK/cuzk_vk.json"
elif snarkjs_verifies "$WORK/cuzk_vk.json" "$WORK/snarkjs_public.json" "$WORK/snarkjs_proof.json"; then
    check "snarkjs verifies its proof with cuzk's exported verification key"
else
    failed "snarkjs rejects its own proof with cuzk's exported $WORK/cuzk_vk.json (compare with $VK)"
fi

# prove_with_cuzk BACKEND: cuzk-bench proves the zkey/witness; snarkjs accepts the proof and
# rejects tampered copies; the public signals are snarkjs'.
prove_with_cuzk() {
    local backend="$1"
    local proof="$WORK/cuzk_${backend}_proof.json" public="$WORK/cuzk_${backend}_public.json"
    expect_exit "cuzk-bench snarkjs prove --backend $backend" "0" -- \
        "$CUZK_BENCH_BIN" snarkjs prove "$WORK/chain.zkey" "$WORK/chain.wtns" "$proof" "$public" --backend "$backend" --no-checked-keys
    if [[ ! -f "$proof" || ! -f "$public" ]]; then
        failed "cuzk-bench snarkjs prove --backend $backend wrote no $proof or $public"
        return
    fi
    if node -e '
const fs = require("fs");
const a = JSON.parse(fs.readFileSync(process.argv[1], "utf8")), b = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
process.exit(JSON.stringify(a) === JSON.stringify(b) ? 0 : 1);' "$public" "$WORK/snarkjs_public.json"; then
        check "$backend: public signals equal snarkjs' ($(tr -d ' \n' <"$public" | cut -c1-60)...)"
    else
        failed "$backend: public signals differ: cuzk $(tr -d ' \n' <"$public"), snarkjs $(tr -d ' \n' <"$WORK/snarkjs_public.json")"
    fi
    expect_snarkjs_accepts "$backend: snarkjs groth16 verify accepts cuzk's proof" "$public" "$proof"
    tamper_public "$public" "$WORK/cuzk_${backend}_public_tampered.json"
    tamper_swap_a_c "$proof" "$WORK/cuzk_${backend}_proof_swapped.json"
    expect_snarkjs_rejects "$backend: snarkjs rejects cuzk's proof with public input a+1" \
        "$WORK/cuzk_${backend}_public_tampered.json" "$proof"
    expect_snarkjs_rejects "$backend: snarkjs rejects cuzk's proof with A and C swapped" \
        "$public" "$WORK/cuzk_${backend}_proof_swapped.json"
    expect_cuzk_verdict "cuzk's $backend proof accepted" "$public" "$proof" valid
}

echo "== cuzk's CPU proof under snarkjs"
prove_with_cuzk cpu

if [[ "${CUZK_HAS_CUDA:-1}" == 0 ]]; then
    echo "SKIPPED: cuzk's CUDA proof (this cuzk build has no CUDA backend: CUZK_CUDA=OFF)"
elif command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
    echo "== cuzk's CUDA proof under snarkjs"
    prove_with_cuzk cuda
else
    echo "SKIPPED: cuzk's CUDA proof (no GPU: nvidia-smi missing or lists none)"
fi

echo "== cuzk-bench snarkjs setup: a key snarkjs proves with"
SETUP_ZKEY="$WORK/cuzk_setup.zkey" SETUP_VK="$WORK/cuzk_setup_vk.json"
expect_exit "cuzk-bench snarkjs setup" "0" -- "$CUZK_BENCH_BIN" snarkjs setup "$WORK/chain_main.r1cs" "$SETUP_ZKEY"
if [[ ! -f "$SETUP_ZKEY" ]]; then
    failed "cuzk-bench snarkjs setup wrote no $SETUP_ZKEY"
elif ! snarkjs zkey export verificationkey "$SETUP_ZKEY" "$SETUP_VK" >/dev/null 2>&1; then
    failed "snarkjs cannot export the verification key of cuzk's $SETUP_ZKEY"
else
    check "snarkjs exports the verification key of cuzk's key"
    if snarkjs groth16 prove "$SETUP_ZKEY" "$WORK/chain.wtns" "$WORK/setup_snarkjs_proof.json" \
        "$WORK/setup_snarkjs_public.json" >/dev/null 2>&1; then
        check "snarkjs proves with cuzk's key"
        if snarkjs_verifies "$SETUP_VK" "$WORK/setup_snarkjs_public.json" "$WORK/setup_snarkjs_proof.json"; then
            check "snarkjs verifies its proof made with cuzk's key"
        else
            failed "snarkjs rejects its proof made with cuzk's key $SETUP_ZKEY"
        fi
        if snarkjs_verifies "$VK" "$WORK/setup_snarkjs_public.json" "$WORK/setup_snarkjs_proof.json"; then
            failed "a proof under cuzk's key verifies under snarkjs' own key (the setups are not independent)"
        else
            check "the proof does not verify under snarkjs' own key"
        fi
    else
        failed "snarkjs groth16 prove fails with cuzk's key $SETUP_ZKEY"
    fi
    CHECKED="$WORK/checked-keys"
    expect_exit "cuzk-bench snarkjs prove with cuzk's key (first read, every point checked)" "0" -- \
        "$CUZK_BENCH_BIN" snarkjs prove "$SETUP_ZKEY" "$WORK/chain.wtns" "$WORK/setup_cuzk_proof.json" \
        "$WORK/setup_cuzk_public.json" --checked-keys "$CHECKED"
    if snarkjs_verifies "$SETUP_VK" "$WORK/setup_cuzk_public.json" "$WORK/setup_cuzk_proof.json"; then
        check "snarkjs verifies cuzk's proof made with cuzk's key"
    else
        failed "snarkjs rejects cuzk's proof made with cuzk's key"
    fi
    second="$("$CUZK_BENCH_BIN" snarkjs prove "$SETUP_ZKEY" "$WORK/chain.wtns" "$WORK/setup_cuzk_proof.json" \
        "$WORK/setup_cuzk_public.json" --checked-keys "$CHECKED" 2>&1)" || true
    if [[ "$second" == *"recorded in $CHECKED: points checked on the curve, not again for the subgroup"* ]]; then
        check "the second read of the key skips the subgroup checks it passed"
    else
        echo "$second" | tail -5 >&2
        failed "the second read of $SETUP_ZKEY with --checked-keys did not find its record"
    fi
fi

if ((failures > 0)); then
    echo "snarkjs interop: $failures check(s) failed" >&2
    exit 1
fi
echo "snarkjs interop: all checks passed"

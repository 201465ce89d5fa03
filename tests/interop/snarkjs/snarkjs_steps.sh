# shellcheck shell=bash
# The circom/snarkjs steps shared by make_fixtures.sh and interop_test.sh (sourced, not run).
# Every step runs the pinned tools from an npm install directory made by `npm ci` from this
# folder's package-lock.json; nothing global is used.
#
# Callers set NPM_DIR (the install directory) before calling snarkjs_require_tools.

SNARKJS_STEPS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

snarkjs_fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# Checks that node and the pinned snarkjs/circom2 are installed in NPM_DIR.
snarkjs_require_tools() {
    command -v node >/dev/null 2>&1 ||
        snarkjs_fail "node is not installed (Debian: apt-get install nodejs npm, or scripts/install-deps.sh)"
    [[ -n "${NPM_DIR:-}" ]] || snarkjs_fail "NPM_DIR is not set (the directory where 'npm ci' installed snarkjs and circom2)"
    SNARKJS_CLI="$NPM_DIR/node_modules/snarkjs/cli.js"
    CIRCOM2_CLI="$NPM_DIR/node_modules/circom2/cli.js"
    [[ -f "$SNARKJS_CLI" ]] ||
        snarkjs_fail "$SNARKJS_CLI not found: run 'npm ci' in $NPM_DIR with tests/interop/snarkjs/package.json and package-lock.json"
    [[ -f "$CIRCOM2_CLI" ]] ||
        snarkjs_fail "$CIRCOM2_CLI not found: run 'npm ci' in $NPM_DIR with tests/interop/snarkjs/package.json and package-lock.json"
}

snarkjs() {
    node "$SNARKJS_CLI" "$@"
}

# Runs a command and fails with its output and a message if it exits non-zero.
snarkjs_run_step() {
    local what="$1"
    shift
    local log
    if ! log="$("$@" 2>&1)"; then
        echo "$log" >&2
        snarkjs_fail "$what: command failed: $*"
    fi
}

# snarkjs_compile_chain WORK N: writes WORK/chain.circom (the template) and WORK/chain_main.circom
# (Chain(N) with public inputs a, b) and compiles them for BLS12-381 into WORK/chain_main.r1cs and
# WORK/chain_main_js/chain_main.wasm. circom2 runs under WASI with the current directory's
# tree as its only file system, hence the copy and the cd.
snarkjs_compile_chain() {
    local work="$1" n="$2"
    mkdir -p "$work"
    cp "$SNARKJS_STEPS_DIR/circuits/chain.circom" "$work/chain.circom"
    cat >"$work/chain_main.circom" <<EOF
pragma circom 2.0.0;
include "chain.circom";
component main {public [a, b]} = Chain($n);
EOF
    (cd "$work" && snarkjs_run_step "circom2 compile of Chain($n)" \
        node "$CIRCOM2_CLI" chain_main.circom --r1cs --wasm --prime bls12381 -o .) || exit 1
    [[ -f "$work/chain_main.r1cs" ]] || snarkjs_fail "circom2 wrote no $work/chain_main.r1cs"
}

# snarkjs_make_ptau WORK POWER: a prepared BLS12-381 powers of tau with one contribution
# (named entropy; snarkjs mixes in random bytes too) at WORK/pot_final.ptau.
snarkjs_make_ptau() {
    local work="$1" power="$2"
    snarkjs_run_step "powersoftau new" snarkjs powersoftau new bls12381 "$power" "$work/pot_0.ptau"
    snarkjs_run_step "powersoftau contribute" snarkjs powersoftau contribute \
        "$work/pot_0.ptau" "$work/pot_1.ptau" --name="cuzk interop" -e="cuzk snarkjs interop tau entropy"
    snarkjs_run_step "powersoftau prepare phase2" snarkjs powersoftau prepare phase2 \
        "$work/pot_1.ptau" "$work/pot_final.ptau"
    rm -f "$work/pot_0.ptau" "$work/pot_1.ptau"
}

# snarkjs_setup_zkey WORK R1CS PTAU: groth16 setup plus one phase-2 contribution into
# WORK/chain.zkey, and its verification key at WORK/verification_key.json.
snarkjs_setup_zkey() {
    local work="$1" r1cs="$2" ptau="$3"
    snarkjs_run_step "groth16 setup" snarkjs groth16 setup "$r1cs" "$ptau" "$work/chain_0.zkey"
    snarkjs_run_step "zkey contribute" snarkjs zkey contribute "$work/chain_0.zkey" "$work/chain.zkey" \
        --name="cuzk interop" -e="cuzk snarkjs interop zkey entropy"
    rm -f "$work/chain_0.zkey"
    snarkjs_run_step "zkey export verificationkey" snarkjs zkey export verificationkey \
        "$work/chain.zkey" "$work/verification_key.json"
}

# snarkjs_write_input FILE: the circuit's input (a, b public; x private).
snarkjs_write_input() {
    cat >"$1" <<'EOF'
{"a": "3", "b": "5", "x": "7"}
EOF
}

# snarkjs_witness WASM INPUT WTNS
snarkjs_witness() {
    snarkjs_run_step "wtns calculate" snarkjs wtns calculate "$1" "$2" "$3"
}

# snarkjs_prove ZKEY WTNS PROOF PUBLIC
snarkjs_prove() {
    snarkjs_run_step "snarkjs groth16 prove" snarkjs groth16 prove "$1" "$2" "$3" "$4"
}

# snarkjs_verifies VK PUBLIC PROOF: exit status 0 when snarkjs accepts the proof. snarkjs prints
# "OK!" and exits 0 when valid, and exits non-zero ("Invalid proof") otherwise.
snarkjs_verifies() {
    snarkjs groth16 verify "$1" "$2" "$3" >/dev/null 2>&1
}

#!/usr/bin/env bash
# Regenerates tests/data/snarkjs/: a Chain(N) circuit compiled by circom2 for BLS12-381, a tiny
# powers of tau, a Groth16 zkey with one contribution, its verification key, a witness and a
# snarkjs proof that snarkjs verifies. The files are committed; run this only to remake them.
#
# Usage: make_fixtures.sh [NPM_DIR]
#   NPM_DIR: where `npm ci` installed this folder's package-lock.json (made in a temporary
#   directory and removed afterwards when not given). node and npm must be installed.
# Environment: CHAIN_N (constraints, default 24), PTAU_POWER (default 5).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../../.." && pwd)"
OUT="$REPO/tests/data/snarkjs"
CHAIN_N="${CHAIN_N:-24}"
PTAU_POWER="${PTAU_POWER:-5}"

# shellcheck source=snarkjs_steps.sh
source "$HERE/snarkjs_steps.sh"

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

if [[ $# -ge 1 ]]; then
    NPM_DIR="$(cd "$1" && pwd)"
else
    command -v npm >/dev/null 2>&1 ||
        snarkjs_fail "npm is not installed (Debian: apt-get install nodejs npm, or scripts/install-deps.sh)"
    NPM_DIR="$WORK/npm"
    mkdir -p "$NPM_DIR"
    cp "$HERE/package.json" "$HERE/package-lock.json" "$NPM_DIR/"
    (cd "$NPM_DIR" && npm ci --no-audit --no-fund >/dev/null)
fi
snarkjs_require_tools

echo "compiling Chain($CHAIN_N) for bls12381"
snarkjs_compile_chain "$WORK" "$CHAIN_N"
echo "powers of tau, power $PTAU_POWER"
snarkjs_make_ptau "$WORK" "$PTAU_POWER"
echo "groth16 setup and one zkey contribution"
snarkjs_setup_zkey "$WORK" "$WORK/chain_main.r1cs" "$WORK/pot_final.ptau"
snarkjs_write_input "$WORK/input.json"
snarkjs_witness "$WORK/chain_main_js/chain_main.wasm" "$WORK/input.json" "$WORK/chain.wtns"
echo "snarkjs prove and verify"
snarkjs_prove "$WORK/chain.zkey" "$WORK/chain.wtns" "$WORK/proof.json" "$WORK/public.json"
snarkjs_verifies "$WORK/verification_key.json" "$WORK/public.json" "$WORK/proof.json" ||
    snarkjs_fail "snarkjs rejects its own fixture proof"

mkdir -p "$OUT"
cp "$WORK/chain_main.r1cs" "$OUT/chain.r1cs"
cp "$WORK/chain.wtns" "$WORK/chain.zkey" "$WORK/verification_key.json" \
    "$WORK/proof.json" "$WORK/public.json" "$WORK/input.json" "$OUT/"

SNARKJS_VERSION="$(node -p "require('$NPM_DIR/node_modules/snarkjs/package.json').version")"
CIRCOM2_VERSION="$(node -p "require('$NPM_DIR/node_modules/circom2/package.json').version")"
CIRCOM_VERSION="$(cd "$WORK" && node "$CIRCOM2_CLI" --version 2>/dev/null | grep -o 'compiler [0-9.]*' | head -1)"
NODE_VERSION="$(node --version)"
R1CS_INFO="$(snarkjs r1cs info "$OUT/chain.r1cs" 2>&1 | sed -n 's/.*snarkJS[^:]*: //p')"
PUBLIC_SIGNALS="$(tr -d ' \n' <"$OUT/public.json")"

# shellcheck disable=SC2016 # the backquotes are markdown, not a command
file_sizes() {
    local f
    for f in chain.r1cs chain.wtns chain.zkey verification_key.json proof.json public.json input.json; do
        printf '| `%s` | %s |\n' "$f" "$(stat -c %s "$OUT/$f")"
    done
}

cat >"$OUT/README.md" <<EOF
# snarkjs fixtures

A small circom circuit proved with snarkjs over BLS12-381, for cuzk's snarkjs reader/writer tests
(\`tests/snarkjs/snarkjs_test.cpp\`) and the interop test (\`tests/interop/snarkjs/interop_test.sh\`).

Made by \`tests/interop/snarkjs/make_fixtures.sh\` (CHAIN_N=$CHAIN_N, PTAU_POWER=$PTAU_POWER) with
snarkjs $SNARKJS_VERSION and circom2 $CIRCOM2_VERSION (circom $CIRCOM_VERSION) from
\`tests/interop/snarkjs/package-lock.json\`, node $NODE_VERSION:

1. \`circuits/chain.circom\` as \`Chain($CHAIN_N)\` with public inputs a, b and output out,
   compiled with \`circom2 --r1cs --wasm --prime bls12381\` (\`chain.r1cs\`);
2. \`snarkjs powersoftau new bls12381 $PTAU_POWER\`, one \`powersoftau contribute\`,
   \`powersoftau prepare phase2\` (the ptau is not kept);
3. \`snarkjs groth16 setup\` and one \`zkey contribute\` (\`chain.zkey\`),
   \`zkey export verificationkey\` (\`verification_key.json\`);
4. \`snarkjs wtns calculate\` on \`input.json\` (\`chain.wtns\`);
5. \`snarkjs groth16 prove\` (\`proof.json\`, \`public.json\`), checked by \`snarkjs groth16 verify\`.

snarkjs mixes random bytes into every contribution's entropy and Groth16 proofs are randomised,
so a rerun makes different (equally valid) zkey, verification key and proof files; the r1cs,
witness and public signals are the same.

Public signals, in snarkjs' order (outputs first, then public inputs a, b): \`$PUBLIC_SIGNALS\`.

\`snarkjs r1cs info chain.r1cs\`:

\`\`\`
$R1CS_INFO
\`\`\`

| file | bytes |
|---|---|
$(file_sizes)
EOF

echo "fixtures written to $OUT ($(du -sb "$OUT" | cut -f1) bytes)"

#!/usr/bin/env python3
"""cuzk-bench against snarkjs on the same machine, circuit, zkey and witness (issue 28).

For each power k: circuits/chain.circom as Chain(2^k - 4), the largest chain whose Groth16
domain is 2^k (snarkjs needs constraints + 3 public signals < 2^k), a BLS12-381 powers of tau of
power k, a zkey with one contribution, a witness. Then it times `snarkjs groth16 prove` (node)
and `cuzk-bench snarkjs prove --backend cpu` (and `--backend cuda` with --cuda), each as a whole
command (reading the zkey and witness, proving, writing the JSON), checks every proof with
`snarkjs groth16 verify`, and prints a markdown table. cuzk runs twice per backend: reading the
key with every point checked (--no-checked-keys, as a key's first read), and reading a key whose
SHA-256 a first read recorded (--checked-keys: points checked on the curve only).

snarkjs' set-up is slow (`powersoftau prepare phase2` took 2,046 s at 2^14 on 2 cores, hours at
2^16); with --cuzk-setup the key comes from `cuzk-bench snarkjs setup` instead (known toxic
waste, seconds), its verification key from `snarkjs zkey export verificationkey`. Files are kept
under --work and reused by later runs. The steps are tests/interop/snarkjs/snarkjs_steps.sh's.

Example: bench/snarkjs_compare.py 12 14 16 --cuzk-setup --work /tmp/snarkjs-bench --cuzk-bench build/bench/cuzk-bench
"""

import argparse
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
INTEROP = REPO / "tests" / "interop" / "snarkjs"
STEPS = INTEROP / "snarkjs_steps.sh"
PUBLIC_SIGNALS = 3  # out, a, b


def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def fail(message):
    print(f"snarkjs_compare: {message}", file=sys.stderr)
    sys.exit(1)


def run(cmd, what, env=None):
    """Runs cmd; on failure prints its output and exits naming what failed."""
    result = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if result.returncode != 0:
        sys.stderr.write(result.stdout[-4000:] + result.stderr[-4000:])
        fail(f"{what} failed (exit {result.returncode}): {shlex.join(map(str, cmd))}")
    return result


def run_step(npm_dir, function, *args):
    """Runs one function of snarkjs_steps.sh (the interop test's steps) in bash."""
    script = (f"set -euo pipefail; NPM_DIR={shlex.quote(str(npm_dir))}; source {shlex.quote(str(STEPS))}; "
              f"snarkjs_require_tools; {function} " + " ".join(shlex.quote(str(a)) for a in args))
    run(["bash", "-c", script], f"{function} {' '.join(map(str, args))}")


def snarkjs_cmd(npm_dir, *args):
    return ["node", str(npm_dir / "node_modules" / "snarkjs" / "cli.js"), *map(str, args)]


def ensure_npm(npm_dir):
    if not (npm_dir / "node_modules" / "snarkjs" / "cli.js").is_file():
        log(f"installing snarkjs and circom2 into {npm_dir}")
        run([str(INTEROP / "npm_install.sh"), str(npm_dir)], "npm install")


def ensure_ptau(work, npm_dir, power, make_power):
    """A prepared powers of tau of at least this power from WORK/ptau (a ptau of power P holds
    every domain up to 2^P). When there is none, one of make_power is made: the slowest step."""
    kept = sorted((int(p.stem[3:-6]), p) for p in (work / "ptau").glob("pot*_final.ptau"))
    for kept_power, path in kept:
        if kept_power >= power:
            return path
    make_power = max(power, make_power)
    final = work / "ptau" / f"pot{make_power}_final.ptau"
    scratch = work / "ptau" / f"pot{make_power}.partial"
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir(parents=True)
    log(f"powers of tau 2^{make_power} (new, contribute, prepare phase2): slow, done once")
    start = time.monotonic()
    run_step(npm_dir, "snarkjs_make_ptau", scratch, make_power)
    (scratch / "pot_final.ptau").rename(final)
    shutil.rmtree(scratch)
    log(f"powers of tau 2^{make_power}: {time.monotonic() - start:.0f} s")
    return final


def ensure_circuit(work, npm_dir, power, ptau_power, cuzk_bench=None):
    """Chain(2^k - 4): r1cs, zkey, verification key and witness, made once in WORK/k<power> (with
    snarkjs' setup) or WORK/k<power>-cuzk-setup (with cuzk_bench's, when given)."""
    size_dir = work / (f"k{power}-cuzk-setup" if cuzk_bench else f"k{power}")
    done = size_dir / "READY"
    if done.is_file():
        return size_dir
    shutil.rmtree(size_dir, ignore_errors=True)
    size_dir.mkdir(parents=True)
    constraints = (1 << power) - PUBLIC_SIGNALS - 1
    start = time.monotonic()
    if cuzk_bench:
        log(f"2^{power}: compiling Chain({constraints}), cuzk-bench snarkjs setup, witness")
        run_step(npm_dir, "snarkjs_compile_chain", size_dir, constraints)
        setup = run([str(cuzk_bench), "snarkjs", "setup", size_dir / "chain_main.r1cs", size_dir / "chain.zkey"],
                    "cuzk-bench snarkjs setup")
        log(setup.stdout.strip().splitlines()[0])
        run(snarkjs_cmd(npm_dir, "zkey", "export", "verificationkey", size_dir / "chain.zkey",
                        size_dir / "verification_key.json"), "snarkjs zkey export verificationkey")
    else:
        ptau = ensure_ptau(work, npm_dir, power, ptau_power)
        log(f"2^{power}: compiling Chain({constraints}), groth16 setup, zkey contribution, witness")
        run_step(npm_dir, "snarkjs_compile_chain", size_dir, constraints)
        run_step(npm_dir, "snarkjs_setup_zkey", size_dir, size_dir / "chain_main.r1cs", ptau)
    run_step(npm_dir, "snarkjs_write_input", size_dir / "input.json")
    run_step(npm_dir, "snarkjs_witness", size_dir / "chain_main_js" / "chain_main.wasm", size_dir / "input.json",
             size_dir / "chain.wtns")
    done.write_text(f"Chain({constraints})\n")
    log(f"2^{power}: set-up {time.monotonic() - start:.0f} s")
    return size_dir


def time_command(cmd, what, repeat):
    """Median wall seconds of `repeat` runs of cmd (each a whole process), and the last run's stdout."""
    seconds, stdout = [], ""
    for _ in range(repeat):
        start = time.monotonic()
        stdout = run(cmd, what).stdout
        seconds.append(time.monotonic() - start)
    return statistics.median(seconds), stdout


def cuzk_in_process_seconds(stdout):
    """total_s of cuzk-bench's first timing row (zkey and witness reads plus the proof)."""
    for line in stdout.splitlines():
        fields = line.split()
        if len(fields) == 8 and fields[0] == "0":
            return float(fields[6])
    return None


def snarkjs_verifies(npm_dir, size_dir, public, proof):
    result = subprocess.run(snarkjs_cmd(npm_dir, "groth16", "verify", size_dir / "verification_key.json", public, proof),
                            capture_output=True, text=True)
    return result.returncode == 0


def measure(args, npm_dir, power):
    size_dir = ensure_circuit(args.work, npm_dir, power, max(args.powers),
                              args.cuzk_bench if args.cuzk_setup else None)
    zkey, wtns = size_dir / "chain.zkey", size_dir / "chain.wtns"
    row = {"power": power, "constraints": (1 << power) - PUBLIC_SIGNALS - 1}
    verified = []
    if power <= args.snarkjs_max_power:
        proof, public = size_dir / "snarkjs_proof.json", size_dir / "snarkjs_public.json"
        log(f"2^{power}: snarkjs groth16 prove x{args.repeat}")
        row["snarkjs"], _ = time_command(snarkjs_cmd(npm_dir, "groth16", "prove", zkey, wtns, proof, public),
                                         "snarkjs groth16 prove", args.repeat)
        verified.append(("snarkjs", snarkjs_verifies(npm_dir, size_dir, public, proof)))
    checked_keys = args.work / "checked-keys"
    for backend in ["cpu"] + (["cuda"] if args.cuda else []):
        proof, public = size_dir / f"cuzk_{backend}_proof.json", size_dir / f"cuzk_{backend}_public.json"
        base = [str(args.cuzk_bench), "snarkjs", "prove", zkey, wtns, proof, public, "--backend", backend]
        log(f"2^{power}: cuzk-bench snarkjs prove --backend {backend} x{args.repeat}, every point checked")
        row[backend], stdout = time_command(base + ["--no-checked-keys"],
                                            f"cuzk-bench snarkjs prove --backend {backend}", args.repeat)
        row[backend + "_in_process"] = cuzk_in_process_seconds(stdout)
        verified.append((backend, snarkjs_verifies(npm_dir, size_dir, public, proof)))
        run(base + ["--checked-keys", checked_keys], "cuzk-bench snarkjs prove (recording the key)")
        log(f"2^{power}: cuzk-bench snarkjs prove --backend {backend} x{args.repeat}, key recorded as checked")
        row[backend + "_recorded"], stdout = time_command(base + ["--checked-keys", checked_keys],
                                                          f"cuzk-bench snarkjs prove --backend {backend}", args.repeat)
        if "not again for the subgroup" not in stdout:
            fail(f"cuzk-bench did not find the key's record in {checked_keys}")
        row[backend + "_recorded_in_process"] = cuzk_in_process_seconds(stdout)
        verified.append((backend + " (recorded key)", snarkjs_verifies(npm_dir, size_dir, public, proof)))
    row["verified"] = verified
    return row


def seconds(value):
    return "—" if value is None else f"{value:.2f}"


def ratio(snarkjs, cuzk):
    return "—" if snarkjs is None or cuzk is None else f"{snarkjs / cuzk:.1f}×"


def print_table(rows, cuda):
    header = ["domain", "constraints", "snarkjs prove (s)"]
    for backend in ["cpu"] + (["cuda"] if cuda else []):
        header += [f"cuzk {backend}, key checked (s)", "× snarkjs", f"cuzk {backend}, key recorded (s)", "× snarkjs",
                   "in-process checked / recorded (s)"]
    header.append("snarkjs verify")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        cells = [f"2^{row['power']}", f"{row['constraints']:,}", seconds(row.get("snarkjs"))]
        for backend in ["cpu"] + (["cuda"] if cuda else []):
            cells += [seconds(row.get(backend)), ratio(row.get("snarkjs"), row.get(backend)),
                      seconds(row.get(backend + "_recorded")), ratio(row.get("snarkjs"), row.get(backend + "_recorded")),
                      f"{seconds(row.get(backend + '_in_process'))} / {seconds(row.get(backend + '_recorded_in_process'))}"]
        cells.append(", ".join(f"{name} {'ok' if ok else 'REJECTED'}" for name, ok in row["verified"]))
        print("| " + " | ".join(cells) + " |", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("powers", nargs="*", type=int, default=[12, 13, 14, 15, 16],
                        help="domain sizes as powers of two (default 12 13 14 15 16)")
    parser.add_argument("--work", type=Path, required=True,
                        help="directory for the npm install, ptau, zkey and witness files (kept and reused)")
    parser.add_argument("--npm", type=Path, help="an existing `npm ci` install of tests/interop/snarkjs (default WORK/npm)")
    parser.add_argument("--cuzk-bench", type=Path, default=REPO / "build" / "bench" / "cuzk-bench")
    parser.add_argument("--cuda", action="store_true", help="time --backend cuda too")
    parser.add_argument("--cuzk-setup", action="store_true",
                        help="make the keys with `cuzk-bench snarkjs setup` (insecure, seconds) instead of snarkjs' "
                             "powers of tau and setup (hours at 2^16)")
    parser.add_argument("--repeat", type=int, default=1, help="runs per prover; the median is shown (default 1)")
    parser.add_argument("--snarkjs-max-power", type=int, default=99,
                        help="time snarkjs only up to this power (it is slow beyond 2^20); set-up still uses it")
    parser.add_argument("--prepare-only", action="store_true", help="make the set-up files and stop")
    args = parser.parse_args()

    if shutil.which("node") is None:
        fail("node is not installed (Debian: apt-get install nodejs npm, or scripts/install-deps.sh)")
    args.work = args.work.resolve()
    args.work.mkdir(parents=True, exist_ok=True)
    npm_dir = (args.npm or args.work / "npm").resolve()
    ensure_npm(npm_dir)
    # snarkjs keeps whole sections in the JavaScript heap: give node most of the memory.
    if "NODE_OPTIONS" not in os.environ:
        memory_mb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // (1 << 20)
        os.environ["NODE_OPTIONS"] = f"--max-old-space-size={memory_mb * 3 // 4}"

    if not args.cuzk_bench.is_file() and (args.cuzk_setup or not args.prepare_only):
        fail(f"cuzk-bench not found at {args.cuzk_bench} (build target cuzk-bench, or pass --cuzk-bench)")
    args.cuzk_bench = args.cuzk_bench.resolve()
    if args.prepare_only:
        for power in args.powers:
            ensure_circuit(args.work, npm_dir, power, max(args.powers), args.cuzk_bench if args.cuzk_setup else None)
        return

    rows = [measure(args, npm_dir, power) for power in args.powers]
    snarkjs_version = run(["node", "-p", f"require('{npm_dir}/node_modules/snarkjs/package.json').version"],
                          "reading snarkjs' version").stdout.strip()
    node_version = run(["node", "--version"], "node --version").stdout.strip()
    print(f"\nsnarkjs {snarkjs_version} (node {node_version}) against "
          f"cuzk-bench on {os.cpu_count()} cores; seconds of whole commands (node start, zkey and witness "
          f"reads, the proof, JSON writes), median of {args.repeat}; in-process: cuzk-bench's own total_s "
          f"(reads and proof); keys made by {'cuzk-bench snarkjs setup' if args.cuzk_setup else 'snarkjs'}.\n")
    print_table(rows, args.cuda)
    if not all(ok for row in rows for _, ok in row["verified"]):
        fail("a proof did not verify under snarkjs (see the table)")


if __name__ == "__main__":
    main()

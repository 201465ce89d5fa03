#!/usr/bin/python3
"""What ran beside each MSM of H in an engine timeline (a Chrome trace written by `cuzk-bench
pipeline --timeline` with the CUDA backend): the MSM's window is its prove_start span's start plus
the a/b/c and H polynomial steps (the span's args), for its msm_h_s seconds. Each synthesis span is
split into its last TAIL seconds (where the backend's prepare_assignment page-locks the witness)
and the rest (the circuit's sections); the MSMs are grouped by how much of either they overlapped,
with the mean MSM of H of each group. Markdown.
Usage: scripts/timeline_msm_beside.py [--tail SECONDS] TRACE.json [TRACE.json ...]
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timeline_peaks import load  # noqa: E402  (a trace, whole or cut off mid-run)


def spans(events, prefix):
    return [e for e in events if e.get("ph") == "X" and e.get("name", "").startswith(prefix)]


def overlap(a, b, s, t):
    return max(0.0, min(b, t) - max(a, s))


def groups(events, tail):
    syntheses = [(e["ts"] / 1e6, (e["ts"] + e["dur"]) / 1e6) for e in spans(events, "synthesize")]
    out = {"none beside": [], "bodies only": [], "tails < 0.2 s": [], "tails >= 0.2 s": []}
    for e in spans(events, "prove_start"):
        args = e.get("args", {})
        if "msm_h_s" not in args:
            continue
        a = e["ts"] / 1e6 + args.get("abc_s", 0) + args.get("h_ntt_s", 0)
        b = a + args["msm_h_s"]
        in_tails = sum(overlap(a, b, t - tail, t) for s, t in syntheses)
        in_bodies = sum(overlap(a, b, s, t - tail) for s, t in syntheses)
        if in_tails == 0:
            key = "bodies only" if in_bodies > 0 else "none beside"
        else:
            key = "tails < 0.2 s" if in_tails < 0.2 else "tails >= 0.2 s"
        out[key].append(args["msm_h_s"])
    return out


def main(argv):
    tail = 0.25
    if len(argv) > 2 and argv[1] == "--tail":
        tail = float(argv[2])
        argv = argv[:1] + argv[3:]
    if len(argv) < 2:
        sys.exit(__doc__)
    first = True
    for path in argv[1:]:
        g = groups(load(path), tail)
        if first:
            print("| trace | " + " | ".join(f"MSM of H, {k} (n)" for k in g) + " |")
            print("|---" * (len(g) + 1) + "|")
            first = False
        cells = [f"{sum(v) / len(v):.3f} ({len(v)})" if v else "—" for v in g.values()]
        print(f"| {os.path.basename(path)} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv)

#!/usr/bin/python3
"""Prints the peak of every buffer class (summed over the pipeline's stages), of the jobs' inputs,
of the budget used and of the process RSS, from an engine timeline (Chrome trace JSON written by
`cuzk-bench pipeline --timeline` or the daemon's `timeline` setting), as a Markdown table in GiB.
Usage: scripts/timeline_peaks.py TRACE.json [TRACE.json ...]
"""
import json
import sys

GIB = float(1 << 30)
# The tracker's stages: a buffer class's counter has one value per stage.
STAGES = {"synth_running", "synth_done_waiting_gpu", "on_gpu", "abc_freed", "finalizing_b_g2", "dealloc_pending"}


def load(path):
    with open(path) as f:
        text = f.read()
    try:
        return json.loads(text)
    except json.JSONDecodeError:  # a run still going (or killed): the array is not closed yet
        return json.loads(text.rstrip().rstrip(",") + "]")


def peaks(events):
    """Peak bytes per series: a buffer class's bytes are the sum of its counter's stage values."""
    out = {}
    for e in events:
        if e.get("ph") != "C":
            continue
        name, args = e["name"], e["args"]
        if name == "budget bytes":
            series = {"budget used": args.get("used", 0)}
        elif name == "process RSS bytes":
            series = {"process RSS": args.get("rss", 0)}
        elif name.endswith(" bytes") and len(args) == 1:
            series = {name[: -len(" bytes")]: next(iter(args.values()))}
        elif name.endswith(" bytes") and set(args) <= STAGES:
            series = {name[: -len(" bytes")]: sum(args.values())}
        elif name.endswith(" bytes"):
            series = {f"{name[: -len(' bytes')]}: {k}": v for k, v in args.items()}
        else:
            continue
        for key, value in series.items():
            out[key] = max(out.get(key, 0), value)
    return out


def main(paths):
    if not paths:
        print(__doc__, file=sys.stderr)
        return 2
    tables = [(p, peaks(load(p))) for p in paths]
    keys = sorted({k for _, t in tables for k in t})
    print("| peak GiB | " + " | ".join(p for p, _ in tables) + " |")
    print("|---|" + "---|" * len(tables))
    for k in keys:
        print(f"| {k} | " + " | ".join(f"{t.get(k, 0) / GIB:.3f}" for _, t in tables) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

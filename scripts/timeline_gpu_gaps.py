#!/usr/bin/python3
"""Where an engine timeline's prover was idle: for each GPU worker's track of a Chrome trace
written by `cuzk-bench pipeline --timeline` (or the daemon's `timeline` setting), its prove_start
spans, how busy it was between the first and the last, and its gaps between proofs, split into
time with no partition waiting for it (starved: synthesis or admission was behind) and time with
one waiting (the worker's own overhead between proofs). Then each stage's mean span, and the
mean of each prove_start step the backend reported (the spans' args). Markdown.
Usage: scripts/timeline_gpu_gaps.py TRACE.json [TRACE.json ...]
"""
import bisect
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timeline_peaks import load  # noqa: E402  (a trace, whole or cut off mid-run)


def waiting_series(events):
    """(ts, partitions waiting for the prover) from the tracker's "partitions" counter."""
    out = [
        (e["ts"], e["args"].get("synth_done_waiting_gpu", 0))
        for e in events
        if e.get("ph") == "C" and e.get("name") == "partitions"
    ]
    out.sort()
    return out


def waiting_at(series, times, ts):
    i = bisect.bisect_right(times, ts) - 1
    return series[i][1] if i >= 0 else 0


def analyse(events):
    tracks = {e["tid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "thread_name"}
    spans = defaultdict(list)
    for e in events:
        if e.get("ph") == "X":
            spans[e["tid"]].append((e["ts"], e["ts"] + e["dur"], e["name"]))
    series = waiting_series(events)
    times = [t for t, _ in series]
    gpu_rows, stage_spans = [], defaultdict(list)
    steps = defaultdict(list)  # prove_start's steps (args), seconds
    for e in events:
        if e.get("ph") == "X" and e["name"].startswith("prove_start ") and e.get("args"):
            for k, v in e["args"].items():
                steps[k].append(v)
    for tid, items in spans.items():
        items.sort()
        for start, end, name in items:
            stage_spans[name.split(" ")[0]].append((end - start) / 1e6)
        proofs = [(s, e) for s, e, n in items if n.startswith("prove_start ")]
        if not proofs:
            continue
        busy = sum(e - s for s, e in proofs)
        window = proofs[-1][1] - proofs[0][0]
        gaps, starved = [], 0.0
        for (_, end), (start, _) in zip(proofs, proofs[1:]):
            gap = max(0.0, start - end)
            gaps.append(gap)
            # The counter moves when the next proof takes its partition: look just after this end.
            if waiting_at(series, times, end + 1) == 0:
                starved += gap
        gpu_rows.append(
            (
                tracks.get(tid, str(tid)),
                len(proofs),
                busy / len(proofs) / 1e6,
                100.0 * busy / window if window else 100.0,
                sum(gaps) / 1e6,
                max(gaps, default=0) / 1e6,
                starved / 1e6,
            )
        )
    return gpu_rows, stage_spans, steps


def main(paths):
    if not paths:
        print(__doc__, file=sys.stderr)
        return 2
    for path in paths:
        gpu_rows, stage_spans, steps = analyse(load(path))
        print(f"{path}\n")
        print("| GPU worker | proofs | mean prove_start s | busy between first and last | gaps s | longest gap s "
              "| gaps with none waiting s |")
        print("|---|---|---|---|---|---|---|")
        for row in sorted(gpu_rows):
            print("| {} | {} | {:.3f} | {:.1f}% | {:.2f} | {:.3f} | {:.2f} |".format(*row))
        print("\n| span | n | mean s | max s |\n|---|---|---|---|")
        for name, d in sorted(stage_spans.items()):
            print(f"| {name} | {len(d)} | {sum(d) / len(d):.3f} | {max(d):.3f} |")
        if steps:
            print("\n| prove_start step | n | mean s | max s |\n|---|---|---|---|")
            for name, d in steps.items():
                print(f"| {name} | {len(d)} | {sum(d) / len(d):.3f} | {max(d):.3f} |")
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

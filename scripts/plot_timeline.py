#!/usr/bin/python3
"""Plots engine timelines (Chrome trace JSON from `cuzk-bench pipeline --timeline`) side by side:
partitions waiting for the prover, tracked buffer bytes and process RSS over time, one column
per trace. Needs python3-matplotlib (Debian). Usage:
    scripts/plot_timeline.py OUT.png TRACE.json [TRACE.json ...]
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

STAGES = ["synth_running", "synth_done_waiting_gpu", "on_gpu", "abc_freed", "finalizing_b_g2", "dealloc_pending"]


def load(path):
    with open(path) as f:
        text = f.read()
    try:
        events = json.loads(text)
    except json.JSONDecodeError:  # a run still going (or killed): the array is not closed yet
        events = json.loads(text.rstrip().rstrip(",") + "]")
    series = {"t": [], "waiting": [], "tracked": [], "rss": [], "budget_t": [], "budget": [], "total": []}
    latest = {}  # buffer class -> bytes over all stages, as of the last counter event
    tracked = []
    for e in events:
        if e.get("ph") != "C":
            continue
        t = e["ts"] / 1e6
        name, args = e["name"], e["args"]
        if name == "partitions":
            series["t"].append(t)
            series["waiting"].append(args["synth_done_waiting_gpu"])
        elif name.endswith(" bytes") and name.split()[0] in ("abc", "aux", "inputs", "densities"):
            latest[name] = sum(args.get(s, 0) for s in STAGES)
            tracked.append((t, sum(latest.values())))
        elif name == "process RSS bytes":
            series["rss"].append((t, args["rss"]))
        elif name == "budget bytes":
            series["budget_t"].append(t)
            series["budget"].append(args["used"])
            series["total"].append(args["total"])
    series["tracked"] = tracked
    return series


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    out, traces = sys.argv[1], sys.argv[2:]
    fig, axes = plt.subplots(2, len(traces), figsize=(5.5 * len(traces), 6), squeeze=False, sharey="row")
    mib = 1 / (1 << 20)
    for col, path in enumerate(traces):
        s = load(path)
        title = path.rsplit("/", 1)[-1].replace(".json", "").replace("timeline-", "")
        ax = axes[0][col]
        ax.step(s["t"], s["waiting"], where="post", color="tab:red")
        ax.set_title(title, fontsize=10)
        ax.set_ylabel("partitions waiting for the prover")
        ax = axes[1][col]
        if s["tracked"]:
            ax.step([t for t, _ in s["tracked"]], [b * mib for _, b in s["tracked"]], where="post", label="tracked buffers")
        if s["rss"]:
            ax.plot([t for t, _ in s["rss"]], [b * mib for _, b in s["rss"]], label="process RSS", color="tab:gray")
        if s["budget"]:
            ax.step(s["budget_t"], [b * mib for b in s["budget"]], where="post", label="budget used", color="tab:olive")
        if s["total"]:
            ax.axhline(s["total"][-1] * mib, linestyle="--", color="tab:green", label="budget")
        ax.set_xlabel("seconds")
        ax.set_ylabel("MiB")
        ax.legend(fontsize=8, loc="upper right")
    fig.tight_layout()
    fig.savefig(out, dpi=90)


if __name__ == "__main__":
    main()

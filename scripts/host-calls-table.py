#!/usr/bin/env python3
"""Sum `warpgraph run --host-calls` logs into where each run's end-to-end
time went, beside each other: per log, the median over its timed runs of
the time in each kind of call, in the host's own code between calls (gaps),
and in all, in microseconds, with the number of calls of each kind.

    python3 scripts/host-calls-table.py hw.csv sim.csv [...]

Give the hardware's log and the simulator's of the same command to see which
calls, and how much host code, the simulated host clock leaves out.
"""

import csv
import statistics
import sys
from collections import defaultdict


def runs_of(path):
    """Each timed run's totals: {kind: (microseconds, calls)}, with 'gaps'
    and 'end to end'."""
    runs = defaultdict(lambda: defaultdict(lambda: [0.0, 0]))
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if row["timed"] != "true":
                continue
            run = runs[row["run"]]
            run["gaps"][0] += float(row["gap_us"])
            call = row["call"]
            if call == "run begin":
                continue
            if call == "run end":
                run["end to end"] = [float(row["start_us"]), 1]
                continue
            run[call][0] += float(row["duration_us"])
            run[call][1] += 1
    return list(runs.values())


def main(paths):
    if not paths:
        sys.exit(__doc__)
    tables = [runs_of(p) for p in paths]
    kinds = sorted({k for runs in tables for run in runs for k in run} - {"gaps", "end to end"})
    kinds += ["gaps", "end to end"]
    print("| | " + " | ".join(paths) + " |")
    print("|---|" + "---:|" * len(paths))
    for kind in kinds:
        cells = []
        for runs in tables:
            if not runs:
                cells.append("–")
                continue
            us = statistics.median(run[kind][0] if kind in run else 0.0 for run in runs)
            calls = statistics.median(run[kind][1] if kind in run else 0 for run in runs)
            cells.append(f"{us:.1f}" if kind in ("gaps", "end to end") else f"{us:.1f} ({calls:g})")
        print(f"| {kind} | " + " | ".join(cells) + " |")
    print(f"\nMedians over the timed runs ({', '.join(str(len(t)) for t in tables)}); "
          "µs, with the calls of each kind in parentheses.")


if __name__ == "__main__":
    main(sys.argv[1:])

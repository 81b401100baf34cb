#!/usr/bin/env bash
# sampled-bench.sh — sampled simulation (--sim-mode sampled) against full
# timing on the same commands: simulated end-to-end time, its error,
# iterations, launches in detail, wall times and their ratio, and
# functional mode's wall time (the ceiling of sampling's gain):
#
#   bash scripts/sampled-bench.sh [WARPGRAPH] [REPS]
#
# WARPGRAPH is the binary (default ./warpgraph); REPS (default 3) runs of
# each mode per cell, the modes alternated back to back, whose median wall
# time is reported (the simulated figures are the same in every run).
# CELLS (environment) replaces the cells: "ALGO:SCHEDULER:GRAPH ..."; CONFIG
# the configuration (default h100). The runs ask for --json, whose
# per-iteration rows also give, where timing and sampled runs took the same
# iterations of one launch each, each detailed launch's cycles against full
# timing's (the L2 after functional launches). Each run's JSON (validated by
# warpgraph against the CPU reference) goes to $OUT (default
# /tmp/sampled-bench), a line per cell to $OUT/sampled.jsonl, and a
# Markdown table is printed last. REPORT_ONLY=1 runs nothing and reports
# the runs already in $OUT.
set -u
WG=${1:-./warpgraph}
REPS=${2:-3}
OUT=${OUT:-/tmp/sampled-bench}
CONFIG=${CONFIG:-h100}
CELLS=${CELLS:-"pr:bsp:rmat:scale=12+perm=1 pr:bsp:rmat:scale=14+perm=1 wcc:bsp:grid:w=64,h=64 bfs:bsp:grid:w=64,h=64 bfs:bsp:grid:w=128,h=128 bfs:bsp:grid:w=256,h=256 sssp:bsp:grid:w=64,h=64 color:bsp:rmat:scale=12+perm=1 sssp:bsp:rmat:scale=12+perm=1"}
mkdir -p "$OUT"
rm -f "$OUT/sampled.jsonl"
for cell in $CELLS; do
  algo=${cell%%:*} rest=${cell#*:}
  sched=${rest%%:*} graph=${rest#*:}
  tag="$algo-$sched-${graph//[:=,+]/_}"
  for rep in $(seq 1 "$REPS"); do
    [ -n "${REPORT_ONLY:-}" ] && break
    for mode in timing sampled functional; do
      start=$(date +%s.%N)
      "$WG" run --algo "$algo" --graph "$graph" --target sim --config "$CONFIG" --scheduler "$sched" \
        --sim-mode "$mode" --heartbeat 0 --json >"$OUT/$tag.$mode.$rep.json" 2>"$OUT/$tag.$mode.$rep.err" || echo "$tag $mode: exit $?" >&2
      end=$(date +%s.%N)
      awk "BEGIN{print $end - $start}" >"$OUT/$tag.$mode.$rep.wall"
    done
  done
  python3 - "$OUT" "$tag" "$REPS" "$algo" "$sched" "$graph" <<'PY' >>"$OUT/sampled.jsonl"
import json, statistics, sys
out, tag, reps, algo, sched, graph = sys.argv[1:]
row = {"algorithm": algo, "scheduler": sched, "graph": graph}
runs = {}
for mode in ("timing", "sampled", "functional"):
    walls = [float(open(f"{out}/{tag}.{mode}.{i}.wall").read()) for i in range(1, int(reps) + 1)]
    r = runs[mode] = json.load(open(f"{out}/{tag}.{mode}.1.json"))
    row[mode] = {"wall_seconds": statistics.median(walls), "walls": walls,
                 "end_to_end_seconds": r.get("end_to_end_seconds"), "kernel_seconds": r.get("kernel_seconds"),
                 "iterations": r.get("iterations"), "launches": r.get("launches"),
                 "validation": r["validation"]["ok"], "commit": r.get("provenance", {}).get("commit")}
    if mode == "sampled":
        s = r["sampling"]
        row[mode].update(detailed=s["detailed"], sampled_launches=s["launches"], held_out_median=s["held_out_median_error"],
                         held_out_max=s["held_out_max_error"], estimated_error=s["estimated_error"],
                         reasons={k["kernel"]: k["reasons"] for k in s["kernels"]})
# The L2 after functional launches: where both runs took the same
# iterations with one launch each, each detailed launch's cycles (past the
# warm-up) against the same launch's under full timing, apart for those
# right after a detailed launch and those right after a functional one.
t, s = runs["timing"], runs["sampled"]
if t.get("iterations") == s.get("iterations") and t.get("launches") == s.get("launches") == t.get("iterations"):
    detailed = ["l2_reads" in b.get("counters", {}) for b in s["per_iteration"]]
    excess = {"after_detailed": [], "after_functional": []}
    for i, (a, b) in enumerate(zip(t["per_iteration"], s["per_iteration"])):
        if i >= 3 and detailed[i] and a["cycles"]:
            excess["after_detailed" if detailed[i - 1] else "after_functional"].append((b["cycles"] - a["cycles"]) / a["cycles"])
    row["detailed_excess"] = {k: {"n": len(v), "median": statistics.median(v)} for k, v in excess.items() if v}
print(json.dumps(row))
PY
done
python3 - "$OUT/sampled.jsonl" <<'PY'
import json, sys
print("| cell | iterations (timing / sampled) | timing e2e | sampled e2e | error | error per iteration | estimated error | held-out error median / max | launches in detail | wall timing | wall sampled | gain | wall functional | ceiling |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for l in open(sys.argv[1]):
    r = json.loads(l)
    t, s, f = r["timing"], r["sampled"], r["functional"]
    err = (s["end_to_end_seconds"] - t["end_to_end_seconds"]) / t["end_to_end_seconds"]
    per = (s["end_to_end_seconds"] / s["iterations"]) / (t["end_to_end_seconds"] / t["iterations"]) - 1
    ok = "" if t["validation"] and s["validation"] and f["validation"] else " (NOT VALIDATED)"
    print(f'| {r["algorithm"]} {r["scheduler"]} {r["graph"]}{ok} | {t["iterations"]} / {s["iterations"]} '
          f'| {t["end_to_end_seconds"]*1e3:.3f} ms | {s["end_to_end_seconds"]*1e3:.3f} ms | {100*err:+.2f}% | {100*per:+.2f}% '
          f'| ±{100*s["estimated_error"]:.2f}% | {100*s["held_out_median"]:.1f}% / {100*s["held_out_max"]:.0f}% '
          f'| {s["detailed"]} of {s["sampled_launches"]} '
          f'| {t["wall_seconds"]:.2f} s | {s["wall_seconds"]:.2f} s | {t["wall_seconds"]/s["wall_seconds"]:.1f}× '
          f'| {f["wall_seconds"]:.2f} s | {t["wall_seconds"]/f["wall_seconds"]:.1f}× |')
print()
print("| cell | detailed launches right after a detailed one: cycles against full timing's, median (launches) | right after a functional one |")
print("|---|---|---|")
for l in open(sys.argv[1]):
    r = json.loads(l)
    if "detailed_excess" in r:
        e = r["detailed_excess"]
        cell = lambda k: f'{100*e[k]["median"]:+.1f}% ({e[k]["n"]})' if k in e else "-"
        print(f'| {r["algorithm"]} {r["scheduler"]} {r["graph"]} | {cell("after_detailed")} | {cell("after_functional")} |')
PY

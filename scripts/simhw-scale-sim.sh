#!/usr/bin/env bash
# simhw-scale-sim.sh — the simulated half of `sweep simhw-scale`, cell by
# cell, cheapest first (by the hardware's kernel time), one sweep process
# per cell so that many run at once on a many-core host:
#
#   bash scripts/simhw-scale-sim.sh queue PICKS DONE_CSV OUTROOT [SKIP] [COUNT]
#   bash scripts/simhw-scale-sim.sh run WARPGRAPH OUTROOT [LIMIT] [JOBS]
#   bash scripts/simhw-scale-sim.sh hw WARPGRAPH OUTROOT HWROOT
#   bash scripts/simhw-scale-sim.sh collect OUTROOT DEST_DIR
#
# queue writes OUTROOT/queue.tsv: the cells of PICKS (from
# scripts/simhw-scale-picks.sh) not yet in DONE_CSV (a data.csv of the
# simulated half), cheapest first, COUNT of them after the first SKIP;
# with EXCLUDE set (a space-separated list of algorithms), without
# those algorithms' cells (e.g. EXCLUDE="color coreness", whose picks are
# made from another hardware half). Columns: index, graph, algorithm,
# variant, the hardware's kernel µs (from PICKS) and, with COSTS set (a
# space-separated list of earlier simulated data.csv files, a later
# file's figure replacing an earlier one's), the cell's wall seconds
# there (empty where none timed it); with COSTS the queue runs longest
# first by those seconds (unknown first).
# run simulates them, JOBS at a time (default: one per CPU ÷ THREADS), each
#   WARPGRAPH sweep simhw-scale --target sim --config CONFIG --jobs 1
#     --sim-threads THREADS --timeout LIMIT --out OUTROOT/cells/N
#     --points 'graph=G;algorithm=A;variant=V'
# (CONFIG default h100; any --config spelling, e.g. h100+KEY=VALUE)
# (LIMIT default 20m: a cell past it is recorded by the sweep with its
# limit, never dropped; THREADS default 1: the costliest cells finish
# sooner four at a time on 4 threads each than sixteen at once on one);
# with DEADLINE (epoch seconds) set, no cell starts after it; with
# FINISH_BY (epoch seconds) set, a cell whose expected end (now + its
# earlier wall seconds, column 6 of a queue made with COSTS, × COST_SCALE,
# default 1.5) passes FINISH_BY is not started, so that a run cut off at
# FINISH_BY loses no started cell (a cell without column 6 is not started
# then either: its cost is unknown). Rerunning skips the cells already
# recorded.
# hw measures the queued cells on the GPU again, one (graph, algorithm)
# after another so that each graph is built once per algorithm (the
# hardware half at the commit that simulates them, where kernels changed
# since the picks' hardware half), each
#   WARPGRAPH sweep simhw-scale --target hw --param warmup=1 --param
#     repeat=5 --retry-failed --out HWROOT/cells/G-A
#     --points 'graph=G;algorithm=A;variant=V1|V2|...'
# (rerunning skips the cells recorded valid and retries the others);
# collect HWROOT as below.
# collect appends the recorded rows that DEST_DIR/data.csv lacks to it;
# then `warpgraph sweep simhw-scale --target sim --config h100 --out
# DEST_DIR --report-only` renders the README and plots.
set -u
mode=${1:?usage: simhw-scale-sim.sh queue|run|hw|collect ...}
shift
case $mode in
queue)
  picks=${1:?PICKS}
  done_csv=${2:?DONE_CSV}
  root=${3:?OUTROOT}
  mkdir -p "$root"
  python3 - "$picks" "$done_csv" "${4:-0}" "${5:-100000}" "${EXCLUDE:-}" "${COSTS:-}" >"$root/queue.tsv" <<'PY' || exit 1
import csv, sys
picks, done_csv, skip, count = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
exclude = set(sys.argv[5].split())
costs = {}
for path in sys.argv[6].split():
    for r in csv.DictReader(open(path)):
        if r["wall_seconds"]:
            costs[(r["graph"], r["algorithm"], r["variant"])] = float(r["wall_seconds"])
done = set()
try:
    for r in csv.DictReader(open(done_csv)):
        done.add((r["graph"], r["algorithm"], r["variant"]))
except FileNotFoundError:
    pass
cells = []
for line in open(picks):
    if line.startswith("#") or line.startswith("graph\t") or not line.strip():
        continue
    graph, algo, variant, us, _ = line.rstrip("\n").split("\t")
    if (graph, algo, variant) not in done and algo not in exclude:
        cells.append((float(us), graph, algo, variant))
cells.sort()
cells = cells[skip:skip + count]
if sys.argv[6]:
    cells.sort(key=lambda c: -costs.get(c[1:], float("inf")))
for i, (us, graph, algo, variant) in enumerate(cells, skip):
    wall = costs.get((graph, algo, variant))
    print(f"{i}\t{graph}\t{algo}\t{variant}\t{us:.3f}" + ("" if not sys.argv[6] else f"\t{wall:.1f}" if wall is not None else "\t"))
PY
  wc -l <"$root/queue.tsv"
  ;;
run)
  WG=${1:?WARPGRAPH}
  root=${2:?OUTROOT}
  export WG root LIMIT=${3:-20m} DEADLINE=${DEADLINE:-0} THREADS=${THREADS:-1} CONFIG=${CONFIG:-h100}
  export FINISH_BY=${FINISH_BY:-0} COST_SCALE=${COST_SCALE:-1.5}
  jobs=${4:-$(($(nproc) / THREADS > 0 ? $(nproc) / THREADS : 1))}
  run_cell() {
    local idx=$1 graph=$2 algo=$3 variant=$4 cost=$5
    local dir=$root/cells/$idx
    if [ -f "$dir/data.csv" ] && [ "$(wc -l <"$dir/data.csv")" -gt 1 ]; then
      return 0
    fi
    if [ "$DEADLINE" -gt 0 ] && [ "$(date +%s)" -ge "$DEADLINE" ]; then
      return 0
    fi
    if [ "$FINISH_BY" -gt 0 ]; then
      if [ -z "$cost" ]; then
        echo "$idx $graph $algo $variant not started: FINISH_BY needs its earlier wall seconds (queue with COSTS)"
        return 0
      fi
      if python3 -c "import sys,time; sys.exit(time.time() + float('$cost') * float('$COST_SCALE') <= $FINISH_BY)"; then
        return 0
      fi
    fi
    mkdir -p "$dir"
    "$WG" sweep simhw-scale --target sim --config "$CONFIG" --jobs 1 --sim-threads "$THREADS" \
      --timeout "$LIMIT" --out "$dir" \
      --points "graph=$graph;algorithm=$algo;variant=$variant" >"$dir/log" 2>&1
    echo "$idx $graph $algo $variant rc=$? $(date -u +%H:%M:%S)"
  }
  export -f run_cell
  cut -f1-4,6 "$root/queue.tsv" | xargs -P "$jobs" -L 1 -d '\n' \
    bash -c 'IFS=$'"'"'\t'"'"' read -r a b c d e <<<"$0"; run_cell "$a" "$b" "$c" "$d" "$e"'
  ;;
hw)
  WG=${1:?WARPGRAPH}
  root=${2:?OUTROOT}
  hwroot=${3:?HWROOT}
  mkdir -p "$hwroot"
  python3 - "$root/queue.tsv" <<'PY' >"$hwroot/groups.tsv" || exit 1
import sys
groups = {}
for line in open(sys.argv[1]):
    _, graph, algo, variant = line.rstrip("\n").split("\t")[:4]
    groups.setdefault((graph, algo), []).append(variant)
for (graph, algo), variants in groups.items():
    print(f"{graph}\t{algo}\t{'|'.join(variants)}")
PY
  while IFS=$'\t' read -r graph algo variants; do
    dir=$hwroot/cells/$graph-$algo
    mkdir -p "$dir"
    "$WG" sweep simhw-scale --target hw --param warmup=1 --param repeat=5 --retry-failed --out "$dir" \
      --points "graph=$graph;algorithm=$algo;variant=$variants" >"$dir/log" 2>&1
    rc=$?
    echo "$graph $algo $(($(tr -cd '|' <<<"$variants" | wc -c) + 1)) variants rc=$rc $(date -u +%H:%M:%S)"
  done <"$hwroot/groups.tsv"
  ;;
collect)
  root=${1:?OUTROOT}
  dest=${2:?DEST_DIR}
  python3 - "$root" "$dest/data.csv" <<'PY'
import csv, glob, os, sys
root, dest = sys.argv[1], sys.argv[2]
have, header = set(), None
if os.path.exists(dest):
    with open(dest) as f:
        rd = csv.DictReader(f)
        header = rd.fieldnames
        have = {r["key"] for r in rd}
added = 0
rows = []
for path in sorted(glob.glob(os.path.join(root, "cells", "*", "data.csv"))):
    with open(path) as f:
        rd = csv.DictReader(f)
        if header is None:
            header = rd.fieldnames
        if rd.fieldnames != header:
            sys.exit(f"{path}: columns differ from {dest}'s")
        for r in rd:
            if r["key"] not in have:
                have.add(r["key"])
                rows.append(r)
new = not os.path.exists(dest)
os.makedirs(os.path.dirname(dest) or ".", exist_ok=True)
with open(dest, "a", newline="") as f:
    w = csv.DictWriter(f, fieldnames=header)
    if new:
        w.writeheader()
    w.writerows(rows)
print(f"{len(rows)} rows added to {dest}")
PY
  ;;
*)
  echo "simhw-scale-sim.sh: unknown mode $mode (queue, run, hw or collect)" >&2
  exit 2
  ;;
esac

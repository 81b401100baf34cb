#!/usr/bin/env bash
# sampled-charge-ab.sh — sampled mode with stretches inside launches
# against full timing, for two binaries (a change to sampled mode before
# and after), one run at a time:
#
#   bash scripts/sampled-charge-ab.sh BEFORE AFTER CELLS OUT.tsv
#
# CELLS is a file of lines "ALGO SCHEDULER GRAPH.wgc [SOURCE]". Each cell
# runs `warpgraph run --algo ALGO --scheduler SCHEDULER --graph GRAPH.wgc
# [--source SOURCE] --target sim --config h100 --grid 132 --sim-threads 2
# --json` in full timing with BEFORE, then with `--sim-mode sampled
# --sample-inside=8` with BEFORE and with AFTER. One TSV line per run is
# appended to OUT.tsv: algorithm, scheduler, graph file, run (timing,
# sampled-old, sampled-new), exit status, wall seconds, then simulated
# cycles, iterations and validation.
set -u
BEFORE=${1:?usage: sampled-charge-ab.sh BEFORE AFTER CELLS OUT.tsv}
AFTER=${2:?after binary}
CELLS=${3:?cells file}
OUT=${4:?output tsv}
json=$(mktemp)
while read -r a s g src; do
  [ -z "$a" ] && continue
  extra=()
  [ -n "${src:-}" ] && extra=(--source "$src")
  for run in "timing $BEFORE" "sampled-old $BEFORE" "sampled-new $AFTER"; do
    set -- $run
    mode=(--sim-mode timing)
    [ "$1" != timing ] && mode=(--sim-mode sampled --sample-inside=8)
    t0=$(date +%s.%N)
    "$2" run --algo "$a" --scheduler "$s" --graph "$g" "${extra[@]}" --target sim --config h100 --grid 132 \
      --sim-threads 2 "${mode[@]}" --heartbeat 0 --json >"$json" 2>/dev/null
    rc=$?
    t1=$(date +%s.%N)
    figs=$(python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
v = d['validation']
print(d['cycles'], d['iterations'], v['ok'] if isinstance(v, dict) else v)" "$json" 2>/dev/null)
    echo -e "$a\t$s\t$(basename "$g")\t$1\t$rc\t$(echo "$t1 - $t0" | bc)\t$figs" >>"$OUT"
  done
done <"$CELLS"
rm -f "$json"

#!/bin/bash
# Short cells' functional runs against their timing run, and against an
# earlier binary's functional runs:
#   OUT=dir [GRAPH=file.wgc|spec] [THREADS=2] [REPS=5] [TIMING_REPS=3] \
#     [CELLS="kcore:hq mis:hq bfs:wseg mis:wseg wcc:afforest"] \
#     bash scripts/functional-short.sh ./warpgraph ./warpgraph-before
# Each cell runs timing mode TIMING_REPS times with the first binary, then REPS rounds
# of functional mode, the earlier binary then the first; every run is
# `warpgraph run --target sim --config h100 --sim-threads THREADS --json`,
# validated by warpgraph itself, one at a time. Writes OUT/cells.tsv (wall
# milliseconds of the whole command, validation, exit status).
set -u
NEW=$(realpath "${1:?the binary to measure}")
OLD=$(realpath "${2:?the binary to compare functional mode with}")
OUT=${OUT:?set OUT to an output folder}
THREADS=${THREADS:-2}
REPS=${REPS:-5}
TIMING_REPS=${TIMING_REPS:-3}
GRAPH=${GRAPH:-rmat:scale=16+perm=1}
mkdir -p "$OUT"
date -u; nproc; lscpu | grep "Model name"
"$NEW" --version; "$OLD" --version
if [ -f "$GRAPH" ]; then G=$GRAPH; else G="$OUT/graph.wgc"; "$NEW" convert --graph "$GRAPH" --out "$G" >/dev/null || exit 1; fi
printf "cell\tmode\tbinary\twall_ms\tvalid\trc\n" > "$OUT/cells.tsv"
one() { # cell mode binary label
  local a=${1%%:*} s=${1#*:} json="$OUT/run.json" t0 t1 rc ok
  t0=$(date +%s%N)
  "$3" run --algo "$a" --scheduler "$s" --graph "$G" --target sim --config h100 \
    --sim-mode "$2" --sim-threads "$THREADS" --heartbeat 0 --json > "$json" 2>/dev/null
  rc=$? t1=$(date +%s%N)
  ok=$(grep -A1 '"validation"' "$json" | tail -1 | grep -o 'true\|false')
  printf "%s\t%s\t%s\t%d\t%s\t%s\n" "$1" "$2" "$4" $(( (t1 - t0) / 1000000 )) "${ok:-}" "$rc" >> "$OUT/cells.tsv"
}
for c in ${CELLS:-kcore:hq mis:hq bfs:wseg mis:wseg wcc:afforest}; do
  for _ in $(seq "$TIMING_REPS"); do one "$c" timing "$NEW" new; done
  for _ in $(seq "$REPS"); do
    one "$c" functional "$OLD" before
    one "$c" functional "$NEW" new
  done
done
rm -f "$OUT/run.json" "$OUT/graph.wgc"
date -u

#!/bin/bash
# Functional mode against timing mode, and against an earlier binary's
# functional mode, on every (algorithm, scheduler) cell of one graph:
#   OUT=dir [JOBS=16] [LIMIT=240] [GRAPH=rmat:scale=14+perm=1] \
#     [SCHEDULERS="simdx atos ..."] [CELLS="bp:simdx pr:wseg ..."] \
#     [BEFORE_KEYS=key=value,...] [FACTOR=10.5] \
#     bash scripts/functional-speed.sh ./warpgraph ./warpgraph-before|-
# Each cell runs functional mode with both binaries and timing mode (one
# simulator thread unless THREADS) with each ("-" for the second binary: the first alone,
# the "before" columns empty), one cell per job, JOBS at once; every run
# is `warpgraph run --target sim --config h100 --json`, validated by
# warpgraph itself. BEFORE_KEYS adds scheduler keys to the second binary's
# runs (the same binary twice then compares a key's values). Writes
# OUT/cells.tsv (wall ms, warp-instructions, iterations, validation, exit
# status; 124 is past LIMIT seconds). THREADS runs timing and functional
# mode on that many threads (default: timing on one, functional as the
# binary's default; give JOBS=1 with it, and no "before" binary older than
# functional mode's --sim-threads). CELLS runs only the listed
# algorithm:scheduler cells, in that order. FACTOR stops each timing run at
# FACTOR times its cell's functional wall time (at most LIMIT): a timing run
# stopped there (status 124) shows timing ÷ functional ≥ FACTOR without
# running to its end.
set -u
WG=$(realpath "${1:?the binary to measure}")
BEFORE=${2:?the binary to compare functional mode with, or -}
[ "$BEFORE" = - ] || BEFORE=$(realpath "$BEFORE")
OUT=${OUT:?set OUT to an output folder}
JOBS=${JOBS:-16}
LIMIT=${LIMIT:-240}
GRAPH=${GRAPH:-rmat:scale=14+perm=1}
mkdir -p "$OUT/json"
date -u; nproc; lscpu | grep "Model name"
"$WG" --version
"$WG" convert --graph "$GRAPH" --out "$OUT/graph.wgc" >/dev/null || exit 1
one() { # algo scheduler
  local a=$1 s=$2 line="" fms=""
  for run in "functional $WG" "functional-before $BEFORE" "timing $WG" "timing-before $BEFORE"; do
    set -- $run
    if [ "$2" = - ]; then line="$line\t\t\t\t\t"; continue; fi
    local mode=${1%-before} json="$OUT/json/$a-$s-$1.json" extra="" variant=$s
    [ "$mode" = timing ] && extra="--sim-threads ${THREADS:-1}"
    [ "$mode" = functional ] && [ -n "${THREADS:-}" ] && extra="--sim-threads $THREADS"
    [ "$mode" != "$1" ] && [ -n "${BEFORE_KEYS:-}" ] && variant="$s:$BEFORE_KEYS"
    local limit=$LIMIT
    if [ "$mode" = timing ] && [ -n "${FACTOR:-}" ] && [ -n "$fms" ]; then
      limit=$(python3 -c "import math; print(min($LIMIT, math.ceil($FACTOR * $fms / 1000)))")
    fi
    local t0=$(date +%s%N)
    timeout "$limit" "$2" run --algo "$a" --scheduler "$variant" --graph "$OUT/graph.wgc" --target sim \
      --config h100 --sim-mode "$mode" --json --heartbeat 0 $extra > "$json" 2>/dev/null
    local rc=$? t1=$(date +%s%N)
    [ "$rc" = 2 ] && return # the scheduler does not run the algorithm
    [ "$1" = functional ] && [ "$rc" = 0 ] && fms=$(( (t1 - t0) / 1000000 ))
    local wi=$(grep -o '"warp_instructions": *[0-9.e+]*' "$json" | head -1 | grep -o '[0-9.e+]*$')
    local it=$(grep -o '"iterations": *[0-9]*' "$json" | head -1 | grep -o '[0-9]*$')
    local ok=$(grep -A1 '"validation"' "$json" | tail -1 | grep -o 'true\|false')
    line="$line\t$(( (t1 - t0) / 1000000 ))\t${wi:-}\t${it:-}\t${ok:-}\t$rc"
  done
  echo -e "$a\t$s$line"
}
export -f one; export WG BEFORE OUT LIMIT BEFORE_KEYS THREADS FACTOR
header="algo\tscheduler"
for run in functional before timing timing_before; do
  header="$header\t${run}_ms\t${run}_warp_insts\t${run}_iterations\t${run}_valid\t${run}_rc"
done
echo -e "$header" > "$OUT/cells.tsv"
{
if [ -n "${CELLS:-}" ]; then
  for c in $CELLS; do echo "${c%%:*} ${c#*:}"; done
else
  for s in ${SCHEDULERS:-simdx atos bsp edge hq wseg vwc afforest}; do # the slowest first
    for a in bfs sssp sswp wcc pr color mis kcore bp; do echo "$a $s"; done
  done
fi
} | xargs -P "$JOBS" -L 1 bash -c 'one "$@"' _ >> "$OUT/cells.tsv"
(cd "$OUT" && tar czf cells-json.tar.gz json && rm -r json graph.wgc)
date -u

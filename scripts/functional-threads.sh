#!/usr/bin/env bash
# functional-threads.sh — functional mode's wall time by thread count, and
# against an earlier binary's (one thread), on rmat:scale=18+perm=1 cells:
#
#   OUT=dir [THREADS=16] [LIMIT=560] bash scripts/functional-threads.sh ./warpgraph [./warpgraph-before]
#
# First every cell runs at one thread with both binaries side by side (one
# process per core), then each cell alone at THREADS threads. Every run is
# `warpgraph run --target sim --config h100 --sim-mode functional --json`
# (traversals from the default source), validated by warpgraph against the
# CPU reference. Writes
# OUT/functional-threads.tsv: cell, run, wall seconds, warp-instructions,
# iterations, validation, exit status (124: past LIMIT seconds).
set -u
WG=$(realpath "${1:?the binary to measure}")
BEFORE=${2:-}
[ -n "$BEFORE" ] && BEFORE=$(realpath "$BEFORE")
OUT=${OUT:?set OUT to an output folder}
THREADS=${THREADS:-16}
LIMIT=${LIMIT:-560}
CELLS=${CELLS:-"bfs:simdx bfs:atos sssp:atos sssp:simdx wcc:bsp wcc:atos pr:atos pr:simdx"}
mkdir -p "$OUT/json"
date -u; nproc; lscpu | grep "Model name"
"$WG" --version
G="$OUT/rmat18.wgc"
"$WG" convert --graph rmat:scale=18+perm=1 --out "$G" >/dev/null || exit 1
one() { # binary label threads algo scheduler
  local wg=$1 label=$2 threads=$3 a=$4 s=$5
  local json="$OUT/json/$a-${s//[:=,]/_}-$label.json" flags=()
  [ "$threads" -gt 0 ] && flags=(--sim-threads "$threads")
  local t0=$(date +%s%N)
  timeout "$LIMIT" "$wg" run --algo "$a" --scheduler "$s" --graph "$G" --target sim --config h100 \
    --sim-mode functional --json --heartbeat 0 "${flags[@]}" >"$json" 2>"$json.err"
  local rc=$? t1=$(date +%s%N)
  local wi=$(grep -o '"warp_instructions": *[0-9.e+]*' "$json" | head -1 | grep -o '[0-9.e+]*$')
  local it=$(grep -o '"iterations": *[0-9]*' "$json" | head -1 | grep -o '[0-9]*$')
  local ok=$(grep -o '"ok": *[a-z]*' "$json" | head -1 | grep -o '[a-z]*$')
  printf '%s:%s\t%s\t%.2f\t%s\t%s\t%s\t%s\n' "$a" "$s" "$label" "$(awk "BEGIN{print ($t1-$t0)/1e9}")" \
    "$wi" "$it" "$ok" "$rc" >>"$OUT/functional-threads.tsv"
}
printf 'cell\trun\twall_s\twarp_instructions\titerations\tvalid\texit\n' >"$OUT/functional-threads.tsv"
for c in $CELLS; do
  a=${c%%:*} s=${c#*:}
  one "$WG" t1 1 "$a" "$s" &
  [ -n "$BEFORE" ] && one "$BEFORE" before-t1 0 "$a" "$s" &
done
wait
for c in $CELLS; do
  a=${c%%:*} s=${c#*:}
  one "$WG" "t$THREADS" "$THREADS" "$a" "$s"
done
cat "$OUT/functional-threads.tsv"

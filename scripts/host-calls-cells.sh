#!/usr/bin/env bash
# host-calls-cells.sh — where end-to-end time goes beyond the kernels, on
# the GPU and on the simulator, for a list of cells:
#
#   OUT=DIR bash scripts/host-calls-cells.sh WARPGRAPH CONFIG "GRAPH|ALGO|VARIANT ..."
#
# GRAPH is a generator spec or a .wgc file. Each cell runs twice with
# `warpgraph run --host-calls`: on the GPU (--target hw --warmup 2 --repeat
# 10) and on the simulator (--target sim --config CONFIG --warmup 1
# --repeat 2, timing mode), source 0 for traversals. The logs go to
# DIR/<cell>-hw.csv and DIR/<cell>-sim.csv, each run's JSON beside them, and
# scripts/host-calls-table.py sets each pair side by side on stdout. A cell
# whose run fails is reported and skipped.
set -u
WG=${1:?usage: host-calls-cells.sh WARPGRAPH CONFIG CELLS}
CONFIG=${2:?config}
CELLS=${3:?cells}
OUT=${OUT:?set OUT to the output folder}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT"
for cell in $CELLS; do
  IFS='|' read -r graph algo variant <<<"$cell"
  name=$(printf '%s-%s-%s' "$(basename "$graph" .wgc)" "$algo" "$variant" | tr -c 'A-Za-z0-9._=-' '_')
  src=()
  case $algo in bfs|sssp|sswp) src=(--source 0) ;; esac
  ok=1
  for target in hw sim; do
    flags=(--target hw --warmup 2 --repeat 10)
    [ "$target" = sim ] && flags=(--target sim --config "$CONFIG" --warmup 1 --repeat 2)
    if ! "$WG" run --algo "$algo" --graph "$graph" --scheduler "$variant" "${src[@]}" "${flags[@]}" \
      --heartbeat 0 --json --host-calls "$OUT/$name-$target.csv" >"$OUT/$name-$target.json" 2>"$OUT/$name-$target.err"; then
      echo "$cell on $target failed: $(tail -1 "$OUT/$name-$target.err")" >&2
      ok=0
    fi
  done
  [ $ok = 1 ] || continue
  echo "### $cell"
  python3 "$HERE/host-calls-table.py" "$OUT/$name-hw.csv" "$OUT/$name-sim.csv"
  echo
done

#!/usr/bin/env bash
# sim-speed-matrix.sh — the simulator-at-scale speed benchmark: BFS, SSSP,
# WCC and PageRank under bsp, simdx and atos on rmat:scale=18+perm=1
# (traversals from the default source, or SOURCE; 132 CTAs for grid-stride and persistent
# phases), timing mode on the h100 configuration, validated by warpgraph.
#
#   OUT=dir MODE=alone THREADS=16 bash scripts/sim-speed-matrix.sh WARPGRAPH "CELLS"
#     each cell alone on the host, one after the other, --sim-threads 16
#   OUT=dir MODE=wave THREADS=1|serial bash scripts/sim-speed-matrix.sh WARPGRAPH "CELLS"
#     every cell at once, one process each (--sim-threads 1, or no engine
#     flag: the binary's own default, for binaries before the window engine)
#
# CELLS are ALGO:VARIANT:LIMIT_S. One TSV line per cell in OUT/cells.tsv
# (label, algorithm, variant, threads, wall s, simulated cycles, valid,
# peak RSS MB, exit status; 124 is a run stopped at its limit); LABEL names
# the binary in it.
set -u
WG=${1:?usage: sim-speed-matrix.sh WARPGRAPH CELLS}
CELLS=${2:?cells}
OUT=${OUT:?set OUT}
MODE=${MODE:-alone}
THREADS=${THREADS:-16}
LABEL=${LABEL:-$(basename "$WG")}
G=${G:-/tmp/sim-speed-graphs}
mkdir -p "$OUT" "$G"
[ -f "$G/rmat18.wgc" ] || "$WG" convert --graph rmat:scale=18+perm=1 --out "$G/rmat18.wgc" >/dev/null || exit 1
[ -f "$OUT/cells.tsv" ] || printf 'label\talgorithm\tvariant\tthreads\twall_s\tcycles\tvalid\tpeak_rss_mb\trc\n' >"$OUT/cells.tsv"
one() { # algo variant limit
  local algo=$1 variant=$2 limit=$3 th=() src=()
  [ "$THREADS" != serial ] && th=(--sim-threads "$THREADS")
  # traversals from the graph's default source (its vertex of largest
  # out-degree): vertex 0 of rmat:scale=18+perm=1 reaches almost nothing
  case $algo in bfs|sssp) src=(${SOURCE:+--source "$SOURCE"}) ;; esac
  local base="$OUT/$LABEL-$algo-${variant//[:,=]/_}-$THREADS"
  local t0 t1 rc
  t0=$(date +%s%N)
  /usr/bin/time -f '%M' -o "$base.rss" timeout "$limit" "$WG" run --algo "$algo" --scheduler "$variant" \
    --graph "$G/rmat18.wgc" "${src[@]}" --target sim --config h100 --grid 132 "${th[@]}" --heartbeat 0 --json \
    >"$base.json" 2>"$base.err"
  rc=$?
  t1=$(date +%s%N)
  python3 - "$base.json" "$LABEL" "$algo" "$variant" "$THREADS" "$(( (t1 - t0) / 1000000 ))" "$(tail -1 "$base.rss" | tr -dc 0-9)" "$rc" <<'PY' >>"$OUT/cells.tsv"
import json, sys
path, label, algo, variant, threads, ms, rss, rc = sys.argv[1:]
cycles, valid = "-", "-"
try:
    r = json.load(open(path))
    cycles, valid = r["cycles"], str(r["validation"]["ok"]).lower()
except Exception:
    pass
print("\t".join([label, algo, variant, threads, f"{int(ms) / 1000:.1f}", str(cycles), valid, str(round(int(rss or 0) / 1024)), rc]))
PY
  rm -f "$base.rss"
}
date -u; nproc; lscpu | grep "Model name"
for cell in $CELLS; do
  IFS=: read -r algo rest <<<"$cell"
  limit=${rest##*:}
  variant=${rest%:*}
  if [ "$MODE" = wave ]; then one "$algo" "$variant" "$limit" & else one "$algo" "$variant" "$limit"; fi
done
wait
date -u

#!/usr/bin/env bash
# sim-scale.sh — the simulator at scale: wall time, simulated cycles and
# peak memory of full timing-mode simulations of the cells the
# simulator-at-scale work measures (rmat:scale=18+perm=1 and
# grid:w=512,h=512, --config h100, --grid 132, each graph's default
# source), run side by side, one process per core:
#
#   bash scripts/sim-scale.sh [WARPGRAPH] [TIMEOUT]
#
# WARPGRAPH is the binary (default ./warpgraph), TIMEOUT each cell's wall
# limit in seconds (default 560): a cell past it is recorded as such,
# never dropped. Each cell's JSON (validated by warpgraph against the CPU
# reference) is one line of $OUT/sim-scale.jsonl (the cells' own JSON,
# stderr and RSS files end up in $OUT/sim-scale-cells.tar.gz) with the cell's wall
# seconds and peak RSS (GNU time's, where /usr/bin/time exists) added; a
# table is printed last. EXTRA adds flags to every run (e.g. EXTRA="--sim-threads 16").
# JOBS runs at most that many cells at once (default: all of them), in the
# order listed, the longest first (e.g. JOBS=4 EXTRA="--sim-threads 4").
# CELLSET=anchor runs the anchor cells instead (rmat:scale=20+perm=1 and
# grid:w=1000,h=1000, each algorithm under its fastest variant on the
# H100), as they ran there: the default grid, source 0 for traversals.
set -u
WG=${1:-./warpgraph}
LIMIT=${2:-560}
OUT=${OUT:-/tmp/sim-scale}
CELLDIR=$(mktemp -d)
mkdir -p "$OUT" /tmp/sim-scale-graphs
G=/tmp/sim-scale-graphs
GRAPHS="rmat:scale=18+perm=1 rmat18;grid:w=512,h=512 grid512"
CELLS="rmat18:pr:simdx rmat18:pr:atos grid512:sssp:atos grid512:bfs:simdx:fusion=all rmat18:sssp:bsp
rmat18:wcc:bsp rmat18:wcc:simdx rmat18:sssp:atos rmat18:sssp:simdx rmat18:wcc:atos rmat18:sswp:atos
rmat18:bfs:atos rmat18:bfs:bsp rmat18:bfs:simdx"
if [ "${CELLSET:-}" = anchor ]; then
  # The anchor cells: rmat20 and grid1000, each algorithm under the
  # variant that was fastest on the H100 (results/beyond-gunrock/baseline).
  GRAPHS="rmat:scale=20+perm=1 rmat20;grid:w=1000,h=1000 grid1000"
  CELLS="rmat20:bfs:simdx:fusion=all,local=cta rmat20:sssp:atos rmat20:sswp:atos rmat20:pr:atos:local=on
rmat20:wcc:hq:queue=wbg,layout=naive,local=off rmat20:color:atos:local=on,dedup=off rmat20:kcore:bsp
grid1000:bfs:atos:local=on,dedup=off grid1000:sssp:atos:local=on,dedup=off grid1000:sswp:atos:local=on,dedup=off
grid1000:pr:atos:local=on,dedup=off grid1000:wcc:atos:local=on,dedup=off grid1000:color:atos:local=on grid1000:kcore:bsp"
fi
IFS=';' read -ra SPECS <<<"$GRAPHS"
for spec in "${SPECS[@]}"; do
  set -- $spec
  [ -f "$G/$2.wgc" ] || "$WG" convert --graph "$1" --out "$G/$2.wgc" >/dev/null || exit 1
done
run_cell() {
  local graph=${1%%:*} rest=${1#*:}
  local algo=${rest%%:*} variant=${rest#*:}
  local tag="$graph-$algo-${variant//[:=,]/_}"
  local start=$(date +%s.%N)
  # The anchor cells run as on the H100: the default grid, source 0.
  local launch=(--grid 132)
  if [ "${CELLSET:-}" = anchor ]; then
    launch=()
    case $algo in bfs|sssp|sswp) launch=(--source 0) ;; esac
  fi
  local timer=()
  [ -x /usr/bin/time ] && timer=(/usr/bin/time -f '%M' -o "$CELLDIR/$tag.rss")
  "${timer[@]}" timeout "$LIMIT" "$WG" run --algo "$algo" --graph "$G/$graph.wgc" \
    --target sim --config h100 "${launch[@]}" --scheduler "$variant" --heartbeat 0 --json ${EXTRA:-} >"$CELLDIR/$tag.json" 2>"$CELLDIR/$tag.err"
  local rc=$? end=$(date +%s.%N)
  local rss=$(tail -1 "$CELLDIR/$tag.rss" 2>/dev/null | tr -dc 0-9)
  python3 - "$CELLDIR/$tag.json" "$graph" "$algo" "$variant" "$rc" "$start" "$end" "${rss:-0}" <<'PY' >>"$OUT/sim-scale.jsonl"
import json, sys
path, graph, algo, variant, rc, start, end, rss = sys.argv[1:]
row = {"graph": graph, "algorithm": algo, "variant": variant, "exit": int(rc),
       "wall_seconds": round(float(end) - float(start), 1), "peak_rss_mb": round(int(rss) / 1024)}
try:
    r = json.load(open(path))
    row.update(cycles=r.get("cycles"), iterations=r.get("iterations"), launches=r.get("launches"),
               validation=r["validation"]["ok"], commit=r.get("provenance", {}).get("commit"))
except Exception:
    row["validation"] = None
print(json.dumps(row))
PY
}
rm -f "$OUT/sim-scale.jsonl"
for cell in $CELLS; do
  while [ -n "${JOBS:-}" ] && [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
  run_cell "$cell" &
done
wait
tar -czf "$OUT/sim-scale-cells.tar.gz" -C "$CELLDIR" .
python3 - "$OUT/sim-scale.jsonl" <<'PY'
import json, sys
rows = sorted((json.loads(l) for l in open(sys.argv[1])), key=lambda r: (r["graph"], r["algorithm"], r["variant"]))
print(f'{"graph":8} {"algorithm":5} {"variant":16} {"wall s":>7} {"cycles":>12} {"RSS MB":>7} result')
for r in rows:
    res = "PASS" if r["validation"] else ("past the limit" if r["exit"] == 124 else f'exit {r["exit"]}')
    print(f'{r["graph"]:8} {r["algorithm"]:5} {r["variant"]:16} {r["wall_seconds"]:7} {r.get("cycles") or "-":>12} {r["peak_rss_mb"]:7} {res}')
PY

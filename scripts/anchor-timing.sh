#!/usr/bin/env bash
# anchor-timing.sh — full timing-mode runs of some of the simulator-at-scale
# issue's anchor cells, one after the other, each alone on the host:
#
#   bash scripts/anchor-timing.sh WARPGRAPH THREADS "GRAPH:ALGO:VARIANT:LIMIT ..."
#
# GRAPH is rmat20 (rmat:scale=20+perm=1) or grid1000 (grid:w=1000,h=1000),
# converted once to .wgc under $G (default /tmp/sim-scale-graphs); each run
# is `warpgraph run --algo ALGO --graph G.wgc --target sim --config h100
# --scheduler VARIANT --sim-threads THREADS --json` as the cell ran on the
# H100 (the default grid, source 0 for traversals), under `timeout LIMIT`.
# One TSV line per cell on stdout: graph, algorithm, variant, threads, wall
# s, cycles, peak RSS MB, result (PASS, FAIL, past the limit; a run past
# its limit shows ">N": the simulated cycle its launch had reached when
# timeout's SIGTERM stopped it, from warpgraph's last line). EXTRA adds
# flags to every run (e.g. EXTRA="--sim-mode sampled --sample-inside=32");
# with JSONL set, each finished run's JSON, less its per-iteration rows,
# is appended to that file as one line with the cell's wall seconds.
set -u
WG=${1:?usage: anchor-timing.sh WARPGRAPH THREADS CELLS}
THREADS=${2:?threads}
CELLS=${3:?cells}
G=${G:-/tmp/sim-scale-graphs}
mkdir -p "$G"
declare -A SPEC=([rmat20]="rmat:scale=20+perm=1" [grid1000]="grid:w=1000,h=1000")
printf 'graph\talgorithm\tvariant\tthreads\twall_s\tcycles\tpeak_rss_mb\tresult\n'
for cell in $CELLS; do
  IFS=: read -r graph algo rest <<<"$cell"
  limit=${rest##*:}
  variant=${rest%:*}
  [ -f "$G/$graph.wgc" ] || "$WG" convert --graph "${SPEC[$graph]}" --out "$G/$graph.wgc" >/dev/null || exit 1
  src=()
  case $algo in bfs|sssp|sswp) src=(--source 0) ;; esac
  out=$(mktemp)
  start=$(date +%s.%N)
  /usr/bin/time -f '%M' -o "$out.rss" timeout "$limit" "$WG" run --algo "$algo" --graph "$G/$graph.wgc" \
    --target sim --config h100 --scheduler "$variant" "${src[@]}" --sim-threads "$THREADS" --heartbeat 0 --json ${EXTRA:-} >"$out" 2>"$out.err"
  rc=$?
  end=$(date +%s.%N)
  python3 - "$out" "$graph" "$algo" "$variant" "$THREADS" "$rc" "$start" "$end" "$(tail -1 "$out.rss" | tr -dc 0-9)" "${JSONL:-}" <<'PY'
import json, re, sys
path, graph, algo, variant, threads, rc, start, end, rss, jsonl = sys.argv[1:]
cycles, result = "-", ("past the limit" if rc in ("124", "137") else f"exit {rc}")
try:
    reached = re.findall(r"at simulated cycle (\d+)", open(path + ".err").read())
    if reached:
        cycles = ">" + reached[-1]
except OSError:
    pass
try:
    r = json.load(open(path))
    cycles = r.get("cycles")
    result = "PASS" if r["validation"]["ok"] else "FAIL"
    if jsonl:
        r.pop("iterations_detail", None)
        r.pop("per_iteration", None)
        r["cell"] = {"graph": graph, "wall_seconds": round(float(end) - float(start), 1), "peak_rss_mb": round(int(rss or 0) / 1024)}
        with open(jsonl, "a") as f:
            f.write(json.dumps(r) + "\n")
except Exception:
    pass
print("\t".join(map(str, [graph, algo, variant, threads, round(float(end) - float(start), 1), cycles, round(int(rss or 0) / 1024), result])))
PY
  rm -f "$out" "$out.rss" "$out.err"
done

#!/usr/bin/env bash
# device-bench.sh — the hardware half of the framework's measurements, run on
# the GPU machine from the repository root with the binaries of
# `make device-build` (copied to the GPU host as .device/):
#
#   bash scripts/device-bench.sh [ALGOS] [VARIANTS]
#
# A variant may end in @N to force the grid of its grid-stride and fused
# kernels to N CTAs (--grid N), e.g. simdx:fusion=all@132, and may carry
# more flags of `warpgraph run` after slashes, e.g.
# atos:fetch=8/--block=512 or atos/--delta=32 (recorded as "flags").
# It generates the two issue graphs once (.wgc in /tmp), then runs every
# (graph, algorithm, scheduler variant) cell with --repeat 10 --warmup 2
# --source 0 and appends each run's JSON as one line to $RUNS (default
# $OUT/runs.jsonl)
# (one JSON object per line), and prints a summary table at the end. Every
# run is validated against the CPU reference by warpgraph itself.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
WG=./.device/warpgraph
ALGOS=${1:-"bfs sssp sswp wcc kcore pr"}
VARIANTS=${2:-"bsp simdx simdx:filter=online simdx:filter=ballot simdx:filter=batch simdx:filter=strided simdx:filter=atomic simdx:direction=push simdx:fusion=pushpull simdx:fusion=all simdx:fusion=all,filter=atomic simdx:fusion=all,barrier=monitor simdx:fusion=all,barrier=tree simdx:fusion=all,barrier=coop simdx:fusion=all@132 simdx:fusion=all,filter=atomic@132 simdx:fusion=all,filter=atomic,direction=push@132"}
REPEAT=${REPEAT:-10}
# TIMEOUT bounds each cell's whole command (a slow cell cannot eat the
# time booked on the GPU); GRAPHS_ONLY picks the graphs (default "rmat20
# grid1000"; rmat14 and rmat22 are known too).
TIMEOUT=${TIMEOUT:-120s}
WARMUP=${WARMUP:-2}
declare -A GRAPHS=([rmat14]="rmat:scale=14+perm=1" [rmat20]="rmat:scale=20+perm=1" [grid1000]="grid:w=1000,h=1000" [rmat22]="rmat:scale=22+perm=1")
for name in ${GRAPHS_ONLY:-rmat20 grid1000}; do
  [ -f /tmp/$name.wgc ] || $WG convert --graph "${GRAPHS[$name]}" --out /tmp/$name.wgc >/dev/null || exit 1
done
RUNS=${RUNS:-$OUT/runs.jsonl}
: > "$RUNS"
for name in ${GRAPHS_ONLY:-rmat20 grid1000}; do
  for algo in $ALGOS; do
    for spec in $VARIANTS; do
      flags=""
      case $spec in */*) flags=$(echo "${spec#*/}" | tr '/' ' ');; esac
      base=${spec%%/*}
      v=${base%@*}
      grid=""
      [ "$v" != "$base" ] && grid="--grid ${base##*@}"
      src=""
      case $algo in bfs|sssp|sswp) src="--source 0";; esac
      line=$($WG run --algo $algo --graph /tmp/$name.wgc --target hw --scheduler "$v" $src $grid $flags \
        --repeat $REPEAT --warmup $WARMUP --timeout $TIMEOUT --json 2>"$OUT/err.txt")
      status=$?
      if [ -z "$line" ]; then
        msg=$(tr '\n' ' ' < "$OUT/err.txt" | cut -c1-300)
        printf '{"graph_name":"%s","algorithm":"%s","scheduler":"%s","exit":%d,"error":"%s"}\n' \
          "$name" "$algo" "$spec" $status "${msg//\"/\'}" >> "$RUNS"
      else
        echo "$line" | python3 -c "import json,sys; d=json.load(sys.stdin); d.pop('per_iteration',None); d['graph_name']='$name'; d['exit']=$status; d['variant_spec']='$spec'; d['flags']='$flags'.strip(); print(json.dumps(d))" >> "$RUNS"
      fi
    done
  done
done
python3 - "$RUNS" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
print(f"{'graph':9} {'algo':6} {'scheduler':48} {'end-to-end ms':>13} {'kernel ms':>10} {'iters':>6} {'launches':>8}  validation")
for r in rows:
    if 'error' in r:
        print(f"{r['graph_name']:9} {r['algorithm']:6} {r['scheduler']:48} exit {r['exit']}: {r['error'][:90]}")
        continue
    v = r['validation']
    ok = 'PASS' if v['ok'] else 'FAIL'
    name = r['scheduler'] + ('@' + str(r['grid']) if r.get('grid') else '')
    res = r.get('results', {})
    extra = ' '.join(f"{k}={res[k]:.4g}" for k in ('overwork', 'colours', 'queue_pushes') if k in res)
    print(f"{r['graph_name']:9} {r['algorithm']:6} {name:48} {1e3*r.get('end_to_end_seconds',0):13.3f} {1e3*r.get('kernel_seconds',0):10.3f} {r.get('iterations',0):6} {r.get('launches',0):8}  {ok} {extra}")
PY

#!/usr/bin/env bash
# atos-sim-table1.sh — Atos's Table 1 shape on the simulated h100 (timing
# mode): bsp vs persistent CTA (with and without local tasks) vs persistent
# warp vs discrete CTA workers (and discrete warp for colouring), on small
# graphs; persistent grids forced to 132 CTAs. One JSON object per run on
# stdout (validated by warpgraph itself):
#
#   WG=./warpgraph GRAPHS="rmat:scale=10+perm=1 grid:w=32,h=32" ALGOS="bfs color pr" \
#     bash scripts/atos-sim-table1.sh > rows.jsonl
set -u
WG=${WG:-./warpgraph}
for g in ${GRAPHS:-rmat:scale=10+perm=1 grid:w=32,h=32}; do
  for a in ${ALGOS:-bfs color pr}; do
    vs="bsp atos atos:local=on atos:worker=warp atos:mode=discrete"
    [ "$a" = color ] && vs="$vs atos:mode=discrete,worker=warp"
    for v in $vs; do
      grid=""
      case $v in atos|atos:local=on|atos:worker=warp) grid="--grid 132" ;; esac
      timeout 900 $WG run --algo "$a" --graph "$g" --target sim --config h100 --scheduler "$v" $grid --json 2>/dev/null |
        python3 -c "
import json, sys
d = json.load(sys.stdin); r = d.get('results', {})
print(json.dumps({'graph': '$g', 'algo': '$a', 'variant': '$v', 'grid': '$grid', 'e2e_us': 1e6 * d['end_to_end_seconds'],
                  'kernel_us': 1e6 * d['kernel_seconds'], 'ok': d['validation']['ok'], 'overwork': r.get('overwork'),
                  'colours': r.get('colours'), 'cycles': d.get('cycles')}))" ||
        echo "{\"graph\": \"$g\", \"algo\": \"$a\", \"variant\": \"$v\", \"error\": true}"
    done
  done
done

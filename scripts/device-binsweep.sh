#!/usr/bin/env bash
# device-binsweep.sh — SIMD-X's online-filter threshold (thread bin size)
# swept on the H100, BFS and SSSP on rmat20 from vertex 0, the host-driven
# variant with the JIT controller. Run on the GPU machine from the
# repository root with the binaries of `make device-build` (in .device/).
# Writes $OUT/binsweep.jsonl (one run per line, per-iteration rows kept)
# and prints, per run, the time and the filter each iteration ran.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
WG=./.device/warpgraph
[ -f /tmp/rmat20.wgc ] || $WG convert --graph "rmat:scale=20+perm=1" --out /tmp/rmat20.wgc >/dev/null || exit 1
: > "$OUT/binsweep.jsonl"
for algo in bfs sssp; do
  for bins in 16 32 64 128 256 512; do
    $WG run --algo $algo --graph /tmp/rmat20.wgc --target hw --scheduler simdx --bin-size $bins \
      --source 0 --repeat 10 --warmup 2 --json | python3 -c "import json,sys; d=json.load(sys.stdin); [r.pop('counters',None) for r in d.get('per_iteration',[])]; print(json.dumps(d))" >> "$OUT/binsweep.jsonl"
  done
done
python3 - "$OUT/binsweep.jsonl" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    filters = ' '.join(it.get('filter', '-') + ('!' if it.get('overflow') else '') for it in r['per_iteration'])
    ok = 'PASS' if r['validation']['ok'] else 'FAIL'
    print(f"{r['algorithm']:5} bins {r['tuning']['bin_size']:4} end-to-end {1e3*r['end_to_end_seconds']:7.3f} ms kernel {1e3*r['kernel_seconds']:7.3f} ms {ok}  filters: {filters}")
PY

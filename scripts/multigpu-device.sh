#!/usr/bin/env bash
# multigpu-device.sh — the multi-GPU hardware checks and sweep, run on a
# GPU host from the repository root with the binaries of
# `make device-build` (in .device/):
#
#   OUT=DIR PART=check|sweep GRAPHS="rmat grid" LIMIT=SECONDS bash scripts/multigpu-device.sh
#
# check: nvidia-smi's topology, `warpgraph devices` (peer access),
#   micro peer_copy over every GPU, and every partitioned algorithm with
#   every exchange method on two contexts of GPU 0 (--devices 0,0: the
#   multi-GPU path's correctness on one GPU).
# sweep: `sweep multigpu --target hw` on rmat:scale=22+perm=1 and
#   grid:w=2000,h=2000, converted once to .wgc in /tmp, on 1, 2, 4 and 8
#   GPUs up to the host's count, into WORK (default /tmp/multigpu-hw;
#   resumed when it holds a data.csv), bounded by LIMIT seconds (a killed
#   sweep keeps every finished point); its data.csv and sweep.json are
#   copied to $OUT. `sweep multigpu --report-only` with the same flags
#   draws the plots and README anywhere. EXTRA adds sweep flags (e.g.
#   "--param warmup=1 --param repeat=5").
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
WG=./.device/warpgraph
PART=${PART:-check}
if [ "$PART" = check ]; then
  nvidia-smi -L >"$OUT/nvidia-smi.txt" 2>&1
  nvidia-smi topo -m >>"$OUT/nvidia-smi.txt" 2>&1
  $WG devices >"$OUT/devices.txt" 2>&1
  n=$(nvidia-smi -L | grep -c '^GPU')
  if [ "$n" -ge 2 ]; then
    $WG micro peer_copy --target hw --gpus "$n" >"$OUT/peer_copy.txt" 2>&1
  fi
  for a in bfs sssp sswp wcc pr; do
    for ex in all ms vr-offline vr-online; do
      echo "== $a $ex" >>"$OUT/two-contexts.txt"
      $WG run --target hw --devices 0,0 --algo "$a" --graph rmat:scale=16+perm=1 --scheduler "mgpu:exchange=$ex" \
        $( [ "$a" = wcc ] || [ "$a" = pr ] || echo --source 0 ) >>"$OUT/two-contexts.txt" 2>&1
      echo "rc=$?" >>"$OUT/two-contexts.txt"
    done
  done
  exit 0
fi
for g in ${GRAPHS:-rmat grid}; do
  case $g in
    rmat) [ -f /tmp/rmat22.wgc ] || $WG convert --graph rmat:scale=22+perm=1 --out /tmp/rmat22.wgc >/dev/null || exit 1 ;;
    grid) [ -f /tmp/grid2000.wgc ] || $WG convert --graph grid:w=2000,h=2000 --out /tmp/grid2000.wgc >/dev/null || exit 1 ;;
  esac
done
filter="graph=$(echo ${GRAPHS:-rmat grid} | tr ' ' '|')"
n=$(nvidia-smi -L | grep -c "^GPU")
counts=$(for c in 1 2 4 8; do [ "$c" -le "$n" ] && printf "%s|" "$c"; done)
WORK=${WORK:-/tmp/multigpu-hw}
timeout "${LIMIT:-500}" $WG sweep multigpu --target hw --out "$WORK" ${EXTRA:-} \
  --param rmat_spec=/tmp/rmat22.wgc --param grid_spec=/tmp/grid2000.wgc --points "$filter" --points "gpus=${counts%|}"
echo "sweep rc=$?"
cp "$WORK/data.csv" "$WORK/sweep.json" "$OUT/"

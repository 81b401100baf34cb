#!/usr/bin/env bash
set -u
WG=./.device/wg-4c68a27
X=/tmp/x; mkdir -p $X /tmp/g
save() { tar czf $OUT/x.tgz -C /tmp x; }
[ -f /tmp/g/rmat-scale20-perm1.wgc ] || $WG convert --graph 'rmat:scale=20+perm=1' --out /tmp/g/rmat-scale20-perm1.wgc > /dev/null
[ -f /tmp/g/grid-w1000-h1000.wgc ] || $WG convert --graph 'grid:w=1000,h=1000' --out /tmp/g/grid-w1000-h1000.wgc > /dev/null
for g in rmat-scale20-perm1 grid-w1000-h1000; do
  for v in bsp simdx simdx:filter=atomic; do
    for d in 0 16 64 256 1024 4096; do
      echo "== $g $v delta=$d" >> $X/sssp.txt
      timeout -s INT 60 $WG run --algo sssp --graph /tmp/g/$g.wgc --source 0 --target hw --scheduler $v --delta $d \
        --repeat 5 --warmup 1 --json > $X/sssp-$g-$v-$d.json 2>> $X/sssp.txt
      python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(json.dumps({k:d.get(k) for k in ['end_to_end_seconds','kernel_seconds','iterations','launches']}), d['validation']['detail'][:70])" $X/sssp-$g-$v-$d.json >> $X/sssp.txt 2>&1
    done
    save
  done
done
timeout -s INT 120 $WG devices --kernel-attrs $X/h100.json > $X/attrs.txt 2>&1
save

#!/bin/bash
# Checks the H200's chunk pairing (chunk c shares its L2 slice with chunk c
# XOR 2) away from the start of memory: `micro atomic_line_pairs` from N
# first lines spread over the first 64 MB (1 KB-aligned), each alone and
# with the lines 256, 512, 768 and 1,024 bytes on.
#
# Usage: scripts/slice-pairs-far.sh WARPGRAPH N OUT.tsv [micro flags...]
set -eu
WG=$1 N=$2 OUTF=$3
shift 3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
for ((i = 0; i < N; i++)); do
	base=$(((i * 1601 % 65536) * 1024))
	"$WG" micro atomic_line_pairs --warmup 3 --repeat 10 --base $base --offsets 0,256,512,768,1024 --json "$@" >"$TMP/b$i.json"
	echo "$base" >"$TMP/b$i.base"
done
python3 - "$N" "$OUTF" "$TMP" <<'PY'
import json, sys
n, out, tmp = int(sys.argv[1]), open(sys.argv[2], "w"), sys.argv[3]
out.write("base_bytes\toffset_bytes\tg_atomics_per_s\tcost\n")
for i in range(n):
    base = open(f"{tmp}/b{i}.base").read().strip()
    d = json.load(open(f"{tmp}/b{i}.json"))[0]
    for r in d["rows"]:
        out.write(f"{base}\t{r[0]}\t{r[4]}\t{r[3]}\n")
print("provenance", json.dumps(d["provenance"]))
PY

#!/usr/bin/env python3
"""slice-classes.py — read scripts/slice-map.sh's table as slices.

    python3 scripts/slice-classes.py MAP.tsv

A pair of chunks whose rate is below SAME (0.95) times the mean of their
two one-line rates shares a slice: the chunks are grouped by that relation
(union of the pairs; the script counts the pairs inside a group that do not
share, which should be none). It prints the groups of more than one chunk,
the histogram of pair rates, and for each group the groups whose pairs run
at MID (between the shared and the typical two-slice rate: 4.5-5.8 G/s on
the H200), a second resource the two slices seem to share.
"""
import collections
import csv
import sys

SAME = 0.95


def main(path):
    one, pair = {}, {}
    for r in csv.DictReader(open(path), delimiter="\t"):
        b, o = int(r["base_bytes"]) // 256, int(r["offset_bytes"]) // 256
        g = float(r["g_atomics_per_s"])
        if o == 0:
            one[b] = g
        else:
            pair[(b, b + o)] = g
    n = len(one)
    parent = list(range(n))

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def shares(a, b):
        return pair[(a, b)] < SAME * (one[a] + one[b]) / 2

    for (a, b) in pair:
        if shares(a, b):
            parent[find(a)] = find(b)
    groups = collections.defaultdict(list)
    for c in range(n):
        groups[find(c)].append(c)
    groups = sorted(groups.values())
    split = sum(1 for g in groups for i in g for j in g if i < j and not shares(i, j))
    print(f"{n} chunks, one-line rates {min(one.values()):.2f}-{max(one.values()):.2f} G/s")
    print(f"{len(groups)} slices; pairs inside a group that do not share: {split}")
    print("groups of more than one chunk:", [g for g in groups if len(g) > 1])
    hist = collections.Counter(round(g, 1) for g in pair.values())
    print("pair rates (G/s: pairs):", ", ".join(f"{k}: {v}" for k, v in sorted(hist.items())))
    of = {c: i for i, g in enumerate(groups) for c in g}
    mids = collections.defaultdict(set)
    for (a, b), g in pair.items():
        if 4.5 <= g < 5.8 and of[a] != of[b]:
            mids[of[a]].add(of[b])
            mids[of[b]].add(of[a])
    print("groups with a partner at 4.5-5.8 G/s:", len(mids), "partners each:",
          sorted(collections.Counter(len(v) for v in mids.values()).items()))
    shown = set()
    for i, ps in sorted(mids.items()):
        for j in ps:
            if (j, i) not in shown:
                shown.add((i, j))
    print("partner pairs:", [(groups[i], groups[j]) for i, j in sorted(shown)])


if __name__ == "__main__":
    main(sys.argv[1])

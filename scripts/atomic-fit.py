#!/usr/bin/env python3
"""atomic-fit.py — score simulator configurations on the global-atomics
microbenchmarks, calibration and checks apart.

    python3 scripts/atomic-fit.py ATOMICS_SIM_CSV OCCUPANCY_SIM_CSV \\
        [ATOMICS_HW_CSV OCCUPANCY_HW_CSV]

The simulated CSVs are `warpgraph sweep atomics` and `sweep
atomic-occupancy` runs over several --config values; the hardware ones
default to results/atomics/data.csv and results/atomic-occupancy/hw/data.csv.
A file whose name ends in .gz is read through gzip.
For each configuration it prints the mean absolute percentage error of the
simulated global-atomic time (global_us) against the H100's over

  calibration: atomics geometry gpu (every SM full, degrees 1-512) and
               atomic-occupancy at degrees 1, 32 and 512;
  checks:      atomics geometry cta (one CTA, degrees 1-512) and
               atomic-occupancy at degrees 4 and 128,

best calibration first, then each set's ratios (simulated ÷ measured) for
the best configuration and for the one named h100.
"""
import csv
import gzip
import sys
from collections import defaultdict

DEGREES = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]


def open_csv(path):
    return gzip.open(path, "rt") if path.endswith(".gz") else open(path)


def load(path, key, cfg_of=lambda r: r.get("config") or "hw"):
    out = defaultdict(dict)
    for r in csv.DictReader(open_csv(path)):
        if r["status"] == "ok":
            out[cfg_of(r)][key(r)] = float(r["global_us"])
    return out


def mape(sim, hw, keys):
    ks = [k for k in keys if k in sim and k in hw]
    return 100 * sum(abs(sim[k] / hw[k] - 1) for k in ks) / len(ks), len(ks)


def main(args):
    atom_sim, occ_sim = args[0], args[1]
    atom_hw = args[2] if len(args) > 2 else "results/atomics/data.csv"
    occ_hw = args[3] if len(args) > 3 else "results/atomic-occupancy/hw/data.csv"
    akey = lambda r: ("atomics", r["geometry"], int(r["degree"]))
    okey = lambda r: ("occupancy", int(r["ctas"]), int(r["degree"]))
    hw = {}
    for path, key in ((atom_hw, akey), (occ_hw, okey)):
        for r in csv.DictReader(open_csv(path)):
            if r["status"] == "ok" and r["target"] == "hw":
                hw[key(r)] = float(r["global_us"])
    sims = defaultdict(dict)
    for path, key in ((atom_sim, akey), (occ_sim, okey)):
        for cfg, vals in load(path, key).items():
            sims[cfg].update(vals)
    calib = [k for k in hw if (k[0] == "atomics" and k[1] == "gpu") or (k[0] == "occupancy" and k[2] in (1, 32, 512))]
    check = [k for k in hw if (k[0] == "atomics" and k[1] == "cta") or (k[0] == "occupancy" and k[2] in (4, 128))]
    rows = []
    for cfg, sim in sims.items():
        if not cfg.startswith("h100"):
            continue
        c, nc = mape(sim, hw, calib)
        k, nk = mape(sim, hw, check)
        parts = [mape(sim, hw, [x for x in keys if pred(x)])[0] for keys, pred in (
            (calib, lambda x: x[0] == "atomics"), (calib, lambda x: x[0] == "occupancy"),
            (check, lambda x: x[0] == "atomics"), (check, lambda x: x[0] == "occupancy"))]
        rows.append((c, k, *parts, nc, nk, cfg))
    rows.sort()
    print("| configuration | calibration MAPE | check MAPE | atomics, every SM (cal.) | occupancy 1/32/512 (cal.) | atomics, one CTA (check) | occupancy 4/128 (check) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for c, k, a1, o1, a2, o2, nc, nk, cfg in rows:
        print(f"| `{cfg}` | {c:.1f}% | {k:.1f}% | {a1:.1f}% | {o1:.1f}% | {a2:.1f}% | {o2:.1f}% |")
    print(f"\n({nc} calibration points, {nk} check points.)")
    for cfg in dict.fromkeys([rows[0][-1], "h100"]):
        if cfg not in sims:
            continue
        sim = sims[cfg]
        print(f"\nSimulated ÷ measured, `{cfg}`:\n")
        print("| set | " + " | ".join(str(d) for d in DEGREES) + " |")
        print("|---|" + "---:|" * len(DEGREES))
        for geo in ("gpu", "cta"):
            cells = [f"{sim[k] / hw[k]:.2f}" if k in sim and k in hw else "–" for k in (("atomics", geo, d) for d in DEGREES)]
            print(f"| atomics, {'every SM' if geo == 'gpu' else 'one CTA'} | " + " | ".join(cells) + " |")
        ctas = sorted({k[1] for k in hw if k[0] == "occupancy"})
        print("\n| occupancy: degree | " + " | ".join(f"{c} CTAs" for c in ctas) + " |")
        print("|---|" + "---:|" * len(ctas))
        for d in sorted({k[2] for k in hw if k[0] == "occupancy"}):
            cells = [f"{sim[k] / hw[k]:.2f}" if k in sim else "–" for k in (("occupancy", c, d) for c in ctas)]
            print(f"| {d} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])

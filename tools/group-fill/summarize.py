#!/usr/bin/env python3
"""Prints the README's tables from run_all.sh's results.

    python3 tools/group-fill/summarize.py [OUTDIR]   (default /tmp/gf)
"""

import glob
import json
import os
import re
import sys

RUNS = [
    ("terasort-50, whole", ["terasort50"], "terasort50"),
    ("scale-400, 0–120 s", ["scale400"], "scale400"),
    ("terasort-1tb-910 (shared), 5 × 10 k events of 53–70 s",
     ["ts910_w1", "ts910_w3", "ts910_w5", "ts910_w7", "ts910_w9"], "ts910_70"),
]


def engine_stats(path):
    try:
        line = open(path).readline()
    except OSError:
        return None
    m = re.match(r"solver: (\d+) solves, ([\d.]+) flows and ([\d.]+) resources each, "
                 r"([\d.]+) rounds \(([\d.]+) flows filled\), ([\d.]+) rates changed at "
                 r"([\d.]+) bottlenecks", line)
    if not m:
        return None
    k = ["solves", "flows", "resources", "rounds", "filled", "rates", "bottlenecks"]
    return dict(zip(k, [float(x) for x in m.groups()]))


def avg(ds, side, key, stat="mean"):
    xs = [d[side][key][stat] for d in ds]
    return max(xs) if stat == "p99" else sum(xs) / len(xs)


def avg_top(ds, key, stat="mean"):
    xs = [d[key][stat] for d in ds]
    return max(xs) if stat == "p99" else sum(xs) / len(xs)


def f0(x):
    return f"{x:,.0f}" if x >= 100 else f"{x:.1f}"


def main(argv):
    out = argv[0] if argv else "/tmp/gf"
    rows = []
    for label, names, rec in RUNS:
        ds = []
        for n in names:
            p = os.path.join(out, "res", n + ".json")
            if os.path.exists(p):
                ds.append(json.load(open(p)))
        if not ds:
            continue
        rows.append((label, ds, engine_stats(os.path.join(out, rec + ".err"))))

    print("### Updates per event\n")
    print("| run | events | (a) full fill: mean / p99 | (a) (resource, round) | "
          "(c) slotsim's solve: mean / p99 | (b) groups: mean / p99 | (a)/(b) | (c)/(b) | "
          "(c)/(b), reads counted | (b) fallbacks |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for label, ds, eng in rows:
        ev = sum(d["events"] for d in ds)
        a_m, a_p = avg(ds, "a", "upd"), avg(ds, "a", "upd", "p99")
        arr = avg(ds, "a", "res_rounds")
        c_m, c_p = avg(ds, "c", "upd"), avg(ds, "c", "upd", "p99")
        b_m, b_p = avg(ds, "b", "upd"), avg(ds, "b", "upd", "p99")
        b_at_a = avg_top(ds, "b_on_a_events")
        b_at_c = avg_top(ds, "b_on_c_events")
        c_r = avg(ds, "c", "upd_reads")
        # (b) with reads, on the events (c) ran on: scale by (b)'s overall ratio.
        b_r = avg(ds, "b", "upd_reads") * (b_at_c / max(b_m, 1e-9))
        fb = sum(d["fallbacks"] for d in ds)
        print(f"| {label} | {ev:,} | {f0(a_m)} / {f0(a_p)} | {f0(arr)} | {f0(c_m)} / {f0(c_p)} | "
              f"{f0(b_m)} / {f0(b_p)} | {a_m / b_at_a:.1f} × | {c_m / b_at_c:.1f} × "
              f"(p99 {c_p / b_p:.1f} ×) | {c_r / b_r:.1f} × | {fb} |")

    print("\n### Rates: (b) against (a), and (c) against (a)\n")
    print("| run | events checked against (a) | of them against a fill of every active flow "
          "| max relative difference (b)–(a) | same, all active flows | events beyond 1e-9 "
          "| (c)–(a) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for label, ds, eng in rows:
        ch = sum(d["checked_events"] for d in ds)
        fc = sum(d["full_checked_events"] for d in ds)
        mr = max(d["max_rel_mismatch"] for d in ds)
        fr = max(d["full_max_rel_mismatch"] for d in ds)
        bad = sum(d["events_beyond_1e-9"] for d in ds)
        cr = max(d["c_vs_a_max_rel"] for d in ds)
        print(f"| {label} | {ch:,} | {fc:,} | {mr:.1e} | {fr:.1e} | {bad} | {cr:.1e} |")

    print("\n### slotsim's own counts (SLOTSIM_SOLVER_STATS=1) beside the re-enactment (c)\n")
    print("| run | solves / events | flows re-solved | resources | rounds | flows filled "
          "| rates changed | bottlenecks moved |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for label, ds, eng in rows:
        if eng:
            span = "0–70 s" if "910" in label else "same run"
            print(f"| {label}: slotsim ({span}) | {eng['solves']:,.0f} | {eng['flows']:.1f} | "
                  f"{eng['resources']:.1f} | {eng['rounds']:.2f} | {eng['filled']:.1f} | "
                  f"{eng['rates']:.1f} | {eng['bottlenecks']:.1f} |")
        ev = sum(d["c_events"] for d in ds)
        print(f"| {label}: (c) | {ev:,} | {avg(ds, 'c', 'flows'):.1f} | "
              f"{avg(ds, 'c', 'resources'):.1f} | {avg(ds, 'c', 'rounds'):.2f} | "
              f"{avg(ds, 'c', 'flows_filled'):.1f} | {avg(ds, 'c', 'rate_changes'):.1f} | "
              f"(b): {avg(ds, 'b', 'level_moves'):.1f} |")

    print("\n### What (b) does per event (means)\n")
    print("| run | flow starts+ends | event's own writes | group level moves | flow moves "
          "| levels evaluated | group entries read | load updates on level moves | writes "
          "| per-flow rates changed |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for label, ds, eng in rows:
        g = lambda k: avg(ds, "b", k)
        print(f"| {label} | {g('changes'):.2f} | {g('event_writes'):.1f} | {g('level_moves'):.1f} "
              f"| {g('moves'):.2f} | {g('evals'):.1f} | {g('scans'):.1f} | {g('res_level'):.1f} "
              f"| {g('writes'):.1f} | {g('rate_changes'):.1f} |")

    print("\n### What (c) does per event (means)\n")
    print("| run | fill writes | levels evaluated | certificate checks | flows read in them "
          "| flows read joining S | load updates (rates changed × path) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for label, ds, eng in rows:
        g = lambda k: avg(ds, "c", k)
        print(f"| {label} | {g('fill_writes'):,.1f} | {g('evals'):,.1f} | {g('cert_checks'):,.1f} "
              f"| {g('cert_reads'):,.1f} | {g('setup_reads'):,.1f} | {g('rate_writes'):,.1f} |")

    print("\n### CPU (s)\n")
    for label, ds, eng in rows:
        cpu = {k: sum(d["cpu_s"][k] for d in ds) for k in ("load", "b", "a", "c")}
        print(f"- {label}: load {cpu['load']:.0f}, (b) {cpu['b']:.0f}, (a) {cpu['a']:.0f}, "
              f"(c) {cpu['c']:.0f}")
    if len(rows) and len(rows[-1][1]) > 1:
        print("\n910-node windows, one by one (mean updates per event):\n")
        print("| window | from | to | active flows at its end | (a) | (c) | (b) | (c)/(b) |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        for d in rows[-1][1]:
            print(f"| {d['label']} | {d['window_from_s']:.2f} s | {d['window_to_s']:.2f} s | "
                  f"{d['active_at_end']:,} | {d['a']['upd']['mean']:,.0f} | "
                  f"{d['c']['upd']['mean']:,.0f} | {d['b']['upd']['mean']:,.0f} | "
                  f"{d['c']['upd']['mean'] / d['b_on_c_events']['mean']:.1f} × |")


if __name__ == "__main__":
    main(sys.argv[1:])

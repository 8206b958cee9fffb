#!/usr/bin/env python3
"""Recompute every flow's end from a `slotsim run --flows` file, with an
independent max-min solver, and compare with the ends slotsim reported.

    python3 scripts/replay_flows.py FLOWS.jsonl [--tolerance-ms 0.01]

The file's first line names every disk and link with its capacity (MB/s);
each other line is a flow: its start, its bytes, the resources it crosses in
path order, and the end slotsim gave it. This script shares no code with
slotsim. It takes the instants at which flows start and end from the file
(so that one flow's end, decided by the scheduler's reaction to another,
does not cascade), and between two instants computes every active flow's
rate by progressive filling (raise every unfrozen flow's rate together; when
a resource saturates, freeze its flows; repeat). Each flow's bytes are then
integrated over time: its end is the instant its last byte arrives, which
must be the end slotsim reported (this script rounds times to the microsecond).
For a replay that computes the ends themselves, continuous in time, and
handles millions of flows, see scripts/simgrid-replay.sh.

Exit status 0 if every end matches within the tolerance, 1 otherwise (the
worst differences are printed), 2 on a malformed file.
"""

import json
import math
import sys

MB = 1 << 20


def same_rate(a, b):
    return abs(a - b) <= 1e-12 * max(abs(a), abs(b), 1.0)


def max_min(active, flows, caps):
    """Progressive filling over the active flows; returns {flow: rate}."""
    rate = {f: 0.0 for f in active}
    frozen = set()
    used = {r: 0.0 for r in caps}
    crossing = {}
    for f in active:
        for r in flows[f]["links"]:
            crossing.setdefault(r, []).append(f)
    while len(frozen) < len(active):
        # The next level at which some resource saturates.
        best = math.inf
        for r, fs in crossing.items():
            n_open = sum(1 for f in fs if f not in frozen)
            if n_open:
                best = min(best, (caps[r] - used[r]) / n_open)
        if best is math.inf:
            break
        inc = max(best, 0.0)
        for f in active:
            if f not in frozen:
                rate[f] += inc
                for r in flows[f]["links"]:
                    used[r] += inc
        for r, fs in crossing.items():
            if used[r] >= caps[r] * (1 - 1e-12):
                for f in fs:
                    frozen.add(f)
    return rate


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    path = argv[0]
    tol = 0.01
    if len(argv) >= 3 and argv[1] == "--tolerance-ms":
        tol = float(argv[2])
    with open(path) as fh:
        lines = fh.read().splitlines()
    try:
        caps = json.loads(lines[0])["links"]
        flows = {}
        for i, line in enumerate(lines[1:], start=2):
            if not line.strip():
                continue
            f = json.loads(line)
            f["start_us"] = round(f["start_s"] * 1e6)
            f["mb"] = f["bytes"] / MB
            flows[f["id"]] = f
    except (KeyError, ValueError, IndexError) as e:
        print(f"error: {path}: not a --flows file ({e})", file=sys.stderr)
        return 2

    for f in flows.values():
        if f.get("end_s") is None:
            print(f"error: flow {f['id']} never ended; run to the end", file=sys.stderr)
            return 2
        f["end_us"] = round(f["end_s"] * 1e6)
    instants = sorted({f["start_us"] for f in flows.values()} | {f["end_us"] for f in flows.values()})
    left = {f: fl["mb"] for f, fl in flows.items()}
    ends = {}
    active = []
    for k, now in enumerate(instants):
        active = [f for f in active if flows[f]["end_us"] > now]
        active += [f for f, fl in flows.items() if fl["start_us"] == now and fl["end_us"] > now]
        if k + 1 == len(instants):
            break
        nxt = instants[k + 1]
        rates = max_min(active, flows, caps)
        for f in active:
            r = rates[f]
            if f in ends or r <= 0:
                continue
            # The file gives whole bytes (rounded), so a flow may show up
            # to a byte to go when its last byte landed.
            need = max(left[f] - 1.0 / MB, 0.0) * 1e6 / r
            # (+10 µs: this script rounds times to the microsecond.)
            if need <= (nxt - now) + 10.0:
                ends[f] = now + need
            left[f] -= r * (nxt - now) / 1e6
    for f, fl in flows.items():
        if fl["start_us"] == fl["end_us"]:
            ends.setdefault(f, fl["end_us"])

    worst = []
    for f, fl in flows.items():
        got = fl.get("end_s")
        if got is None:
            continue
        diff = abs(ends.get(f, math.inf) - got * 1e6) / 1000.0
        worst.append((diff, f))
    worst.sort(reverse=True)
    bad = [w for w in worst if w[0] > tol]
    print(
        f"{len(worst)} flows replayed; largest difference "
        f"{worst[0][0] if worst else 0:.4f} ms; {len(bad)} beyond {tol:g} ms"
    )
    for diff, f in bad[:10]:
        fl = flows[f]
        print(f"  flow {f} ({fl['kind']} {fl['job']}/{fl['task']}): slotsim {fl['end_s']} s, "
              f"replay {ends.get(f, math.inf) / 1e6} s")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

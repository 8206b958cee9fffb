#!/usr/bin/env python3
"""Exact continuous max-min replay of a `slotsim run --flows` file, in plain
Python, to cross-check the SimGrid replay (replay.cpp) on small files.

    python3 tools/simgrid-replay/exact.py FLOWS.jsonl [--compare ENDS]

Starts every flow at its recorded start; between two events (a start or an
end) every active flow's rate is the progressive filling of all resources
(raise all unfrozen rates together; when a resource saturates, freeze its
flows), and the next end is computed from each flow's remaining bytes. No
rounding. Prints "id end_s" lines in the file's order, like `--out` of the
SimGrid replay; with --compare ENDS, prints instead the largest difference
from that file. Each event re-solves every active flow, so this is for files
of up to some tens of thousands of flows.
"""

import json
import math
import sys

MB = 1 << 20


def rates(active, paths, caps):
    rate = {f: 0.0 for f in active}
    crossing = {}
    for f in active:
        for r in paths[f]:
            crossing.setdefault(r, []).append(f)
    frozen = set()
    while len(frozen) < len(active):
        inc = math.inf
        for r, fs in crossing.items():
            n_open = sum(1 for f in fs if f not in frozen)
            if n_open:
                inc = min(inc, (caps[r] - sum(rate[f] for f in fs)) / n_open)
        for f in active:
            if f not in frozen:
                rate[f] += inc
        for r, fs in crossing.items():
            if sum(rate[f] for f in fs) >= caps[r] * (1 - 1e-12):
                frozen.update(fs)
    return rate


def replay(path):
    with open(path) as fh:
        caps = {k: v * MB for k, v in json.loads(fh.readline())["links"].items()}
        flows = [json.loads(line) for line in fh if line.strip()]
    paths = [fl["links"] for fl in flows]
    order = sorted(range(len(flows)), key=lambda i: flows[i]["start_s"])
    left, ends, active = {}, {}, set()
    now, k = 0.0, 0
    while k < len(order) or active:
        r = rates(active, paths, caps) if active else {}
        t_end = min((now + left[f] / r[f] for f in active), default=math.inf)
        t_start = flows[order[k]]["start_s"] if k < len(order) else math.inf
        t = min(t_end, t_start)
        for f in active:
            left[f] -= r[f] * (t - now)
        now = t
        for f in [f for f in active if left[f] / r[f] < 1e-10]:
            active.discard(f)
            ends[f] = now
        while k < len(order) and flows[order[k]]["start_s"] <= now:
            f = order[k]
            k += 1
            if flows[f]["bytes"] == 0 or not paths[f]:
                ends[f] = now
            else:
                left[f] = float(flows[f]["bytes"])
                active.add(f)
    return [(fl["id"], ends[i]) for i, fl in enumerate(flows)]


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    ends = replay(argv[0])
    if len(argv) >= 3 and argv[1] == "--compare":
        other = {}
        with open(argv[2]) as fh:
            for line in fh:
                if line.startswith("#"):
                    continue
                i, e = line.split()
                other[int(i)] = math.nan if e == "null" else float(e)
        worst = max((abs(e - other[i]), i) for i, e in ends)
        print(f"{len(ends)} flows; largest difference {worst[0] * 1e3:.6f} ms (flow {worst[1]})")
        return 0
    for i, e in ends:
        print(f"{i} {e:.9f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

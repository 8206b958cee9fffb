#!/usr/bin/env python3
"""Counting prototype: incremental max-min progressive filling over
bottleneck GROUPS, against a full progressive filling per event, on a
`slotsim run --flows` file.

    python3 tools/group-fill/group_fill.py FLOWS.jsonl [--check-every K]
        [--ref-every K] [--full-every K] [--max-events N] [--json OUT]

Python 3 standard library only; one core. See README.md in this directory
for what is counted and the results.

Events. The file's instants (every distinct `start_s` and `end_s`, exact
doubles) in increasing order; at each instant the flows ending then leave
and the flows starting then (with a later end) join, and both solvers
compute the max-min rates of the new active set. A flow without an end
(the run was cut by --until) never leaves. This is replay_flows.py's
order, without its rounding to the microsecond, so one event is one
instant, as close as the file allows to one of slotsim's solves.

(a) reference: progressive filling from scratch over the connected
    component(s) of the active flows that the event's flows touch (every
    other flow's rate cannot change), with a heap of resource levels as
    slotsim's fill does. Counted: flows filled (rate assignments),
    resource updates (each frozen flow updates each resource of its path;
    plus one per level evaluated on the heap), and the (resource, round)
    updates of the textbook round-by-round filling (replay_flows.py),
    where every round updates every resource that still has open flows.

(b) incremental over groups. A group is a bottleneck resource r, its
    level L_r (the rate of each of its flows) and its flows; each resource
    q keeps, for each group crossing it, how many of the group's flows
    cross q. On an event only resources whose inputs changed are
    re-filled, in increasing level order in one sweep; see `Groups.sweep`.
"""

import argparse
import heapq
import json
import math
import sys
import time
from array import array

INF = math.inf
TIE = 1e-12  # relative: two levels this close are the same level


def same(a, b):
    return abs(a - b) <= TIE * max(abs(a), abs(b), 1.0)


# ----------------------------------------------------------------------
# Input


def load(path, max_events=None):
    with open(path) as fh:
        first = json.loads(fh.readline())
        names = list(first["links"])
        idx = {n: i for i, n in enumerate(names)}
        caps = [float(first["links"][n]) for n in names]
        paths, starts, ends = [], [], []
        for line in fh:
            if not line.strip():
                continue
            f = json.loads(line)
            p = tuple(idx[n] for n in f["links"])
            if len(set(p)) != len(p):
                raise SystemExit(f"flow {f['id']} crosses a resource twice: not handled")
            paths.append(p)
            starts.append(float(f["start_s"]))
            e = f.get("end_s")
            ends.append(INF if e is None else float(e))
    ev = {}
    for i, (s, e) in enumerate(zip(starts, ends)):
        if e <= s:
            continue  # never active
        ev.setdefault(s, ([], []))[1].append(i)
        if e != INF:
            ev.setdefault(e, ([], []))[0].append(i)
    instants = sorted(ev)
    if max_events:
        instants = instants[:max_events]
    return names, caps, paths, [(t, ev[t][0], ev[t][1]) for t in instants]


# ----------------------------------------------------------------------
# (a) the reference: a progressive filling from scratch


def ref_fill(flows, paths, caps):
    """Progressive filling over `flows` (nothing else uses their
    resources). Returns (rate, bottleneck, counts)."""
    open_n = {}
    row = {}
    for f in flows:
        for r in paths[f]:
            if r in open_n:
                open_n[r] += 1
                row[r].append(f)
            else:
                open_n[r] = 1
                row[r] = [f]
    used = dict.fromkeys(open_n, 0.0)
    heap = [(caps[r] / n, r) for r, n in open_n.items()]
    heapq.heapify(heap)
    evals = len(heap)
    rate, bott = {}, {}
    writes = 0
    rounds = 0
    last = None
    res_rounds = 0
    left = len(flows)
    while heap and left:
        lvl, r = heapq.heappop(heap)
        n = open_n[r]
        if n == 0:
            continue
        cur = (caps[r] - used[r]) / n
        if cur > lvl:  # stale: levels only rise as flows freeze elsewhere
            heapq.heappush(heap, (cur, r))
            evals += 1
            continue
        level = max(cur, 0.0)
        if last is None or not same(level, last):
            rounds += 1
            last = level
        for f in row[r]:
            if f in rate:
                continue
            rate[f] = level
            bott[f] = r
            left -= 1
            for q in paths[f]:
                used[q] += level
                open_n[q] -= 1
                writes += 1
                if open_n[q] == 0:
                    # The round-by-round filling updates q in rounds 1..this.
                    res_rounds += rounds
    return rate, bott, {"flows": len(flows), "writes": writes, "evals": evals,
                        "rounds": rounds, "res_rounds": res_rounds,
                        "resources": len(open_n)}


# ----------------------------------------------------------------------
# (b) incremental progressive filling over bottleneck groups

RES, MARK = 0, 1


class Violation(Exception):
    pass


class Groups:
    """The state: every active flow in exactly one group (between events).

    Group of resource r (r is its bottleneck): lvl[r] (None: no group),
    mem[r] the set of its flows, at[r] {q: set of its flows crossing q}.
    cross[q] {r: how many of group r's flows cross q} (the per-resource
    view the level computation reads). grp[f]: the group of flow f, or -1
    while it is open in a sweep.
    """

    def __init__(self, caps, paths):
        self.caps = caps
        self.paths = paths
        n = len(caps)
        self.lvl = [None] * n
        self.mem = [None] * n
        self.at = [None] * n
        self.cross = [dict() for _ in range(n)]
        self.grp = {}
        # sweep state
        self.open_at = [set() for _ in range(n)]
        self.n_open = 0
        self.c = self.new_counts()
        self.prev_lvl = {}
        self.open_grp = set()
        self.tot = self.new_counts()
        self.tot["fallbacks"] = 0
        self.tot["violations"] = 0

    @staticmethod
    def new_counts():
        return {"writes": 0, "evals": 0, "scans": 0, "level_moves": 0,
                "res_level": 0, "moves": 0, "rate_changes": 0,
                "activations": 0, "marks_opened": 0, "tie_moves": 0, "pops": 0,
                "event_writes": 0}

    # -- rates -------------------------------------------------------
    def rate(self, f):
        return self.lvl[self.grp[f]]

    # -- membership (each flow transition writes one entry per resource
    #    of its path) ------------------------------------------------
    def _join(self, f, r):
        self.grp[f] = r
        self.mem[r].add(f)
        at = self.at[r]
        for q in self.paths[f]:
            s = at.get(q)
            if s is None:
                at[q] = {f}
            else:
                s.add(f)
            cq = self.cross[q]
            cq[r] = cq.get(r, 0) + 1
        self.c["writes"] += len(self.paths[f])

    def _leave(self, f):
        r = self.grp[f]
        self.mem[r].discard(f)
        at = self.at[r]
        for q in self.paths[f]:
            s = at[q]
            s.discard(f)
            if not s:
                del at[q]
            cq = self.cross[q]
            k = cq[r] - 1
            if k:
                cq[r] = k
            else:
                del cq[r]
        self.c["writes"] += len(self.paths[f])
        self.grp[f] = -1
        return r

    def _open(self, f):
        for q in self.paths[f]:
            self.open_at[q].add(f)
        self.grp[f] = -1
        self.n_open += 1
        self.c["writes"] += len(self.paths[f])

    def _close(self, f):
        for q in self.paths[f]:
            self.open_at[q].discard(f)
        self.n_open -= 1
        self.c["writes"] += len(self.paths[f])

    def _new_group(self, r, level):
        self.lvl[r] = level
        self.mem[r] = set()
        self.at[r] = {}

    def _drop_group(self, r):
        self.lvl[r] = None
        self.mem[r] = None
        self.at[r] = None

    # -- the level a resource saturates at, given what is known --------
    def candidate(self, q):
        """Water level at q: open flows rise with the level, and so do the
        flows of q's own group (q is being re-filled) and of every open
        group (its old level passed, it has not popped); every other
        group's flows stop at that group's level (tentatively, if its
        resource is being re-filled and has not popped yet). Reads one
        entry per group crossing q."""
        self.c["evals"] += 1
        n = len(self.open_at[q])
        items = []
        og = self.open_grp
        for r, k in self.cross[q].items():
            if r == q or r in og:
                n += k
            else:
                items.append((self.lvl[r], k))
        self.c["scans"] += len(items) + 1
        for _, k in items:
            n += k
        if n == 0:
            return INF
        items.sort()
        C = self.caps[q]
        frozen = 0.0
        for L, k in items:
            lv = (C - frozen) / n
            if lv <= L:
                return lv
            frozen += k * L
            n -= k
        if n > 0:
            return (C - frozen) / n
        if frozen > C * (1 + 1e-9):
            raise Violation(f"resource {q} over capacity with no open flow")
        return INF

    # -- one event -----------------------------------------------------
    def event(self, ended, started):
        self.c = self.new_counts()
        self.prev = {}  # flow that moved -> its rate before the event (None: new)
        self.prev_lvl = {}  # group whose level moved -> its level before
        try:
            self._event(ended, started)
        except Violation as e:
            self.tot["violations"] += 1
            self.fallback(ended, started, str(e))
        for k, v in self.c.items():
            self.tot[k] = self.tot.get(k, 0) + v
        return self.c

    def _note(self, f):
        if f not in self.prev:
            g = self.grp.get(f, -1)
            self.prev[f] = None if g == -1 else self.prev_lvl.get(g, self.lvl[g])

    def _event(self, ended, started):
        self.lam = -INF
        self.heap = []
        self.seq = 0
        self.ver = {}  # activated resource -> version of its live heap entry
        self.done = set()
        self.marked = set()
        self.open_grp = set()
        self.pending = {}  # resource -> lower?
        paths = self.paths
        w0 = self.c["writes"]
        for f in ended:
            r = self._leave(f)
            del self.grp[f]
            for q in paths[f]:
                if self.lvl[q] is not None:
                    self._activate(q, False)
        for f in started:
            self._note(f)
            self._open(f)
            for q in paths[f]:
                self._activate(q, True)
        # The event's own flows leaving and joining the resources' tables
        # (slotsim does that too, outside its solve).
        self.c["event_writes"] = self.c["writes"] - w0
        self._sweep()
        if self.n_open:
            raise Violation(f"{self.n_open} flows left open")
        # An open group that never popped lost every flow to other
        # resources on its way up: it is empty (dropped below).
        for q in self.open_grp:
            if self.mem[q]:
                raise Violation(f"group {q} left open with {len(self.mem[q])} flows")
        # Groups left without flows disappear.
        for q in self.ver:
            if self.lvl[q] is not None and not self.mem[q]:
                self._drop_group(q)
        # Rates changed (what a per-flow end heap must update). Counting
        # only: not part of the method's cost.
        n = 0
        for f, old in self.prev.items():
            if f in self.grp and (old is None or not same(old, self.rate(f))):
                n += 1
        for q, old in self.prev_lvl.items():
            if old is not None and self.lvl[q] is not None and not same(old, self.lvl[q]):
                n += sum(1 for f in self.mem[q] if f not in self.prev)
        self.c["rate_changes"] = n

    def _activate(self, q, lower):
        """q's inputs changed: its level is to be evaluated again (lower:
        the change may lower it; else it can only rise, and an evaluation
        already queued is checked when it pops)."""
        if q in self.done:
            if lower:
                raise Violation(f"resource {q} re-filled after it saturated")
            return
        if q in self.ver and not lower:
            return
        if q in self.pending:
            self.pending[q] |= lower
        else:
            self.pending[q] = lower

    def _flush(self):
        lam = self.lam
        for q in self.pending:
            c = self.candidate(q)
            self.c["activations"] += 1
            if c < lam and not same(c, lam):
                raise Violation(f"resource {q}: level {c} below the sweep's {lam}")
            L = self.lvl[q]
            if L is not None and q not in self.marked:
                self.marked.add(q)
                if L < lam and not same(L, lam):
                    raise Violation(f"resource {q} re-filled after its old level passed")
                # Its old level: if the sweep passes it and q has not popped,
                # q's level rises and its group is open from there.
                heapq.heappush(self.heap, (L * (1 + 4 * TIE) + 1e-300, MARK, self.seq, q, 0))
                self.seq += 1
            v = self.ver.get(q, 0) + 1
            self.ver[q] = v
            if c != INF:
                heapq.heappush(self.heap, (c, RES, self.seq, q, v))
                self.seq += 1
        self.pending.clear()

    def _sweep(self):
        while True:
            if self.pending:
                self._flush()
            if not self.heap:
                return
            key, kind, _, q, v = heapq.heappop(self.heap)
            if q in self.done:
                continue
            if kind == RES:
                if self.ver.get(q) != v:
                    continue
                self._pop_res(q, key)
            else:
                self._pop_mark(q, key)

    def _set_level(self, q, level):
        if q not in self.prev_lvl:
            self.prev_lvl[q] = self.lvl[q]
        self.lvl[q] = level
        self.c["level_moves"] += 1
        # If each resource kept its load: one update per resource the
        # group crosses.
        self.c["res_level"] += len(self.at[q])

    def _pop_res(self, q, key):
        c = self.candidate(q)
        if c > key:
            # Risen since it was queued (flows froze elsewhere first).
            v = self.ver[q] + 1
            self.ver[q] = v
            if c != INF:
                heapq.heappush(self.heap, (c, RES, self.seq, q, v))
                self.seq += 1
            return
        if c < key and not same(c, key):
            raise Violation(f"resource {q}: level fell from {key} to {c} unseen")
        self.c["pops"] += 1
        self.lam = max(self.lam, c)
        self.done.add(q)
        paths = self.paths
        og = self.open_grp
        opened = list(self.open_at[q])
        captured = []
        for r in self.cross[q]:
            if r != q and (r in og or (self.lvl[r] > c and not same(self.lvl[r], c))):
                captured.extend(self.at[r][q])
        L0 = self.lvl[q]
        was_open = q in og
        og.discard(q)
        if L0 is not None and not was_open and same(L0, c) and not opened and not captured:
            return  # the same level, the same flows: nothing moved
        if L0 is None:
            self._new_group(q, c)
            self.prev_lvl[q] = None
            self.c["level_moves"] += 1
        elif not same(L0, c) or was_open:
            # q's level moved, its group's flows with it (as a unit).
            self._set_level(q, c)
            if c < L0:
                # The resources they cross see them lower (a rise went
                # through the group's MARK, which woke them all).
                for p in list(self.at[q]):
                    if p != q:
                        self._activate(p, False)
        for f in opened:
            self._close(f)
            self._join(f, q)
            self.c["moves"] += 1
        for f in captured:
            # Capped here below its group's level (or its group was
            # rising): it moves to q; its old group loses it (that
            # resource is on its path); its resources see it lower than
            # they assumed.
            self._note(f)
            self._leave(f)
            self._join(f, q)
            self.c["moves"] += 1
            for p in paths[f]:
                if p != q:
                    self._activate(p, False)

    def _pop_mark(self, q, key):
        """The sweep passed q's old level and q has not popped: its level
        rises. Its group goes on rising as a unit (open); every resource it
        crosses sees that. Flows of it crossing a resource that saturated
        at this very level (a tie) stay there instead."""
        if self.lvl[q] is None or not self.mem[q]:
            return
        L = self.lvl[q]
        self.lam = max(self.lam, L)
        self.open_grp.add(q)
        self.c["marks_opened"] += 1
        for p in list(self.at[q]):
            if p == q:
                continue
            if p in self.done:
                if self.lvl[p] is not None and same(self.lvl[p], L):
                    for f in list(self.at[q][p]):
                        self._note(f)
                        self._leave(f)
                        self._join(f, p)
                        self.c["tie_moves"] += 1
                        self.c["moves"] += 1
                    continue
                raise Violation(f"group {q} rises across saturated resource {p}")
            self._activate(p, True)

    # -- rebuilding from a full fill (fallback, and the start) ----------
    def rebuild(self, active):
        rate, bott, cnt = ref_fill(list(active), self.paths, self.caps)
        for q in range(len(self.caps)):
            self.lvl[q] = None
            self.mem[q] = None
            self.at[q] = None
            self.cross[q].clear()
            self.open_at[q].clear()
        self.n_open = 0
        self.grp = {}
        saved = self.c
        self.c = self.new_counts()
        for f, r in bott.items():
            if self.lvl[r] is None:
                self._new_group(r, rate[f])
            self._join(f, r)
        self.c = saved
        return cnt

    def fallback(self, ended, started, why):
        """A violated invariant: rebuild every group from a full fill over
        every active flow (counted apart)."""
        self.tot["fallbacks"] += 1
        if self.tot["fallbacks"] <= 5:
            print(f"fallback: {why}", file=sys.stderr)
        active = self.active_ref
        cnt = self.rebuild(active)
        self.c["fallback_writes"] = cnt["writes"] + cnt["evals"]


# ----------------------------------------------------------------------
# (c) slotsim's own solve, re-enacted for counting (src/sim/network/solve.rs,
# the exact `shared` path, without the slack-skipping shortcut): the flows
# re-solved are the started ones and those crossing a set S of resources,
# S growing (round after round, each round filling the whole set again)
# where a boundary resource the change touched breaks a flow's max-min
# certificate. Its state before the event is the exact allocation, taken
# from (b) (the same rates; a bottleneck where levels tie may differ).


def lazy_solve(G, ended, started, res_flows, paths, caps):
    started_s = set(started)
    ended_s = set(ended)

    def rate0(f):
        return 0.0 if f in started_s else G.rate(f)

    def froze0(f):
        return -1 if f in started_s else G.grp[f]

    load_c = {}

    def load(r):  # what the engine keeps up to date (not counted)
        v = load_c.get(r)
        if v is None:
            v = 0.0
            for f in res_flows[r]:
                if f not in started_s:
                    v += G.rate(f)
            load_c[r] = v
        return v

    cnt = {"rounds": 0, "flows_filled": 0, "fill_writes": 0, "evals": 0,
           "cert_checks": 0, "cert_reads": 0, "setup_reads": 0, "rate_changes": 0,
           "rate_writes": 0, "flows": 0, "resources": 0}
    seeds = []
    seen = set()
    for f in ended:
        for q in paths[f]:
            if q not in seen:
                seen.add(q)
                seeds.append(q)
    S = set()
    s_list = []
    s_done = 0
    comp = list(started)
    in_comp = set(started)
    nxt, nfroze = {}, {}
    while True:
        cnt["rounds"] += 1
        for r in s_list[s_done:]:
            cnt["setup_reads"] += len(res_flows[r])
            for f in res_flows[r]:
                if f not in in_comp:
                    in_comp.add(f)
                    comp.append(f)
        s_done = len(s_list)
        row = {}
        order = []
        for f in comp:
            for q in paths[f]:
                if q in row:
                    row[q].append(f)
                else:
                    row[q] = [f]
                    order.append(q)
        for q in seeds:
            if q not in row:
                order.append(q)
        base = {}
        used = {}
        open_n = {}
        for q, fs in row.items():
            if q in S:
                b = 0.0
            else:
                b = min(load(q), caps[q])
                for f in fs:
                    b -= rate0(f)
            base[q] = b
            used[q] = max(b, 0.0)
            open_n[q] = len(fs)
        heap = [((caps[q] - used[q]) / n, q) for q, n in open_n.items()]
        heapq.heapify(heap)
        cnt["evals"] += len(heap)
        nxt.clear()
        nfroze.clear()
        left = len(comp)
        while heap and left:
            lvl, q = heapq.heappop(heap)
            n = open_n[q]
            if n == 0:
                continue
            cur = (caps[q] - used[q]) / n
            if cur > lvl:
                heapq.heappush(heap, (cur, q))
                cnt["evals"] += 1
                continue
            level = max(cur, 0.0)
            for f in reversed(row[q]):
                if f in nxt:
                    continue
                nxt[f] = level
                nfroze[f] = q
                left -= 1
                for p in paths[f]:
                    used[p] += level
                    open_n[p] -= 1
                cnt["fill_writes"] += len(paths[f])
        cnt["flows_filled"] += len(comp)
        touched = set(seeds)
        for f in comp:
            touched.add(nfroze[f])
            if not same(rate0(f), nxt[f]):
                touched.update(paths[f])
        grew = False
        for r in order:
            if r in S or r not in touched:
                continue
            # certificate_breaks(r)
            fl = res_flows[r]
            bott = 0
            froze_here = INF
            max_in = 0.0
            max_out = 0.0
            b_out = INF
            for g in fl:
                if g in in_comp:
                    x = nxt[g]
                    max_in = max(max_in, x)
                    if nfroze[g] == r:
                        froze_here = min(froze_here, x)
                        bott += 1
                else:
                    x = G.rate(g)
                    max_out = max(max_out, x)
                    if froze0(g) == r:
                        b_out = min(b_out, x)
                        bott += 1
            cnt["cert_checks"] += 1
            if bott == 0:
                continue  # the engine keeps the count: no walk
            cnt["cert_reads"] += len(fl)
            tol_h = 1e-9 * max(abs(froze_here), 1.0) if froze_here != INF else 0
            brk = froze_here != INF and max_out > froze_here + tol_h
            if not brk and b_out != INF:
                new_load = base.get(r, load(r)) if r in row else load(r)
                if r in row:
                    new_load = max(base[r], 0.0) + sum(nxt[g] for g in row[r])
                full = new_load >= caps[r] * (1 - 1e-9)
                above = max(max_in, max_out)
                brk = (not full) or above > b_out + 1e-9 * max(abs(b_out), 1.0)
            if brk:
                S.add(r)
                s_list.append(r)
                grew = True
        if not grew:
            break
    cnt["flows"] = len(comp)
    cnt["resources"] = len(order)
    for f in comp:
        if not same(rate0(f), nxt[f]):
            cnt["rate_changes"] += 1
            cnt["rate_writes"] += len(paths[f])
    return nxt, cnt


# ----------------------------------------------------------------------


def pct(xs, p):
    if not xs:
        return 0.0
    s = sorted(xs)
    return s[min(len(s) - 1, int(math.ceil(p / 100.0 * len(s))) - 1)]


def mean(xs):
    return sum(xs) / len(xs) if xs else 0.0


def component(seeds, res_flows, paths):
    seen_r = set(seeds)
    stack = list(seeds)
    flows = set()
    while stack:
        r = stack.pop()
        for f in res_flows[r]:
            if f not in flows:
                flows.add(f)
                for q in paths[f]:
                    if q not in seen_r:
                        seen_r.add(q)
                        stack.append(q)
    return flows


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("flows")
    ap.add_argument("--check-every", type=int, default=1,
                    help="run (a) and compare rates on every K-th event (default every)")
    ap.add_argument("--full-every", type=int, default=0,
                    help="also compare every active flow's rate with a fill over all "
                         "active flows on every K-th checked event (0: never)")
    ap.add_argument("--lazy-every", type=int, default=None,
                    help="re-enact slotsim's own solve (c) on every K-th event "
                         "(default: as --check-every)")
    ap.add_argument("--from-event", type=int, default=0,
                    help="replay only the active set up to this event, start (b) there "
                         "from a full fill (a window in a long file)")
    ap.add_argument("--from-time", type=float, default=None,
                    help="as --from-event, at the first event at or after this instant (s)")
    ap.add_argument("--max-events", type=int, default=0,
                    help="stop after this many events (counted from --from-event)")
    ap.add_argument("--json", help="write the summary here")
    ap.add_argument("--label", default="")
    a = ap.parse_args(argv)
    lazy_every = a.check_every if a.lazy_every is None else a.lazy_every

    t0 = time.process_time()
    names, caps, paths, events = load(a.flows)
    if a.from_time is not None:
        a.from_event = next((i for i, e in enumerate(events) if e[0] >= a.from_time), len(events))
    if a.max_events:
        events = events[:a.from_event + 1 + a.max_events]
    plen = [len(p) for p in paths]
    t_load = time.process_time() - t0
    print(f"{a.flows}: {len(caps)} resources, {len(paths)} flows, {len(events)} events "
          f"(loaded in {t_load:.1f} s CPU)", file=sys.stderr)

    G = Groups(caps, paths)
    active = set()
    G.active_ref = active
    res_flows = [set() for _ in caps]

    B = {k: array("d") for k in ("upd", "upd_solver", "upd_reads", "event_writes", "writes", "evals", "scans",
                                  "level_moves", "res_level", "moves", "rate_changes",
                                  "activations", "pops", "changes")}
    A = {k: array("d") for k in ("upd", "writes", "evals", "flows", "res_rounds",
                                  "rounds", "resources", "active")}
    Cc = {k: array("d") for k in ("upd", "upd_reads", "rounds", "flows_filled", "fill_writes",
                                   "evals", "cert_checks", "cert_reads", "setup_reads",
                                   "rate_changes", "rate_writes", "flows", "resources")}
    B_at_a = array("d")
    B_at_c = array("d")
    max_rel = 0.0
    worst = None
    c_max_rel = 0.0
    checked = 0
    full_checked = 0
    full_max_rel = 0.0
    mismatches = 0
    nflow_changes = 0
    active_plen = 0.0
    t_b = t_a = t_c = 0.0
    n_b = 0
    t_window = None
    for k, (t, ended, started) in enumerate(events):
        for f in ended:
            active.discard(f)
            for q in paths[f]:
                res_flows[q].discard(f)
        for f in started:
            active.add(f)
            for q in paths[f]:
                res_flows[q].add(f)
        if k < a.from_event:
            continue
        if k == a.from_event and a.from_event > 0:
            G.rebuild(active)  # the state after this event, from scratch
            t_window = t
            continue
        n_b += 1
        nflow_changes += len(ended) + len(started)
        lz = None
        if lazy_every and n_b % lazy_every == 0:
            t1 = time.process_time()
            lz_rates, lz = lazy_solve(G, ended, started, res_flows, paths, caps)
            t_c += time.process_time() - t1
            started_s = set(started)
        t1 = time.process_time()
        c = G.event(ended, started)
        t_b += time.process_time() - t1
        upd = c["writes"] + c["evals"] + c["res_level"]
        B["upd"].append(upd)
        B["upd_reads"].append(c["writes"] + c["scans"] + c["res_level"])
        B["upd_solver"].append(upd - c["event_writes"])
        B["event_writes"].append(c["event_writes"])
        for key in ("writes", "evals", "scans", "level_moves", "res_level", "moves",
                    "rate_changes", "activations", "pops"):
            B[key].append(c[key])
        B["changes"].append(len(ended) + len(started))
        if lz is not None:
            for key in lz:
                Cc[key].append(lz[key])
            Cc["upd"].append(lz["fill_writes"] + lz["evals"] + lz["rate_writes"])
            Cc["upd_reads"].append(lz["fill_writes"] + lz["cert_reads"] + lz["setup_reads"]
                                   + lz["evals"] + lz["rate_writes"])
            B_at_c.append(upd)
        if a.check_every and n_b % a.check_every == 0 and active:
            t1 = time.process_time()
            seeds = {q for f in ended for q in paths[f]} | {q for f in started for q in paths[f]}
            comp = component(seeds, res_flows, paths)
            rate, bott, cnt = ref_fill(list(comp), paths, caps)
            t_a += time.process_time() - t1
            A["upd"].append(cnt["writes"] + cnt["evals"])
            for key in ("writes", "evals", "flows", "res_rounds", "rounds", "resources"):
                A[key].append(cnt[key])
            A["active"].append(len(active))
            B_at_a.append(upd)
            active_plen += sum(plen[f] for f in active) / len(active)
            checked += 1
            bad = False
            for f, r in rate.items():
                got = G.rate(f)
                rel = abs(got - r) / max(abs(r), 1e-300)
                if rel > max_rel:
                    max_rel = rel
                    worst = (k, t, f, r, got)
                if rel > 1e-9:
                    bad = True
                if lz is not None and f in lz_rates:
                    c_max_rel = max(c_max_rel, abs(lz_rates[f] - r) / max(abs(r), 1e-300))
            if bad:
                mismatches += 1
                if mismatches <= 5:
                    print(f"mismatch at event {k} (t={t}): worst so far {worst}", file=sys.stderr)
            if a.full_every and checked % a.full_every == 0:
                rate, _, _ = ref_fill(list(active), paths, caps)
                full_checked += 1
                for f, r in rate.items():
                    rel = abs(G.rate(f) - r) / max(abs(r), 1e-300)
                    full_max_rel = max(full_max_rel, rel)
        if n_b % 20000 == 0:
            print(f"  event {k}/{len(events)} (t={t:.2f} s): (b) {t_b:.0f} s, (a) {t_a:.0f} s, "
                  f"(c) {t_c:.0f} s CPU, max rel {max_rel:.2e}", file=sys.stderr)

    # Groups and flows at bottlenecks at the end, for context.
    ngroups = sum(1 for L in G.lvl if L is not None)
    out = {
        "file": a.flows,
        "label": a.label,
        "resources": len(caps),
        "flows": len(paths),
        "events": n_b,
        "window_from_s": t_window,
        "window_to_s": events[-1][0] if events else None,
        "from_event": a.from_event,
        "flow_changes": nflow_changes,
        "checked_events": checked,
        "full_checked_events": full_checked,
        "max_rel_mismatch": max_rel,
        "full_max_rel_mismatch": full_max_rel,
        "events_beyond_1e-9": mismatches,
        "worst": worst,
        "fallbacks": G.tot["fallbacks"],
        "violations": G.tot["violations"],
        "mean_active_path_len": active_plen / max(checked, 1),
        "cpu_s": {"load": t_load, "b": t_b, "a": t_a, "c": t_c},
        "c_vs_a_max_rel": c_max_rel,
        "c_events": len(Cc["upd"]),
        "groups_at_end": ngroups,
        "active_at_end": len(active),
        "b": {k: {"mean": mean(v), "p99": pct(v, 99), "sum": sum(v)} for k, v in B.items()},
        "a": {k: {"mean": mean(v), "p99": pct(v, 99), "sum": sum(v)} for k, v in A.items()},
        "c": {k: {"mean": mean(v), "p99": pct(v, 99), "sum": sum(v)} for k, v in Cc.items()},
        "b_on_a_events": {"mean": mean(B_at_a), "p99": pct(B_at_a, 99)},
        "b_on_c_events": {"mean": mean(B_at_c), "p99": pct(B_at_c, 99)},
        "b_tot": G.tot,
    }
    print(json.dumps(out, indent=1))
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(out, fh, indent=1)
    return 1 if (mismatches or G.tot["fallbacks"]) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Pools sharing map slots fairly, with Hadoop 1.x fair-scheduler min-share
preemption, simplified: an example of protocol 2's preemption, not a
reproduction of the built-in `fair` (whose preemption follows Hadoop's
`preemptTasksIfNecessary` step by step).

What it does:
- Each free map slot goes to the pool furthest below its min share
  (`min_maps`, capped at its demand), else to the pool with the fewest
  running maps per unit of `weight`; within a pool, jobs in queue order,
  each giving its best-placed map. Reduces go in queue order once slowstart
  allows.
- Every 15 s (Hadoop's `mapred.fairscheduler.preemption.interval`), a pool
  that has been below its min share for longer than its
  `min_share_timeout` takes slots back: the newest map attempts of pools
  running more maps than their fair share are killed (`self.preempt`),
  never taking a pool below its fair share, and never more than the
  starved pools need. Their tasks are pending again, and the starved pools
  get the freed slots first.

Simplified: fair shares are weighted shares of the live map slots, capped
at each pool's demand (water-filling), without Hadoop's job-level shares;
only min-share preemption (no fair-share timeout); maps only. Its launches
carry the rules `fair-preempt/min-share` and `fair-preempt/fair-share`, so
in `--trace` a preempted attempt shows as `"outcome": "killed"` with the
rule that launched it. Protocol 2 only; run it from the repository's root:

    slotsim run tests/external/preemption.toml --headless --trace - \\
        --policy "external[protocol=2]:python3 clients/python/examples/fair_preempt.py"
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from slotsim_policy import MAP, REDUCE, Policy, run  # noqa: E402

# Hadoop's mapred.fairscheduler.preemption.interval.
PREEMPTION_INTERVAL_MS = 15000


def parse_ms(text):
    """A resolved duration ("10000ms"), or None."""
    if text is None:
        return None
    return int(str(text).rstrip("ms"))


class FairPreempt(Policy):
    protocol = 2
    name = "fair-preempt"
    version = "1.0"

    def __init__(self):
        super().__init__()
        # Per pool: the last time it was at its min share.
        self.at_min_share = {}
        self.last_check = None

    # Shares.

    def pool_jobs(self):
        pools = {name: [] for name in self.pools}
        for job in self.queue():
            pools.setdefault(job.pool, []).append(job)
        return pools

    def demand(self, jobs):
        return sum(len(job.pending_maps) + job.running_maps for job in jobs)

    def running(self, jobs):
        return sum(job.running_maps for job in jobs)

    def min_share(self, name, demand):
        return min(self.pools.get(name, {}).get("min_maps") or 0, demand)

    def weight(self, name):
        return self.pools.get(name, {}).get("weight") or 1.0

    def fair_shares(self, pools):
        """Weighted shares of the live map slots, each capped at its pool's
        demand (water-filling)."""
        demands = {name: self.demand(jobs) for name, jobs in pools.items()}
        shares = {name: 0.0 for name in pools}
        left, open_pools = float(self.total_map_slots), [n for n in pools if demands[n] > 0]
        while left > 1e-9 and open_pools:
            total_w = sum(self.weight(n) for n in open_pools)
            per_w = left / total_w
            capped = [n for n in open_pools if demands[n] - shares[n] <= per_w * self.weight(n)]
            if not capped:
                for n in open_pools:
                    shares[n] += per_w * self.weight(n)
                break
            for n in capped:
                left -= demands[n] - shares[n]
                shares[n] = float(demands[n])
                open_pools.remove(n)
        return shares

    # Preemption.

    def update_min_share_times(self, pools):
        for name, jobs in pools.items():
            if self.running(jobs) >= self.min_share(name, self.demand(jobs)):
                self.at_min_share[name] = self.now_ms
            else:
                self.at_min_share.setdefault(name, self.now_ms)

    def preempt_if_necessary(self, pools):
        if self.last_check is not None and self.now_ms - self.last_check < PREEMPTION_INTERVAL_MS:
            return
        self.last_check = self.now_ms
        need = 0
        for name, jobs in pools.items():
            timeout = parse_ms(self.pools.get(name, {}).get("min_share_timeout"))
            if timeout is None or self.now_ms - self.at_min_share.get(name, self.now_ms) <= timeout:
                continue
            need += max(self.min_share(name, self.demand(jobs)) - self.running(jobs), 0)
        if need == 0:
            return
        shares = self.fair_shares(pools)
        over = {name: self.running(jobs) - int(shares[name]) for name, jobs in pools.items()}
        # The newest map attempts of pools over their fair share first.
        victims = sorted((a for a in self.attempts.values()
                          if a.kind == MAP and a.job in self.jobs
                          and over.get(self.jobs[a.job].pool, 0) > 0),
                         key=lambda a: (-a.start_ms, -a.job, -a.task))
        for a in victims:
            if need == 0:
                break
            pool = self.jobs[a.job].pool
            if over[pool] <= 0:
                continue
            self.preempt(a)
            over[pool] -= 1
            need -= 1

    # Heartbeats.

    def heartbeat(self, node, free, running):
        pools = self.pool_jobs()
        self.update_min_share_times(pools)
        self.preempt_if_necessary(pools)
        while free.map:
            candidates = [(name, jobs) for name, jobs in pools.items()
                          if any(job.pending_maps for job in jobs)]
            if not candidates:
                break

            def key(item):
                name, jobs = item
                run_maps, floor = self.running(jobs), self.min_share(name, self.demand(jobs))
                starved = run_maps < floor
                return (not starved, run_maps / floor if starved else run_maps / self.weight(name),
                        name)

            name, jobs = min(candidates, key=key)
            starved = self.running(jobs) < self.min_share(name, self.demand(jobs))
            job = next(job for job in jobs if job.pending_maps)
            task, _ = job.find_map(node)
            rule = "fair-preempt/min-share" if starved else "fair-preempt/fair-share"
            self.launch(job, MAP, task, rule)
        for job in self.queue():
            while (free.reduce and job.pending_reduces
                   and job.reduces_schedulable(self.slowstart) and self.reduce_allowed(job)):
                self.launch(job, REDUCE, rule="fair-preempt/reduce")


if __name__ == "__main__":
    run(FairPreempt())

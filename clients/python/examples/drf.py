"""Hadoop 2.7.3's FairScheduler with Dominant Resource Fairness on YARN,
as slotsim's built-in `yarn-fair[scheduling_policy=drf]` runs it
(src/sched/yarn/fair/), simplified: it reproduces the built-in's runs on
`scenarios/drf.toml` (DRF's worked example, NSDI 2011 §4) and
`scenarios/sls-sample-yarn.toml`. Protocol 2 (the
only one on YARN); run it from the repository's root:

    slotsim run scenarios/drf.toml --headless \\
        --policy "external:python3 clients/python/examples/drf.py"

On a NodeManager's heartbeat, one container: the pools (YARN's queues) by
dominant share -- each one's share of the cluster's memory and of its
vcores, the larger first, over its weight, a queue below its
`min_resources` first -- ties by name; in the first queue with an
application that asks for anything, its applications by the same order
(ties by submission), and the first one's request in priority order (its
ApplicationMaster, its reduces, then its maps, the best-placed map
first). Its container is its ask, normalised (job_submitted's `asks`).
It places the ApplicationMasters itself (`am = "policy"`: an application
waiting for its AM has a share of 0 and its AM is its first request, as
in the built-in); `--am engine` leaves them to slotsim, which starts
them by age before younger jobs' launches, and then the two part where
that order differs from DRF's (on `scenarios/yarn-quickstart.toml`).

Simplified against the built-in: no reservations (a container that does
not fit ends the heartbeat, where Hadoop reserves the node for it), no
delay scheduling (the built-in's thresholds are off by default too), no
`max_resources`, no `max_am_share`: the two part wherever these matter.
"""

import argparse
import functools
import math
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from slotsim_policy import MAP, REDUCE, Level, Policy, run  # noqa: E402

# The built-in's rules, so that the traces match line for line.
RULES = {Level.NODE: "yarn-fair/node-local", Level.RACK: "yarn-fair/rack-local",
         Level.DC: "yarn-fair/off-switch", Level.ANY: "yarn-fair/off-switch"}


def f32(x):
    """`x` rounded to a Java float, as Hadoop's comparator computes."""
    return struct.unpack("f", struct.pack("f", x))[0]


def div(a, b):
    """a / b in floats, Java's way: x / 0 is infinite, 0 / 0 is NaN."""
    a, b = f32(a), f32(b)
    if b == 0:
        return math.nan if a == 0 else math.copysign(math.inf, a)
    return f32(a / b)


def drf_key(used, weight, minimum, cluster):
    """DominantResourceFairnessPolicy's sort key: (0, shares of the
    minimum) below the minimum, else (1, shares of the cluster), each pair
    dominant first."""
    w = f32(weight)
    mem = div(used["memory_mb"], f32(cluster["memory_mb"] * w))
    cpu = div(used["vcores"], f32(cluster["vcores"] * w))
    cpu_first = not mem >= cpu
    of_cluster = (cpu, mem) if cpu_first else (mem, cpu)
    mem_min = div(used["memory_mb"], minimum["memory_mb"])
    cpu_min = div(used["vcores"], minimum["vcores"])
    of_min = (cpu_min, mem_min) if cpu_first else (mem_min, cpu_min)
    if of_min[0] < 1.0:
        return (0,) + of_min
    return (1,) + of_cluster


def cmp_number(a, b):
    """Compares like Rust's partial_cmp, NaN equal to anything."""
    if a < b:
        return -1
    if a > b:
        return 1
    return 0


def cmp_keys(a, b):
    for x, y in zip(a, b):
        c = cmp_number(x, y)
        if c:
            return c
    return 0


ZERO = {"memory_mb": 0, "vcores": 0}


class Drf(Policy):
    protocol = 2
    name = "yarn-fair-drf"
    version = "2.7.3"
    am = "policy"

    def cluster(self):
        """The live nodes' capacity."""
        total = dict(ZERO)
        for n in self.nodes.values():
            if n.alive:
                for k in total:
                    total[k] += n.capacity[k]
        return total

    def used_by_job(self):
        """What each job's running containers hold, its AM's included."""
        used = {}
        for a in self.attempts.values():
            u = used.setdefault(a.job, dict(ZERO))
            for k in u:
                u[k] += a.container.get(k, 0)
        return used

    def heartbeat(self, node, free, running):
        cluster = self.cluster()
        used = self.used_by_job()
        queues = {}
        for job in self.jobs.values():
            queues.setdefault(job.pool, []).append(job)

        def queue_key(name):
            total = dict(ZERO)
            for job in queues[name]:
                for k in total:
                    total[k] += used.get(job.id, ZERO)[k]
            pool = self.pools.get(name, {})
            minimum = pool.get("min_resources") or ZERO
            return drf_key(total, pool.get("weight", 1.0), minimum, cluster)

        keyed = [(queue_key(name), name) for name in queues]
        keyed.sort(key=functools.cmp_to_key(
            lambda a, b: cmp_keys(a[0], b[0]) or cmp_number(a[1], b[1])))
        for _, name in keyed:
            apps = [(drf_key(used.get(job.id, ZERO), 1.0, ZERO, cluster), job)
                    for job in queues[name]]
            apps.sort(key=functools.cmp_to_key(
                lambda a, b: cmp_keys(a[0], b[0]) or cmp_number(a[1].submit_ms, b[1].submit_ms)
                or cmp_number(a[1].name, b[1].name) or cmp_number(a[1].id, b[1].id)))
            for _, job in apps:
                if job.am_pending:
                    # Its first request: the AM's container, or nothing
                    # this heartbeat if it does not fit.
                    if free.fits(job.asks["am"]):
                        self.launch_am(job)
                    return
                for kind in (REDUCE, MAP):
                    if (job.requests.map if kind == MAP else job.requests.reduce) <= 0:
                        continue
                    # The first request it has: its container, or nothing
                    # this heartbeat if it does not fit.
                    if not free.fits(job.asks[kind]):
                        return
                    if kind == REDUCE:
                        self.launch(job, REDUCE, rule="yarn-fair/reduce")
                    else:
                        task, level = job.find_map(node)
                        self.launch(job, MAP, task, RULES[level])
                    return


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--am", choices=("policy", "engine"), default="policy",
                        help="who places ApplicationMasters (default: this policy)")
    parser.add_argument("--wake", choices=("every", "work"), default="every",
                        help="be asked on every heartbeat, or only where a container fits")
    args = parser.parse_args()
    policy = Drf()
    policy.am, policy.wake = args.am, args.wake
    run(policy)


if __name__ == "__main__":
    main()

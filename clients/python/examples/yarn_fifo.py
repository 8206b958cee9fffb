"""Hadoop 2.7.3's FifoScheduler on YARN, as slotsim's built-in `yarn-fifo`
runs it (src/sched/yarn/fifo.rs, step by step), so that it reproduces the
built-in's runs. Protocol 2 (the only one on YARN); run it from the
repository's root:

    slotsim run scenarios/yarn-quickstart.toml \\
        --policy "external:python3 clients/python/examples/yarn_fifo.py"

On a NodeManager's heartbeat, applications in id order, each one's
requests in priority order (its ApplicationMaster, its reduces, then its
maps); at each priority as many containers as the node's free memory
holds: node-local maps first, then rack-local, then off-switch. A
priority that gets nothing ends the application's turn. Memory only:
every container is its ask's memory with 1 vcore, and vcores are never
checked, as with Hadoop's DefaultResourceCalculator.

`--am policy` places the ApplicationMasters here, each as its
application's first request; `--am engine` (the default) leaves them to
slotsim, which starts them after the heartbeat's launches of older
applications, in the same order: the two give the same runs. `--wake
work` asks slotsim for only the heartbeats where a container fits.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from slotsim_policy import MAP, REDUCE, Level, Policy, run  # noqa: E402

# yarn.scheduler.minimum-allocation-mb: a node with less free memory gets
# nothing (the FifoScheduler's loop ends there).
MIN_ALLOCATION_MB = 1024

RULES = {Level.NODE: "yarn-fifo/node-local", Level.RACK: "yarn-fifo/rack-local",
         Level.ANY: "yarn-fifo/off-switch"}


class YarnFifo(Policy):
    protocol = 2
    name = "yarn-fifo"
    version = "2.7.3"

    def wants(self, job, kind):
        """Whether the job's ApplicationMaster asks for a container of `kind`
        now (the heartbeat's requests, less this heartbeat's launches)."""
        return (job.requests.map if kind == MAP else job.requests.reduce) > 0

    def heartbeat(self, node, free, running):
        for job_id in sorted(self.jobs):
            job = self.jobs[job_id]
            if free.memory_mb < MIN_ALLOCATION_MB:
                break
            if job.am_pending:
                # The AM's request (priority 0), memory-normalised with 1
                # vcore; one that does not fit waits for another node.
                container = {"memory_mb": job.asks["am"]["memory_mb"], "vcores": 1}
                if free.fits(container):
                    self.launch_am(job, container)
                continue
            for kind in (REDUCE, MAP):
                if not self.wants(job, kind):
                    continue
                # DefaultResourceCalculator: memory normalised, 1 vcore.
                container = {"memory_mb": job.asks[kind]["memory_mb"], "vcores": 1}
                levels = (Level.NODE, Level.RACK, Level.ANY) if kind == MAP else (Level.ANY,)
                assigned = 0
                for level in levels:
                    while free.fits(container) and self.wants(job, kind):
                        if kind == REDUCE:
                            task, rule = job.find_reduce(), "yarn-fifo/reduce"
                        else:
                            found = job.find_map(node, level)
                            if found is None or (level == Level.NODE and found[1] != Level.NODE):
                                break
                            task, rule = found[0], RULES[level]
                        if task is None:
                            break
                        self.launch(job, kind, task, rule, container)
                        assigned += 1
                if assigned == 0:
                    break


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--am", choices=("engine", "policy"), default="engine",
                        help="who places ApplicationMasters (default: slotsim)")
    parser.add_argument("--wake", choices=("every", "work"), default="every",
                        help="be asked on every heartbeat, or only where a container fits")
    args = parser.parse_args()
    policy = YarnFifo()
    policy.am, policy.wake = args.am, args.wake
    run(policy)


if __name__ == "__main__":
    main()

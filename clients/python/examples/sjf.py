"""Shortest job first: every free map slot goes to the job with the fewest
unfinished tasks that has a pending map, which gives its node-local map,
else a rack-local one, else any; reduces go the same way once slowstart
lets them. Run it from the repository's root:

    slotsim run scenarios/quickstart.toml --policy "external:python3 clients/python/examples/sjf.py"
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from slotsim_policy import MAP, REDUCE, Policy, run  # noqa: E402


class ShortestJobFirst(Policy):
    def heartbeat(self, node, free, running):
        # A stable sort: jobs of one size keep the queue's order.
        jobs = sorted(self.queue(), key=lambda job: job.tasks_left())
        for job in jobs:
            while free.map and job.pending_maps:
                task, level = job.find_map(node)
                self.launch(job, MAP, task, "sjf/" + level.name.lower())
        for job in jobs:
            while (free.reduce and job.pending_reduces
                   and job.reduces_schedulable(self.slowstart) and self.reduce_allowed(job)):
                self.launch(job, REDUCE, rule="sjf/reduce")


if __name__ == "__main__":
    run(ShortestJobFirst())

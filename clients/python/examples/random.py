"""Random: each free slot goes to a job drawn at random among those with a
pending task of its kind (its best-placed map; a reduce once slowstart lets
it). Seeded from the scenario's seed, so a run repeats exactly. Run it from
the repository's root:

    slotsim run scenarios/quickstart.toml --policy "external:python3 clients/python/examples/random.py"
"""

import os
import sys

# Run as a script, this file's directory comes first on the path, where
# this file would stand in for the standard `random`: the directory makes
# way for the library's.
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != HERE]
sys.path.insert(0, os.path.dirname(HERE))

import random  # noqa: E402

from slotsim_policy import MAP, REDUCE, Policy, run  # noqa: E402


class RandomPolicy(Policy):
    def on_start(self, msg):
        self.rng = random.Random(self.seed)

    def heartbeat(self, node, free, running):
        while free.map:
            jobs = [job for job in self.queue() if job.pending_maps]
            if not jobs:
                break
            self.launch(self.rng.choice(jobs), MAP, rule="random/map")
        while free.reduce:
            jobs = [job for job in self.queue() if job.pending_reduces
                    and job.reduces_schedulable(self.slowstart) and self.reduce_allowed(job)]
            if not jobs:
                break
            self.launch(self.rng.choice(jobs), REDUCE, rule="random/reduce")


if __name__ == "__main__":
    run(RandomPolicy())

"""A policy trained in `SlotsimEnv` (reinforce.py's weights), run as an
ordinary slotsim external policy: protocol 2, `wake = "work"`, the
weights named in its hello (`files`), and at each heartbeat the argmax of
the linear policy over the same features the environment computes
(`slotsim_gym.features.decide`), so that it takes the decisions the
trained agent takes greedily in the environment. From the repository's
root, beside fifo in the TUI:

    slotsim run scenarios/quickstart.toml --policy fifo \\
      --policy "external[protocol=2;label=trained]:python3 clients/python/examples/gym/trained.py weights.npz"

or headless (`--headless`, `--json PATH`), or in `compare --policies`.
The weights file is read from slotsim's working directory.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import slotsim_policy as sp  # noqa: E402
from linear_policy import LinearPolicy  # noqa: E402
from slotsim_gym.features import Agent  # noqa: E402


class Trained(Agent):
    name = "gym-trained-linear"
    version = "0.1"
    rule = "trained"

    def __init__(self, weights):
        self.net = LinearPolicy.load(weights)
        # The weights, and the code that reads them, join the run's identity.
        super().__init__(self.net.k, files=(
            weights, sp.module_file(os.path.join(HERE, "linear_policy.py"))))

    def choose(self, features, mask):
        # float32, as the environment's observations are.
        return self.net.greedy(np.asarray(features, dtype=np.float32), mask)


def main():
    if len(sys.argv) != 2 or sys.argv[1].startswith("-"):
        sys.exit("usage: trained.py WEIGHTS.npz (as reinforce.py writes them)")
    sp.run(Trained(sys.argv[1]))


if __name__ == "__main__":
    main()

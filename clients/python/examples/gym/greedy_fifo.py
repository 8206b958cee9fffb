"""Greedy FIFO in the environment: at every decision the first job in
queue order (priority, then submission) that can launch here, until none
can. Beside it, slotsim's built-in `fifo` (Hadoop 1.x's
JobQueueTaskScheduler) on the same seeds, run headless. From the
repository's root:

    python3 clients/python/examples/gym/greedy_fifo.py --seeds 1-10

The two are not the same scheduler: an action launches a job's
best-placed map (node-local first) or else a reduce, one task at a time,
for as long as something fits, where Hadoop's fifo caps a node's maps and
reduces by the cluster's load factors, launches at most one off-rack map
and one reduce per heartbeat; and here the environment sees only the
first k jobs. On the quickstart the difference that counts is the
reduces: greedy stacks two on a node, whose shuffles then share its
network; `--reduces-per-node 1` keeps to one per node, as fifo's reduce
cap does on this cluster, and comes within a fraction of a percent of it.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

import gymnasium as gym  # noqa: E402

import slotsim_gym  # noqa: E402
from slotsim_gym import features as F  # noqa: E402


def greedy(obs, mask, env=None, reduces_per_node=None):
    """The first valid job slot, else leave (the last action); with
    `reduces_per_node` (typed slots), a slot whose launch is a reduce is
    passed over on a node already running that many reduces."""
    k = len(mask) - 1
    kinds = env.launch_kinds() if reduces_per_node is not None else None
    for a in range(k):
        if mask[a]:
            if kinds is not None and kinds[a] == "reduce":
                free_reduce = obs[F.FEATURES_PER_JOB * k + 1]
                if env.node.reduce_slots - free_reduce >= reduces_per_node:
                    continue
            return a
    return k


def fifo_turnaround(binary, scenario, seed):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "fifo.json")
        subprocess.run([binary, "run", scenario, "--headless", "--policy", "fifo",
                        "--seed", str(seed), "--json", out], check=True, stdout=subprocess.DEVNULL)
        with open(out) as f:
            return json.load(f)["mean_turnaround_s"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenario", default=None,
                        help="scenario TOML (default: the repository's scenarios/quickstart.toml)")
    parser.add_argument("--binary", default=None, help="slotsim executable (default: $SLOTSIM or slotsim)")
    parser.add_argument("--seeds", default="7", help="scenario seeds, e.g. 7 or 1-10 (default 7)")
    parser.add_argument("--k", type=int, default=8)
    parser.add_argument("--reduces-per-node", type=int, default=None, metavar="N",
                        help="typed slots: launch no reduce on a node running N already")
    args = parser.parse_args()
    scenario = args.scenario or slotsim_gym.scenario_path("quickstart.toml")
    env = gym.make("slotsim/Cluster-v0", scenario=scenario, binary=args.binary, k=args.k)
    binary = env.unwrapped.binary
    rows = []
    print("seed  greedy mean turnaround s  fifo mean turnaround s  difference")
    for seed in slotsim_gym.parse_seeds(args.seeds):
        obs, info = env.reset(seed=seed)
        ret = 0.0
        while True:
            action = greedy(obs, info["action_mask"], env.unwrapped, args.reduces_per_node)
            obs, reward, terminated, truncated, info = env.step(action)
            ret += reward
            if terminated or truncated:
                break
        if not terminated:
            raise SystemExit("seed {}: the episode ended {}".format(seed, info["end"]))
        mine, fifo = info["mean_turnaround_s"], fifo_turnaround(binary, scenario, seed)
        rows.append((mine, fifo))
        print("{:4d}  {:24.2f}  {:22.2f}  {:+9.1f}%".format(seed, mine, fifo, (mine / fifo - 1) * 100))
    env.close()
    if len(rows) > 1:
        g = sum(r[0] for r in rows) / len(rows)
        f = sum(r[1] for r in rows) / len(rows)
        print("mean  {:24.2f}  {:22.2f}  {:+9.1f}%".format(g, f, (g / f - 1) * 100))


if __name__ == "__main__":
    main()

"""A masked random agent: at each decision a valid action drawn uniformly
(a job that can launch here, or leaving the node). Prints its speed:
episodes per minute, milliseconds and steps per episode. From the
repository's root:

    python3 clients/python/examples/gym/random_agent.py --episodes 200

(`--binary PATH` or $SLOTSIM names slotsim; `--scenario PATH`, default
scenarios/quickstart.toml; `--cpu N` runs it and slotsim on CPU N.)
"""

import argparse
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

import gymnasium as gym  # noqa: E402

import slotsim_gym  # noqa: E402,F401  (registers slotsim/...)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenario", default=None,
                        help="scenario TOML (default: the repository's scenarios/quickstart.toml)")
    parser.add_argument("--binary", default=None, help="slotsim executable (default: $SLOTSIM or slotsim)")
    parser.add_argument("--episodes", type=int, default=200)
    parser.add_argument("--k", type=int, default=8, help="jobs visible (default 8)")
    parser.add_argument("--cpu", type=int, default=None,
                        help="pin this process and slotsim serve to this CPU (Linux)")
    parser.add_argument("--seed", type=int, default=1,
                        help="first scenario seed; episode i runs seed+i (default 1)")
    args = parser.parse_args()
    scenario = args.scenario or slotsim_gym.scenario_path("quickstart.toml")
    env = gym.make("slotsim/Cluster-v0", scenario=scenario, binary=args.binary, k=args.k,
                   cpu=args.cpu)
    rng = random.Random(args.seed)
    steps = 0
    returns = []
    turnaround = []
    start = time.perf_counter()
    for i in range(args.episodes):
        obs, info = env.reset(seed=args.seed + i)
        ret = 0.0
        while True:
            mask = info["action_mask"]
            action = rng.choice([a for a in range(len(mask)) if mask[a]])
            obs, reward, terminated, truncated, info = env.step(action)
            ret += reward
            steps += 1
            if terminated or truncated:
                break
        returns.append(ret)
        turnaround.append(info["mean_turnaround_s"])
    elapsed = time.perf_counter() - start
    env.close()
    n = args.episodes
    print("{} episodes of {} in {:.2f} s: {:.0f} episodes/min, {:.2f} ms/episode, "
          "{:.1f} steps/episode".format(n, os.path.basename(scenario), elapsed, n * 60 / elapsed,
                                        elapsed / n * 1000, steps / n))
    print("mean return {:.1f}, mean turnaround {:.2f} s".format(sum(returns) / n,
                                                              sum(turnaround) / n))


if __name__ == "__main__":
    main()

"""REINFORCE with a leave-one-out baseline, in numpy, on `SlotsimEnv`: the
linear softmax policy of linear_policy.py, trained from uniform (theta =
0) on a fixed set of workloads (scenario seeds). From the repository's
root:

    python3 clients/python/examples/gym/reinforce.py --out weights.npz

Each iteration runs `--samples` episodes (default 2) of every training
workload (`--train-seeds`, default 1-8) with actions sampled from the
policy. An episode's advantage is its return minus the mean return of the
other samples of its workload, over the batch's spread; the gradient is
the batch's mean of advantage x the episode's summed grad log pi, applied
with Adam. Training is repeated for each agent seed (`--seeds`, default
0-4: the seed of the policy's sampling). It writes the learning curve
(per agent seed and iteration: the batch's mean return and turnaround) to
`--curve` and a summary beside it (CURVE.json: settings, runtime,
greedy FIFO's return on the same workloads, each seed's result), each
seed's weights to OUT-seedN.npz, then runs each seed's policy greedily
(argmax, as trained.py does) on the training workloads and on held-out
ones (`--eval-seeds`), beside greedy FIFO, and writes to `--out` the
weights of the seed whose greedy policy did best on the training
workloads.

    slotsim run scenarios/quickstart.toml --policy fifo \
      --policy "external[protocol=2;label=trained]:python3 clients/python/examples/gym/trained.py weights.npz"

shows the trained policy beside fifo in the TUI (plot_curve.py draws the
curve).
"""

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import slotsim_gym  # noqa: E402
from linear_policy import N_THETA, LinearPolicy  # noqa: E402
from slotsim_gym.env import SlotsimEnv  # noqa: E402


def episode(env, policy, seed, rng=None):
    """One episode on scenario seed `seed`: sampled from `policy` (with
    `rng`), or greedy if rng is None. Returns (return, mean turnaround s
    of the jobs that finished, summed grad log pi, steps, whether every
    job finished)."""
    obs, info = env.reset(seed=seed)
    ret, steps = 0.0, 0
    grad = np.zeros(N_THETA)
    while True:
        mask = info["action_mask"]
        if rng is None:
            a = policy.greedy(obs, mask)
        else:
            a, g = policy.sample(obs, mask, rng)
            grad += g
        obs, reward, terminated, truncated, info = env.step(a)
        ret += reward
        steps += 1
        if terminated or truncated:
            return ret, info["mean_turnaround_s"], grad, steps, terminated


class Adam:
    def __init__(self, n, lr, b1=0.9, b2=0.999, eps=1e-8):
        self.m, self.v, self.t = np.zeros(n), np.zeros(n), 0
        self.lr, self.b1, self.b2, self.eps = lr, b1, b2, eps

    def step(self, g):
        """The update for gradient g (ascent)."""
        self.t += 1
        self.m = self.b1 * self.m + (1 - self.b1) * g
        self.v = self.b2 * self.v + (1 - self.b2) * g * g
        mh = self.m / (1 - self.b1 ** self.t)
        vh = self.v / (1 - self.b2 ** self.t)
        return self.lr * mh / (np.sqrt(vh) + self.eps)


def train(env, seed, train_seeds, samples, iterations, lr, writer):
    """Trains from theta = 0 (uniform over the valid actions) with agent
    seed `seed`; writes a curve row per iteration; returns the policy and
    its last iteration's mean return."""
    rng = np.random.default_rng(seed)
    policy = LinearPolicy(env.k)
    opt = Adam(N_THETA, lr)
    last = None
    for it in range(iterations):
        results = [[episode(env, policy, s, rng) for _ in range(samples)] for s in train_seeds]
        returns = np.array([[r[0] for r in rs] for rs in results])  # workloads x samples
        # Each episode's advantage: its return minus the mean of the other
        # samples of its workload (leave-one-out), over the batch's spread.
        others = (returns.sum(axis=1, keepdims=True) - returns) / (samples - 1)
        adv = returns - others
        adv /= adv.std() + 1e-8
        g = np.zeros(N_THETA)
        for advs, rs in zip(adv, results):
            for a, r in zip(advs, rs):
                g += a * r[2]
        policy.theta += opt.step(g / returns.size)
        turnaround = float(np.mean([[r[1] for r in rs] for rs in results]))
        steps = float(np.mean([[r[3] for r in rs] for rs in results]))
        writer.writerow([seed, it, returns.size, "%.3f" % returns.mean(),
                         "%.3f" % returns.mean(axis=1).std(), "%.3f" % turnaround, "%.1f" % steps])
        last = returns.mean()
        if it % 10 == 0 or it == iterations - 1:
            print("seed {} iteration {:3d}: mean return {:9.1f}  mean turnaround {:6.2f} s".format(
                seed, it, returns.mean(), turnaround), flush=True)
    return policy, last


def builtin_return(env, policy, seed):
    """The return a built-in slotsim policy's headless run of workload
    `seed` would have had: minus the sum of its jobs' turnarounds."""
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "run.json")
        subprocess.run([env.binary, "run", env.scenario, "--headless", "--policy", policy,
                        "--seed", str(seed), "--json", out], check=True,
                       stdout=subprocess.DEVNULL)
        with open(out) as f:
            run = json.load(f)
    return -sum(j["turnaround_s"] for j in run["jobs"])


class GreedyFifo:
    """The first valid job slot (queue order), else leave."""

    @staticmethod
    def greedy(obs, mask):
        return next(a for a in range(len(mask)) if mask[a])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenario", default=None,
                        help="scenario TOML (default: the repository's scenarios/quickstart.toml)")
    parser.add_argument("--binary", default=None, help="slotsim executable (default: $SLOTSIM or slotsim)")
    parser.add_argument("--k", type=int, default=8)
    parser.add_argument("--cpu", type=int, default=None,
                        help="pin this process and slotsim serve to this CPU (Linux)")
    parser.add_argument("--seeds", default="0-4", help="the agent's seeds (default 0-4)")
    parser.add_argument("--train-seeds", default="1-8",
                        help="training workloads: scenario seeds (default 1-8)")
    parser.add_argument("--samples", type=int, default=2,
                        help="episodes of each workload per iteration, at least 2 (default 2)")
    parser.add_argument("--eval-seeds", default="101-120",
                        help="held-out workloads (default 101-120)")
    parser.add_argument("--iterations", type=int, default=100)
    parser.add_argument("--lr", type=float, default=0.1, help="Adam's step size (default 0.1)")
    parser.add_argument("--curve", default="learning-curve.csv",
                        help="the learning curve (CSV; a summary goes beside it, CURVE.json)")
    parser.add_argument("--out", default="weights.npz")
    args = parser.parse_args()
    if args.samples < 2:
        parser.error("--samples is at least 2 (the baseline is the other samples' mean)")
    scenario = args.scenario or slotsim_gym.scenario_path("quickstart.toml")
    env = SlotsimEnv(scenario, binary=args.binary, k=args.k, cpu=args.cpu)
    train_seeds = slotsim_gym.parse_seeds(args.train_seeds)
    eval_seeds = slotsim_gym.parse_seeds(args.eval_seeds)
    fifo_train = float(np.mean([episode(env, GreedyFifo, s)[0] for s in train_seeds]))
    builtin_train = float(np.mean([builtin_return(env, "fifo", s) for s in train_seeds]))
    print("on the training workloads: greedy FIFO's mean return {:.1f}, slotsim's fifo's {:.1f}"
          .format(fifo_train, builtin_train))
    start = time.perf_counter()
    stem = args.out[:-4] if args.out.endswith(".npz") else args.out
    trained = []
    with open(args.curve, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["seed", "iteration", "episodes", "mean_return", "sd_return",
                         "mean_turnaround_s", "mean_steps"])
        for seed in slotsim_gym.parse_seeds(args.seeds):
            policy, final = train(env, seed, train_seeds, args.samples, args.iterations, args.lr,
                                  writer)
            path = "{}-seed{}.npz".format(stem, seed)
            policy.save(path, seed=seed)
            trained.append((seed, final, policy, path))
    elapsed = time.perf_counter() - start
    print("trained in {:.0f} s ({:.1f} s per agent seed)".format(elapsed, elapsed / len(trained)))

    # Each seed's policy, greedily (argmax): on the training workloads (which
    # picks --out) and on workloads it never saw.
    fifo_eval = float(np.mean([episode(env, GreedyFifo, s)[1] for s in eval_seeds]))
    rows = []
    for seed, final, policy, path in trained:
        greedy_train = float(np.mean([episode(env, policy, s)[0] for s in train_seeds]))
        runs = [episode(env, policy, s) for s in eval_seeds]
        held_out = float(np.mean([r[1] for r in runs]))
        unfinished = sum(1 for r in runs if not r[4])
        rows.append({"seed": seed, "final_train_return": final,
                     "greedy_train_return": greedy_train, "weights": path,
                     "held_out_greedy_mean_turnaround_s": held_out,
                     "held_out_greedy_unfinished_episodes": unfinished,
                     "theta": [round(t, 6) for t in policy.theta]})
        print("seed {}: last iteration's mean return {:.1f} (sampled), {:.1f} greedy; greedy on "
              "held-out seeds {}: mean turnaround {:.2f} s{} ({})".format(
                  seed, final, greedy_train, args.eval_seeds, held_out,
                  " of the jobs that finished: {} of {} episodes did not finish".format(
                      unfinished, len(runs)) if unfinished else "", path))
    env.close()
    print("greedy FIFO: mean return {:.1f} on the training workloads; mean turnaround {:.2f} s "
          "on held-out seeds {}".format(fifo_train, fifo_eval, args.eval_seeds))
    # --out: the seed whose greedy policy did best on the training workloads.
    best = max(range(len(rows)), key=lambda i: rows[i]["greedy_train_return"])
    trained[best][2].save(args.out, seed=trained[best][0])
    print("{}: seed {}'s weights (the best greedy return on the training workloads)".format(
        args.out, trained[best][0]))
    summary = {
        "scenario_name": os.path.splitext(os.path.basename(scenario))[0],
        "k": args.k, "agent_seeds": slotsim_gym.parse_seeds(args.seeds), "train_seeds": train_seeds,
        "samples": args.samples, "episodes_per_iteration": args.samples * len(train_seeds),
        "iterations": args.iterations, "lr": args.lr, "training_s": round(elapsed, 1),
        "greedy_fifo_train_return": fifo_train, "builtin_fifo_train_return": builtin_train,
        "eval_seeds": eval_seeds,
        "greedy_fifo_held_out_mean_turnaround_s": fifo_eval, "seeds": rows,
        "out": args.out, "out_seed": trained[best][0],
    }
    with open(args.curve + ".json", "w") as f:
        json.dump(summary, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()

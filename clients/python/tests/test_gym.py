"""Tests of `slotsim_gym`: the Gymnasium environment over `slotsim serve`
and `examples/gym/trained.py`, the policy process that replays a trained
agent. They need gymnasium and numpy (skipped without them, unless
SLOTSIM_REQUIRE_GYM=1, which makes their absence a failure) and the
slotsim binary in $SLOTSIM (skipped without it):

    SLOTSIM=target/release/slotsim python3 -m unittest discover -s clients/python/tests
"""

import json
import os
import shlex
import subprocess
import sys
import tempfile
import unittest

CLIENT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GYM_EXAMPLES = os.path.join(CLIENT, "examples", "gym")
SCENARIOS = os.path.join(os.path.dirname(os.path.dirname(CLIENT)), "scenarios")
QUICKSTART = os.path.join(SCENARIOS, "quickstart.toml")
YARN_QUICKSTART = os.path.join(SCENARIOS, "yarn-quickstart.toml")
sys.path.insert(0, CLIENT)

try:
    import gymnasium
    import numpy as np
except ImportError as e:
    if os.environ.get("SLOTSIM_REQUIRE_GYM") == "1":
        raise ImportError("SLOTSIM_REQUIRE_GYM=1 but {}: pip install './clients/python[gym]'"
                          .format(e)) from e
    gymnasium = np = None
    MISSING = "gymnasium and numpy are needed ({}): pip install './clients/python[gym]'".format(e)
else:
    MISSING = None
    import slotsim_gym
    from slotsim_gym.env import SlotsimEnv

    sys.path.insert(0, GYM_EXAMPLES)
    from linear_policy import N_THETA, LinearPolicy

SLOTSIM = os.environ.get("SLOTSIM")


def first_valid(mask):
    """Greedy FIFO: the first job slot that can launch, else leave."""
    return int(np.flatnonzero(mask)[0])


def play(env, seed, choose=first_valid, options=None):
    """One episode: (observations, rewards, final info, terminated)."""
    obs, info = env.reset(seed=seed, options=options)
    observations, rewards = [obs], []
    while True:
        obs, reward, terminated, truncated, info = env.step(choose(info["action_mask"]))
        observations.append(obs)
        rewards.append(reward)
        if terminated or truncated:
            return observations, rewards, info, terminated


class FeaturesAloneTest(unittest.TestCase):
    """What a policy process imports needs neither gymnasium nor numpy."""

    def test_features_import_without_gymnasium_or_numpy(self):
        code = ("import sys; sys.modules['gymnasium'] = None; sys.modules['numpy'] = None; "
                "sys.path.insert(0, {!r}); import slotsim_gym.features as F; "
                "print(F.observation_size(8))".format(CLIENT))
        out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                             text=True).stdout
        self.assertEqual(out.strip(), "67")


@unittest.skipIf(MISSING, MISSING)
@unittest.skipUnless(SLOTSIM, "SLOTSIM names the slotsim binary (the Rust tests set it)")
class EnvTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.env = SlotsimEnv(QUICKSTART, binary=SLOTSIM)

    @classmethod
    def tearDownClass(cls):
        cls.env.close()

    def test_check_env(self):
        from gymnasium.utils.env_checker import check_env

        env = SlotsimEnv(QUICKSTART, binary=SLOTSIM)
        try:
            check_env(env, skip_render_check=True)
        finally:
            env.close()

    def test_registered_ids_make_the_env(self):
        env = gymnasium.make("slotsim/Cluster-v0", scenario=QUICKSTART, binary=SLOTSIM, k=4)
        try:
            obs, info = env.reset(seed=1)
            self.assertEqual(obs.shape, (4 * 8 + 3,))
            self.assertEqual(env.action_space.n, 5)
            self.assertEqual(info["action_mask"].tolist(), env.unwrapped.action_masks().tolist())
        finally:
            env.close()
        self.assertIn("slotsim/Quickstart-v0", gymnasium.registry)

    def test_the_return_is_minus_the_sum_of_turnarounds(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "ep.json")
            rng = np.random.default_rng(5)

            def masked_random(mask):
                return int(rng.choice(np.flatnonzero(mask)))

            _, rewards, info, terminated = play(self.env, 4, masked_random,
                                                options={"outputs": {"json": out}})
            with open(out) as f:
                run = json.load(f)
        self.assertTrue(terminated)
        self.assertEqual(info["end"]["reason"], "finished")
        self.assertEqual(run["policy"], "external:caller")
        self.assertEqual(run["jobs_finished"], len(run["jobs"]))
        total = sum(j["turnaround_s"] for j in run["jobs"])
        self.assertAlmostEqual(sum(rewards), -total, places=6)
        self.assertAlmostEqual(info["mean_turnaround_s"], run["mean_turnaround_s"], places=9)
        self.assertTrue(all(r <= 0 for r in rewards))

    def test_same_seed_and_actions_same_episode_across_resets_and_instances(self):
        def episode(env):
            rng = np.random.default_rng(11)
            return play(env, 9, lambda m: int(rng.choice(np.flatnonzero(m))))

        a = episode(self.env)
        b = episode(self.env)
        other = SlotsimEnv(QUICKSTART, binary=SLOTSIM)
        try:
            c = episode(other)
        finally:
            other.close()
        for x in (b, c):
            self.assertEqual(len(a[0]), len(x[0]))
            for o1, o2 in zip(a[0], x[0]):
                np.testing.assert_array_equal(o1, o2)
            self.assertEqual(a[1], x[1])
        # Another seed is another episode.
        d = play(self.env, 10)
        self.assertNotEqual(len(a[0]), 0)
        self.assertNotEqual(d[1], a[1])

    def test_an_invalid_action_raises_naming_the_mask(self):
        obs, info = self.env.reset(seed=2)
        mask = info["action_mask"]
        bad = int(np.flatnonzero(mask == 0)[0])
        with self.assertRaises(ValueError) as e:
            self.env.step(bad)
        self.assertIn("action_mask", str(e.exception))
        for wrong in (-1, 9, 1.5, "x"):
            with self.assertRaises(ValueError):
                self.env.step(wrong)
        # The episode goes on after a refused action.
        self.env.step(first_valid(mask))

    def test_observations_stay_in_bounds_and_the_mask_holds(self):
        env = self.env
        obs, info = env.reset(seed=3)
        while True:
            self.assertTrue(env.observation_space.contains(obs))
            mask = info["action_mask"]
            self.assertEqual(mask[-1], 1)
            k = env.k
            launchable = obs[: k * 8].reshape(k, 8)[:, 7]
            np.testing.assert_array_equal(launchable, mask[:k])
            obs, reward, terminated, truncated, info = env.step(first_valid(mask))
            if terminated or truncated:
                break
        self.assertIn("end", info)

    def test_max_steps_and_until_truncate_and_the_process_serves_on(self):
        env = SlotsimEnv(QUICKSTART, binary=SLOTSIM, max_steps=5)
        try:
            _, rewards, info, terminated = play(env, 1)
            self.assertEqual((len(rewards), terminated, info["end"]["reason"]),
                             (5, False, "max_steps"))
        finally:
            env.close()
        env = SlotsimEnv(QUICKSTART, binary=SLOTSIM)
        try:
            # A reset in the middle of an episode abandons it.
            env.reset(seed=1)
            env.step(env.k)
            _, rewards, info, terminated = play(env, 1, options={"until": "30s"})
            self.assertFalse(terminated)
            self.assertEqual(info["end"]["reason"], "until")
            self.assertEqual(info["end"]["time_ms"], 30000)
        finally:
            env.close()

    def test_a_greedy_episode_terminates_on_yarn_too(self):
        env = SlotsimEnv(YARN_QUICKSTART, binary=SLOTSIM)
        try:
            _, rewards, info, terminated = play(env, 2)
        finally:
            env.close()
        self.assertTrue(terminated)
        self.assertEqual(info["jobs_finished"], 16)
        self.assertAlmostEqual(sum(rewards), -16 * info["mean_turnaround_s"], places=6)

    @unittest.skipUnless(hasattr(os, "sched_setaffinity"), "cpu= is for Linux")
    def test_cpu_pins_the_caller_and_slotsim_to_one_cpu(self):
        mine = os.sched_getaffinity(0)
        cpu = min(mine)
        env = SlotsimEnv(QUICKSTART, binary=SLOTSIM, cpu=cpu)
        try:
            env.reset(seed=1)
            self.assertEqual(os.sched_getaffinity(env._proc.pid), {cpu})
            self.assertEqual(os.sched_getaffinity(0), {cpu})
        finally:
            env.close()
            os.sched_setaffinity(0, mine)
        with self.assertRaises(ValueError):
            SlotsimEnv(QUICKSTART, binary=SLOTSIM, cpu=max(mine) + 1000)

    def test_sync_vector_env(self):
        envs = gymnasium.vector.SyncVectorEnv(
            [lambda: SlotsimEnv(QUICKSTART, binary=SLOTSIM) for _ in range(2)])
        try:
            obs, infos = envs.reset(seed=[1, 2])
            self.assertEqual(obs.shape, (2, 67))
            for _ in range(20):
                actions = np.array([first_valid(m) for m in infos["action_mask"]])
                obs, rewards, terminated, truncated, infos = envs.step(actions)
            self.assertEqual(rewards.shape, (2,))
        finally:
            envs.close()

    def test_async_vector_env(self):
        import functools

        make = functools.partial(SlotsimEnv, QUICKSTART, binary=SLOTSIM)
        envs = gymnasium.vector.AsyncVectorEnv([make, make])
        try:
            obs, infos = envs.reset(seed=[1, 1])
            for _ in range(20):
                actions = np.array([first_valid(m) for m in infos["action_mask"]])
                obs, rewards, terminated, truncated, infos = envs.step(actions)
            # One seed, one policy: the same episode in both processes.
            np.testing.assert_array_equal(obs[0], obs[1])
            self.assertEqual(rewards[0], rewards[1])
        finally:
            envs.close()


@unittest.skipIf(MISSING, MISSING)
@unittest.skipUnless(SLOTSIM, "SLOTSIM names the slotsim binary (the Rust tests set it)")
class TrainedPolicyTest(unittest.TestCase):
    def test_trained_py_runs_as_an_external_policy_and_decides_as_the_env(self):
        # Some order of the jobs, and never leaving a node with room.
        theta = np.linspace(-0.6, 0.6, N_THETA)
        theta[-3:] = -5.0
        with tempfile.TemporaryDirectory() as d:
            weights = os.path.join(d, "w.npz")
            LinearPolicy(8, theta).save(weights)
            net = LinearPolicy.load(weights)
            env = SlotsimEnv(QUICKSTART, binary=SLOTSIM)
            try:
                obs, info = env.reset(seed=3)
                while True:
                    obs, _, terminated, truncated, info = env.step(
                        net.greedy(obs, info["action_mask"]))
                    if terminated or truncated:
                        break
            finally:
                env.close()
            self.assertTrue(terminated)
            out = os.path.join(d, "run.json")
            spec = "external[protocol=2]:{} {} {}".format(
                sys.executable, os.path.join(GYM_EXAMPLES, "trained.py"), weights)
            subprocess.run([SLOTSIM, "run", QUICKSTART, "--headless", "--seed", "3",
                            "--policy", spec, "--json", out],
                           check=True, stdout=subprocess.DEVNULL)
            with open(out) as f:
                run = json.load(f)
        self.assertEqual(run["jobs_finished"], 16)
        self.assertAlmostEqual(run["mean_turnaround_s"], info["mean_turnaround_s"], places=9)
        # Job by job, to the millisecond.
        self.assertEqual(sorted(round(j["turnaround_s"] * 1000) for j in run["jobs"]),
                         sorted(env.turnarounds_ms.values()))
        policies = run["config"]["scheduler"]["external"]["policies"]
        self.assertIn("w.npz", json.dumps(policies))


ROOT = os.path.dirname(os.path.dirname(CLIENT))
GYM_PAGE = os.path.join(ROOT, "docs", "gym.md")


def page_blocks(md):
    """The page's fenced blocks in order: (language, lines, line number)."""
    out, lines, i = [], md.splitlines(), 0
    while i < len(lines):
        if lines[i].startswith("```") and len(lines[i]) > 3:
            lang, start = lines[i][3:].strip(), i + 1
            j = start
            while j < len(lines) and lines[j].strip() != "```":
                j += 1
            out.append((lang, lines[start:j], start))
            i = j + 1
        else:
            i += 1
    return out


def same_text(want, got):
    """`got` equals `want`, where a line of `want` that is `...` stands
    for any lines and one that ends in `...` for any line with that start."""
    if not want:
        return not got
    head = want[0]
    if head.strip() == "...":
        return any(same_text(want[1:], got[i:]) for i in range(len(got) + 1))
    if not got:
        return False
    if head.endswith("..."):
        ok = got[0].startswith(head[:-3])
    else:
        ok = got[0].rstrip() == head.rstrip()
    return ok and same_text(want[1:], got[1:])


@unittest.skipIf(MISSING, MISSING)
@unittest.skipUnless(SLOTSIM, "SLOTSIM names the slotsim binary (the Rust tests set it)")
class PageTest(unittest.TestCase):
    """docs/gym.md's commands, as written: every `sh` block holding one
    `python3 clients/python/...` command and followed by a `text` block
    prints that text (`...` lines: any); every `slotsim` command naming
    `weights.npz` (the weights a command above trained) runs, unless it
    opens the TUI; every `python` block runs (after those above it). All of them in page order,
    in one scratch directory, with the repository's paths made absolute."""

    def command(self, line, scratch):
        line = line.replace("clients/python/", os.path.join(ROOT, "clients", "python") + "/")
        line = line.replace("scenarios/", os.path.join(ROOT, "scenarios") + "/")
        words = shlex.split(line)
        if words[0] == "python3":
            words[0] = sys.executable
        elif words[0] == "slotsim":
            words[0] = SLOTSIM
        # A policy command slotsim starts: with this Python (it has numpy).
        return [w.replace("python3 ", sys.executable + " ", 1) if w.startswith("external")
                else w for w in words]

    def test_the_pages_commands_print_what_it_says(self):
        with open(GYM_PAGE) as f:
            blocks = page_blocks(f.read())
        ran = {"python": 0, "sh": 0}
        snippets = []
        with tempfile.TemporaryDirectory() as scratch:
            env = dict(os.environ, SLOTSIM=SLOTSIM)
            for n, (lang, lines, at) in enumerate(blocks):
                if lang == "python":
                    # Each snippet after those above it, as a reader runs
                    # them in one session, from the repository's root
                    # (they write nothing).
                    snippets.append("\n".join(lines))
                    proc = subprocess.run([sys.executable, "-c", "\n".join(snippets)], cwd=ROOT,
                                          env=env, capture_output=True, text=True, timeout=300)
                    self.assertEqual(proc.returncode, 0, "docs/gym.md:{}: {}".format(at, proc.stderr))
                    ran["python"] += 1
                    continue
                if lang != "sh":
                    continue
                joined = "\n".join(lines).replace("\\\n", " ")
                cmds = [c.split("  #")[0].strip() for c in joined.splitlines() if c.strip()]
                text = blocks[n + 1][1] if n + 1 < len(blocks) and blocks[n + 1][0] == "text" else None
                for cmd in cmds:
                    py = (cmd.startswith("python3 clients/python/") and len(cmds) == 1
                          and text is not None)
                    trained = (cmd.startswith("slotsim ") and "weights.npz" in cmd
                               and not cmd.startswith("slotsim run "))
                    if not (py or trained):
                        continue
                    proc = subprocess.run(self.command(cmd, scratch), cwd=scratch, env=env,
                                          capture_output=True, text=True, timeout=300)
                    self.assertEqual(proc.returncode, 0, "docs/gym.md:{}: `{}`\n{}".format(
                        at, cmd, proc.stderr))
                    if py:
                        got = proc.stdout.rstrip().splitlines()
                        self.assertTrue(same_text(text, got), "docs/gym.md:{}: `{}` printed\n{}\n"
                                        "where the page says\n{}".format(
                                            at, cmd, proc.stdout, "\n".join(text)))
                    ran["sh"] += 1
            self.assertTrue(os.path.getsize(os.path.join(scratch, "trained.cast")) > 0)
        # The page's walk-through: random agent, training, the recording;
        # the snippets.
        self.assertGreaterEqual(ran["sh"], 3, ran)
        self.assertGreaterEqual(ran["python"], 1, ran)


if __name__ == "__main__":
    unittest.main()

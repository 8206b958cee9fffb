"""`SlotsimEnv`: a slotsim scenario as a Gymnasium environment, over one
`slotsim serve` process (docs/gym.md is its reference).

An agent decides, at each heartbeat where it can, which of the first K
waiting jobs gets the next task on the heartbeating node, or that the node
gets nothing more now. Everything else (set-up and clean-up tasks, the
engine's speculative copies, failures) stays slotsim's.
"""

import json
import os
import shutil
import subprocess

import gymnasium as gym
import numpy as np
from gymnasium import spaces

import slotsim_policy as sp

from . import features as F

__all__ = ["SlotsimEnv", "MaskedDiscrete", "Books", "ServeError"]

ServeError = sp.ServeError

_F32_MAX = float(np.finfo(np.float32).max)
# json.loads without its per-call checks: a line is one object.
_scan = json.JSONDecoder().scan_once


def _decode(line):
    try:
        return _scan(line.decode(), 0)[0]
    except (StopIteration, ValueError, UnicodeDecodeError):
        try:
            return json.loads(line)
        except ValueError as e:
            raise ServeError("slotsim serve wrote a line that is not JSON ({}): {!r}".format(
                e, line[:200])) from None
# What a reply looks like that slotsim refuses on any request: the way to
# stop an episode early (slotsim answers it with an `error` line and waits
# for the next reset).
_ABORT = b'{"abort":"slotsim_gym: episode abandoned"}\n'
# A line slotsim answers (with an error) only between episodes: once it
# has written the last episode's outputs.
_SYNC = b'{"type":"outputs_written?"}\n'


class MaskedDiscrete(spaces.Discrete):
    """`Discrete(K+1)` whose `sample()` without a mask draws from the
    environment's current action mask (so that `env.action_space.sample()`
    is always a valid action, as `check_env` needs); `sample(mask=...)`
    and `contains` are Discrete's."""

    def __init__(self, n, seed=None):
        super().__init__(n, seed=seed)
        self.current_mask = np.ones(n, dtype=np.int8)

    def sample(self, mask=None, probability=None):
        if probability is not None:  # gymnasium 1.0 and later
            return super().sample(mask=mask, probability=probability)
        return super().sample(mask=self.current_mask if mask is None else mask)


class Books(F.Agent):
    """The environment's books of the run: a `slotsim_policy.Policy`
    (protocol 2, `wake = "work"`, on YARN `am = "policy"`: a
    `features.Agent`) whose heartbeats the environment answers itself,
    step by step."""

    name = "slotsim-gym"
    version = "0.1"

    def __init__(self, k, files=()):
        super().__init__(k)
        self.files = tuple(files)

    def heartbeat(self, node, free, running):  # pragma: no cover - never called
        raise RuntimeError("SlotsimEnv answers heartbeats itself")


def _default_binary():
    return os.environ.get("SLOTSIM") or "slotsim"


class SlotsimEnv(gym.Env):
    """A slotsim scenario, one decision at a time (see docs/gym.md).

    scenario    path of the scenario (TOML)
    binary      the slotsim executable (default: $SLOTSIM, else `slotsim` on PATH)
    k           jobs visible: the first k of the queue (priority, then submission)
    set         {dotted key: value} overrides of the scenario (as `--set`)
    until       a duration ("10m"): the episode stops there (truncated)
    outputs     {"json": PATH, "trace": PATH}: files slotsim writes per episode
    max_steps   steps after which an episode is truncated (None: no limit)
    cpu         a CPU number: the thread that starts slotsim serve (at the
                first reset) and the serve process are both pinned to it
                (os.sched_setaffinity, Linux), which saves the cost of waking
                a process on another CPU at every round trip; None: the OS
                places both

    Observation: Box(float32, 8*k + 3); action: Discrete(k + 1), with
    `action_masks()` and `info["action_mask"]`. Reward: minus the jobs in
    the system times the simulated seconds since the last decision, so
    that an episode's return is minus the sum of its jobs' turnarounds.
    """

    metadata = {"render_modes": []}

    def __init__(self, scenario, binary=None, k=8, set=None, until=None, outputs=None,
                 max_steps=None, cpu=None, render_mode=None):
        if render_mode is not None:
            raise ValueError("SlotsimEnv renders nothing (render_mode {!r}); watch a policy in "
                             "slotsim's TUI instead (docs/gym.md)".format(render_mode))
        if scenario is None:
            raise TypeError("SlotsimEnv needs scenario=PATH (a scenario TOML)")
        scenario = os.fspath(scenario)
        if not os.path.isfile(scenario):
            raise FileNotFoundError("scenario {!r} is not a file (relative paths are from {})"
                                    .format(scenario, os.getcwd()))
        k = int(k)
        if k < 1:
            raise ValueError("k is the number of jobs visible, at least 1 (got {})".format(k))
        if max_steps is not None and int(max_steps) < 1:
            raise ValueError("max_steps must be at least 1, or None")
        self.scenario = os.path.abspath(scenario)
        self.binary = binary if binary is not None else _default_binary()
        self.k = k
        self.set = dict(set) if set else None
        self.until = until
        self.outputs = dict(outputs) if outputs else None
        self.max_steps = int(max_steps) if max_steps is not None else None
        if cpu is not None:
            if not hasattr(os, "sched_setaffinity"):
                raise ValueError("cpu= needs os.sched_setaffinity (Linux)")
            cpu = int(cpu)
            if cpu not in os.sched_getaffinity(0):
                raise ValueError("cpu {} is not one this process may run on ({})".format(
                    cpu, sorted(os.sched_getaffinity(0))))
        self.cpu = cpu
        self.render_mode = None

        n = F.observation_size(k)
        low = np.zeros(n, dtype=np.float32)
        high = np.full(n, _F32_MAX, dtype=np.float32)
        for slot in range(k):
            base = slot * F.FEATURES_PER_JOB
            for name in ("present", "maps_done_fraction", "launchable"):
                high[base + F.JOB_FEATURES.index(name)] = 1.0
        # The second free-capacity feature is YARN's vcores, which may go
        # below 0 (counted, not enforced).
        low[k * F.FEATURES_PER_JOB + 1] = -_F32_MAX
        self.observation_space = spaces.Box(low, high, dtype=np.float32)
        self.action_space = MaskedDiscrete(k + 1)
        self._leave_only = np.zeros(k + 1, dtype=np.int8)
        self._leave_only[k] = 1

        # Absolute: the serve process keeps the working directory it started in.
        self._files = (os.path.abspath(__file__), os.path.abspath(F.__file__))
        self._proc = None
        self._seq_seed = None       # the next seed of an unseeded reset
        self._live = False          # paused at a heartbeat awaiting its reply
        self._done = True           # the episode has ended: step() needs a reset
        self._end_at_reset = None   # an episode that ended before its first decision
        self.policy = None
        self.episode_seed = None

    # The process.

    def _start_process(self):
        exe = shutil.which(self.binary) or (self.binary if os.path.isfile(self.binary) else None)
        if exe is None:
            raise FileNotFoundError(
                "slotsim binary {!r} not found: pass binary=PATH or set SLOTSIM".format(self.binary))
        if self.cpu is not None:
            # This thread first: the child inherits it.
            os.sched_setaffinity(0, {self.cpu})
        self._proc = subprocess.Popen([exe, "serve"], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, bufsize=1 << 16)
        self._fd = self._proc.stdin.fileno()
        self._readline = self._proc.stdout.readline

    def _send(self, data):
        try:
            while data:
                data = data[os.write(self._fd, data):]
        except BrokenPipeError:
            raise ServeError("slotsim serve ({}) has exited (status {})".format(
                self.binary, self._proc.poll())) from None

    def _abort(self):
        """Ends the episode in progress (slotsim stops it, as on a reply
        it refuses, and answers with an `error` line)."""
        self._live = False
        self._done = True
        self._send(_ABORT)
        while True:
            line = self._readline()
            if not line:
                raise ServeError("slotsim serve ended while stopping an episode")
            if _decode(line).get("type") == "error":
                return

    def _sync(self):
        """Waits for slotsim to have written the episode's outputs, which
        it does after `end`: a line it answers only once it has (with an
        `error`, as any line between episodes that is not a reset)."""
        self._send(_SYNC)
        failed = None
        while True:
            line = self._readline()
            if not line:
                raise ServeError("slotsim serve ended while writing an episode's outputs")
            msg = _decode(line)
            if msg.get("type") == "error":
                if "outputs_written?" not in msg.get("message", ""):
                    failed = msg.get("message")
                    continue
                if failed is not None:
                    raise ServeError("slotsim could not write the episode's outputs: {}".format(
                        failed))
                return

    def close(self):
        """Ends the slotsim serve process (an episode in progress is
        stopped first). Safe to call twice; a later reset starts a new one."""
        proc = self._proc
        if proc is None:
            return
        try:
            if proc.poll() is None:
                if self._live:
                    try:
                        self._abort()
                    except Exception:
                        pass
                try:
                    self._send(b'{"type":"close"}\n')
                except Exception:
                    pass
                try:
                    proc.stdin.close()
                except Exception:
                    pass
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        finally:
            self._proc = None
            self._live = False
            self._done = True
            for f in (proc.stdin, proc.stdout):
                try:
                    f.close()
                except Exception:
                    pass

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    # Episodes.

    def reset(self, *, seed=None, options=None):
        """Starts an episode: scenario seed `seed` if given; otherwise the
        next of a run of consecutive seeds that starts at a number drawn
        from `np_random` (re-drawn after every seeded reset). `options`
        may give this episode's "set" (merged over the constructor's),
        "until" and "outputs"."""
        super().reset(seed=seed)
        if seed is not None:
            episode_seed = int(seed)
            self._seq_seed = None
        else:
            if self._seq_seed is None:
                self._seq_seed = int(self.np_random.integers(0, 2**31))
            episode_seed = self._seq_seed
            self._seq_seed += 1
        options = dict(options or {})
        unknown = set(options) - {"set", "until", "outputs"}
        if unknown:
            raise ValueError("reset options are set, until and outputs; not {}".format(
                ", ".join(sorted(unknown))))
        if self._proc is None or self._proc.poll() is not None:
            self._start_process()
        elif self._live:
            self._abort()
        req = {"type": "reset", "scenario": self.scenario, "seed": episode_seed}
        sets = dict(self.set or {})
        sets.update(options.get("set") or {})
        if sets:
            req["set"] = sets
        until = options.get("until", self.until)
        if until is not None:
            req["until"] = until
        outputs = options.get("outputs", self.outputs)
        if outputs:
            # From the caller's working directory now (serve keeps the one
            # it started in).
            req["outputs"] = {key: os.path.abspath(os.fspath(path))
                              for key, path in dict(outputs).items()}
        self._outputs_asked = bool(outputs)
        self._send(json.dumps(req, separators=(",", ":")).encode() + b"\n")

        self.episode_seed = episode_seed
        self.policy = Books(self.k, self._files)
        self._cost_ms = 0           # job-milliseconds not yet paid out as reward
        self._in_system = 0
        self._last_ms = None
        self._steps = 0
        self._turnarounds = {}      # job id -> turnaround (ms), of the finished
        self._submit = {}           # job id -> submit_ms, of the announced
        self._end = None
        self._done = False
        self._live = False
        self._end_at_reset = None
        if not self._advance():
            # Over before its first decision: step() returns the end.
            self._end_at_reset = self._end
            self._done = False
        return self._obs(), self._info()

    def step(self, action):
        if self._done:
            raise RuntimeError("step() after the episode's end: call reset() first")
        a = self._check_action(action)
        if self._end_at_reset is not None:
            self._end_at_reset = None
        else:
            p = self.policy
            more = False
            if a < self.k:
                F.launch(p, self._jobs[a], self._kinds[a])
                # The same heartbeat goes on while something still fits.
                self._jobs, self._kinds = F.choices(p, self._free, self.k)
                more = self._kinds.count(None) < len(self._kinds)
            if not more:
                self._reply()
                self._advance()
        self._steps += 1
        terminated = truncated = False
        if self._end is not None:
            self._done = True
            terminated = self._end.get("reason") == "finished"
            truncated = not terminated
        elif self.max_steps is not None and self._steps >= self.max_steps:
            now = self.policy.now_ms
            self._abort()
            self._end = {"type": "end", "time_ms": now, "reason": "max_steps"}
            truncated = True
        reward = -self._cost_ms / 1000.0
        self._cost_ms = 0
        return self._obs(), reward, terminated, truncated, self._info()

    def _check_action(self, action):
        try:
            a = int(action)
            ok = a == action
        except (TypeError, ValueError):
            ok = False
        if not ok:
            raise ValueError("action {!r} is not an integer in 0..{}".format(action, self.k))
        if a == self.k:
            return a
        if 0 <= a < self.k and self._live and a < len(self._kinds) and self._kinds[a] is not None:
            return a
        raise ValueError(
            "action {} is not valid here: action_mask is {} (1: valid; 0..{} launch a task "
            "of the job in that slot, {} leaves the node); see info['action_mask'] or "
            "env.action_masks()".format(a, self._mask().tolist(), self.k - 1, self.k))

    def action_masks(self):
        """The valid actions now: np.int8 of shape (k+1,), 1 where valid
        (slot i < k: its job can launch on this node now; k, leave: always)."""
        return self._mask()

    def launch_kinds(self):
        """What each job slot's action would launch now: a list of k of
        "map", "reduce", "am" (YARN: the job's ApplicationMaster) or None
        (not valid)."""
        kinds = list(self._kinds) if self._live else []
        return kinds + [None] * (self.k - len(kinds))

    @property
    def node(self):
        """The heartbeating node of the decision (a `slotsim_policy.Node`:
        `id`, `rack`, `dc`, `map_slots`, `reduce_slots`, `capacity`), or
        None between decisions. Its free capacity now is the observation's."""
        return self._node if self._live else None

    # The loop.

    def _advance(self):
        """Reads slotsim's messages, keeping the books and the reward's
        account, answering the heartbeats with no decision, until a
        decision (True) or the episode's end (False)."""
        p = self.policy
        readline, loads = self._readline, _decode
        handle = p.handle
        started, finished = p._task_started, p._task_finished
        k = self.k
        while True:
            line = readline()
            if not line:
                self._live = False
                self._done = True
                raise ServeError("slotsim serve ({}) ended during an episode (status {})".format(
                    self.binary, self._proc.poll()))
            msg = loads(line)
            kind = msg["type"]
            t = msg.get("time_ms")
            if t is not None:
                last = self._last_ms
                if last is not None and t != last:
                    self._cost_ms += self._in_system * (t - last)
                self._last_ms = t
            if kind == "heartbeat":
                p.now_ms = t
                free = self._begin_heartbeat(msg)
                jobs, kinds = F.choices(p, free, k)
                for x in kinds:
                    if x is not None:
                        self._jobs, self._kinds, self._free = jobs, kinds, free
                        self._live = True
                        return True
                self._reply()
                continue
            # The most frequent messages, straight to the books' handlers
            # (what Policy.handle would call).
            if kind == "task_started":
                p.now_ms = t
                started(msg)
                continue
            if kind == "task_finished":
                p.now_ms = t
                finished(msg)
                continue
            if kind == "job_submitted":
                job = msg["job"]
                submit = job["submit_ms"]
                self._submit[job["id"]] = submit
                # Its time in the system before it was announced (set-up
                # task, pool limits) is paid now.
                self._cost_ms += t - submit
                self._in_system += 1
            elif kind == "job_finished":
                submit = self._submit.pop(msg["job"], None)
                if submit is not None:
                    self._in_system -= 1
                    self._turnarounds[msg["job"]] = t - submit
            elif kind == "error":
                self._live = False
                self._done = True
                raise ServeError("slotsim refused the episode: {}".format(msg.get("message")))
            reply = handle(msg)
            if kind == "start":
                self._send(json.dumps(reply, separators=(",", ":")).encode() + b"\n")
            elif kind == "end":
                self._end = msg
                self._live = False
                if self._outputs_asked:
                    self._sync()
                return False

    def _begin_heartbeat(self, msg):
        """The part of Policy._heartbeat before the policy decides."""
        p = self.policy
        node = p.nodes[msg["node"]]
        free = sp.Free(msg["free"], p.slot_model == "unified", p.slot_model == "yarn")
        if p.slot_model == "yarn":
            zero = sp.Counts(0, 0)
            for job in p.jobs.values():
                job.requests = zero
                job.am_pending = False
            jobs = p.jobs
            for r in msg.get("requests", ()):
                job = jobs.get(r["job"])
                if job is not None:
                    job.requests = sp.Counts(r["map"], r["reduce"])
                    job.am_pending = r.get("am", 0) > 0
        progress = p.progress
        for e in msg["running"]:
            if "progress" in e:
                progress[(e["job"], e["kind"], e["task"], e["attempt"])] = e["progress"]
        if p.check_books:
            p._check_books(node, msg)
        p.inspect = None
        p.inspecting = bool(msg.get("inspect"))
        p.early_reduce_room = msg.get("early_reduce_room")
        self._seq = msg["seq"]
        self._node = node
        self._out = []
        p._beat = (node, free, self._out, [], [])
        return free

    def _reply(self):
        p = self.policy
        p._beat = None
        self._live = False
        out = self._out
        if p._call_me_at is not None:
            reply = {"seq": self._seq, "launch": out, "call_me_at": p._call_me_at}
            p._call_me_at = None
            data = json.dumps(reply, separators=(",", ":")).encode() + b"\n"
        elif out:
            # The launches features.launch makes, written by hand (json.dumps
            # is a tenth of a step's time): {"job","kind","task","rule"} or
            # an ApplicationMaster's {"job","kind"}; anything else by json.
            parts = []
            for e in out:
                if len(e) == 4 and "rule" in e and e["rule"] == "gym":
                    parts.append(b'{"job":%d,"kind":"%s","task":%d,"rule":"gym"}' % (
                        e["job"], e["kind"].encode(), e["task"]))
                else:
                    parts.append(json.dumps(e, separators=(",", ":")).encode())
            data = b'{"seq":%d,"launch":[%s]}\n' % (self._seq, b",".join(parts))
        else:
            data = b'{"seq":%d}\n' % self._seq
        self._send(data)

    # What the agent sees.

    def _mask(self):
        if self._live:
            m = np.array(F.mask(self._kinds, self.k), dtype=np.int8)
        else:
            m = self._leave_only.copy()
        self.action_space.current_mask = m
        return m

    def _obs(self):
        if self._live:
            vec = F.observation(self.policy, self._free, self._jobs, self._kinds, self.k)
            return np.array(vec, dtype=np.float32)
        obs = np.zeros(self.observation_space.shape, dtype=np.float32)
        if self.policy is not None:
            obs[-1] = self.policy.now_ms / 1000.0
        return obs

    def _info(self):
        info = {"action_mask": self._mask(), "seed": self.episode_seed,
                "time_ms": self.policy.now_ms}
        if self._live:
            info["node"] = self._node.id
        if self._end is not None:
            info["end"] = dict(self._end)
            done = list(self._turnarounds.values())
            info["jobs_finished"] = len(done)
            info["mean_turnaround_s"] = sum(done) / len(done) / 1000.0 if done else 0.0
        return info

    @property
    def turnarounds_ms(self):
        """job id -> turnaround (ms) of the jobs finished so far this episode."""
        return dict(self._turnarounds)

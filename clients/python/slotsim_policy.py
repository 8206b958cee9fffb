"""Write a slotsim scheduling policy in Python (standard library only).

slotsim runs an external policy as a child process and talks to it in JSON
Lines (docs/write-a-policy.md). This module speaks protocol versions 1 and
2 -- a policy says which with its `protocol` attribute (1 by default; 2
for YARN, preemption and speculation) -- and keeps the cluster state a
policy decides with, so that most policies only write `heartbeat`::

    import slotsim_policy as sp

    class OneMapEach(sp.Policy):
        # A map from each of the first jobs in the queue, a free slot each.
        def heartbeat(self, node, free, running):
            jobs = [job for job in self.queue() if job.pending_maps]
            return [sp.Launch(job, sp.MAP) for job in jobs[:free.map]]

    if __name__ == "__main__":
        sp.run(OneMapEach())

Launching. `heartbeat` returns its launches (`Launch` tuples or protocol
dicts, applied in order after it returns), or calls `self.launch(...)`
while it decides: that applies the launch at once, so the choices it makes
next in the same heartbeat see the task running and the slot taken (what a
scheduler that fills several slots in a loop needs). Both may be mixed;
launches made with `self.launch` come first in the reply.

Inspecting. A policy that wants values shown in slotsim's inspector sets
`self.inspect` during `heartbeat` to the protocol's object
(`{"cluster": {...}, "jobs": {name: {...}}, "pools": {name: {...}}}`),
computed before it launches; it is reset before every heartbeat.

State. Every message updates the state below *before* the matching hook
runs. Under protocol 1 running counts are the policy's own attempts:
speculative copies that slotsim launches by itself are never announced, so
they are not counted (the heartbeat's `running` does count those on its
node). Under protocol 2 slotsim announces every attempt that starts, and
the library keeps its books as slotsim does: every running attempt
(`self.attempts`, each node's `attempts`), each node's free capacity
(`node.free`), each job's asks on YARN, speculative copies counted.

Protocol 2 also lets `heartbeat` preempt a running attempt anywhere
(`self.preempt(...)`, applied by slotsim before the launches, so they may
use what it frees) and copy a running task speculatively onto the node
(`self.speculate(...)`); on YARN a launch may size its container.
"""

import enum
import json
import os
import sys
from bisect import bisect_left
from collections import namedtuple

__all__ = [
    "MAP", "REDUCE", "PENDING", "RUNNING", "DONE", "PRIORITIES", "Level",
    "Launch", "LaunchError", "ProtocolError", "Node", "Job", "Free", "Counts",
    "Attempt", "Running", "Policy", "run",
]

# This client's version; its file's SHA-256 joins every protocol-2 run's
# identity (the hello's "files"), so a changed client shows there.
__version__ = "2.1"

# The protocol versions this client speaks; a policy says which it uses.
PROTOCOLS = (1, 2)
PROTOCOL = 1

MAP, REDUCE = "map", "reduce"
# A task's state, as job_submitted's mid-run marks name them.
PENDING, RUNNING, DONE = "pending", "running", "done"
# Hadoop's job priorities, highest first: a job's `rank` is its place here.
PRIORITIES = ("very_high", "high", "normal", "low", "very_low")
_RANK = {p: i for i, p in enumerate(PRIORITIES)}


class Level(enum.IntEnum):
    """Locality of a map for a node, best first: a replica on the node, on
    its rack, in its datacenter, or anywhere."""

    NODE = 0
    RACK = 1
    DC = 2
    ANY = 3


Launch = namedtuple("Launch", "job kind task rule container", defaults=(None, None, None))
Launch.__doc__ = """A launch for `heartbeat` to return: `job` (a Job or its id),
`kind` (MAP or REDUCE), `task` (None: the best-placed pending map for the
node, or the lowest pending reduce), `rule` (a short reason for the
trace; None: slotsim's default) and, on YARN under protocol 2, `container`
({"memory_mb", "vcores"}; None: the job's ask)."""

Counts = namedtuple("Counts", "map reduce")
Counts.__doc__ = "Maps and reduces: the heartbeat's running attempts on its node."

Attempt = namedtuple("Attempt", "job kind task attempt node start_ms speculative container")
Attempt.__doc__ = """A running attempt (protocol 2): `job` (its id), `kind` (MAP,
REDUCE, or "setup", "cleanup", "am" for the tasks slotsim runs itself),
`task`, `attempt` (its number), `node`, `start_ms`, `speculative`, and
`container`: what it holds of its node, in the shape of the node's
capacity ({"map": 1, "reduce": 0}, {"any": 1} or {"memory_mb", "vcores"}).
`key` is (job, kind, task, attempt), what `self.preempt` takes."""
Attempt.key = property(lambda a: (a.job, a.kind, a.task, a.attempt))


class Running(list):
    """The attempts running on the heartbeating node (protocol 2): a list of
    Attempt, job tasks (set-up, clean-up, ApplicationMaster) first, then
    attempts in the order they started; `.map` and `.reduce` count the
    maps and reduces among them."""

    @property
    def map(self):
        return sum(1 for a in self if a.kind == MAP)

    @property
    def reduce(self):
        return sum(1 for a in self if a.kind == REDUCE)


class ProtocolError(Exception):
    """slotsim sent something this client does not understand."""


class LaunchError(Exception):
    """A launch slotsim would refuse, stopping the run: raised in the
    policy instead, where the traceback points at the bug."""


class Node:
    """A node: its place in the topology, its slots, whether it is alive.
    Under protocol 2 also its `capacity` and `free` capacity (dicts in the
    cluster's shape: {"map", "reduce"}, {"any"} or {"memory_mb",
    "vcores"}), kept from every attempt's start and end, and the keys of
    the `attempts` running there."""

    __slots__ = ("id", "rack", "dc", "map_slots", "reduce_slots", "alive",
                 "capacity", "free", "attempts")

    def __init__(self, spec):
        self.id = spec["id"]
        self.rack = spec["rack"]
        self.dc = spec["dc"]
        self.map_slots = spec["map_slots"]
        self.reduce_slots = spec["reduce_slots"]
        self.alive = spec.get("alive", True)
        self.capacity = dict(spec.get("capacity") or {})
        self.free = dict(self.capacity)
        self.attempts = set()

    def __repr__(self):
        return "Node({}, rack={}, dc={})".format(self.id, self.rack, self.dc)


class _LazyLists:
    """Ascending task lists by key (a node, a rack or a dc), each read from a
    head that advances lazily past tasks no longer pending: the lowest
    pending task of a key is found in amortised O(1), like Hadoop's
    nonRunningMapCache and slotsim's own map index, rather than by a scan
    of the job's maps at every heartbeat."""

    __slots__ = ("lists", "heads")

    def __init__(self):
        self.lists = {}
        self.heads = {}

    def add(self, key, task):
        """Adds `task` under `key`; tasks come in ascending order."""
        tasks = self.lists.get(key)
        if tasks is None:
            self.lists[key] = [task]
            self.heads[key] = 0
        elif tasks[-1] != task:  # two replicas in one rack or dc
            tasks.append(task)

    def first(self, key, states):
        """The lowest task under `key` whose state is PENDING, if any."""
        tasks = self.lists.get(key)
        if tasks is None:
            return None
        h, end = self.heads[key], len(tasks)
        while h < end and states[tasks[h]] != PENDING:
            h += 1
        self.heads[key] = h
        return tasks[h] if h < end else None

    def reinsert(self, key, task):
        """`task` is pending again: the head of `key` moves back to it."""
        tasks = self.lists.get(key)
        if tasks is not None:
            self.heads[key] = min(self.heads[key], bisect_left(tasks, task))


class Job:
    """A job slotsim announced and that has not finished.

    Attributes: id, name, pool, user, priority (a PRIORITIES name), rank
    (its index there: very_high 0 ... very_low 4), submit_ms, n_maps,
    n_reduces, maps_done, reduces_done, running_maps, running_reduces (the
    policy's own attempts; under protocol 2 every attempt, speculative
    copies included), pending_maps and pending_reduces (sets of task
    ids), replicas (per map, the nodes holding its block), map_states and
    reduce_states (PENDING, RUNNING or DONE per task); under protocol 2
    also profile, input_bytes, map_input_bytes (per map), and on YARN asks
    and requests. Read them; the Policy keeps them current.
    """

    def __init__(self, spec, nodes):
        self.id = spec["id"]
        self.name = spec["name"]
        self.pool = spec["pool"]
        self.user = spec["user"]
        self.priority = spec["priority"]
        self.rank = _RANK[self.priority]
        self.submit_ms = spec["submit_ms"]
        maps = spec["maps"]
        self.n_maps = len(maps)
        self.n_reduces = spec["reduces"]
        self.replicas = [()] * self.n_maps
        for m in maps:
            self.replicas[m["task"]] = tuple(m["replicas"])
        # Protocol 2: the job's profile and input, each map's input, and on
        # YARN its normalised asks ({"map", "reduce", "am"}, each
        # {"memory_mb", "vcores"}) and what its ApplicationMaster asks for
        # now (`requests`, from each heartbeat: Counts of maps and reduces).
        self.profile = spec.get("profile")
        self.input_bytes = spec.get("input_bytes")
        self.map_input_bytes = [m.get("input_bytes") for m in maps]
        self.asks = spec.get("asks")
        self.requests = Counts(0, 0)
        # Under am = "policy": its ApplicationMaster waits for a container
        # (launch it with Policy.launch_am).
        self.am_pending = spec.get("am") == "pending"
        self.map_states = [PENDING] * self.n_maps
        self.reduce_states = [PENDING] * self.n_reduces
        self.pending_maps = set(range(self.n_maps))
        self.pending_reduces = set(range(self.n_reduces))
        self.maps_done = self.reduces_done = 0
        self.running_maps = self.running_reduces = 0
        self._nodes = nodes
        self._by_node, self._by_rack, self._by_dc = _LazyLists(), _LazyLists(), _LazyLists()
        for t, replicas in enumerate(self.replicas):
            for n in replicas:
                self._by_node.add(n, t)
                self._by_rack.add(nodes[n].rack, t)
                self._by_dc.add(nodes[n].dc, t)
        self._map_head = self._reduce_head = 0
        self._queue_key = None  # its place in Policy.queue(), while there
        # A policy switched in mid-run hears of running jobs with what is
        # done (and running) marked.
        for m in maps:
            state = m.get("state", PENDING)
            if state != PENDING:
                self._mark(MAP, m["task"], state)
                self.running_maps += state == RUNNING
        for r in spec.get("done_reduces", ()):
            self._mark(REDUCE, r, DONE)
        for r in spec.get("running_reduces", ()):
            self._mark(REDUCE, r, RUNNING)
            self.running_reduces += 1

    def __repr__(self):
        return "Job({}, {!r})".format(self.id, self.name)

    @property
    def maps_pending(self):
        return len(self.pending_maps)

    @property
    def reduces_pending(self):
        return len(self.pending_reduces)

    def unfinished_maps(self):
        """Maps not succeeded (pending or running)."""
        return self.n_maps - self.maps_done

    def unfinished_reduces(self):
        """Reduces not succeeded (pending or running)."""
        return self.n_reduces - self.reduces_done

    def tasks_left(self):
        """Tasks not succeeded yet, maps and reduces."""
        return self.unfinished_maps() + self.unfinished_reduces()

    @property
    def all_succeeded(self):
        """Every task has succeeded: nothing is left to schedule, though
        job_finished comes later (after the job's clean-up task)."""
        return self.maps_done == self.n_maps and self.reduces_done == self.n_reduces

    @property
    def maps_finished(self):
        """Every map has succeeded."""
        return self.maps_done == self.n_maps

    def reduces_schedulable(self, slowstart):
        """Whether slotsim lets this job's reduces launch: enough maps have
        succeeded (Hadoop's mapred.reduce.slowstart.completed.maps)."""
        return self.maps_done >= slowstart * self.n_maps - 1e-9

    def find_map(self, node, max_level=Level.ANY):
        """The pending map to run on `node` (a Node or its id) and its
        Level: the lowest task id with a replica on the node, else on its
        rack, else in its dc, else the lowest pending at all -- going no
        further than `max_level`. None if there is none.

        This is the map slotsim itself picks for a launch without a task."""
        if not self.pending_maps:
            return None
        if not isinstance(node, Node):
            node = self._nodes[node]
        states = self.map_states
        t = self._by_node.first(node.id, states)
        if t is not None:
            return t, Level.NODE
        if max_level >= Level.RACK:
            t = self._by_rack.first(node.rack, states)
            if t is not None:
                return t, Level.RACK
        if max_level >= Level.DC:
            t = self._by_dc.first(node.dc, states)
            if t is not None:
                return t, Level.DC
        if max_level >= Level.ANY:
            while states[self._map_head] != PENDING:
                self._map_head += 1
            return self._map_head, Level.ANY
        return None

    def find_reduce(self):
        """The lowest pending reduce, or None."""
        if not self.pending_reduces:
            return None
        while self.reduce_states[self._reduce_head] != PENDING:
            self._reduce_head += 1
        return self._reduce_head

    def _mark(self, kind, t, new):
        """Moves task `t` of `kind` to state `new`, keeping the pending
        sets, the lazy heads and the done counts in step."""
        states = self.map_states if kind == MAP else self.reduce_states
        old = states[t]
        if old == new:
            return
        states[t] = new
        pending = self.pending_maps if kind == MAP else self.pending_reduces
        if old == PENDING:
            pending.discard(t)
        elif new == PENDING:
            pending.add(t)
            if kind == MAP:
                self._map_head = min(self._map_head, t)
                for n in self.replicas[t]:
                    node = self._nodes[n]
                    self._by_node.reinsert(n, t)
                    self._by_rack.reinsert(node.rack, t)
                    self._by_dc.reinsert(node.dc, t)
            else:
                self._reduce_head = min(self._reduce_head, t)
        done = (new == DONE) - (old == DONE)
        if kind == MAP:
            self.maps_done += done
        else:
            self.reduces_done += done


class Free:
    """Free capacity on the heartbeating node, kept current as launches
    apply. Typed clusters have `map` and `reduce` slots; unified ones have
    `any` containers, which a task of either kind takes (`map` and `reduce`
    then both read the containers left). On YARN (protocol 2) it is
    `memory_mb` and `vcores`; `fits(container)` says whether a container
    fits (memory: vcores are counted, not enforced, as Hadoop's default
    resource calculator does)."""

    __slots__ = ("_left", "unified", "yarn")

    def __init__(self, free, unified, yarn=False):
        self._left = dict(free)
        self.unified = unified
        self.yarn = yarn

    def of(self, kind):
        """Free slots a task of `kind` can take."""
        if self.yarn:
            raise ProtocolError("on YARN free capacity is memory_mb and vcores: use fits()")
        return self._left["any" if self.unified else kind]

    @property
    def map(self):
        return self.of(MAP)

    @property
    def reduce(self):
        return self.of(REDUCE)

    @property
    def any(self):
        """Free slots of any kind."""
        if self.unified:
            return self._left["any"]
        return self._left[MAP] + self._left[REDUCE]

    @property
    def memory_mb(self):
        return self._left["memory_mb"]

    @property
    def vcores(self):
        return self._left["vcores"]

    def fits(self, container):
        """Whether a YARN container ({"memory_mb", "vcores"}) fits."""
        return container["memory_mb"] <= self._left["memory_mb"]

    def _take(self, kind, container=None):
        if self.yarn:
            self._left["memory_mb"] -= container["memory_mb"]
            self._left["vcores"] -= container["vcores"]
        else:
            self._left["any" if self.unified else kind] -= 1

    def _give(self, amount):
        """Adds what a preempted attempt held (its container)."""
        for k, v in amount.items():
            if k in self._left:
                self._left[k] += v

    def as_dict(self):
        return dict(self._left)

    def __repr__(self):
        return "Free({})".format(self._left)


class Policy:
    """Base class of a policy: override `heartbeat` and any hook.

    Class attributes a policy may set: `protocol` (1 or 2: the version it
    speaks; slotsim must be told the same, `external[protocol=2]:CMD`),
    and under protocol 2 `name` and `version` (its `hello`, which goes
    into slotsim's results; default: the class's name and "0"), `files`
    (paths of the files it depends on, modules and weights: their SHA-256s
    join the run's identity; this client adds its own file), `wake`
    ("every", the default, or "work": asked only where the node's free
    capacity fits a pending ask, and at the instant given to
    `call_me_at`) and on YARN `am` ("engine", the default, or "policy":
    jobs announced at submission, their ApplicationMasters placed with
    `launch_am`).

    Cluster state, current before every hook:
      nodes         id -> Node
      jobs          id -> Job, the announced unfinished jobs in submission order
      slot_model    "typed", "unified" or "yarn" (`unified`, `yarn` are bools)
      slowstart     the fraction of a job's maps done before its reduces may launch
      seed          the scenario's seed (for a policy's own random choices)
      now_ms        the time of the last message
      live_nodes, total_map_slots, total_reduce_slots, total_slots   (live nodes only)
      running_maps, running_reduces   the policy's running attempts, all jobs
      early_reduces the policy's running reduces of jobs whose maps are not all done
    Protocol 2 adds:
      pools         name -> the pool's table as resolved (a dict)
      heartbeat_ms  the nodes' heartbeat interval (None: heartbeats are scripted)
      attempts      (job, kind, task, attempt) -> Attempt, every attempt running
                    (set-up, clean-up and ApplicationMaster tasks included)
      progress      (job, kind, task, attempt) -> its progress (0-1) at the last
                    heartbeat of its node

    A subclass with its own __init__ calls super().__init__().
    """

    protocol = 1
    name = None
    version = "0"
    files = ()
    wake = "every"
    am = "engine"

    def __init__(self):
        self.nodes = {}
        self.jobs = {}
        self.slot_model = "typed"
        self.slowstart = 0.05
        self.seed = 0
        self.now_ms = 0
        self.live_nodes = 0
        self.total_map_slots = self.total_reduce_slots = 0
        self.running_maps = self.running_reduces = 0
        self.early_reduces = 0
        self.inspect = None
        # Whether slotsim shows this heartbeat's values (`--inspect`, the
        # TUI's inspector): a policy may compute `inspect` only then.
        self.inspecting = False
        # Unified clusters: how many more early reduces may start now.
        self.early_reduce_room = None
        self.pools = {}
        self.heartbeat_ms = None
        self.attempts = {}
        self.progress = {}
        self._call_me_at = None
        # Protocol 2: check at every heartbeat that the books kept here
        # (the node's free capacity and running attempts) are slotsim's;
        # a difference raises ProtocolError. For testing a client or
        # slotsim itself.
        self.check_books = False
        self._queue, self._queue_keys = [], []
        self._beat = None
        self._preempted = set()

    # Hooks: override what the policy needs. Each runs after the state has
    # taken the message in.

    def on_start(self, msg):
        """The first message: nodes, slot model, slowstart and seed are set."""

    def on_job_submitted(self, job):
        """A job became runnable (its Job is in self.jobs)."""

    def on_task_started(self, attempt):
        """Protocol 2: an attempt started (an Attempt, already in self.attempts)."""

    def on_task_finished(self, msg):
        """An attempt ended (succeeded, failed, killed, or a map's output lost)."""

    def on_job_finished(self, msg):
        """A job finished (msg["outcome"] succeeded or killed); it has left self.jobs."""

    def on_job_updated(self, msg):
        """A person changed a job's priority or pool."""

    def on_node_failed(self, node):
        """A node died; its attempts' task_finished came first."""

    def on_node_recovered(self, node):
        """A dead node came back, empty."""

    def on_end(self, msg):
        """The run is over; the process exits after this."""

    def heartbeat(self, node, free, running):
        """Decide what to launch on `node` (a Node) with `free` capacity (a
        Free, kept current as launches apply) and `running` attempts there
        (protocol 1: Counts, as slotsim reported them, speculative copies
        included; protocol 2: a Running list of Attempt). Return a list of
        Launch (or protocol dicts), or launch with self.launch(...) and
        return None. Under protocol 2 it is asked on full nodes too."""
        raise NotImplementedError("a policy overrides heartbeat")

    # Queries.

    @property
    def unified(self):
        """Whether maps and reduces take the same containers (unified
        containers, or YARN's)."""
        return self.slot_model in ("unified", "yarn")

    @property
    def yarn(self):
        """Whether the cluster is YARN's: containers by memory and vcores,
        an ApplicationMaster per job (protocol 2)."""
        return self.slot_model == "yarn"

    def attempts_of(self, job, kind, task):
        """The running attempts of a task (protocol 2), in the order they
        started."""
        job_id = job.id if isinstance(job, Job) else job
        found = [a for k, a in self.attempts.items()
                 if k[0] == job_id and k[1] == kind and k[2] == task]
        return sorted(found, key=lambda a: (a.start_ms, a.attempt))

    @property
    def total_slots(self):
        return self.total_map_slots + self.total_reduce_slots

    def queue(self):
        """The jobs with tasks not yet succeeded, in Hadoop's job-queue order:
        priority (very_high first), then submit time, then id. The list is
        kept in order as jobs come, finish their tasks and change priority
        (a binary search each, not a sort): read it, do not change it."""
        return self._queue

    def _enqueue(self, job):
        key = (job.rank, job.submit_ms, job.id)
        i = bisect_left(self._queue_keys, key)
        if i < len(self._queue_keys) and self._queue_keys[i] == key:
            return
        job._queue_key = key
        self._queue_keys.insert(i, key)
        self._queue.insert(i, job)

    def _dequeue(self, job):
        key = getattr(job, "_queue_key", None)
        i = bisect_left(self._queue_keys, key) if key else len(self._queue_keys)
        if i < len(self._queue_keys) and self._queue_keys[i] == key:
            del self._queue_keys[i]
            del self._queue[i]
        job._queue_key = None

    def reduce_allowed(self, job):
        """slotsim's anti-deadlock rule for unified clusters: a reduce of a job
        whose maps are not all done (an early reduce) launches only while
        early reduces hold less than half the containers. The heartbeat says
        how many more may start (`early_reduce_room`, counting slotsim's
        speculative copies too); slotsim refuses one beyond it. Always true
        on typed clusters. On YARN (protocol 2) the rule is the job's
        ApplicationMaster's: a reduce launches only while it asks for one
        (the heartbeat's requests, `job.requests.reduce`)."""
        if self.yarn:
            return job.requests.reduce > 0
        if not self.unified:
            return True
        if job.maps_finished:
            return True
        if self.early_reduce_room is not None:
            return self.early_reduce_room > 0
        return self.early_reduces < self.total_slots // 2

    # Launching.

    def launch(self, job, kind, task=None, rule=None, container=None):
        """Launches a task on the heartbeating node now (only during
        `heartbeat`): marks it running and takes its slot, so the rest of
        this heartbeat sees both. `job` is a Job or an id; `task` None picks
        the best-placed pending map (Job.find_map) or the lowest pending
        reduce. On YARN (protocol 2) `container` ({"memory_mb", "vcores"})
        sizes its container (None: the job's ask). Returns the task id, or
        None when slotsim would decline the launch (an early reduce beyond
        `reduce_allowed`): nothing is launched then. Raises LaunchError
        for a launch slotsim would refuse.
        """
        beat = self._beat
        if beat is None:
            raise RuntimeError("launch() is for use during heartbeat()")
        node, free, out = beat[:3]
        job_id = job.id if isinstance(job, Job) else job
        job = self.jobs.get(job_id)
        if job is None:
            raise LaunchError("job {} is unknown or finished".format(job_id))
        if kind not in (MAP, REDUCE):
            raise LaunchError("kind must be 'map' or 'reduce', not {!r}".format(kind))
        if self.yarn:
            requests = job.requests.map if kind == MAP else job.requests.reduce
            if requests <= 0:
                raise LaunchError("{!r}: its ApplicationMaster asks for no {} now".format(
                    job.name, kind))
            if container is None:
                container = job.asks[kind]
            if not free.fits(container):
                raise LaunchError("no room for a {} container of {} MB on node {} ({} MB free)".format(
                    kind, container["memory_mb"], node.id, free.memory_mb))
        else:
            if container is not None:
                raise LaunchError("a container is for YARN clusters only")
            if free.of(kind) <= 0:
                raise LaunchError("no free {} slot on node {}".format(kind, node.id))
        # On YARN the ApplicationMaster's requests are the gate: it asks for
        # reduces once slowstart allows, and keeps asking when a failure
        # later takes finished maps back (as the engine's MapReduce AM does).
        if kind == REDUCE and not self.yarn:
            if not job.reduces_schedulable(self.slowstart):
                raise LaunchError("{!r}: reduce before slowstart ({} of {} maps done)".format(
                    job.name, job.maps_done, job.n_maps))
            if not self.reduce_allowed(job):
                return None
        if task is None:
            if kind == MAP:
                found = job.find_map(node)
                task = found[0] if found else None
            else:
                task = job.find_reduce()
            if task is None:
                raise LaunchError("{!r} has no pending {}".format(job.name, kind))
        else:
            states = job.map_states if kind == MAP else job.reduce_states
            if not 0 <= task < len(states) or states[task] != PENDING:
                raise LaunchError("{!r}: {} {} is not pending".format(job.name, kind, task))
        self._started(job, kind, task)
        free._take(kind, container)
        if self.yarn:
            job.requests = Counts(job.requests.map - (kind == MAP),
                                  job.requests.reduce - (kind == REDUCE))
        entry = {"job": job.id, "kind": kind, "task": task}
        if rule is not None:
            entry["rule"] = rule
        if container is not None and container != job.asks[kind]:
            entry["container"] = dict(container)
        out.append(entry)
        return task

    def launch_am(self, job, container=None):
        """YARN under `am = "policy"`, during `heartbeat`: starts the job's
        ApplicationMaster on the heartbeating node, in `container` ({"memory_mb",
        "vcores"}; None: its AM ask); its maps and reduces are asked for once
        it runs. Raises LaunchError for a launch slotsim would refuse."""
        beat = self._beat
        if beat is None:
            raise RuntimeError("launch_am() is for use during heartbeat()")
        node, free, out = beat[:3]
        job_id = job.id if isinstance(job, Job) else job
        job = self.jobs.get(job_id)
        if job is None:
            raise LaunchError("job {} is unknown or finished".format(job_id))
        if not self.yarn or self.am != "policy":
            raise LaunchError("launch_am() is for YARN policies with am = \"policy\"")
        if not job.am_pending:
            raise LaunchError("{!r}: its ApplicationMaster does not wait for a container".format(
                job.name))
        if container is None:
            container = job.asks["am"]
        if not free.fits(container):
            raise LaunchError("no room for {!r}'s ApplicationMaster ({} MB) on node {} ({} MB free)"
                              .format(job.name, container["memory_mb"], node.id, free.memory_mb))
        free._take("am", container)
        job.am_pending = False
        entry = {"job": job.id, "kind": "am"}
        if container != job.asks["am"]:
            entry["container"] = dict(container)
        out.append(entry)

    def call_me_at(self, time_ms):
        """Under `wake = "work"`: asks slotsim for the first heartbeat at or
        after `time_ms`, whatever its node holds (sent with this reply, or
        the next one when called outside `heartbeat`)."""
        t = int(time_ms)
        self._call_me_at = t if self._call_me_at is None else min(self._call_me_at, t)

    def preempt(self, attempt, rule=None):
        """Protocol 2, during `heartbeat`: kills a running attempt anywhere
        in the cluster (an Attempt, or its key (job, kind, task, attempt)).
        slotsim applies preemptions before the heartbeat's launches: its
        task is pending again now (unless another attempt of it runs), and
        an attempt on the heartbeating node frees its capacity for them.
        Raises LaunchError if it is not a running map or reduce."""
        beat = self._beat
        if beat is None:
            raise RuntimeError("preempt() is for use during heartbeat()")
        if self.protocol < 2:
            raise LaunchError("preemption needs protocol 2")
        node, free, out, preempts, speculates = beat
        key = attempt.key if isinstance(attempt, Attempt) else tuple(attempt)
        a = self.attempts.get(key)
        if a is None or a.kind not in (MAP, REDUCE) or key in self._preempted:
            raise LaunchError("attempt {} is not running (or not a map or reduce)".format(key))
        self._preempted.add(key)
        job = self.jobs.get(a.job)
        if job is not None:
            self._ended(job, a.kind)
            if not [b for b in self.attempts_of(job, a.kind, a.task)
                    if b.key not in self._preempted]:
                self._set_state(job, a.kind, a.task, PENDING)
        if a.node == node.id:
            free._give(a.container)
        preempts.append({"job": a.job, "kind": a.kind, "task": a.task, "attempt": a.attempt})
        return a

    def speculate(self, job, kind, task, rule=None, container=None):
        """Protocol 2, during `heartbeat`: launches a speculative copy of
        running task `task` of `job` on the heartbeating node (applied after
        the launches). slotsim refuses a task not running, one already
        copied, one running on this node, or a node with no room: raises
        LaunchError for those."""
        beat = self._beat
        if beat is None:
            raise RuntimeError("speculate() is for use during heartbeat()")
        if self.protocol < 2:
            raise LaunchError("speculate() needs protocol 2")
        node, free, out, preempts, speculates = beat
        job_id = job.id if isinstance(job, Job) else job
        job = self.jobs.get(job_id)
        if job is None:
            raise LaunchError("job {} is unknown or finished".format(job_id))
        live = [a for a in self.attempts_of(job, kind, task) if a.key not in self._preempted]
        if len(live) != 1:
            raise LaunchError("{!r}: {} {} has {} running attempts; a copy needs exactly one".format(
                job.name, kind, task, len(live)))
        if live[0].node == node.id:
            raise LaunchError("{!r}: {} {} runs on node {} already".format(
                job.name, kind, task, node.id))
        if self.yarn:
            if container is None:
                container = job.asks[kind]
            if not free.fits(container):
                raise LaunchError("no room for a copy on node {}".format(node.id))
        elif free.of(kind) <= 0:
            raise LaunchError("no free {} slot on node {}".format(kind, node.id))
        if kind == REDUCE and not self.yarn and not self.reduce_allowed(job):
            raise LaunchError("{!r}: no room for another early reduce".format(job.name))
        free._take(kind, container)
        if kind == REDUCE and self.early_reduce_room is not None and not job.maps_finished:
            self.early_reduce_room -= 1
        entry = {"job": job.id, "kind": kind, "task": task}
        if rule is not None:
            entry["rule"] = rule
        if container is not None and container != job.asks[kind]:
            entry["container"] = dict(container)
        speculates.append(entry)

    # Messages.

    def handle(self, msg):
        """Takes one message from slotsim (a decoded JSON object) and returns
        the reply to send: a dict for a heartbeat, None otherwise."""
        if "time_ms" in msg:
            self.now_ms = msg["time_ms"]
        handler = _HANDLERS.get(msg.get("type"))
        # Message types a later protocol may add are no concern of this one.
        return handler(self, msg) if handler else None

    def _start(self, msg):
        if msg.get("protocol") != self.protocol:
            if msg.get("protocol") not in PROTOCOLS:
                raise ProtocolError("slotsim speaks protocol {}, this client {}".format(
                    msg.get("protocol"), " and ".join(map(str, PROTOCOLS))))
            if msg.get("slot_model") == "yarn" and self.protocol == 1:
                # slotsim refuses protocol 1 on YARN: the class must change.
                raise ProtocolError(
                    "this policy speaks protocol 1, which has no words for YARN's containers "
                    "and ApplicationMasters; on slot_model = \"yarn\" a policy speaks "
                    "protocol 2: set protocol = 2 in the class (see docs/write-a-policy.md)")
            raise ProtocolError(
                "slotsim speaks protocol {} but this policy speaks protocol {}: run it as "
                "external[protocol={}]:CMD".format(msg.get("protocol"), self.protocol,
                                                   self.protocol))
        self.slot_model = msg["slot_model"]
        self.slowstart = msg["slowstart"]
        self.seed = msg.get("seed", 0)
        self.nodes = {n["id"]: Node(n) for n in msg["nodes"]}
        self.jobs = {}
        self.attempts = {}
        self._preempted = set()
        self.pools = {p["name"]: p for p in msg.get("pools", ())}
        self.heartbeat_ms = msg.get("heartbeat_ms")
        self.running_maps = self.running_reduces = self.early_reduces = 0
        self._queue, self._queue_keys = [], []
        live = [n for n in self.nodes.values() if n.alive]
        self.live_nodes = len(live)
        self.total_map_slots = sum(n.map_slots for n in live)
        self.total_reduce_slots = sum(n.reduce_slots for n in live)
        self.on_start(msg)
        if self.protocol >= 2:
            return self._hello(msg["seq"])
        return None

    def _hello(self, seq):
        hello = {"type": "hello", "seq": seq,
                 "name": self.name or type(self).__name__, "version": str(self.version)}
        if self.wake != "every":
            hello["wake"] = self.wake
        if self.am != "engine":
            hello["am"] = self.am
        hello["files"] = [module_file(__file__)] + [str(f) for f in self.files]
        return hello

    def _job_submitted(self, msg):
        job = Job(msg["job"], self.nodes)
        self.jobs[job.id] = job
        self.running_maps += job.running_maps
        self.running_reduces += job.running_reduces
        if not job.maps_finished:
            self.early_reduces += job.running_reduces
        if not job.all_succeeded:
            self._enqueue(job)
        self.on_job_submitted(job)

    def _holds(self, kind, msg):
        """What an attempt holds of its node, in the shape of its capacity."""
        if "container" in msg:
            return dict(msg["container"])
        if self.slot_model == "unified":
            return {"any": 1}
        slot = msg.get("slot", kind)
        return {MAP: 1 if slot == MAP else 0, REDUCE: 1 if slot == REDUCE else 0}

    def _task_started(self, msg):
        kind, task = msg["kind"], msg["task"]
        a = Attempt(msg["job"], kind, task, msg["attempt"], msg["node"], msg["time_ms"],
                    msg.get("speculative", False), self._holds(kind, msg))
        self.attempts[a.key] = a
        node = self.nodes.get(a.node)
        if node is not None:
            node.attempts.add(a.key)
            for k, v in a.container.items():
                node.free[k] = node.free.get(k, 0) - v
        job = self.jobs.get(a.job)
        if job is not None and kind == "am":
            job.am_pending = False
        if job is not None and kind in (MAP, REDUCE):
            states = job.map_states if kind == MAP else job.reduce_states
            if a.speculative:
                self._count(job, kind, 1)
            elif states[task] != RUNNING:
                # Not launched by this policy (slotsim's own, or before a
                # switch to it).
                self._started(job, kind, task)
        self.on_task_started(a)

    def _task_finished(self, msg):
        job = self.jobs.get(msg["job"])
        kind, task, outcome = msg["kind"], msg["task"], msg["outcome"]
        if self.protocol >= 2:
            key = (msg["job"], kind, task, msg.get("attempt"))
            a = self.attempts.pop(key, None)
            self.progress.pop(key, None)
            if a is not None:
                node = self.nodes.get(a.node)
                if node is not None:
                    node.attempts.discard(key)
                    for k, v in a.container.items():
                        node.free[k] = node.free.get(k, 0) + v
            if key in self._preempted:
                # Its preemption took it off the counts already.
                self._preempted.discard(key)
                job = None
            elif kind not in (MAP, REDUCE):
                job = None
        if job is not None:
            # Protocol 1: a speculative copy was never counted. A lost map's
            # attempt had ended already, when it succeeded.
            if outcome != "lost" and (self.protocol >= 2 or not msg.get("speculative")):
                self._ended(job, kind)
            if outcome == "succeeded":
                self._set_state(job, kind, task, DONE)
            elif outcome == "lost" or msg.get("pending"):
                self._set_state(job, kind, task, PENDING)
            # Otherwise another attempt of the task still runs, or it is done.
        self.on_task_finished(msg)

    def _job_finished(self, msg):
        job = self.jobs.pop(msg["job"], None)
        if job is not None:
            self._dequeue(job)
        self.on_job_finished(msg)

    def _job_updated(self, msg):
        job = self.jobs.get(msg["job"])
        if job is not None:
            if "priority" in msg:
                self._dequeue(job)
                job.priority = msg["priority"]
                job.rank = _RANK[job.priority]
                if not job.all_succeeded:
                    self._enqueue(job)
            if "pool" in msg:
                job.pool = msg["pool"]
        self.on_job_updated(msg)

    def _node_changed(self, msg, alive):
        node = self.nodes[msg["node"]]
        if node.alive != alive:
            node.alive = alive
            sign = 1 if alive else -1
            self.live_nodes += sign
            self.total_map_slots += sign * node.map_slots
            self.total_reduce_slots += sign * node.reduce_slots
        if alive:
            self.on_node_recovered(node)
        else:
            self.on_node_failed(node)

    def _heartbeat(self, msg):
        node = self.nodes[msg["node"]]
        v2 = self.protocol >= 2
        free = Free(msg["free"], self.slot_model == "unified", self.yarn)
        if v2:
            running = Running(self._running(msg["running"]))
            if self.yarn:
                for job in self.jobs.values():
                    job.requests = Counts(0, 0)
                    job.am_pending = False
                for r in msg.get("requests", ()):
                    job = self.jobs.get(r["job"])
                    if job is not None:
                        job.requests = Counts(r["map"], r["reduce"])
                        job.am_pending = r.get("am", 0) > 0
            for e in msg["running"]:
                if "progress" in e:
                    self.progress[(e["job"], e["kind"], e["task"], e["attempt"])] = e["progress"]
            if self.check_books:
                self._check_books(node, msg)
        else:
            running = Counts(msg["running"]["map"], msg["running"]["reduce"])
        out, preempts, speculates = [], [], []
        self.inspect = None
        self.inspecting = bool(msg.get("inspect"))
        self.early_reduce_room = msg.get("early_reduce_room")
        self._beat = (node, free, out, preempts, speculates)
        try:
            for item in self.heartbeat(node, free, running) or ():
                if isinstance(item, dict):
                    item = Launch(item["job"], item["kind"], item.get("task"), item.get("rule"),
                                  item.get("container"))
                self.launch(*item)
        finally:
            self._beat = None
        reply = {"seq": msg["seq"], "launch": out} if v2 else {"launch": out}
        if self._call_me_at is not None:
            reply["call_me_at"] = self._call_me_at
            self._call_me_at = None
        if preempts:
            reply["preempt"] = preempts
        if speculates:
            reply["speculate"] = speculates
        if self.inspect is not None:
            reply["inspect"] = self.inspect
        return reply

    def _running(self, entries):
        """A heartbeat's running entries as Attempts, from the books."""
        out = []
        for e in entries:
            key = (e["job"], e["kind"], e["task"], e["attempt"])
            a = self.attempts.get(key)
            if a is None:
                a = Attempt(e["job"], e["kind"], e["task"], e["attempt"], None, e["start_ms"],
                            False, {})
            out.append(a)
        return out

    def _check_books(self, node, msg):
        """The books kept here against slotsim's: the node's free capacity
        and its running attempts."""
        ours = {k: v for k, v in node.free.items()}
        if ours != msg["free"]:
            raise ProtocolError("node {} at {} ms: the books say free {}, slotsim {}".format(
                node.id, msg["time_ms"], ours, msg["free"]))
        theirs = {(e["job"], e["kind"], e["task"], e["attempt"]) for e in msg["running"]}
        if theirs != node.attempts:
            raise ProtocolError("node {} at {} ms: the books say running {}, slotsim {}".format(
                node.id, msg["time_ms"], sorted(node.attempts, key=str),
                sorted(theirs, key=str)))

    def _end(self, msg):
        self.on_end(msg)

    # State changes shared by launches and messages, mirroring slotsim's
    # counters (its lifecycle.rs).

    def _started(self, job, kind, task):
        self._set_state(job, kind, task, RUNNING)
        self._count(job, kind, 1)
        if kind == REDUCE and not job.maps_finished:
            if self._beat is not None and self.early_reduce_room is not None:
                self.early_reduce_room -= 1

    def _ended(self, job, kind):
        self._count(job, kind, -1)

    def _count(self, job, kind, n):
        """`n` more running attempts of `kind` in `job`."""
        if kind == MAP:
            job.running_maps += n
            self.running_maps += n
        else:
            job.running_reduces += n
            self.running_reduces += n
            if not job.maps_finished:
                self.early_reduces += n

    def _set_state(self, job, kind, task, state):
        maps_finished, left = job.maps_finished, job.all_succeeded
        job._mark(kind, task, state)
        # A job's running reduces turn early when a lost map reopens its
        # maps, and stop being early when its last map succeeds.
        if job.maps_finished != maps_finished:
            self.early_reduces += -job.running_reduces if job.maps_finished else job.running_reduces
        if job.all_succeeded != left:
            if job.all_succeeded:
                self._dequeue(job)
            else:
                self._enqueue(job)


_HANDLERS = {
    "start": Policy._start,
    "job_submitted": Policy._job_submitted,
    "task_started": Policy._task_started,
    "task_finished": Policy._task_finished,
    "job_finished": Policy._job_finished,
    "job_updated": Policy._job_updated,
    "node_failed": lambda p, m: p._node_changed(m, False),
    "node_recovered": lambda p, m: p._node_changed(m, True),
    "heartbeat": Policy._heartbeat,
    "end": Policy._end,
}


def module_file(path):
    """A file a policy depends on, named as slotsim (whose working
    directory the policy shares) reads it for `files`: relative to that
    directory when below it, else absolute."""
    path = os.path.abspath(path)
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


def run(policy, stdin=None, stdout=None):
    """Serves `policy` to slotsim: reads its messages line by line from
    `stdin`, answers each heartbeat (under protocol 2 also `start`, with
    the policy's hello) with one compact JSON line on `stdout`
    (flushed at once, as slotsim waits for it), and returns on `end` or
    when stdin closes. While it runs on the process's own stdout, print()
    goes to stderr: a stray line on stdout would break the protocol."""
    stdin = stdin if stdin is not None else sys.stdin.buffer
    if os.environ.get("SLOTSIM_CHECK_BOOKS"):
        policy.check_books = True
    own_stdout = stdout is None
    out = sys.stdout if own_stdout else stdout
    if own_stdout:
        sys.stdout = sys.stderr
    try:
        while True:
            line = stdin.readline()
            if not line:
                return
            if not line.strip():
                continue
            msg = json.loads(line)
            reply = policy.handle(msg)
            if reply is not None:
                out.write(json.dumps(reply, separators=(",", ":")) + "\n")
                out.flush()
            if msg.get("type") == "end":
                return
    finally:
        if own_stdout:
            sys.stdout = out


class ServeError(Exception):
    """`slotsim serve` refused a reset, or an episode stopped on a reply
    it could not take: the message says which and why."""


class Serve:
    """Episodes in one `slotsim serve` process, driven from here: each
    `episode()` resets the run and serves `policy` to it (protocol 2) until
    its `end`, which it returns (`reason`: finished, until, stalled).
    Cheaper than a process per run, and the loop is the caller's::

        with sp.Serve() as s:
            for seed in range(1, 11):
                end = s.episode(MyPolicy(), "scenarios/quickstart.toml", seed=seed)

    `binary` is the slotsim to start; `lines`, when a list, collects every
    line slotsim sent (for checking that episodes repeat)."""

    def __init__(self, binary="slotsim", lines=None):
        import subprocess

        self.lines = lines
        self.proc = subprocess.Popen(
            [binary, "serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )

    def _send(self, obj):
        self.proc.stdin.write(json.dumps(obj, separators=(",", ":")) + "\n")
        self.proc.stdin.flush()

    def episode(self, policy, scenario, seed=None, set=None, until=None, outputs=None):
        reset = {"type": "reset", "scenario": str(scenario)}
        for key, value in (("seed", seed), ("set", set), ("until", until), ("outputs", outputs)):
            if value is not None:
                reset[key] = value
        self._send(reset)
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise ServeError("slotsim serve ended before the episode's end")
            if self.lines is not None:
                self.lines.append(line)
            msg = json.loads(line)
            if msg.get("type") == "error":
                raise ServeError(msg.get("message", ""))
            reply = policy.handle(msg)
            if reply is not None:
                self._send(reply)
            if msg.get("type") == "end":
                return msg

    def close(self):
        """Ends the process (exit status 0)."""
        if self.proc.poll() is None:
            try:
                self._send({"type": "close"})
                self.proc.stdin.close()
            except BrokenPipeError:
                pass
        status = self.proc.wait()
        self.proc.stdout.close()
        return status

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

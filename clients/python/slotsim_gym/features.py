"""What a decision sees and what an action does, computed from a
`slotsim_policy.Policy`'s books: one definition for `SlotsimEnv` and for
an external policy that replays a trained agent (examples/gym/trained.py),
so that the two see the same numbers and launch the same tasks.

Standard library only (and `slotsim_policy`): a policy process that
imports this needs neither gymnasium nor numpy.

A decision is taken on a heartbeating node with free capacity `free` (a
`slotsim_policy.Free`, kept current as launches apply). Its candidates
are the first `k` jobs of `policy.queue()` (priority, then submission,
then id). `choices` says, for each of them, what one launch of it would
start on the node now (`"am"`, `"map"`, `"reduce"`, or None);
`observation` turns that into the feature vector, `mask` into the valid
actions, `launch` applies one; `decide` is a whole heartbeat's decisions
for a policy process (`Agent`), step by step as the environment takes them.
"""

import slotsim_policy as sp
from slotsim_policy import MAP, REDUCE

AM = "am"

# Per job slot, in this order (FEATURES_PER_JOB of them).
JOB_FEATURES = (
    "present",              # 1 if a job holds the slot, else 0 (and the rest 0)
    "pending_maps",         # maps waiting for a launch (count)
    "schedulable_reduces",  # pending reduces that may launch now (count)
    "running_tasks",        # the job's running map and reduce attempts (count)
    "age_s",                # now - the job's submit time (seconds)
    "maps_done_fraction",   # maps succeeded / maps (1 for a job with no maps)
    "input_gb",             # the job's input (GiB, 2**30 bytes)
    "launchable",           # 1 if the action for this slot is valid here now
)
FEATURES_PER_JOB = len(JOB_FEATURES)
# After the k slots.
NODE_FEATURES = ("free_0", "free_1", "clock_s")
N_NODE_FEATURES = len(NODE_FEATURES)

GIB = float(1 << 30)


def observation_size(k):
    return k * FEATURES_PER_JOB + N_NODE_FEATURES


def free_names(slot_model):
    """What the two free-capacity features are on `slot_model`."""
    return {
        "typed": ("free map slots", "free reduce slots"),
        "unified": ("free containers", "0"),
        "yarn": ("free memory (GiB)", "free vcores"),
    }[slot_model]


def launch_kind(policy, job, free):
    """What one launch of `job` would start on the heartbeating node now:
    "am" (YARN, `am = "policy"`: its ApplicationMaster, waiting for a
    container that fits), "map" (a pending map, when a map fits: typed, a
    free map slot; unified, a free container; YARN, its ApplicationMaster
    asks for a map and the node's free memory holds its map ask), "reduce"
    (otherwise a pending reduce that may launch: slowstart met and a free
    reduce slot; unified, a free container and the early-reduce rule;
    YARN, its ApplicationMaster asks for a reduce and its ask fits), or
    None. Maps before reduces, as Hadoop's schedulers offer them."""
    left = free._left
    model = policy.slot_model
    if model == "typed":
        if job.pending_maps and left[MAP] > 0:
            return MAP
        if (job.pending_reduces and left[REDUCE] > 0
                and job.maps_done >= policy.slowstart * job.n_maps - 1e-9):
            return REDUCE
        return None
    if model == "unified":
        if left["any"] <= 0:
            return None
        if job.pending_maps:
            return MAP
        if (job.pending_reduces and job.maps_done >= policy.slowstart * job.n_maps - 1e-9
                and policy.reduce_allowed(job)):
            return REDUCE
        return None
    # YARN: memory is enforced, vcores counted (Free.fits).
    mem = left["memory_mb"]
    asks = job.asks
    if job.am_pending:
        if policy.am == "policy" and asks[AM]["memory_mb"] <= mem:
            return AM
        return None
    req = job.requests
    if req.map > 0 and job.pending_maps and asks[MAP]["memory_mb"] <= mem:
        return MAP
    if req.reduce > 0 and job.pending_reduces and asks[REDUCE]["memory_mb"] <= mem:
        return REDUCE
    return None


def choices(policy, free, k):
    """The first `k` jobs of the queue and, for each, `launch_kind`:
    (jobs, kinds), both lists of at most `k`."""
    jobs = policy.queue()[:k]
    return jobs, [launch_kind(policy, job, free) for job in jobs]


def observation(policy, free, jobs, kinds, k):
    """The feature vector (a list of floats, `observation_size(k)` long):
    JOB_FEATURES for each of the `k` slots (zeros where no job is), then
    the node's free capacity as two numbers (typed: map and reduce slots;
    unified: containers and 0; YARN: memory in GiB and vcores, which may
    be below 0) and the clock (seconds)."""
    now = policy.now_ms
    yarn = policy.slot_model == "yarn"
    slowstart = policy.slowstart
    out = []
    for job, kind in zip(jobs, kinds):
        n_maps = job.n_maps
        if job.pending_reduces:
            if yarn:
                reduces = min(len(job.pending_reduces), job.requests.reduce)
            elif job.maps_done >= slowstart * n_maps - 1e-9:
                reduces = len(job.pending_reduces)
            else:
                reduces = 0
        else:
            reduces = 0
        out += (
            1.0,
            len(job.pending_maps),
            reduces,
            job.running_maps + job.running_reduces,
            (now - job.submit_ms) / 1000.0,
            job.maps_done / n_maps if n_maps else 1.0,
            (job.input_bytes or 0) / GIB,
            1.0 if kind is not None else 0.0,
        )
    out += (0.0,) * (FEATURES_PER_JOB * (k - len(jobs)))
    left = free._left
    model = policy.slot_model
    if model == "typed":
        out += (left[MAP], left[REDUCE])
    elif model == "unified":
        out += (left["any"], 0.0)
    else:
        out += (left["memory_mb"] / 1024.0, left["vcores"])
    out.append(now / 1000.0)
    return out


def launch(policy, job, kind, rule="gym"):
    """Launches what `launch_kind` said (during the heartbeat): the job's
    ApplicationMaster in its ask, its best-placed pending map
    (`Job.find_map`: node-local, then rack, datacenter, any) or its
    lowest pending reduce, in the job's ask on YARN."""
    if kind == AM:
        policy.launch_am(job)
    else:
        policy.launch(job, kind, rule=rule)


def mask(kinds, k):
    """The valid actions (a list of k+1 ints, 1: valid): slot i < k where
    its job can launch here now, and k (leave the node) always."""
    m = [0] * (k + 1)
    for i, kind in enumerate(kinds):
        if kind is not None:
            m[i] = 1
    m[k] = 1
    return m


def decide(policy, free, k, choose, rule="gym"):
    """One heartbeat's decisions, as `SlotsimEnv` asks for them: while one
    of the first `k` jobs can launch on the node, `choose(features, mask)`
    (the observation's list of floats and `mask`'s list) gives an action;
    an action below `k` launches that slot's job, `k` ends the heartbeat.
    Returns the number of launches."""
    n = 0
    while True:
        jobs, kinds = choices(policy, free, k)
        if kinds.count(None) == len(kinds):
            return n
        valid = mask(kinds, k)
        a = choose(observation(policy, free, jobs, kinds, k), valid)
        if a == k:
            return n
        if not (0 <= a < k and valid[a]):
            raise ValueError("action {} is not valid here: action_mask is {}".format(a, valid))
        launch(policy, jobs[a], kinds[a], rule)
        n += 1


class Agent(sp.Policy):
    """A slotsim external policy (protocol 2) that decides as an agent in
    `SlotsimEnv` does: `wake = "work"`, on YARN `am = "policy"`, and at each
    heartbeat `decide(self, free, self.k, self.choose)`. A subclass (or the
    constructor) gives `choose(features, mask) -> action`; `files` are the
    paths it depends on (weights, modules), named in its hello. Run it with
    `slotsim_policy.run(agent)` as `external[protocol=2]:CMD`."""

    protocol = 2
    wake = "work"
    name = "slotsim-gym-agent"
    version = "0.1"
    rule = "gym"

    def __init__(self, k=8, choose=None, files=()):
        super().__init__()
        self.k = int(k)
        if choose is not None:
            self.choose = choose
        self.files = tuple(files) + (sp.module_file(__file__),)
        if self.k < 1:
            raise ValueError("k is the number of jobs visible, at least 1 (got {})".format(k))

    def on_start(self, msg):
        # YARN: waiting applications are the agent's to place too.
        self.am = "policy" if msg["slot_model"] == "yarn" else "engine"

    def choose(self, features, mask):
        raise NotImplementedError("an Agent gives choose(features, mask)")

    def heartbeat(self, node, free, running):
        decide(self, free, self.k, self.choose, self.rule)

"""The policy `reinforce.py` trains and `trained.py` runs: a linear
softmax over the valid actions of `SlotsimEnv` (numpy only).

Each valid job slot i gets the score theta_job . phi_i, where phi_i is a
fixed transform of the slot's features (`slotsim_gym.features`
JOB_FEATURES) plus its place in the queue; leaving the node gets
theta_leave . psi, psi a transform of the node's free capacity. Two of
phi's terms say whether the slot's launch is a reduce and how many reduce
slots the node has free: enough for the policy to learn to keep a node to
one reduce, as Hadoop's fifo does (its reduce load-factor cap), where
launching greedily stacks the shuffles. Invalid actions get no
probability.
"""

import numpy as np

from slotsim_gym.features import FEATURES_PER_JOB, JOB_FEATURES

# phi: what a job slot's score is linear in.
PHI = (
    "log1p(pending_maps)",
    "log1p(schedulable_reduces)",
    "log1p(running_tasks)",
    "log1p(age_s / 60)",
    "maps_done_fraction",
    "log1p(input_gb)",
    "slot / k",
    "1",
    "reduce",                   # 1 if the slot's launch is a reduce (as far as the features tell)
    "reduce * log1p(free_1)",   # ... times the node's free reduce slots (typed), vcores (YARN)
)
D = len(PHI)
# psi: what leaving the node's score is linear in.
PSI = (
    "1",
    "log1p(free_0)",            # free map slots, containers, or memory (GiB)
    "log1p(max(free_1, 0))",    # free reduce slots, 0, or vcores
)
E = len(PSI)
N_THETA = D + E
_I = {name: i for i, name in enumerate(JOB_FEATURES)}
_COUNTS = [_I["pending_maps"], _I["schedulable_reduces"], _I["running_tasks"]]


def phi(obs, k):
    """The k slots' phi, a (k, D) array, from an observation."""
    x = np.asarray(obs, dtype=np.float64)[: k * FEATURES_PER_JOB].reshape(k, FEATURES_PER_JOB)
    out = np.empty((k, D))
    out[:, 0:3] = np.log1p(x[:, _COUNTS])
    out[:, 3] = np.log1p(x[:, _I["age_s"]] / 60.0)
    out[:, 4] = x[:, _I["maps_done_fraction"]]
    out[:, 5] = np.log1p(x[:, _I["input_gb"]])
    out[:, 6] = np.arange(k) / k
    out[:, 7] = 1.0
    # A launch is a map while the job has one pending and the node a map
    # slot (features.launch_kind), else a reduce.
    free = np.asarray(obs, dtype=np.float64)[k * FEATURES_PER_JOB: k * FEATURES_PER_JOB + 2]
    reduce = ((x[:, _I["launchable"]] > 0) & (x[:, _I["schedulable_reduces"]] > 0)
              & ((x[:, _I["pending_maps"]] == 0) | (free[0] <= 0)))
    out[:, 8] = reduce
    out[:, 9] = reduce * np.log1p(max(free[1], 0.0))
    return out


def psi(obs, k):
    """Leaving's features, an (E,) array, from an observation."""
    free = np.asarray(obs, dtype=np.float64)[k * FEATURES_PER_JOB: k * FEATURES_PER_JOB + 2]
    return np.array([1.0, np.log1p(max(free[0], 0.0)), np.log1p(max(free[1], 0.0))])


class LinearPolicy:
    def __init__(self, k, theta=None):
        self.k = k
        self.theta = np.zeros(N_THETA) if theta is None else np.asarray(theta, dtype=np.float64)
        if self.theta.shape != (N_THETA,):
            raise ValueError("theta has shape {}, expected ({},)".format(self.theta.shape, N_THETA))

    def logits(self, obs, mask):
        """Scores of the k+1 actions, -inf where the mask is 0; phi; psi."""
        f = phi(obs, self.k)
        g = psi(obs, self.k)
        z = np.empty(self.k + 1)
        z[: self.k] = f @ self.theta[:D]
        z[self.k] = g @ self.theta[D:]
        z[np.asarray(mask) == 0] = -np.inf
        return z, f, g

    def sample(self, obs, mask, rng):
        """An action drawn from the softmax, and grad of its log-probability
        with respect to theta."""
        z, f, g = self.logits(obs, mask)
        p = np.exp(z - z.max())
        p /= p.sum()
        # Inverse CDF (rng.choice with p is slower); an action of
        # probability 0 is never drawn.
        c = np.cumsum(p)
        a = int(np.searchsorted(c, rng.random() * c[-1], side="right"))
        if a > self.k or p[a] == 0.0:
            a = int(np.flatnonzero(p)[-1])
        # Each action's feature vector: [phi_i, 0] for a slot, [0, psi] to leave.
        expected = np.empty(N_THETA)
        expected[:D] = p[: self.k] @ f
        expected[D:] = p[self.k] * g
        grad = -expected
        if a < self.k:
            grad[:D] += f[a]
        else:
            grad[D:] += g
        return a, grad

    def greedy(self, obs, mask):
        """The valid action of the highest score (the lowest on ties)."""
        z = self.logits(obs, mask)[0]
        return int(np.argmax(z))

    def save(self, path, **meta):
        np.savez(path, theta=self.theta, k=self.k, phi=np.array(PHI), psi=np.array(PSI),
                 job_features=np.array(JOB_FEATURES), **meta)

    @classmethod
    def load(cls, path):
        with np.load(path) as w:
            names = set(w.files)
            if (not {"theta", "k", "phi", "psi", "job_features"} <= names
                    or tuple(w["job_features"]) != JOB_FEATURES or tuple(w["phi"]) != PHI
                    or tuple(w["psi"]) != PSI):
                raise ValueError("{}: not weights of this linear policy and feature set".format(path))
            return cls(int(w["k"]), w["theta"])

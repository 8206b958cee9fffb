"""slotsim as a Gymnasium environment: `SlotsimEnv` drives `slotsim serve`
one scheduling decision at a time (docs/gym.md).

Importing the package registers, when gymnasium is installed:

    slotsim/Cluster-v0          any scenario: gymnasium.make("slotsim/Cluster-v0", scenario=PATH)
    slotsim/Quickstart-v0       the repository's scenarios/quickstart.toml
    slotsim/YarnQuickstart-v0   the repository's scenarios/yarn-quickstart.toml

`slotsim_gym.features` (what a decision sees, what an action launches)
needs neither gymnasium nor numpy: an external policy replaying a trained
agent imports it alone.
"""

import os

__version__ = "0.1"

_HERE = os.path.dirname(os.path.abspath(__file__))


def scenario_path(name):
    """A scenario of the slotsim repository, by file name: found in
    $SLOTSIM_SCENARIOS (a directory) if set, else in the repository this
    package lies in (clients/python/slotsim_gym), else in ./scenarios."""
    places = []
    if os.environ.get("SLOTSIM_SCENARIOS"):
        places.append(os.environ["SLOTSIM_SCENARIOS"])
    places.append(os.path.join(_HERE, os.pardir, os.pardir, os.pardir, "scenarios"))
    places.append(os.path.join(os.getcwd(), "scenarios"))
    for place in places:
        path = os.path.join(place, name)
        if os.path.isfile(path):
            return os.path.abspath(path)
    raise FileNotFoundError(
        "scenario {} not found in {}: pass scenario=PATH, or set SLOTSIM_SCENARIOS to the "
        "repository's scenarios directory".format(name, ", ".join(map(os.path.abspath, places))))


def parse_seeds(text):
    """Seeds written as "7", "1-10" or "1-4,9": a list of ints."""
    out = []
    for part in str(text).split(","):
        lo, _, hi = part.strip().partition("-")
        out += range(int(lo), int(hi or lo) + 1)
    return out


def _preset(name):
    def make(scenario=None, **kwargs):
        from .env import SlotsimEnv
        return SlotsimEnv(scenario=scenario or scenario_path(name), **kwargs)
    make.__name__ = make.__qualname__ = "make_" + name.replace("-", "_").replace(".toml", "")
    return make


make_quickstart = _preset("quickstart.toml")
make_yarn_quickstart = _preset("yarn-quickstart.toml")

ENV_IDS = {
    "slotsim/Cluster-v0": "slotsim_gym.env:SlotsimEnv",
    "slotsim/Quickstart-v0": "slotsim_gym:make_quickstart",
    "slotsim/YarnQuickstart-v0": "slotsim_gym:make_yarn_quickstart",
}


def _register():
    import gymnasium

    for env_id, entry_point in ENV_IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point=entry_point)


try:
    import gymnasium as _gymnasium  # noqa: F401
except ImportError:  # features alone, for policy processes
    _gymnasium = None
else:
    _register()


def __getattr__(name):
    if name in ("SlotsimEnv", "MaskedDiscrete", "Books"):
        if _gymnasium is None:
            raise ImportError("slotsim_gym.{} needs gymnasium and numpy: "
                              "pip install './clients/python[gym]'".format(name))
        from . import env
        return getattr(env, name)
    raise AttributeError("module 'slotsim_gym' has no attribute {!r}".format(name))

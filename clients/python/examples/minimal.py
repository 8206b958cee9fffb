"""A policy from the protocol alone, no library: the oldest jobs' maps fill the free map slots, then
reduces once slowstart allows (unified: once the job's maps are all done, never declined). Run:
slotsim run scenarios/quickstart.toml --policy "external:python3 clients/python/examples/minimal.py" """
import json
import sys

jobs = {}  # job id -> maps done, maps to be done before its reduces, pending maps and reduces
for m in map(json.loads, sys.stdin):
    if m["type"] == "start":
        slowstart, unified = m["slowstart"], m["slot_model"] == "unified"
    elif m["type"] == "job_submitted":
        j, states = m["job"], [t.get("state") for t in m["job"]["maps"]]
        started = len(j.get("running_reduces", []) + j.get("done_reduces", []))
        need = len(states) if unified else slowstart * len(states) - 1e-9
        jobs[j["id"]] = dict(done=states.count("done"), need=need, map=states.count(None),
                             reduce=j["reduces"] - started)
    elif m["type"] == "task_finished" and m["job"] in jobs:
        jobs[m["job"]][m["kind"]] += m["pending"]
        jobs[m["job"]]["done"] += m["kind"] == "map" and {"succeeded": 1, "lost": -1}.get(m["outcome"], 0)
    elif m["type"] == "job_finished":
        jobs.pop(m["job"], None)
    elif m["type"] == "heartbeat":
        free, launch = m["free"], []
        for kind in ("map", "reduce"):
            slot = "any" if unified else kind
            for i, job in jobs.items():  # oldest first
                while job[kind] > 0 and free[slot] > 0 and (kind == "map" or job["done"] >= job["need"]):
                    job[kind], free[slot] = job[kind] - 1, free[slot] - 1
                    launch.append({"job": i, "kind": kind})
        print(json.dumps({"launch": launch}), flush=True)

"""Tests of the Python client: the library fed scripted messages in-process,
the examples run as slotsim runs them (child processes on pipes), and a
small fake slotsim that refuses every reply slotsim would refuse and checks
the library's state against its own after every event.

    python3 -m unittest discover -s clients/python/tests -v
"""

import importlib.util
import io
import json
import os
import queue
import random
import subprocess
import sys
import tempfile
import threading
import time
import unittest
from collections import namedtuple
from contextlib import redirect_stderr, redirect_stdout

CLIENT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(CLIENT, "examples")
sys.path.insert(0, CLIENT)

import slotsim_policy as sp  # noqa: E402


def load_example(name):
    """An example's module, imported from its file (not run)."""
    spec = importlib.util.spec_from_file_location("example_" + name,
                                                  os.path.join(EXAMPLES, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


Fifo = load_example("fifo").Fifo
ShortestJobFirst = load_example("sjf").ShortestJobFirst
RandomPolicy = load_example("random").RandomPolicy


# Messages, as slotsim writes them.

def start(nodes=4, per_rack=2, racks_per_dc=None, map_slots=2, reduce_slots=2,
          slot_model="typed", slowstart=0.05, seed=7):
    """Nodes numbered rack by rack, `per_rack` to a rack, `racks_per_dc` racks
    to a datacenter (all in one if None)."""
    spec = []
    for i in range(nodes):
        rack = i // per_rack
        spec.append({"id": i, "rack": rack, "dc": rack // racks_per_dc if racks_per_dc else 0,
                     "map_slots": map_slots, "reduce_slots": reduce_slots, "alive": True})
    return {"type": "start", "protocol": 1, "time_ms": 0, "slot_model": slot_model,
            "slowstart": slowstart, "seed": seed, "nodes": spec}


def submitted(job_id, replicas, reduces=1, priority="normal", submit_ms=0, **marks):
    """`replicas`: each map's replica nodes; `marks`: map states by task
    (maps_state), running_reduces, done_reduces."""
    states = marks.pop("maps_state", {})
    maps = []
    for t, r in enumerate(replicas):
        entry = {"task": t, "replicas": list(r)}
        if t in states:
            entry["state"] = states[t]
        maps.append(entry)
    job = {"id": job_id, "name": "job-{}".format(job_id), "pool": "default", "user": "u",
           "priority": priority, "submit_ms": submit_ms, "reduces": reduces, "maps": maps}
    job.update(marks)
    return {"type": "job_submitted", "time_ms": submit_ms, "job": job}


def finished(job, kind, task, node=0, outcome="succeeded", pending=False, speculative=False):
    return {"type": "task_finished", "time_ms": 1, "job": job, "kind": kind, "task": task,
            "node": node, "outcome": outcome, "pending": pending, "speculative": speculative}


def heartbeat(node, maps=2, reduces=2, running=(0, 0), containers=None, inspect=False,
              room=None):
    free = {"any": containers} if containers is not None else {"map": maps, "reduce": reduces}
    msg = {"type": "heartbeat", "time_ms": 1, "node": node, "free": free,
           "running": {"map": running[0], "reduce": running[1]}}
    if inspect:
        msg["inspect"] = True
    if room is not None:
        msg["early_reduce_room"] = room
    return msg


def launched(reply, kind=None):
    """(job, kind, task) of each launch in a reply, of one kind if given."""
    return [(x["job"], x["kind"], x["task"]) for x in reply["launch"]
            if kind is None or x["kind"] == kind]


class Scripted(sp.Policy):
    """Returns whatever the test put in `plan` (the return-list convention)."""

    def __init__(self):
        super().__init__()
        self.plan = []

    def heartbeat(self, node, free, running):
        return self.plan


def feed(policy, *messages):
    """Feeds messages in order; returns the last reply."""
    reply = None
    for m in messages:
        reply = policy.handle(m)
    return reply


class LocalityTest(unittest.TestCase):
    # 8 nodes: racks of 2, datacenters of 2 racks. Node 0 is in rack 0, dc 0.
    MAPS = [[6], [2], [1], [0, 5], [0]]  # off-dc, same dc, same rack, node, node

    def setUp(self):
        self.p = Scripted()
        feed(self.p, start(nodes=8, racks_per_dc=2, map_slots=5), submitted(1, self.MAPS))
        self.job = self.p.jobs[1]

    def test_find_map_prefers_node_then_rack_then_dc_then_any(self):
        self.assertEqual(self.job.find_map(0), (3, sp.Level.NODE))
        self.p.plan = [sp.Launch(1, sp.MAP)] * 5
        reply = self.p.handle(heartbeat(0, maps=5))
        self.assertEqual([t for _, _, t in launched(reply)], [3, 4, 2, 1, 0])
        self.assertEqual(self.job.pending_maps, set())
        self.assertIsNone(self.job.find_map(0))

    def test_max_level_stops_the_search(self):
        self.p.plan = [sp.Launch(1, sp.MAP, 3), sp.Launch(1, sp.MAP, 4)]
        self.p.handle(heartbeat(0, maps=5))
        self.assertEqual(self.job.find_map(0, sp.Level.RACK), (2, sp.Level.RACK))
        self.p.plan = [sp.Launch(1, sp.MAP, 2)]
        self.p.handle(heartbeat(0, maps=5))
        self.assertIsNone(self.job.find_map(0, sp.Level.RACK))
        self.assertEqual(self.job.find_map(0, sp.Level.DC), (1, sp.Level.DC))
        self.assertEqual(self.job.find_map(self.p.nodes[0]), (1, sp.Level.DC))
        self.assertEqual(self.job.find_map(6), (0, sp.Level.NODE))
        self.assertEqual(self.job.find_map(7), (0, sp.Level.RACK))
        self.assertEqual(self.job.find_map(4), (0, sp.Level.DC), "task 3 on node 5 runs")

    def test_a_failed_map_is_found_again_though_the_lists_moved_past_it(self):
        self.p.plan = [sp.Launch(1, sp.MAP)] * 3
        self.p.handle(heartbeat(0, maps=5))
        self.assertEqual(self.job.find_map(0), (1, sp.Level.DC))
        self.p.handle(finished(1, sp.MAP, 4, outcome="failed", pending=True))
        self.assertEqual(self.job.find_map(0), (4, sp.Level.NODE))
        self.assertEqual(self.job.running_maps, 2)
        self.p.handle(finished(1, sp.MAP, 3, outcome="killed", pending=False))
        self.assertEqual(self.job.map_states[3], sp.RUNNING, "another attempt still runs")
        self.assertEqual(self.job.find_map(0), (4, sp.Level.NODE))
        self.assertEqual(self.p.running_maps, 1)

    def test_a_failed_map_far_from_every_node_is_found_again(self):
        p = Scripted()
        feed(p, start(nodes=8, racks_per_dc=2), submitted(2, [[6], [7], [6]]))
        job = p.jobs[2]
        p.plan = [sp.Launch(2, sp.MAP)] * 2
        self.assertEqual(launched(p.handle(heartbeat(0))), [(2, "map", 0), (2, "map", 1)])
        p.handle(finished(2, sp.MAP, 0, outcome="failed", pending=True))
        self.assertEqual(job.find_map(0), (0, sp.Level.ANY))

    def test_a_launch_of_a_task_not_pending_is_refused(self):
        self.p.plan = [sp.Launch(1, sp.MAP, 3), sp.Launch(1, sp.MAP, 3)]
        with self.assertRaisesRegex(sp.LaunchError, "not pending"):
            self.p.handle(heartbeat(0, maps=5))
        self.p.plan = [{"job": 1, "kind": "map"}] * 3
        with self.assertRaisesRegex(sp.LaunchError, "no free map slot"):
            self.p.handle(heartbeat(0, maps=2))
        self.p.plan = [sp.Launch(9, sp.MAP)]
        with self.assertRaisesRegex(sp.LaunchError, "unknown or finished"):
            self.p.handle(heartbeat(0))


class StateTest(unittest.TestCase):
    def test_slowstart_gates_reduces(self):
        p = Scripted()
        feed(p, start(slowstart=0.5), submitted(1, [[0]] * 4, reduces=1))
        job = p.jobs[1]
        p.plan = [sp.Launch(1, sp.MAP)] * 2
        p.handle(heartbeat(0))
        p.handle(finished(1, sp.MAP, 0))
        self.assertFalse(job.reduces_schedulable(p.slowstart))
        p.plan = [sp.Launch(1, sp.REDUCE)]
        with self.assertRaisesRegex(sp.LaunchError, "slowstart"):
            p.handle(heartbeat(0))
        self.assertEqual(job.pending_reduces, {0}, "a refused launch changes nothing")
        p.handle(finished(1, sp.MAP, 1))
        self.assertEqual(launched(p.handle(heartbeat(0))), [(1, "reduce", 0)])

    def test_slowstart_compares_with_a_tolerance(self):
        p = Scripted()
        # 0.55 * 100 is 55.00000000000001 in floating point.
        feed(p, start(slowstart=0.55),
             submitted(1, [[0]] * 100, maps_state={t: "done" for t in range(55)}),
             submitted(2, [[0]] * 100, maps_state={t: "done" for t in range(54)}))
        self.assertTrue(p.jobs[1].reduces_schedulable(p.slowstart))
        self.assertFalse(p.jobs[2].reduces_schedulable(p.slowstart))

    def test_fifo_launches_no_reduce_before_slowstart(self):
        p = Fifo()
        feed(p, start(nodes=1, slowstart=1.0), submitted(1, [[0]], reduces=1))
        self.assertEqual(launched(p.handle(heartbeat(0))), [(1, "map", 0)])
        self.assertEqual(launched(p.handle(heartbeat(0, maps=1, running=(1, 0)))), [])
        p.handle(finished(1, sp.MAP, 0))
        self.assertEqual(launched(p.handle(heartbeat(0))), [(1, "reduce", 0)])

    def test_running_counts_leave_speculative_copies_out(self):
        p = Scripted()
        feed(p, start(), submitted(1, [[0], [1]], reduces=1))
        job = p.jobs[1]
        p.plan = [sp.Launch(1, sp.MAP)] * 2
        p.handle(heartbeat(0))
        self.assertEqual((job.running_maps, p.running_maps), (2, 2))
        p.handle(finished(1, sp.MAP, 0, node=3, outcome="killed", speculative=True))
        p.handle(finished(1, sp.MAP, 1, node=2, outcome="failed", speculative=True))
        self.assertEqual((job.running_maps, p.running_maps, job.maps_done), (2, 2, 0))
        # The copy wins: the task is done; its original is killed after.
        p.handle(finished(1, sp.MAP, 0, node=3, speculative=True))
        self.assertEqual((job.map_states[0], job.maps_done, job.running_maps), (sp.DONE, 1, 2))
        p.handle(finished(1, sp.MAP, 0, outcome="killed"))
        self.assertEqual((job.map_states[0], job.maps_done, p.running_maps), (sp.DONE, 1, 1))
        # The original fails while its copy runs: not pending; the copy then fails too.
        p.handle(finished(1, sp.MAP, 1, outcome="failed"))
        self.assertEqual((job.map_states[1], p.running_maps), (sp.RUNNING, 0))
        p.handle(finished(1, sp.MAP, 1, node=2, outcome="failed", pending=True, speculative=True))
        self.assertEqual(job.pending_maps, {1})

    def test_a_lost_map_runs_again_and_its_jobs_reduces_turn_early(self):
        p = Scripted()
        feed(p, start(), submitted(1, [[0], [1]], reduces=2))
        job = p.jobs[1]
        p.plan = [sp.Launch(1, sp.MAP)] * 2
        p.handle(heartbeat(0))
        p.handle(finished(1, sp.MAP, 0))
        p.plan = [sp.Launch(1, sp.REDUCE)]
        p.handle(heartbeat(1))
        self.assertEqual(p.early_reduces, 1)
        p.handle(finished(1, sp.MAP, 1))
        self.assertEqual((job.maps_done, p.early_reduces), (2, 0))
        p.handle(finished(1, sp.MAP, 0, outcome="lost", pending=True))
        self.assertEqual((job.maps_done, job.pending_maps, p.early_reduces), (1, {0}, 1))
        self.assertEqual(job.find_map(0), (0, sp.Level.NODE))
        self.assertEqual(p.running_maps, 0, "a lost map had no running attempt")
        p.plan = [sp.Launch(1, sp.MAP)]
        self.assertEqual(launched(p.handle(heartbeat(0))), [(1, "map", 0)])
        p.handle(finished(1, sp.MAP, 0))
        self.assertEqual((job.maps_done, p.early_reduces), (2, 0))

    def test_mid_run_marks(self):
        p = Scripted()
        feed(p, start(), submitted(1, [[0], [1], [2], [3]], reduces=3,
                                   maps_state={0: "running", 1: "done", 3: "done"},
                                   running_reduces=[1], done_reduces=[0]))
        job = p.jobs[1]
        self.assertEqual((job.pending_maps, job.maps_done, job.running_maps), ({2}, 2, 1))
        self.assertEqual((job.pending_reduces, job.reduces_done, job.running_reduces), ({2}, 1, 1))
        self.assertEqual((p.running_maps, p.running_reduces, p.early_reduces), (1, 1, 1))
        self.assertEqual((job.find_map(0), job.find_reduce()), ((2, sp.Level.DC), 2))
        p.handle(finished(1, sp.MAP, 0))
        self.assertEqual((p.running_maps, job.maps_done), (0, 3))

    def test_a_job_leaves_the_queue_when_its_tasks_have_succeeded(self):
        p = Scripted()
        feed(p, start(), submitted(1, [[0]], reduces=1), submitted(2, [[0]], submit_ms=5))
        p.plan = [sp.Launch(1, sp.MAP)]
        p.handle(heartbeat(0))
        p.handle(finished(1, sp.MAP, 0))
        p.plan = [sp.Launch(1, sp.REDUCE)]
        p.handle(heartbeat(0))
        self.assertEqual([j.id for j in p.queue()], [1, 2])
        p.handle(finished(1, sp.REDUCE, 0))
        self.assertEqual([j.id for j in p.queue()], [2])
        self.assertIn(1, p.jobs)
        p.handle({"type": "job_finished", "time_ms": 9, "job": 1, "outcome": "succeeded"})
        self.assertNotIn(1, p.jobs)

    def test_a_priority_change_reorders_the_queue(self):
        p = Fifo()
        feed(p, start(nodes=1), submitted(1, [[0]] * 4), submitted(2, [[0]] * 4, submit_ms=5))
        self.assertEqual([j.id for j in p.queue()], [1, 2])
        p.handle({"type": "job_updated", "time_ms": 6, "job": 2, "priority": "high",
                  "pool": "research"})
        self.assertEqual([j.id for j in p.queue()], [2, 1])
        self.assertEqual((p.jobs[2].rank, p.jobs[2].pool), (1, "research"))
        self.assertEqual(launched(p.handle(heartbeat(0, maps=1))), [(2, "map", 0)])

    def test_node_failure_changes_the_live_totals(self):
        p = Scripted()
        feed(p, start(nodes=4, map_slots=3, reduce_slots=1))
        self.assertEqual((p.live_nodes, p.total_map_slots, p.total_slots), (4, 12, 16))
        p.handle({"type": "node_failed", "time_ms": 1, "node": 2})
        self.assertEqual((p.live_nodes, p.total_map_slots, p.total_reduce_slots), (3, 9, 3))
        self.assertFalse(p.nodes[2].alive)
        p.handle({"type": "node_recovered", "time_ms": 2, "node": 2})
        self.assertEqual((p.live_nodes, p.total_slots, p.nodes[2].alive), (4, 16, True))


class UnifiedTest(unittest.TestCase):
    def test_both_kinds_take_the_same_containers(self):
        p = Fifo()
        # 4 nodes of 1 + 1 containers: load factors 1/8 and 2/8 give each
        # kind a cap of one on a node of two containers.
        feed(p, start(nodes=4, map_slots=1, reduce_slots=1, slot_model="unified",
                      slowstart=0.0), submitted(1, [[0]], reduces=2))
        self.assertEqual(launched(p.handle(heartbeat(0, containers=2))),
                         [(1, "map", 0), (1, "reduce", 0)])
        self.assertEqual(launched(p.handle(heartbeat(1, containers=1))), [(1, "reduce", 1)])

    def test_free_counts_one_container_per_launch(self):
        seen = []

        class Probe(sp.Policy):
            def heartbeat(self, node, free, running):
                seen.append((free.map, free.reduce, free.any))
                self.launch(1, sp.MAP)
                seen.append((free.map, free.reduce, free.any))
                self.launch(1, sp.REDUCE)
                seen.append((free.map, free.reduce, free.any))

        feed(Probe(), start(slot_model="unified", slowstart=0.0), submitted(1, [[0]] * 2),
             heartbeat(0, containers=3))
        self.assertEqual(seen, [(3, 3, 3), (2, 2, 2), (1, 1, 1)])

    def test_early_reduces_past_half_the_containers_are_declined(self):
        p = Scripted()
        # 2 nodes of 1 + 1 containers: early reduces may hold 2 of the 4.
        feed(p, start(nodes=2, map_slots=1, reduce_slots=1, slot_model="unified",
                      slowstart=0.0), submitted(1, [[0]] * 3, reduces=4))
        p.plan = [sp.Launch(1, sp.REDUCE)] * 3
        reply = p.handle(heartbeat(0, containers=4))
        self.assertEqual(launched(reply), [(1, "reduce", 0), (1, "reduce", 1)])
        self.assertEqual((p.early_reduces, p.jobs[1].pending_reduces), (2, {2, 3}))
        self.assertFalse(p.reduce_allowed(p.jobs[1]))

    def test_the_heartbeats_early_reduce_room_decides(self):
        p = Scripted()
        # The library's own count allows 2 early reduces, but slotsim's
        # room (which counts its speculative copies) allows 1.
        feed(p, start(nodes=2, map_slots=1, reduce_slots=1, slot_model="unified",
                      slowstart=0.0), submitted(1, [[0]] * 3, reduces=4))
        p.plan = [sp.Launch(1, sp.REDUCE)] * 3
        reply = p.handle(heartbeat(0, containers=4, room=1))
        self.assertEqual(launched(reply), [(1, "reduce", 0)])

    def test_fifo_passes_over_a_job_whose_early_reduce_would_be_declined(self):
        p = Fifo()
        # 4 containers; job 1's maps are not all done and its 2 running
        # reduces are early: they hold the half early reduces may hold.
        feed(p, start(nodes=2, map_slots=1, reduce_slots=1, slot_model="unified", slowstart=0.0),
             submitted(1, [[0], [1]], reduces=4, maps_state={0: "done", 1: "running"},
                       running_reduces=[0, 1]),
             submitted(2, [[1]], reduces=1, submit_ms=1, maps_state={0: "done"}))
        self.assertEqual(p.early_reduces, 2)
        self.assertFalse(p.reduce_allowed(p.jobs[1]))
        reply = p.handle(heartbeat(0, containers=1, running=(0, 1)))
        self.assertEqual(launched(reply), [(2, "reduce", 0)], "job 2 is next in the queue")


class FifoTest(unittest.TestCase):
    def fill(self, pad):
        """5 nodes of 2 map slots, a job of 100 maps spread over them: nodes
        0-3 fill up (8 maps running), then node 4 heartbeats with 2 free."""
        p = Fifo(pad)
        feed(p, start(nodes=5), submitted(1, [[t % 5] for t in range(100)], reduces=1))
        for node in range(4):
            self.assertEqual(len(launched(p.handle(heartbeat(node)), "map")), 2)
        self.assertEqual(p.running_maps, 8)
        return p.handle(heartbeat(4, reduces=0))

    def test_padding_leaves_room_beyond_the_first_job(self):
        # needed 100 * pad 0.01 = 1: 8 running + 1 < 10 slots, both slots fill.
        self.assertEqual(len(launched(self.fill(0.01))), 2)
        # 100 * 0.02 = 2: 8 + 2 >= 10, exceeded: one map only.
        self.assertEqual(launched(self.fill(0.02)), [(1, "map", 4)])

    def test_no_padding_on_clusters_of_three_live_nodes(self):
        p = Fifo(0.5)
        feed(p, start(nodes=4), submitted(1, [[t % 3] for t in range(100)]),
             {"type": "node_failed", "time_ms": 1, "node": 3})
        for node, free in ((0, 2), (1, 2), (2, 1)):
            self.assertEqual(len(launched(p.handle(heartbeat(node, maps=free)))), free)
        # 5 running of 6 live slots: only padding (up to 4 here) could exceed.
        self.assertFalse(p.exceeded_padding(sp.MAP, 4))
        p.handle({"type": "node_recovered", "time_ms": 2, "node": 3})
        self.assertTrue(p.exceeded_padding(sp.MAP, 4), "5 + 4 >= 8 slots")

    def test_the_load_factor_caps_a_node(self):
        p = Fifo()
        # 2 maps over 10 map slots: a load factor of 0.2, ceil(0.2 * 2) = 1.
        feed(p, start(nodes=5), submitted(1, [[0], [0]]))
        self.assertEqual(launched(p.handle(heartbeat(0))), [(1, "map", 0)])

    def test_one_off_rack_map_per_heartbeat(self):
        p = Fifo()
        feed(p, start(nodes=4), submitted(1, [[2]] * 20, reduces=0))
        reply = p.handle(heartbeat(0))
        self.assertEqual(reply["launch"], [{"job": 1, "kind": "map", "task": 0,
                                            "rule": "fifo/non-local"}])

    def test_inspect_shows_the_values_before_the_launches(self):
        p = Fifo()
        feed(p, start(nodes=2), submitted(1, [[0], [0], [1]], reduces=2, priority="high"),
             submitted(2, [[1]], submit_ms=3))
        self.assertNotIn("inspect", p.handle(heartbeat(1, maps=0)), "computed only when asked")
        inspect = p.handle(heartbeat(0, inspect=True))["inspect"]
        self.assertEqual(inspect["jobs"]["job-1"], {"order": 0, "priority": "high",
                                                    "pending_maps": 3, "running_map": 0,
                                                    "running_reduce": 0})
        self.assertEqual(inspect["jobs"]["job-2"]["order"], 1)
        self.assertEqual(inspect["cluster"], {"map_load_factor": 1.0,
                                              "reduce_load_factor": 0.0})
        self.assertEqual(p.jobs[1].running_maps, 2)


def lines(messages):
    """Messages as slotsim writes them to a policy's stdin."""
    return "".join(json.dumps(m) + "\n" for m in messages)


def run_example(name, messages, *args):
    """Runs an example as slotsim does (from another directory), its stdin
    the messages."""
    return subprocess.run([sys.executable, os.path.join(EXAMPLES, name)] + list(args),
                          input=lines(messages), capture_output=True, text=True, timeout=60,
                          cwd=tempfile.gettempdir())


class RunTest(unittest.TestCase):
    SCRIPT = [start(nodes=1), submitted(1, [[0]], reduces=0), heartbeat(0, inspect=True),
              {"type": "end", "time_ms": 2}]

    def test_replies_to_heartbeats_only_compactly_and_stops_at_end(self):
        out = io.StringIO()
        text = lines(self.SCRIPT + [heartbeat(0)])  # nothing is read after end
        sp.run(Fifo(), io.BytesIO(text.encode()), out)
        self.assertEqual(out.getvalue(), '{"launch":[{"job":1,"kind":"map","task":0,'
                         '"rule":"fifo/local"}],"inspect":{"cluster":{"map_load_factor":0.5,'
                         '"reduce_load_factor":0.0},"jobs":{"job-1":{"order":0,"priority":'
                         '"normal","pending_maps":1,"running_map":0,"running_reduce":0}}}}\n')

    def test_print_in_a_policy_goes_to_stderr(self):
        class Chatty(Scripted):
            def heartbeat(self, node, free, running):
                print("thinking")
                return []

        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            sp.run(Chatty(), io.BytesIO(lines(self.SCRIPT).encode()))
            self.assertIs(sys.stdout, out, "run() puts stdout back")
        self.assertEqual(out.getvalue(), '{"launch":[]}\n')
        self.assertEqual(err.getvalue(), "thinking\n")

    def test_fifo_process_answers_and_exits_0_on_end(self):
        done = run_example("fifo.py", self.SCRIPT)
        self.assertEqual(done.returncode, 0, done.stderr)
        replies = [json.loads(line) for line in done.stdout.splitlines()]
        self.assertEqual([launched(r) for r in replies], [[(1, "map", 0)]])

    def test_fifo_process_exits_0_at_eof_and_takes_the_pad_flag(self):
        script = [start(nodes=5), submitted(1, [[t % 5] for t in range(100)], reduces=1)]
        script += [heartbeat(n) for n in range(4)] + [heartbeat(4, reduces=0)]
        done = run_example("fifo.py", script, "--capacity-pad", "0.02")
        self.assertEqual(done.returncode, 0, done.stderr)
        replies = [json.loads(line) for line in done.stdout.splitlines()]
        self.assertEqual([len(r["launch"]) for r in replies], [2, 2, 2, 2, 1])


class ExamplesTest(unittest.TestCase):
    def test_random_is_seeded_from_start(self):
        def picks(seed):
            script = [start(nodes=1, seed=seed)]
            script += [submitted(j, [[0]] * 20, submit_ms=j) for j in range(5)]
            script += [heartbeat(0)] * 8
            done = run_example("random.py", script)
            self.assertEqual(done.returncode, 0, done.stderr)
            return [launched(json.loads(line)) for line in done.stdout.splitlines()]

        self.assertEqual(picks(1), picks(1))
        self.assertNotEqual(picks(1), picks(2))

    def test_sjf_serves_the_job_with_fewest_tasks_left(self):
        p = ShortestJobFirst()
        feed(p, start(nodes=2), submitted(1, [[1]] * 5), submitted(2, [[1]] * 2, submit_ms=1),
             submitted(3, [[0]] * 9, submit_ms=2))
        reply = p.handle(heartbeat(0, maps=4, reduces=0))
        self.assertEqual([(j, t) for j, _, t in launched(reply)], [(2, 0), (2, 1), (1, 0), (1, 1)])
        self.assertEqual(reply["launch"][0]["rule"], "sjf/rack")


Attempt = namedtuple("Attempt", "job kind task node speculative")


class FakeSlotsim:
    """slotsim's side of the protocol, in small. Its own task states are the
    truth: it refuses (failing the test) every launch slotsim would refuse,
    declines early reduces as slotsim does on unified clusters, and plays
    random arrivals, successes, failures, kills, node failures with lost map
    outputs, unannounced speculative copies and priority changes. `ask`
    delivers one message to the policy and returns its reply."""

    def __init__(self, test, ask, seed, slot_model="typed", nodes=6, slowstart=0.25):
        self.test, self.ask, self.rng = test, ask, random.Random(seed)
        self.unified = slot_model == "unified"
        self.slowstart = slowstart
        # Unified nodes are small, so that early reduces reach the half of
        # the containers where slotsim declines them.
        slots = 1 if self.unified else 2
        first = start(nodes=nodes, map_slots=slots, reduce_slots=slots, slot_model=slot_model,
                      slowstart=slowstart, seed=seed)
        self.nodes = first["nodes"]
        self.jobs = {}  # with tasks left: id -> {"map": [state], "reduce": [state], ...}
        self.finishing = set()  # tasks all succeeded, job_finished not sent yet
        self.attempts = []  # running
        self.next_id = 0
        self.launches = 0
        self.say(first)

    def say(self, msg):
        reply = self.ask(msg)
        if msg["type"] == "heartbeat":
            self.apply(msg["node"], reply)

    def slot(self, kind):
        return "any" if self.unified else kind

    def running_on(self, node, kind):
        return sum(1 for a in self.attempts if a.node == node and a.kind == kind)

    def free(self, node):
        n = self.nodes[node]
        if self.unified:
            return {"any": n["map_slots"] + n["reduce_slots"] - self.running_on(node, "map")
                    - self.running_on(node, "reduce")}
        return {k: n[k + "_slots"] - self.running_on(node, k) for k in ("map", "reduce")}

    def maps_finished(self, job_id):
        return all(s == sp.DONE for s in self.jobs[job_id]["map"])

    def early_reduces(self):
        return sum(1 for a in self.attempts
                   if a.kind == "reduce" and not self.maps_finished(a.job))

    def apply(self, node, reply):
        free = self.free(node)
        for x in reply["launch"]:
            kind = x["kind"]
            self.test.assertIn(x["job"], self.jobs, "launch of an unknown or finished job")
            self.test.assertGreater(free[self.slot(kind)], 0, "launch into no free slot")
            job = self.jobs[x["job"]]
            states = job[kind]
            if kind == "reduce":
                done = job["map"].count(sp.DONE)
                self.test.assertGreaterEqual(done, self.slowstart * len(job["map"]) - 1e-9,
                                             "reduce before slowstart")
                live = sum(n["map_slots"] + n["reduce_slots"] for n in self.nodes if n["alive"])
                self.test.assertFalse(
                    self.unified and not self.maps_finished(x["job"])
                    and self.early_reduces() >= live // 2,
                    "an early reduce beyond early_reduce_room")
            task = x.get("task")
            if task is None:
                task = self.best_map(job, node) if kind == "map" else (
                    states.index(sp.PENDING) if sp.PENDING in states else None)
            self.test.assertIsNotNone(task, "launch with no pending task")
            self.test.assertEqual(states[task], sp.PENDING, "launch of a task not pending")
            states[task] = sp.RUNNING
            free[self.slot(kind)] -= 1
            self.attempts.append(Attempt(x["job"], kind, task, node, False))
            self.launches += 1

    def best_map(self, job, node):
        """The pending map slotsim picks for a launch without a task."""
        here = self.nodes[node]
        pending = [t for t, s in enumerate(job["map"]) if s == sp.PENDING]
        for key in ("id", "rack", "dc"):
            for t in pending:
                if any(self.nodes[r][key] == here[key] for r in job["replicas"][t]):
                    return t
        return pending[0] if pending else None

    def end(self, a, outcome):
        """Attempt `a` ends; its message, `pending` as it stands after."""
        self.attempts.remove(a)
        states = self.jobs[a.job][a.kind]
        if outcome == "succeeded":
            states[a.task] = sp.DONE
            if a.kind == "map":
                self.jobs[a.job]["done_on"][a.task] = a.node
        elif states[a.task] != sp.DONE and not any(b[:3] == a[:3] for b in self.attempts):
            states[a.task] = sp.PENDING
        return finished(a.job, a.kind, a.task, a.node, outcome, states[a.task] == sp.PENDING,
                        a.speculative)

    def step(self):
        """One random event and its messages, then a heartbeat."""
        rng, r = self.rng, self.rng.random()
        alive = [n["id"] for n in self.nodes if n["alive"]]
        msgs = []
        if r < 0.08 and len(self.jobs) < 6:
            msgs.append(self.submit())
        elif r < 0.45 and self.attempts:
            msgs += self.finish(rng.choice(self.attempts),
                                rng.choice(["succeeded"] * 6 + ["failed", "killed"]))
        elif r < 0.55 and self.attempts:
            self.speculate(rng.choice(self.attempts))
        elif r < 0.58 and len(alive) > 3:
            msgs += self.fail(rng.choice(alive))
        elif r < 0.62 and len(alive) < len(self.nodes):
            node = next(n for n in self.nodes if not n["alive"])
            node["alive"] = True
            msgs.append({"type": "node_recovered", "time_ms": 1, "node": node["id"]})
        elif r < 0.64 and self.jobs:
            msgs.append({"type": "job_updated", "time_ms": 1, "job": rng.choice(sorted(self.jobs)),
                         "priority": rng.choice(sp.PRIORITIES)})
        elif r < 0.65 and self.jobs:
            msgs += self.kill(rng.choice(sorted(self.jobs)))
        elif r < 0.75 and self.finishing:
            job_id = self.finishing.pop()
            msgs.append({"type": "job_finished", "time_ms": 1, "job": job_id,
                         "outcome": "succeeded"})
        for m in msgs:
            self.say(m)
        self.heartbeat(rng.choice(alive))

    def heartbeat(self, node):
        """A heartbeat of `node`, if it is alive and has a free slot."""
        if self.nodes[node]["alive"] and any(v > 0 for v in self.free(node).values()):
            msg = {"type": "heartbeat", "time_ms": 1, "node": node, "free": self.free(node),
                   "running": {k: self.running_on(node, k) for k in ("map", "reduce")}}
            if self.unified:
                live = sum(n["map_slots"] + n["reduce_slots"] for n in self.nodes if n["alive"])
                msg["early_reduce_room"] = max(live // 2 - self.early_reduces(), 0)
            self.say(msg)

    def drain(self):
        """No more arrivals or failures: nodes come back and attempts succeed
        until every job has finished. False if some never does: a policy
        whose counts went wrong stalls here."""
        for node in self.nodes:
            if not node["alive"]:
                node["alive"] = True
                self.say({"type": "node_recovered", "time_ms": 1, "node": node["id"]})
        for _ in range(2000):
            for job_id in sorted(self.finishing):
                self.say({"type": "job_finished", "time_ms": 1, "job": job_id,
                          "outcome": "succeeded"})
            self.finishing.clear()
            if not self.jobs:
                return True
            if self.attempts:
                for m in self.finish(self.rng.choice(self.attempts), "succeeded"):
                    self.say(m)
            for node in self.nodes:
                self.heartbeat(node["id"])
        return False

    def submit(self):
        self.next_id += 1
        maps, reduces = self.rng.randint(1, 8), self.rng.randint(0, 5)
        replicas = [self.rng.sample(range(len(self.nodes)), self.rng.randint(1, 3))
                    for _ in range(maps)]
        self.jobs[self.next_id] = {"map": [sp.PENDING] * maps, "reduce": [sp.PENDING] * reduces,
                                   "replicas": replicas, "done_on": {}}
        return submitted(self.next_id, replicas, reduces, self.rng.choice(sp.PRIORITIES),
                         submit_ms=self.rng.randrange(1000))

    def finish(self, a, outcome):
        msgs = []
        if outcome == "succeeded":  # its other attempt is killed, and told first
            for b in [b for b in self.attempts if b[:3] == a[:3] and b != a]:
                self.attempts.remove(b)
                msgs.append(finished(*b[:4], outcome="killed", speculative=b.speculative))
        msgs.append(self.end(a, outcome))
        job = self.jobs[a.job]
        if all(s == sp.DONE for s in job["map"] + job["reduce"]):
            del self.jobs[a.job]
            self.finishing.add(a.job)
        return msgs

    def speculate(self, a):
        """slotsim copies a running map on another node with a free slot,
        telling the policy nothing."""
        nodes = [n["id"] for n in self.nodes if n["alive"] and n["id"] != a.node
                 and self.free(n["id"])[self.slot("map")] > 0]
        if a.kind == "map" and nodes and sum(1 for b in self.attempts if b[:3] == a[:3]) == 1:
            self.attempts.append(a._replace(node=self.rng.choice(nodes), speculative=True))

    def fail(self, node):
        """A node dies: its attempts fail, then map outputs stored there are
        lost for jobs whose reduces are not all done."""
        self.nodes[node]["alive"] = False
        msgs = [self.end(a, "failed") for a in [a for a in self.attempts if a.node == node]]
        for job_id, job in self.jobs.items():
            if all(s == sp.DONE for s in job["reduce"]):
                continue
            for t in [t for t, on in job["done_on"].items() if on == node]:
                job["map"][t] = sp.PENDING
                del job["done_on"][t]
                msgs.append(finished(job_id, "map", t, node, "lost", True))
        msgs.append({"type": "node_failed", "time_ms": 1, "node": node})
        return msgs

    def kill(self, job_id):
        msgs = []
        for a in [a for a in self.attempts if a.job == job_id]:
            self.attempts.remove(a)
            msgs.append(finished(*a[:4], outcome="killed", speculative=a.speculative))
        del self.jobs[job_id]
        msgs.append({"type": "job_finished", "time_ms": 1, "job": job_id, "outcome": "killed"})
        return msgs

    def check_mirror(self, p):
        """The library's state is the truth's."""
        t = self.test
        t.assertEqual(set(p.jobs), set(self.jobs) | self.finishing)
        t.assertEqual({j.id for j in p.queue()}, set(self.jobs))
        own = [a for a in self.attempts if not a.speculative]
        for job_id, truth in self.jobs.items():
            job = p.jobs[job_id]
            t.assertEqual(job.map_states, truth["map"])
            t.assertEqual(job.reduce_states, truth["reduce"])
            t.assertEqual(job.maps_done, truth["map"].count(sp.DONE))
            t.assertEqual(job.pending_maps,
                          {i for i, s in enumerate(truth["map"]) if s == sp.PENDING})
            t.assertEqual((job.running_maps, job.running_reduces),
                          (sum(a.job == job_id and a.kind == "map" for a in own),
                           sum(a.job == job_id and a.kind == "reduce" for a in own)))
        t.assertEqual((p.running_maps, p.running_reduces),
                      (sum(a.kind == "map" for a in own), sum(a.kind == "reduce" for a in own)))
        t.assertEqual(p.early_reduces, self.early_reduces())
        t.assertEqual(p.live_nodes, sum(n["alive"] for n in self.nodes))


class ReturnsLaunches(sp.Policy):
    """Returns its launches (dicts and Launch tuples, with task ids and
    without) for the library to apply after heartbeat: it counts the slots
    it hands out itself."""

    def heartbeat(self, node, free, running):
        spare = {sp.MAP: free.map, sp.REDUCE: free.reduce}

        def use(kind):
            for k in (sp.MAP, sp.REDUCE) if self.unified else (kind,):
                spare[k] -= 1

        out = []
        for job in self.queue():
            for _ in range(min(spare[sp.MAP], len(job.pending_maps))):
                out.append({"job": job.id, "kind": sp.MAP})
                use(sp.MAP)
        # One reduce: reduce_allowed does not count those returned before it.
        for job in self.queue():
            if (spare[sp.REDUCE] > 0 and job.pending_reduces
                    and job.reduces_schedulable(self.slowstart) and self.reduce_allowed(job)):
                out.append(sp.Launch(job, sp.REDUCE, min(job.pending_reduces), "test/reduce"))
                break
        return out


class ChildProcess:
    """A policy run as slotsim runs it: messages to its stdin, one reply line
    read back per heartbeat (by a thread, so that a silent policy fails the
    test instead of hanging it)."""

    def __init__(self, script):
        self.proc = subprocess.Popen([sys.executable, os.path.join(EXAMPLES, script)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.lines = queue.Queue()
        threading.Thread(target=self.read, daemon=True).start()

    def read(self):
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put("")

    def ask(self, msg):
        self.proc.stdin.write(json.dumps(msg) + "\n")
        self.proc.stdin.flush()
        if msg["type"] == "heartbeat":
            return json.loads(self.lines.get(timeout=30))
        return None

    def close(self):
        """Ends the run as slotsim does; returns the exit status."""
        self.ask({"type": "end", "time_ms": 2})
        self.proc.stdin.close()
        status = self.proc.wait(timeout=30)
        self.proc.stdout.close()
        return status


def fifo_sums(p):
    """fifo.rs's sums over the queue, as it computes them at every
    heartbeat: what fifo.py keeps up to date as jobs and tasks move."""
    queue = p.queue()
    padded = [job for job in queue if job.n_reduces > 0]
    return (sum(job.unfinished_maps() for job in queue),
            sum(job.unfinished_reduces() for job in queue
                if job.reduces_schedulable(p.slowstart)),
            sum(job.n_maps for job in padded), sum(job.n_reduces for job in padded),
            len(padded))


class FakeSlotsimTest(unittest.TestCase):
    """Long random runs against the fake slotsim, both slot models."""

    def test_the_library_mirrors_slotsim_under_every_example_policy(self):
        for make in (Fifo, ShortestJobFirst, RandomPolicy, ReturnsLaunches):
            for slot_model in ("typed", "unified"):
                for seed in range(3):
                    with self.subTest(policy=make.__name__, slot_model=slot_model, seed=seed):
                        p = make()
                        fake = FakeSlotsim(self, p.handle, seed, slot_model)
                        for _ in range(1500):
                            fake.step()
                            fake.check_mirror(p)
                            if make is Fifo:
                                self.assertEqual(p.totals, fifo_sums(p))
                        self.assertGreater(fake.launches, 150)
                        self.assertTrue(fake.drain(), "jobs never finished")
                        fake.check_mirror(p)

    def test_minimal_never_launches_a_task_not_pending(self):
        for slot_model in ("typed", "unified"):
            for seed in range(4):
                with self.subTest(slot_model=slot_model, seed=seed):
                    child = ChildProcess("minimal.py")
                    fake = FakeSlotsim(self, child.ask, seed, slot_model)
                    for _ in range(1500):
                        fake.step()
                    self.assertGreater(fake.launches, 150)
                    self.assertTrue(fake.drain(), "jobs never finished")
                    self.assertEqual(child.close(), 0)


# Protocol 2.

def start2(nodes=2, slot_model="typed", map_slots=2, reduce_slots=2, memory=8192, vcores=8):
    spec = []
    for i in range(nodes):
        if slot_model == "yarn":
            cap = {"memory_mb": memory, "vcores": vcores}
        elif slot_model == "unified":
            cap = {"any": map_slots + reduce_slots}
        else:
            cap = {"map": map_slots, "reduce": reduce_slots}
        spec.append({"id": i, "rack": 0, "dc": 0, "map_slots": map_slots,
                     "reduce_slots": reduce_slots, "alive": True, "capacity": cap})
    return {"type": "start", "seq": 0, "protocol": 2, "time_ms": 0, "slot_model": slot_model,
            "slowstart": 0.05, "seed": 7, "heartbeat_ms": 3000,
            "pools": [{"name": "default", "weight": 1.0, "min_maps": 0}], "nodes": spec}


def task_started(job, kind, task, node, attempt=0, speculative=False, container=None, t=1):
    m = {"type": "task_started", "time_ms": t, "job": job, "kind": kind, "task": task,
         "attempt": attempt, "node": node, "speculative": speculative}
    if container is not None:
        m["container"] = container
    return m


def task_finished2(job, kind, task, node, attempt=0, outcome="succeeded", pending=False,
                   speculative=False, start_ms=1, t=2):
    return {"type": "task_finished", "time_ms": t, "job": job, "kind": kind, "task": task,
            "node": node, "outcome": outcome, "pending": pending, "speculative": speculative,
            "attempt": attempt, "start_ms": start_ms}


def heartbeat2(seq, node, free, running=(), requests=None):
    m = {"type": "heartbeat", "seq": seq, "time_ms": 5, "node": node, "free": free,
         "running": [{"job": j, "kind": k, "task": t, "attempt": a, "start_ms": 1}
                     for (j, k, t, a) in running]}
    if requests is not None:
        m["requests"] = requests
    return m


class Scripted2(Scripted):
    protocol = 2


class ProtocolTwoTest(unittest.TestCase):
    def test_start_is_answered_with_hello_and_a_mismatch_is_refused(self):
        p = Scripted2()
        # The client names its own file in "files", relative to the
        # working directory (slotsim's too) when below it.
        own = os.path.relpath(os.path.abspath(sp.__file__))
        self.assertEqual(p.handle(start2()), {"type": "hello", "seq": 0, "name": "Scripted2",
                                              "version": "0", "files": [own]})
        q = Scripted2()
        q.wake, q.am, q.files = "work", "policy", ("weights.npz",)
        self.assertEqual(q.handle(start2()), {"type": "hello", "seq": 0, "name": "Scripted2",
                                              "version": "0", "wake": "work", "am": "policy",
                                              "files": [own, "weights.npz"]})
        self.assertEqual(p.pools["default"]["weight"], 1.0)
        self.assertEqual(p.nodes[0].free, {"map": 2, "reduce": 2})
        with self.assertRaisesRegex(sp.ProtocolError, "external\\[protocol=1\\]"):
            Scripted().handle(start2())
        # On YARN protocol 1 is refused whatever slotsim is told: the class
        # itself must speak 2.
        with self.assertRaisesRegex(sp.ProtocolError, "set protocol = 2 in the class"):
            Scripted().handle(start2(slot_model="yarn"))

    def test_books_follow_starts_and_ends_and_are_checked(self):
        p = Scripted2()
        p.check_books = True
        feed(p, start2(), submitted(1, [[0], [1]], reduces=0))
        p.plan = [sp.Launch(1, sp.MAP, 0)]
        reply = p.handle(heartbeat2(1, 0, {"map": 2, "reduce": 2}))
        self.assertEqual(reply, {"seq": 1, "launch": [{"job": 1, "kind": "map", "task": 0}]})
        self.assertEqual(p.jobs[1].running_maps, 1)
        feed(p, task_started(1, sp.MAP, 0, 0))
        self.assertEqual(p.jobs[1].running_maps, 1, "its own launch is not counted twice")
        self.assertEqual(p.nodes[0].free, {"map": 1, "reduce": 2})
        p.plan = []
        p.handle(heartbeat2(2, 0, {"map": 1, "reduce": 2}, [(1, "map", 0, 0)]))
        with self.assertRaisesRegex(sp.ProtocolError, "the books say free"):
            p.handle(heartbeat2(3, 0, {"map": 2, "reduce": 2}, [(1, "map", 0, 0)]))
        feed(p, task_finished2(1, sp.MAP, 0, 0))
        self.assertEqual(p.nodes[0].free, {"map": 2, "reduce": 2})
        self.assertEqual((p.jobs[1].running_maps, p.jobs[1].maps_done), (0, 1))
        self.assertEqual(p.attempts, {})

    def test_a_speculative_copy_is_counted_while_it_runs(self):
        p = Scripted2()
        feed(p, start2(), submitted(1, [[0]], reduces=0),
             task_started(1, sp.MAP, 0, 0), task_started(1, sp.MAP, 0, 1, 1, True))
        self.assertEqual(p.jobs[1].running_maps, 2)
        self.assertEqual(len(p.attempts_of(1, sp.MAP, 0)), 2)
        feed(p, task_finished2(1, sp.MAP, 0, 1, 1, speculative=True),
             task_finished2(1, sp.MAP, 0, 0, 0, outcome="killed"))
        self.assertEqual((p.jobs[1].running_maps, p.jobs[1].maps_done), (0, 1))

    def test_preempt_frees_the_slot_for_this_heartbeats_launches(self):
        p = Scripted2()
        feed(p, start2(map_slots=1), submitted(1, [[0], [0]], reduces=0),
             task_started(1, sp.MAP, 0, 0))

        def decide(node, free, running):
            self.assertEqual(free.map, 0)
            p.preempt(p.attempts[(1, "map", 0, 0)])
            self.assertEqual(free.map, 1)
            self.assertEqual(p.jobs[1].map_states[0], sp.PENDING)
            p.launch(1, sp.MAP, 1, "mine")
            with self.assertRaises(sp.LaunchError):
                p.preempt((1, "map", 0, 0))

        p.heartbeat = decide
        reply = p.handle(heartbeat2(1, 0, {"map": 0, "reduce": 2}, [(1, "map", 0, 0)]))
        self.assertEqual(reply["preempt"], [{"job": 1, "kind": "map", "task": 0, "attempt": 0}])
        self.assertEqual(launched(reply), [(1, "map", 1)])
        self.assertEqual(p.jobs[1].running_maps, 1)
        feed(p, task_finished2(1, sp.MAP, 0, 0, outcome="killed", pending=True),
             task_started(1, sp.MAP, 1, 0))
        self.assertEqual(p.jobs[1].running_maps, 1, "the kill was counted once")
        self.assertEqual(p.nodes[0].free, {"map": 0, "reduce": 2})

    def test_speculate_needs_one_attempt_elsewhere_and_room(self):
        p = Scripted2()
        feed(p, start2(), submitted(1, [[0], [1]], reduces=0), task_started(1, sp.MAP, 0, 0))
        calls = []

        def decide(node, free, running):
            if node.id == 0:
                with self.assertRaisesRegex(sp.LaunchError, "runs on node 0 already"):
                    p.speculate(1, sp.MAP, 0)
            else:
                p.speculate(1, sp.MAP, 0, "mine/copy")
                with self.assertRaisesRegex(sp.LaunchError, "0 running attempts"):
                    p.speculate(1, sp.MAP, 1)
            calls.append(node.id)

        p.heartbeat = decide
        p.handle(heartbeat2(1, 0, {"map": 1, "reduce": 2}, [(1, "map", 0, 0)]))
        reply = p.handle(heartbeat2(2, 1, {"map": 2, "reduce": 2}))
        self.assertEqual(reply["speculate"], [{"job": 1, "kind": "map", "task": 0,
                                               "rule": "mine/copy"}])
        self.assertEqual(calls, [0, 1])

    def test_yarn_launches_answer_requests_in_their_containers(self):
        p = Scripted2()
        job = submitted(1, [[0], [0], [0]], reduces=1)
        c = {"memory_mb": 1024, "vcores": 1}
        job["job"]["asks"] = {"map": c, "reduce": c, "am": {"memory_mb": 2048, "vcores": 1}}
        feed(p, start2(slot_model="yarn", memory=4096),
             task_started(1, "am", 0, 0, container={"memory_mb": 2048, "vcores": 1}), job)
        self.assertEqual(p.nodes[0].free, {"memory_mb": 2048, "vcores": 7})

        def decide(node, free, running):
            self.assertEqual([a.kind for a in running], ["am"])
            p.launch(1, sp.MAP)
            with self.assertRaisesRegex(sp.LaunchError, "asks for no reduce"):
                p.launch(1, sp.REDUCE)
            with self.assertRaisesRegex(sp.LaunchError, "no room"):
                p.launch(1, sp.MAP, container={"memory_mb": 2048, "vcores": 2})
            p.launch(1, sp.MAP, container={"memory_mb": 1024, "vcores": 2})
            self.assertEqual((free.memory_mb, free.vcores), (0, 4))
            with self.assertRaisesRegex(sp.LaunchError, "asks for no map"):
                p.launch(1, sp.MAP)

        p.heartbeat = decide
        reply = p.handle(heartbeat2(1, 0, {"memory_mb": 2048, "vcores": 7}, [(1, "am", 0, 0)],
                                    requests=[{"job": 1, "map": 2, "reduce": 0}]))
        self.assertEqual(reply["launch"], [
            {"job": 1, "kind": "map", "task": 0},
            {"job": 1, "kind": "map", "task": 1, "container": {"memory_mb": 1024, "vcores": 2}}])

    def test_under_am_policy_the_policy_places_the_application_master(self):
        p = Scripted2()
        p.am = "policy"
        job = submitted(1, [[0], [0]], reduces=0, am="pending")
        c = {"memory_mb": 1024, "vcores": 1}
        job["job"]["asks"] = {"map": c, "reduce": c, "am": {"memory_mb": 2048, "vcores": 1}}
        feed(p, start2(slot_model="yarn", memory=4096), job)
        self.assertTrue(p.jobs[1].am_pending)

        def decide(node, free, running):
            with self.assertRaisesRegex(sp.LaunchError, "asks for no map"):
                p.launch(1, sp.MAP)
            p.launch_am(1)
            self.assertEqual(free.memory_mb, 2048)
            with self.assertRaisesRegex(sp.LaunchError, "does not wait for a container"):
                p.launch_am(1)
            p.call_me_at(9000)

        p.heartbeat = decide
        reply = p.handle(heartbeat2(1, 0, {"memory_mb": 4096, "vcores": 8},
                                    requests=[{"job": 1, "am": 1, "map": 0, "reduce": 0}]))
        self.assertEqual(reply, {"seq": 1, "launch": [{"job": 1, "kind": "am"}],
                                 "call_me_at": 9000})
        # Its start ends the wait; a later heartbeat's requests say so too.
        p.handle(task_started(1, "am", 0, 0, container={"memory_mb": 2048, "vcores": 1}))
        self.assertFalse(p.jobs[1].am_pending)
        p.heartbeat = lambda node, free, running: None
        reply = p.handle(heartbeat2(2, 0, {"memory_mb": 2048, "vcores": 7}, [(1, "am", 0, 0)],
                                    requests=[{"job": 1, "map": 2, "reduce": 0}]))
        self.assertNotIn("call_me_at", reply)
        self.assertFalse(p.jobs[1].am_pending)

    def test_a_heartbeats_progress_is_kept_per_attempt(self):
        p = Scripted2()
        feed(p, start2(), submitted(1, [[0]], reduces=0), task_started(1, sp.MAP, 0, 0))
        beat = heartbeat2(1, 0, {"map": 1, "reduce": 2}, [(1, sp.MAP, 0, 0)])
        beat["running"][0]["progress"] = 0.25
        p.heartbeat = lambda node, free, running: None
        p.handle(beat)
        self.assertEqual(p.progress, {(1, sp.MAP, 0, 0): 0.25})
        p.handle(task_finished2(1, sp.MAP, 0, 0))
        self.assertEqual(p.progress, {})


if __name__ == "__main__":
    unittest.main()


SLOTSIM = os.environ.get("SLOTSIM")
QUICKSTART = os.path.join(os.path.dirname(CLIENT), "..", "scenarios", "quickstart.toml")


def fifo2():
    p = Fifo()
    p.protocol = 2
    return p


@unittest.skipUnless(SLOTSIM, "SLOTSIM names the slotsim binary (the Rust tests set it)")
class ServeTest(unittest.TestCase):
    """`slotsim serve` driven from Python (`sp.Serve`)."""

    def test_episodes_repeat_byte_for_byte_across_resets_and_processes(self):
        first, again = [], []
        with sp.Serve(SLOTSIM, lines=first) as s:
            end = s.episode(fifo2(), QUICKSTART, seed=3)
            self.assertEqual(end["reason"], "finished")
            n = len(first)
            s.episode(fifo2(), QUICKSTART, seed=3)
        self.assertEqual(first[:n], first[n:])
        with sp.Serve(SLOTSIM, lines=again) as s:
            s.episode(fifo2(), QUICKSTART, seed=3)
        self.assertEqual(first[:n], again)
        # Another seed is another run.
        other = []
        with sp.Serve(SLOTSIM, lines=other) as s:
            s.episode(fifo2(), QUICKSTART, seed=4)
        self.assertNotEqual(first[:n], other)

    def test_a_signal_ends_the_episode_with_partial_outputs_and_the_process(self):
        import signal
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "ep.json")
            s = sp.Serve(SLOTSIM)
            p = fifo2()
            beats = []
            inner = p.heartbeat

            def heartbeat(node, free, running):
                beats.append(node)
                if len(beats) == 200:
                    # Ctrl-C reaches slotsim between two replies.
                    os.kill(s.proc.pid, signal.SIGINT)
                    time.sleep(0.3)
                return inner(node, free, running)

            p.heartbeat = heartbeat
            end = s.episode(p, QUICKSTART, seed=1, outputs={"json": out})
            self.assertEqual(end["reason"], "stopped")
            self.assertEqual(s.proc.wait(timeout=10), 130)
            s.proc.stdout.close()
            s.proc.stdin.close()
            with open(out) as f:
                run = json.load(f)
            self.assertTrue(run["partial"])
            self.assertEqual(run["stopped_at_s"], end["time_ms"] / 1000)

    def test_a_bad_reset_is_an_error_line_and_the_process_goes_on(self):
        with sp.Serve(SLOTSIM) as s:
            for kwargs, needle in (
                ({"scenario": "no-such.toml"}, "no-such.toml"),
                ({"scenario": QUICKSTART, "set": {"network.nic_mbps": "x"}}, "nic_mbps"),
                ({"scenario": QUICKSTART, "until": "soon"}, "until"),
                ({"scenario": QUICKSTART, "outputs": {"json": "-"}}, "stdout"),
            ):
                with self.assertRaises(sp.ServeError) as e:
                    s.episode(fifo2(), **kwargs)
                self.assertIn(needle, str(e.exception))
            end = s.episode(fifo2(), QUICKSTART, until="60s")
            self.assertEqual((end["reason"], end["time_ms"]), ("until", 60000))
            self.assertEqual(s.close(), 0)

    def test_a_bad_reply_ends_the_episode_not_the_process(self):
        class Wrong(sp.Policy):
            protocol = 2

            def handle(self, msg):
                # A map of a job that does not exist.
                if msg.get("type") == "heartbeat":
                    return {"type": "assign", "seq": msg.get("seq"), "launch": [{"job": 999}]}
                return super().handle(msg)

        with sp.Serve(SLOTSIM) as s:
            with self.assertRaises(sp.ServeError) as e:
                s.episode(Wrong(), QUICKSTART)
            self.assertIn("heartbeat", str(e.exception))
            end = s.episode(fifo2(), QUICKSTART)
            self.assertEqual(end["reason"], "finished")

    def test_an_episode_is_the_run_the_policy_would_make_headless(self):
        with tempfile.TemporaryDirectory() as d:
            mine = os.path.join(d, "serve.json")
            with sp.Serve(SLOTSIM) as s:
                s.episode(fifo2(), QUICKSTART, seed=3, outputs={"json": mine})
            theirs = os.path.join(d, "fifo.json")
            subprocess.run([SLOTSIM, "run", QUICKSTART, "--seed", "3", "--headless",
                            "--policy", "fifo", "--json", theirs],
                           check=True, stdout=subprocess.DEVNULL)
            with open(mine) as f:
                a = json.load(f)
            with open(theirs) as f:
                b = json.load(f)
            self.assertEqual(a["policy"], "external:caller")
            self.assertEqual(a["jobs"], b["jobs"])
            self.assertEqual(a["network"], b["network"])

"""Hadoop 1.x JobQueueTaskScheduler, as slotsim's built-in `fifo` runs it
(src/sched/fifo.rs, mirrored step by step), so that it reproduces the
built-in's runs exactly when the scenario's speculation is off. (With it
on, slotsim speculates for an external policy after its heartbeat rather
than inside fifo's job lookup, and these counts leave its copies out.)

Run it from the repository's root:

    slotsim run scenarios/quickstart.toml --policy "external:python3 clients/python/examples/fifo.py"

Options: --capacity-pad F (mapred.jobtracker.taskalloc.capacitypad, 0.01);
--protocol 2 to speak protocol 2 (run it as external[protocol=2]:...), which
gives the same runs.
"""

import argparse
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from slotsim_policy import MAP, REDUCE, Level, Policy, run  # noqa: E402

# Hadoop's MIN_CLUSTER_SIZE_FOR_PADDING.
MIN_CLUSTER_SIZE_FOR_PADDING = 3


class Fifo(Policy):
    """Jobs in priority, then submit order; a node takes maps up to the
    cluster's map load factor times its slots (at most one off-rack map),
    and at most one reduce per heartbeat."""

    def __init__(self, capacity_pad=0.01):
        super().__init__()
        self.pad = capacity_pad
        # The queue's loads and its padding needs, kept as sums updated when
        # a job arrives, a task of it ends, or it leaves, rather than summed
        # over the queue at every heartbeat as fifo.rs does: the same
        # numbers, at O(1) a heartbeat. Per job: (map load, reduce load,
        # maps and reduces padding counts, 1 if it counts for padding).
        self.shares = {}
        self.totals = (0, 0, 0, 0, 0)
        # Jobs with a pending reduce that slowstart lets launch: the reduce
        # loop looks at these rather than walk the whole queue.
        self.reduce_ready = set()

    def recount(self, job_id):
        """Brings job `job_id`'s part of the totals up to date."""
        old = self.shares.pop(job_id, (0, 0, 0, 0, 0))
        new = (0, 0, 0, 0, 0)
        job = self.jobs.get(job_id)
        if job is not None and not job.all_succeeded:
            reduces = job.unfinished_reduces() if job.reduces_schedulable(self.slowstart) else 0
            # exceededPadding counts only jobs with reduces.
            padded = job.n_reduces > 0
            new = (job.unfinished_maps(), reduces, job.n_maps * padded,
                   job.n_reduces * padded, int(padded))
            self.shares[job_id] = new
        if new[1] and job.pending_reduces:
            self.reduce_ready.add(job_id)
        else:
            self.reduce_ready.discard(job_id)
        self.totals = tuple(t - o + n for t, o, n in zip(self.totals, old, new))

    def on_job_submitted(self, job):
        self.recount(job.id)

    def on_task_finished(self, msg):
        self.recount(msg["job"])

    def on_job_finished(self, msg):
        self.recount(msg["job"])

    def cluster_slots(self, kind):
        """Live slots for `kind`: its own type's (typed), or every container."""
        if self.unified:
            return self.total_slots
        return self.total_map_slots if kind == MAP else self.total_reduce_slots

    def node_slots(self, node, kind, running):
        """The node's slots for `kind` and its attempts of that kind. On
        unified clusters each kind's cap is over all the node's containers:
        counting the other kind against it would let running reduces lock
        out their own maps."""
        slots = node.map_slots if kind == MAP else node.reduce_slots
        if self.unified:
            slots = node.map_slots + node.reduce_slots
        return slots, running.map if kind == MAP else running.reduce

    def load_factor(self, load, kind):
        slots = self.cluster_slots(kind)
        return load / slots if slots > 0 else 0.0

    def exceeded_padding(self, kind, tracker_slots):
        """`exceededPadding`: beyond the first job, leave a little room for
        failures and speculation. Hadoop walks the queue's jobs with
        reduces, adding each one's tasks to `needed`, and answers true at
        the first whose padding fills the cluster; the padding only grows
        with `needed`, so that is the test with every such job's tasks
        counted, if there is any such job."""
        _, _, needed_maps, needed_reduces, padded_jobs = self.totals
        if padded_jobs == 0:
            return False
        total_tasks = self.running_maps if kind == MAP else self.running_reduces
        needed = needed_maps if kind == MAP else needed_reduces
        padding = 0
        if self.live_nodes > MIN_CLUSTER_SIZE_FOR_PADDING:
            padding = min(tracker_slots, int(needed * self.pad))
        return total_tasks + padding >= self.cluster_slots(kind)

    def inspection(self, queue, map_load, reduce_load):
        """What fifo.rs's inspect() shows, from the same loads."""
        jobs = {}
        for order, job in enumerate(queue):
            jobs[job.name] = {
                "order": order,
                "priority": job.priority,
                "pending_maps": job.maps_pending,
                "running_map": job.running_maps,
                "running_reduce": job.running_reduces,
            }
        cluster = {
            "map_load_factor": map_load / max(self.cluster_slots(MAP), 1),
            "reduce_load_factor": reduce_load / max(self.cluster_slots(REDUCE), 1),
        }
        return {"cluster": cluster, "jobs": jobs}

    def heartbeat(self, node, free, running):
        queue = self.queue()
        map_load, reduce_load = self.totals[0], self.totals[1]
        if self.inspecting:
            self.inspect = self.inspection(queue, map_load, reduce_load)

        # Maps: up to the load-factor cap; at most one off-rack map.
        slots, busy = self.node_slots(node, MAP, running)
        cap = min(math.ceil(self.load_factor(map_load, MAP) * slots), slots)
        avail = min(max(cap - busy, 0), free.map)
        exceeded = avail > 0 and self.exceeded_padding(MAP, slots)
        self.assign_maps(node, free, queue, avail, exceeded)

        # Reduces: never more than one per heartbeat.
        slots, busy = self.node_slots(node, REDUCE, running)
        cap = min(math.ceil(self.load_factor(reduce_load, REDUCE) * slots), slots)
        if min(max(cap - busy, 0), 1, free.reduce) > 0:
            self.assign_reduce(queue, self.exceeded_padding(REDUCE, slots))

    def assign_reduce(self, queue, exceeded):
        """fifo.rs walks the queue's jobs with reduces: the first whose
        reduce may launch gets the slot, but past the padding only the
        first such job is tried. Jobs whose reduces may not launch change
        nothing on the way, so only the ready ones are looked at, in queue
        order."""
        if exceeded:
            first = next((job for job in queue if job.n_reduces > 0), None)
            candidates = [first] if first is not None else []
        else:
            candidates = sorted((self.jobs[i] for i in self.reduce_ready),
                                key=lambda job: job._queue_key)
        for job in candidates:
            if job.id in self.reduce_ready and self.reduce_allowed(job):
                self.launch(job, REDUCE, job.find_reduce(), "fifo/reduce")
                if not job.pending_reduces:
                    self.reduce_ready.discard(job.id)
                return

    def assign_maps(self, node, free, queue, avail, exceeded):
        """Up to `avail` maps, each from the first job in the queue with a
        node- or rack-local map; a job with only farther maps gives one and
        ends the heartbeat's maps, as does any map past the padding. (Jobs
        without a pending map give nothing on the way: they are left out.)"""
        if avail == 0:
            return
        jobs = [job for job in queue if job.pending_maps]
        for _ in range(avail):
            if free.map == 0:
                return
            for job in jobs:
                found = job.find_map(node, Level.RACK)
                if found:
                    self.launch(job, MAP, found[0], "fifo/local")
                    if exceeded:
                        return
                    break
                found = job.find_map(node, Level.ANY)
                if found:
                    self.launch(job, MAP, found[0], "fifo/non-local")
                    return
            else:
                return


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--capacity-pad", type=float, default=0.01,
                        help="mapred.jobtracker.taskalloc.capacitypad (default 0.01)")
    parser.add_argument("--protocol", type=int, choices=(1, 2), default=1,
                        help="the protocol version to speak (default 1)")
    parser.add_argument("--wake", choices=("every", "work"), default="every",
                        help="protocol 2: be asked on every heartbeat, or only where there is work")
    args = parser.parse_args()
    policy = Fifo(args.capacity_pad)
    policy.protocol = args.protocol
    policy.wake = args.wake
    policy.name, policy.version = "hadoop-fifo", "1.0.3"
    run(policy)


if __name__ == "__main__":
    main()

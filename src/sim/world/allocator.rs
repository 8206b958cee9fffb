//! The MapReduce ApplicationMaster's side of a run under
//! ApplicationMasters (YARN, docs/yarn.md): when the containers a
//! scheduler allocates reach their job's AM, and the AM's allocator
//! (Hadoop 2.7.3's `RMContainerAllocator`): reduce slowstart and ramp-up,
//! and reduce preemption when maps starve.
//!
//! Which containers go where is the YARN policies' business
//! (`sched::yarn`); the engine keeps the books they read (what each node,
//! job and pool holds: `World::book_ask`).

use super::World;
use crate::model::{yarn_defaults, JobId, Ms, Resource};
use crate::sim::job::AttemptId;

impl World {
    /// How long a container allocated now for job `j` waits for the job's
    /// AM to take it: until the AM's next allocate call, which comes every
    /// `yarn.app.mapreduce.am.scheduler.heartbeat.interval-ms` from its
    /// first (a call at this very instant came before the NodeManager's
    /// heartbeat that allocated the container). 0 for a job without an AM
    /// container (AMs sized 0, as worked examples have them).
    pub(super) fn am_handoff(&self, j: JobId) -> Ms {
        let Some(ready) = self.jobs[j as usize]
            .am_ready
            .filter(|_| self.cfg.tasks.am.is_some_and(|am| !am.ask.is_zero()))
        else {
            return 0;
        };
        let every = yarn_defaults::AM_HEARTBEAT;
        let k = self.now.saturating_sub(ready) / every + 1;
        ready + k * every - self.now
    }

    /// ApplicationMasters running now (starting up or managing their job).
    pub fn running_ams(&self) -> usize {
        self.job_tasks.running().len()
    }
}

/// `yarn.app.mapreduce.am.job.reduce.rampup.limit`.
const RAMPUP_LIMIT: f32 = 0.5;
/// `yarn.app.mapreduce.am.job.reduce.preemption.limit`.
const PREEMPTION_LIMIT: f32 = 0.5;
/// `mapreduce.job.reducer.unconditional-preempt.delay.sec`.
const UNCONDITIONAL_PREEMPT_MS: Ms = 300_000;

/// `ResourceCalculatorUtils.computeAvailableContainers`: containers of
/// `req` in `avail` (components may be negative; Java's int division).
fn containers(avail: Resource, req: Resource, cpu: bool) -> i64 {
    let mem = avail.mb() / req.mb().max(1);
    if cpu {
        mem.min(avail.vcores() / req.vcores().max(1))
    } else {
        mem
    }
}

/// `ResourceCalculatorUtils.divideAndCeilContainers`.
fn ceil_containers(need: Resource, per: Resource, cpu: bool) -> i64 {
    let div = |a: i64, b: i64| if b == 0 { 0 } else { (a + b - 1) / b };
    let mem = div(need.mb(), per.mb());
    if cpu {
        mem.max(div(need.vcores(), per.vcores()))
    } else {
        mem
    }
}

impl World {
    /// Job `j`'s AM has made its first allocate call: it calls every
    /// `AM_HEARTBEAT` from now while its job runs.
    pub(super) fn am_started(&mut self, j: JobId) {
        self.schedule(self.now, crate::sim::calendar::Ev::AmHeartbeat(j));
    }

    /// One of job `j`'s AM heartbeats (`RMContainerAllocator.heartbeat`):
    /// with the headroom the scheduler reports, preempt reduces if maps
    /// starve (`preemptReducesIfNeeded`), else ramp reduce requests up or
    /// down (`scheduleReduces`). Hadoop 2.7.3's rules, step by step
    /// (docs/yarn.md).
    pub(in crate::sim) fn am_heartbeat(
        &mut self,
        j: JobId,
        headroom: crate::sim::policy::Headroom,
    ) {
        let every = yarn_defaults::AM_HEARTBEAT;
        let job = &self.jobs[j as usize];
        let Some(ready) = job.am_ready else { return };
        if job.is_done() || !job.runnable || !(self.now - ready).is_multiple_of(every) {
            // Its job is over, or its AM was lost (a stale call).
            return;
        }
        self.schedule(self.now + every, crate::sim::calendar::Ev::AmHeartbeat(j));
        if !self.preempt_reduces_if_needed(j, headroom) {
            self.schedule_reduces(j, headroom);
        }
    }

    /// Resources the job holds or may get: headroom plus its assigned
    /// maps' and reduces' requests (`getResourceLimit`).
    fn resource_limit(&self, j: JobId, headroom: Resource) -> Resource {
        let job = &self.jobs[j as usize];
        let maps = job.map_ask.times(f64::from(job.maps_running));
        let reduces = job.reduce_ask.times(f64::from(job.reduces_running));
        headroom + maps + reduces
    }

    /// `preemptReducesIfNeeded`, applied: whether it preempted (then no
    /// ramp-up this heartbeat).
    fn preempt_reduces_if_needed(&mut self, j: JobId, h: crate::sim::policy::Headroom) -> bool {
        let job = &self.jobs[j as usize];
        let Some(n) = reduces_to_preempt(&PreemptState {
            reduces: job.n_reduces(),
            assigned_maps: job.maps_running,
            scheduled_maps: job.maps_pending,
            // Maps are asked for when the AM starts (or again after a
            // failure): the oldest ask is as old as the AM.
            waited: self.now - job.am_ready.unwrap_or(self.now),
            headroom: h.available,
            limit: self.resource_limit(j, h.available),
            map: job.map_ask,
            reduce: job.reduce_ask,
            cpu: h.cpu,
        }) else {
            return false;
        };
        self.preempt_reducers(j, n);
        true
    }

    /// `preemptReducer`: every scheduled reduce goes back to the AM, and
    /// `n` running reduces, least advanced first, are killed.
    fn preempt_reducers(&mut self, j: JobId, n: u32) {
        let job = &mut self.jobs[j as usize];
        job.reduce_asks = 0;
        // Least progress first (copy, then sort and reduce), ties in
        // assignment order: Hadoop sorts its assigned reduces stably.
        let mut running: Vec<(u8, Ms, AttemptId)> = job
            .running_reducers
            .iter()
            .map(|&a| {
                let at = &self.attempts[a as usize];
                let stage = match at.phase {
                    crate::sim::job::Phase::Startup => 0,
                    crate::sim::job::Phase::Shuffle => 1,
                    _ => 2,
                };
                (stage, Ms::MAX - at.start, a)
            })
            .collect();
        running.sort_by_key(|&(stage, age, _)| (stage, age));
        for &(_, _, a) in running.iter().take(n as usize) {
            self.preempt(a);
        }
    }

    /// `scheduleReduces`, applied: moves reduces between the AM's pending
    /// list and the requests the scheduler sees.
    fn schedule_reduces(&mut self, j: JobId, h: crate::sim::policy::Headroom) {
        let limit = self.resource_limit(j, h.available);
        let slowstart = self.cfg.slowstart;
        let job = &mut self.jobs[j as usize];
        let pending = job.reduces_pending.saturating_sub(job.reduce_asks);
        let (started, ramp) = ramp_reduces(&ReduceState {
            total_maps: job.n_maps(),
            completed_maps: job.maps_done,
            scheduled_maps: job.maps_pending,
            scheduled_reduces: job.reduce_asks,
            assigned_maps: job.maps_running,
            assigned_reduces: job.reduces_running,
            map: job.map_ask,
            reduce: job.reduce_ask,
            pending_reduces: pending,
            started: job.reduces_started,
            limit,
            slowstart,
            cpu: h.cpu,
        });
        job.reduces_started = started;
        match ramp {
            Ramp::Up(n) => job.reduce_asks += n,
            Ramp::Down(n) => job.reduce_asks -= n,
            Ramp::Stay => {}
        }
    }
}

/// What `RMContainerAllocator.scheduleReduces` decides from.
#[derive(Clone, Copy, Debug)]
struct ReduceState {
    total_maps: u32,
    completed_maps: u32,
    scheduled_maps: u32,
    scheduled_reduces: u32,
    assigned_maps: u32,
    assigned_reduces: u32,
    map: Resource,
    reduce: Resource,
    pending_reduces: u32,
    /// Slowstart has been met before (`getIsReduceStarted`).
    started: bool,
    /// `getResourceLimit()`: headroom plus assigned containers.
    limit: Resource,
    slowstart: f64,
    cpu: bool,
}

/// Reduce requests to add to what the scheduler sees, or take back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ramp {
    Up(u32),
    Down(u32),
    Stay,
}

/// `RMContainerAllocator.scheduleReduces` (Hadoop 2.7.3), line by line:
/// whether reduces have started, and the ramp.
fn ramp_reduces(s: &ReduceState) -> (bool, Ramp) {
    if s.pending_reduces == 0 {
        return (s.started, Ramp::Stay);
    }
    if !s.started && s.completed_maps < (s.slowstart * f64::from(s.total_maps)).ceil() as u32 {
        return (false, Ramp::Stay);
    }
    // All maps assigned: every remaining reduce, whatever the headroom.
    if s.scheduled_maps == 0 {
        return (true, Ramp::Up(s.pending_reduces));
    }
    let done = if s.total_maps == 0 {
        1.0f32
    } else {
        s.completed_maps as f32 / s.total_maps as f32
    };
    let maps_net = s.map.times(f64::from(s.scheduled_maps + s.assigned_maps));
    let reduces_net = s
        .reduce
        .times(f64::from(s.scheduled_reduces + s.assigned_reduces));
    let ideal_reduce = s.limit.times(f64::from(done.min(RAMPUP_LIMIT)));
    let ideal_map = s.limit - ideal_reduce;
    // Room left by the maps goes to reduces.
    let enough_for_maps =
        containers(ideal_map, s.map, s.cpu) >= i64::from(s.scheduled_maps + s.assigned_maps);
    let final_reduce = if enough_for_maps {
        ideal_reduce + (ideal_map - maps_net)
    } else {
        ideal_reduce
    };
    let ramp = containers(final_reduce - reduces_net, s.reduce, s.cpu);
    let r = if ramp > 0 {
        Ramp::Up((ramp as u32).min(s.pending_reduces))
    } else if ramp < 0 {
        Ramp::Down(((-ramp) as u32).min(s.scheduled_reduces))
    } else {
        Ramp::Stay
    };
    (true, r)
}

/// What `RMContainerAllocator.preemptReducesIfNeeded` decides from.
#[derive(Clone, Copy, Debug)]
struct PreemptState {
    reduces: u32,
    assigned_maps: u32,
    scheduled_maps: u32,
    /// How long the oldest scheduled map has waited.
    waited: Ms,
    headroom: Resource,
    limit: Resource,
    map: Resource,
    reduce: Resource,
    cpu: bool,
}

/// `preemptReducesIfNeeded` and `preemptReducer` (Hadoop 2.7.3): `None`
/// if no preemption, else how many running reduces to kill (scheduled
/// ones are all taken back). Maps hang when no map runs, and either the
/// oldest has waited past the unconditional delay or the headroom holds
/// no map; then at least one map's worth, up to `PREEMPTION_LIMIT` of the
/// job's resource limit, at most every hanging map's worth.
fn reduces_to_preempt(s: &PreemptState) -> Option<u32> {
    if s.reduces == 0 || s.assigned_maps > 0 || s.scheduled_maps == 0 {
        return None;
    }
    if s.waited <= UNCONDITIONAL_PREEMPT_MS && containers(s.headroom, s.map, s.cpu) > 0 {
        return None;
    }
    // `mapreduce.job.reducer.preempt.delay.sec` 0: every scheduled map hangs.
    let hanging = s.scheduled_maps;
    let one = ceil_containers(s.map, s.reduce, s.cpu);
    let cap = ceil_containers(s.limit.times(f64::from(PREEMPTION_LIMIT)), s.reduce, s.cpu);
    let all = ceil_containers(s.map.times(f64::from(hanging)), s.reduce, s.cpu);
    Some(one.max(cap).min(all).max(0) as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hadoop 2.7.3's TestRMContainerAllocator.testReduceScheduling, call
    /// by call (its mock never remembers that reduces started).
    #[test]
    fn hadoop_test_reduce_scheduling() {
        let base = ReduceState {
            total_maps: 10,
            completed_maps: 1,
            scheduled_maps: 10,
            scheduled_reduces: 0,
            assigned_maps: 2,
            assigned_reduces: 0,
            map: Resource::memory(1024, 1),
            reduce: Resource::memory(2048, 1),
            pending_reduces: 4,
            started: false,
            limit: Resource::memory(0, 0),
            slowstart: 0.2,
            cpu: false,
        };
        // Slow start: 1 of 10 maps done, 2 needed.
        assert_eq!(ramp_reduces(&base), (false, Ramp::Stay));
        // Still so when every map is assigned but not done.
        let all_assigned = ReduceState {
            scheduled_maps: 0,
            assigned_maps: 9,
            ..base
        };
        assert_eq!(ramp_reduces(&all_assigned), (false, Ramp::Stay));
        let three = ReduceState {
            completed_maps: 3,
            ..base
        };
        assert!(ramp_reduces(&three).0, "slowstart met");
        // Ramp-up with a limit of 100 GB.
        let up = ReduceState {
            limit: Resource::memory(100 * 1024, 100),
            ..three
        };
        assert!(matches!(ramp_reduces(&up).1, Ramp::Up(_)));
        // Ramp-down with 10 GB and 3 reduces scheduled.
        let down = ReduceState {
            scheduled_reduces: 3,
            limit: Resource::memory(10 * 1024, 10),
            ..three
        };
        assert!(matches!(ramp_reduces(&down).1, Ramp::Down(_)));
        // Two scheduled maps and two assigned reduces: down again.
        let down2 = ReduceState {
            scheduled_maps: 2,
            assigned_reduces: 2,
            ..down
        };
        assert!(matches!(ramp_reduces(&down2).1, Ramp::Down(_)));
        // CPU counted: enough memory, not enough vcores; then the reverse.
        let cpu = ReduceState {
            scheduled_maps: 10,
            assigned_reduces: 0,
            limit: Resource::memory(100 * 1024, 5),
            cpu: true,
            ..down
        };
        assert!(matches!(ramp_reduces(&cpu).1, Ramp::Down(_)));
        let mem = ReduceState {
            limit: Resource::memory(10 * 1024, 100),
            ..cpu
        };
        assert!(matches!(ramp_reduces(&mem).1, Ramp::Down(_)));
    }

    /// TestRMContainerAllocator.testPreemptReducers: a 2048 MB node holding
    /// the AM (1024 MB) and one reduce; one map of 1024 MB scheduled, none
    /// assigned, no headroom: the reduce is preempted.
    #[test]
    fn hadoop_test_preempt_reducers() {
        let s = PreemptState {
            reduces: 1,
            assigned_maps: 0,
            scheduled_maps: 1,
            waited: 1000,
            headroom: Resource::ZERO,
            limit: Resource::memory(1024, 1),
            map: Resource::memory(1024, 1),
            reduce: Resource::memory(1024, 1),
            cpu: false,
        };
        assert_eq!(reduces_to_preempt(&s), Some(1));
        // A map fits the headroom: none, unless maps waited past 300 s.
        let room = PreemptState {
            headroom: Resource::memory(1024, 1),
            ..s
        };
        assert_eq!(reduces_to_preempt(&room), None);
        let late = PreemptState {
            waited: 300_001,
            ..room
        };
        assert_eq!(reduces_to_preempt(&late), Some(1));
        // A running map: none.
        let running = PreemptState {
            assigned_maps: 1,
            ..s
        };
        assert_eq!(reduces_to_preempt(&running), None);
        // Ten hanging maps, a 20 GB limit: up to half the limit's reduces.
        let many = PreemptState {
            scheduled_maps: 10,
            limit: Resource::memory(20 * 1024, 20),
            ..s
        };
        assert_eq!(reduces_to_preempt(&many), Some(10));
        let few = PreemptState {
            scheduled_maps: 3,
            ..many
        };
        assert_eq!(reduces_to_preempt(&few), Some(3));
    }

    #[test]
    fn all_maps_assigned_schedules_every_remaining_reduce() {
        let s = ReduceState {
            total_maps: 4,
            completed_maps: 4,
            scheduled_maps: 0,
            scheduled_reduces: 1,
            assigned_maps: 0,
            assigned_reduces: 0,
            map: Resource::memory(1024, 1),
            reduce: Resource::memory(1024, 1),
            pending_reduces: 3,
            started: true,
            limit: Resource::memory(0, 0),
            slowstart: 0.05,
            cpu: false,
        };
        assert_eq!(ramp_reduces(&s), (true, Ramp::Up(3)));
    }
}

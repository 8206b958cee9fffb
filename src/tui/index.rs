//! What the views draw from the run's past, kept up to date incrementally
//! after every update so that a frame never scans every attempt or every
//! notable: each slot's attempts in start order, each node's dead spans,
//! and utilisation and queue-length samples over the whole run.

use crate::model::Ms;
use crate::sim::share::Rows;
use crate::sim::Notable;
use crate::sim::{AttemptId, RunView};

/// At most this many samples are kept: past it, neighbours merge and the
/// resolution halves, so the whole run always fits.
const SAMPLES: usize = 4096;

/// Utilisation and queue length over the run, one sample per `res`
/// milliseconds from time 0: sample `k` is the state at `k × res` (a
/// merged sample, the mean of the ones it replaced).
#[derive(Clone, Debug)]
pub struct History {
    res: Ms,
    /// Busy slots as a fraction of live ones, and tasks waiting to run.
    samples: Vec<(f32, f32)>,
}

impl History {
    /// About how many bytes it takes.
    pub fn footprint(&self) -> usize {
        self.samples.len() * 8
    }
}

impl Default for History {
    fn default() -> Self {
        History {
            res: 1000,
            samples: Vec::new(),
        }
    }
}

/// The state a sample records: busy slots over live slots, queued tasks.
pub fn state(w: RunView<'_>) -> (f32, f32) {
    let live = w.metrics().live_slots.max(1.0);
    let busy = if w.metrics().mem_live > 0.0 {
        w.metrics().mem_used / w.metrics().mem_live
    } else {
        w.metrics().running.max(0) as f64 / live
    };
    let queued: u32 = w
        .active()
        .iter()
        .map(|&j| w.job(j).maps_pending + w.job(j).reduces_pending)
        .sum();
    (busy as f32, queued as f32)
}

impl History {
    /// The run is at `w.now` and its next event is at `t`: every sample
    /// time before `t` not yet recorded takes the state as it stands (it
    /// holds until then). O(1) unless a sample time is crossed.
    pub fn fill_before(&mut self, t: Ms, w: RunView<'_>) {
        if (self.samples.len() as Ms) * self.res >= t {
            return;
        }
        let s = state(w);
        while (self.samples.len() as Ms) * self.res < t {
            self.samples.push(s);
            if self.samples.len() == SAMPLES {
                self.halve();
            }
        }
    }

    fn halve(&mut self) {
        let merged: Vec<(f32, f32)> = self
            .samples
            .chunks(2)
            .map(|c| {
                let n = c.len() as f32;
                (
                    c.iter().map(|s| s.0).sum::<f32>() / n,
                    c.iter().map(|s| s.1).sum::<f32>() / n,
                )
            })
            .collect();
        self.samples = merged;
        self.res *= 2;
    }

    /// One value per column of `step` ms from time 0 up to `w.now`
    /// (`cols` at most): the mean of the samples in the column, the
    /// current state for columns past the last sample.
    pub fn columns(&self, step: Ms, cols: usize, w: RunView<'_>) -> Vec<(f32, f32)> {
        let now_col = ((w.now() / step.max(1)) as usize).min(cols.saturating_sub(1));
        let cur = state(w);
        (0..=now_col)
            .map(|c| {
                let lo = (c as Ms * step).div_ceil(self.res) as usize;
                let hi =
                    (((c as Ms + 1) * step).div_ceil(self.res) as usize).min(self.samples.len());
                if lo >= self.samples.len() {
                    return cur;
                }
                let hi = hi.max(lo + 1);
                let part = &self.samples[lo..hi];
                let n = part.len() as f32;
                (
                    part.iter().map(|s| s.0).sum::<f32>() / n,
                    part.iter().map(|s| s.1).sum::<f32>() / n,
                )
            })
            .collect()
    }
}

/// The run's past, indexed for drawing.
#[derive(Clone, Debug, Default)]
pub struct RunIndex {
    attempts_seen: usize,
    job_tasks_seen: usize,
    /// Each node's first lane in `lanes`.
    pub lane_base: Vec<usize>,
    /// Per lane (every slot of every node, in node order), its attempts in
    /// start order: each lane shared with the checkpoints until it grows
    /// (`sim::share`), so a checkpoint of the views copies no lane.
    pub lanes: Rows<Vec<AttemptId>>,
    /// Per node, the spans it was dead: from, and until (None: still dead).
    pub down: Vec<Vec<(Ms, Option<Ms>)>>,
    /// YARN: per node, its ApplicationMasters (indices into the run's job
    /// tasks), drawn on a lane of their own after the node's containers.
    pub ams: Vec<Vec<u32>>,
    pub history: History,
}

impl RunIndex {
    /// About how many bytes a copy takes (for the checkpoints' budget).
    pub fn footprint(&self) -> usize {
        let lanes: usize = (0..self.lanes.len())
            .map(|l| self.lanes.part(l, self.lanes[l].len() * 4 + 24))
            .sum();
        let down: usize = self.down.iter().map(|d| d.len() * 24 + 24).sum();
        let ams: usize = self.ams.iter().map(|a| a.len() * 4 + 24).sum();
        lanes + down + ams + self.history.footprint()
    }

    pub fn new(w: RunView<'_>) -> RunIndex {
        // On YARN each node has one more lane, its ApplicationMasters'.
        let am_lane = usize::from(Self::has_am_lane(w));
        let mut lane_base = Vec::with_capacity(w.cluster().nodes.len());
        let mut n = 0;
        for node in &w.cluster().nodes {
            lane_base.push(n);
            n += node.lanes.len() + am_lane;
        }
        let mut ix = RunIndex {
            lane_base,
            lanes: (0..n).map(|_| Vec::new()).collect(),
            down: vec![Vec::new(); w.cluster().nodes.len()],
            ams: vec![Vec::new(); w.cluster().nodes.len() * am_lane],
            ..Default::default()
        };
        ix.catch_up(w);
        ix
    }

    /// Takes in the attempts added since the last call: amortised O(new
    /// ones).
    pub fn catch_up(&mut self, w: RunView<'_>) {
        for (i, a) in w.attempts().iter().enumerate().skip(self.attempts_seen) {
            let lane = self.lane_base[a.node as usize] + a.slot as usize;
            if lane < self.lanes.len() {
                self.lanes[lane].push(i as AttemptId);
            }
        }
        self.attempts_seen = w.attempts().len();
        if !self.ams.is_empty() {
            for (i, t) in w.job_tasks().iter().enumerate().skip(self.job_tasks_seen) {
                if t.kind == crate::sim::jobtask::JobTaskKind::Am {
                    if let Some(on) = self.ams.get_mut(t.node as usize) {
                        on.push(i as u32);
                    }
                }
            }
        }
        self.job_tasks_seen = w.job_tasks().len();
    }

    /// Whether the Timeline gives each node a lane for its
    /// ApplicationMasters: on YARN, whose AMs hold containers.
    pub fn has_am_lane(w: RunView<'_>) -> bool {
        w.capacity().gauge() == crate::model::Gauge::Memory
    }

    /// Takes in one entry of the run's journal: a node's failure or
    /// recovery opens or closes its span of being dead.
    pub fn note(&mut self, t: Ms, n: &Notable) {
        match n {
            Notable::NodeFailed { node, .. } => {
                self.down[*node as usize].push((t, None));
            }
            Notable::NodeRecovered(node) => {
                if let Some(last) = self.down[*node as usize].last_mut() {
                    if last.1.is_none() {
                        last.1 = Some(t);
                    }
                }
            }
            _ => {}
        }
    }
}

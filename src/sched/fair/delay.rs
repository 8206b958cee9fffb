//! Delay scheduling (Zaharia et al., EuroSys'10, as Hadoop 1.x's
//! FairScheduler implements it): a job skipped for a map waits; its
//! allowed locality relaxes from node to rack to anywhere as the wait
//! passes the node and rack delays; launching a map sets the level to that
//! map's locality and resets the wait.

use super::base::{FairBase, Hooks};
use crate::model::{JobId, Ms};
use crate::sim::{Locality, RunView};

/// A job's delay-scheduling state.
#[derive(Clone, Debug)]
pub struct JobInfo {
    /// Locality of the last launched map (`lastMapLocalityLevel`); NODE at first.
    pub level: Locality,
    /// `timeWaitedForLocalMap`.
    pub waited: Ms,
    pub skipped: bool,
}

impl Default for JobInfo {
    fn default() -> Self {
        JobInfo {
            level: Locality::Node,
            waited: 0,
            skipped: false,
        }
    }
}

impl<H: Hooks> FairBase<H> {
    pub(super) fn info(&mut self, j: JobId) -> &mut JobInfo {
        let i = j as usize;
        if self.info.len() <= i {
            self.info.resize(i + 1, JobInfo::default());
        }
        &mut self.info[i]
    }

    pub fn info_ref(&self, j: JobId) -> JobInfo {
        self.info.get(j as usize).cloned().unwrap_or_default()
    }

    /// `getAllowedLocalityLevel`, with separate node and rack delays.
    pub fn allowed_level(&self, w: RunView<'_>, j: JobId, info: &JobInfo) -> Locality {
        if self.pool_starved(w, w.job(j).pool as usize) {
            return Locality::OffDc;
        }
        let (node_delay, rack_delay) = (self.settings.node_delay, self.settings.rack_delay);
        match info.level {
            Locality::Node => {
                if info.waited >= node_delay + rack_delay {
                    Locality::OffDc
                } else if info.waited >= node_delay {
                    Locality::Rack
                } else {
                    Locality::Node
                }
            }
            Locality::Rack => {
                if info.waited >= rack_delay {
                    Locality::OffDc
                } else {
                    Locality::Rack
                }
            }
            _ => Locality::OffDc,
        }
    }

    /// Delay scheduling's allowed locality level for job `j` now.
    pub fn allowed(&self, w: RunView<'_>, j: JobId) -> Locality {
        self.allowed_level(w, j, &self.info_ref(j))
    }

    /// A map of job `j` launched at locality `loc`: its locality level
    /// becomes `loc` and its wait resets.
    pub fn map_launched(&mut self, j: JobId, loc: Locality) {
        let i = self.info(j);
        i.level = loc;
        i.waited = 0;
    }

    /// `updateLocalityWaitTimes`: jobs skipped at the previous heartbeat
    /// (any node's) have waited the time since it.
    pub(super) fn update_wait_times(&mut self, now: Ms) {
        let dt = self.last_heartbeat.map_or(0, |t| now.saturating_sub(t));
        self.last_heartbeat = Some(now);
        // The jobs marked since the last update, not every job's record
        // (a long run keeps thousands).
        for k in 0..self.skipped.len() {
            let Some(i) = self.info.get_mut(self.skipped[k] as usize) else {
                continue;
            };
            if i.skipped {
                i.waited += dt;
                i.skipped = false;
            }
        }
        self.skipped.clear();
    }

    /// The wait a skipped job will have once this heartbeat's update has run
    /// (for inspection before the update).
    pub fn pending_wait(&self, now: Ms) -> Ms {
        self.last_heartbeat.map_or(0, |t| now.saturating_sub(t))
    }

    /// Jobs visited for a map and given none wait longer.
    pub fn mark_skipped(&mut self, launched: Vec<JobId>, mut visited: Vec<JobId>) {
        visited.sort_unstable();
        visited.dedup();
        for j in visited {
            if !launched.contains(&j) && !std::mem::replace(&mut self.info(j).skipped, true) {
                self.skipped.push(j);
            }
        }
    }
}

//! The run's attempts, by id: every attempt a run launches, or, when no
//! output asks for them, only those of unfinished jobs.
//!
//! An attempt is 72 bytes, and a day of Facebook's 2010 workload launches
//! 17 million of them: over a gigabyte kept for a `--trace` or a `--plot`
//! that a headless run without them never writes. So a run may drop the
//! records ([`Attempts::drop_records`]): the attempts of a job are released
//! once the job is done and the policy has heard of it, and storage is
//! given back a chunk of [`CHUNK`] ids at a time, once every attempt in it
//! is released. Ids stay dense and never reused, so whatever refers to an
//! attempt by id (tasks, policies, news) means the same attempt for the
//! whole run; what the summary needs of ended attempts is counted as they
//! end (`World::first_starts`, `Metrics::maps_by_node`).

use super::job::{Attempt, AttemptId, Outcome};
use super::share::Rows;
use crate::model::JobId;

/// Ids per chunk of storage: small, so that a long job pins little
/// (4.6 KB a chunk) and even a small run gives chunks back.
const CHUNK: usize = 64;

#[derive(Clone, Debug)]
pub struct Attempts {
    /// Storage, `CHUNK` attempts a chunk; a released chunk is empty. Each
    /// chunk is shared with the run's checkpoints until the run changes it
    /// (`sim::share`): a checkpoint copies none, the run then copies, once,
    /// the chunks of the attempts that go on running.
    chunks: Rows<Vec<Attempt>>,
    /// Attempts not released, by chunk.
    live: Vec<u32>,
    len: usize,
    /// Records dropped: each unfinished job's attempts, to release when it
    /// is done (`None` while every record is kept).
    by_job: Option<Vec<Vec<AttemptId>>>,
    /// What a released attempt reads as: ended, belonging to no job. Only a
    /// stale id kept by a policy could read it; it finds the attempt ended.
    gone: Attempt,
}

impl Default for Attempts {
    fn default() -> Self {
        Attempts {
            chunks: Rows::default(),
            live: Vec::new(),
            len: 0,
            by_job: None,
            gone: Attempt::placeholder(),
        }
    }
}

impl Attempts {
    /// Attempts launched so far (released ones included).
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether every attempt's record is kept (the default).
    pub fn keeps_records(&self) -> bool {
        self.by_job.is_none()
    }

    /// From now on, a finished job's attempts are released
    /// ([`Attempts::release_job`]). Call before the run starts.
    pub fn drop_records(&mut self) {
        debug_assert!(self.len == 0, "records dropped after attempts ran");
        self.by_job = Some(Vec::new());
    }

    pub fn push(&mut self, a: Attempt) -> AttemptId {
        let id = self.len;
        if id.is_multiple_of(CHUNK) {
            self.chunks.push(Vec::with_capacity(CHUNK));
            self.live.push(0);
        }
        let c = id / CHUNK;
        if let Some(by_job) = &mut self.by_job {
            let j = a.job as usize;
            if by_job.len() <= j {
                by_job.resize_with(j + 1, Vec::new);
            }
            by_job[j].push(id as AttemptId);
        }
        self.chunks[c].push(a);
        self.live[c] += 1;
        self.len += 1;
        id as AttemptId
    }

    /// Job `j` is done and the policy has heard of it: with records
    /// dropped, its ended attempts are released (one still running, which
    /// a finished job never has, would stay).
    pub fn release_job(&mut self, j: JobId) {
        let Some(by_job) = &mut self.by_job else {
            return;
        };
        let Some(ids) = by_job.get_mut(j as usize).map(std::mem::take) else {
            return;
        };
        for a in ids {
            let c = a as usize / CHUNK;
            if self.chunks[c][a as usize % CHUNK].outcome == Outcome::Running {
                continue;
            }
            self.live[c] -= 1;
            // The last chunk may still fill: it is kept.
            if self.live[c] == 0 && self.chunks[c].len() == CHUNK {
                self.chunks[c] = Vec::new();
            }
        }
    }

    /// The attempts kept, with their ids, in launch order: all of them
    /// unless records are dropped, and then at least every running one.
    pub fn iter_ids(&self) -> impl Iterator<Item = (AttemptId, &Attempt)> + '_ {
        self.chunks.iter().enumerate().flat_map(|(c, ch)| {
            ch.iter()
                .enumerate()
                .map(move |(k, a)| ((c * CHUNK + k) as AttemptId, a))
        })
    }

    /// Every attempt, in launch order. Only while records are kept: a
    /// report that reads every attempt (the trace, the plots) asks for them.
    pub fn iter(&self) -> impl Iterator<Item = &Attempt> + '_ {
        debug_assert!(self.keeps_records(), "every attempt read, records dropped");
        self.chunks.iter().flatten()
    }

    pub fn last(&self) -> Option<&Attempt> {
        self.len.checked_sub(1).map(|i| &self[i])
    }

    /// Bytes the kept records take (for `World::footprint`).
    pub fn footprint(&self) -> usize {
        let size = std::mem::size_of::<Attempt>();
        (0..self.chunks.len())
            .map(|c| self.chunks.part(c, self.chunks[c].capacity() * size))
            .sum::<usize>()
            + self.chunks.len() * 36
    }
}

impl std::ops::Index<usize> for Attempts {
    type Output = Attempt;

    #[inline]
    fn index(&self, i: usize) -> &Attempt {
        let c = &self.chunks[i / CHUNK];
        if c.is_empty() && i < self.len {
            return &self.gone;
        }
        &c[i % CHUNK]
    }
}

impl std::ops::IndexMut<usize> for Attempts {
    #[inline]
    fn index_mut(&mut self, i: usize) -> &mut Attempt {
        &mut self.chunks[i / CHUNK][i % CHUNK]
    }
}

impl<'a> IntoIterator for &'a Attempts {
    type Item = &'a Attempt;
    type IntoIter = std::iter::Flatten<super::share::RowsIter<'a, Vec<Attempt>>>;

    fn into_iter(self) -> Self::IntoIter {
        debug_assert!(self.keeps_records(), "every attempt read, records dropped");
        self.chunks.iter().flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attempt(job: JobId, outcome: Outcome) -> Attempt {
        let mut a = Attempt::placeholder();
        a.job = job;
        a.outcome = outcome;
        a.start = 7;
        a
    }

    #[test]
    fn a_chunk_is_given_back_once_every_job_in_it_is_released() {
        let mut at = Attempts::default();
        at.drop_records();
        // Job 0 holds the first chunk but one id, job 1 that id and the
        // start of the next chunk.
        for _ in 0..CHUNK - 1 {
            at.push(attempt(0, Outcome::Succeeded));
        }
        for _ in 0..3 {
            at.push(attempt(1, Outcome::Failed));
        }
        at.release_job(0);
        assert_eq!(at.chunks[0].len(), CHUNK, "job 1 still holds an id in it");
        assert_eq!(at[5].start, 7);
        at.release_job(1);
        assert!(at.chunks[0].is_empty(), "the first chunk given back");
        assert_eq!(at.chunks[1].len(), 2, "the last chunk is kept (it fills)");
        // Ids stay: the count, and a released one reads as ended.
        assert_eq!(at.len(), CHUNK + 2);
        assert_eq!(at[5].job, JobId::MAX);
        assert_ne!(at[5].outcome, Outcome::Running);
        assert_eq!(at[CHUNK].job, 1);
    }

    #[test]
    fn a_running_attempt_is_never_released_and_records_kept_stay() {
        let mut at = Attempts::default();
        at.drop_records();
        for k in 0..CHUNK {
            let o = if k == 9 {
                Outcome::Running
            } else {
                Outcome::Killed
            };
            at.push(attempt(0, o));
        }
        at.push(attempt(1, Outcome::Running));
        at.release_job(0);
        assert_eq!(at[9].outcome, Outcome::Running, "its chunk stays");
        let ids: Vec<AttemptId> = at.iter_ids().map(|(i, _)| i).collect();
        assert_eq!(ids.len(), CHUNK + 1);
        assert_eq!(ids[CHUNK], CHUNK as AttemptId);

        let mut kept = Attempts::default();
        kept.push(attempt(0, Outcome::Succeeded));
        kept.release_job(0);
        assert_eq!(kept[0].job, 0, "records kept: nothing released");
        assert_eq!(kept.iter().count(), 1);
    }
}

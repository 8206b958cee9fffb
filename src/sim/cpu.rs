//! A node's cores, shared by the attempts computing on it (processor
//! sharing): with n attempts computing on c cores each progresses at
//! min(1, c/n) of a core, times the node's speed. Four containers on a
//! two-core node therefore compute no faster than two slots would.
//!
//! Every computing attempt on a node advances at the same rate, so the
//! node keeps one *virtual clock* v (work done by each attempt since the
//! clock started, in core-seconds at speed 1): an attempt that starts
//! computing `w` of work at v₀ finishes when v reaches v₀ + w. The node's
//! next finish is the smallest such target; a change in the number of
//! attempts only changes how fast v moves. O(log n) per start or finish.

use super::job::AttemptId;
use crate::model::Ms;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A finish target, ordered by virtual time then attempt id.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Target(f64, AttemptId);

impl Eq for Target {}

impl PartialOrd for Target {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}

impl Ord for Target {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&o.0).then(self.1.cmp(&o.1))
    }
}

#[derive(Clone, Debug)]
pub struct Cpu {
    cores: f64,
    speed: f64,
    /// Virtual clock and when it was last brought up to date.
    v: f64,
    last: Ms,
    /// Attempts computing now.
    n: u32,
    /// Finish targets; entries of attempts that stopped computing early
    /// (killed, failed) stay until they reach the top and are dropped.
    targets: BinaryHeap<Reverse<Target>>,
    /// Bumped whenever the next finish may have moved, so that a calendar
    /// entry made for an older state can be told stale.
    pub gen: u32,
}

impl Cpu {
    pub fn new(cores: u32, speed: f64) -> Cpu {
        Cpu {
            cores: cores.max(1) as f64,
            speed,
            v: 0.0,
            last: 0,
            n: 0,
            targets: BinaryHeap::new(),
            gen: 0,
        }
    }

    /// Work per second each computing attempt gets now.
    pub fn rate(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            (self.cores / self.n as f64).min(1.0) * self.speed
        }
    }

    pub fn computing(&self) -> u32 {
        self.n
    }

    fn advance(&mut self, now: Ms) {
        if now > self.last {
            self.v += self.rate() * (now - self.last) as f64 / 1000.0;
            self.last = now;
        }
    }

    /// Attempt `a` starts `work` core-seconds of computing at `now`.
    /// Returns its finish target (for progress).
    pub fn start(&mut self, now: Ms, a: AttemptId, work: f64) -> f64 {
        self.advance(now);
        self.n += 1;
        self.gen = self.gen.wrapping_add(1);
        let target = self.v + work.max(0.0);
        self.targets.push(Reverse(Target(target, a)));
        target
    }

    /// Attempt `a` stops computing at `now` before finishing (its entry is
    /// dropped lazily).
    pub fn stop(&mut self, now: Ms) {
        self.advance(now);
        self.n = self.n.saturating_sub(1);
        self.gen = self.gen.wrapping_add(1);
    }

    /// Work each computing attempt has done since the clock started, at `now`.
    pub fn virtual_time(&self, now: Ms) -> f64 {
        self.v + self.rate() * now.saturating_sub(self.last) as f64 / 1000.0
    }

    /// The next attempt to finish and when (rounded up to the millisecond),
    /// skipping entries for which `live` is false.
    pub fn next(&mut self, live: impl Fn(AttemptId) -> bool) -> Option<(Ms, AttemptId)> {
        while let Some(&Reverse(Target(t, a))) = self.targets.peek() {
            if !live(a) {
                self.targets.pop();
                continue;
            }
            let rate = self.rate();
            if rate <= 0.0 {
                return None;
            }
            let ms = ((t - self.v).max(0.0) * 1000.0 / rate).ceil();
            let ms = if ms >= 1e15 { Ms::MAX / 4 } else { ms as Ms };
            return Some((self.last.saturating_add(ms), a));
        }
        None
    }

    /// Takes attempt `a`, which finishes at `now`, off the node.
    pub fn finish(&mut self, now: Ms, a: AttemptId) {
        self.advance(now);
        if let Some(&Reverse(Target(_, top))) = self.targets.peek() {
            debug_assert_eq!(top, a, "the finishing attempt is the next target");
        }
        self.targets.pop();
        self.n = self.n.saturating_sub(1);
        self.gen = self.gen.wrapping_add(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs the node until no attempt computes; returns finish times.
    fn drain(c: &mut Cpu) -> Vec<(AttemptId, Ms)> {
        let mut out = Vec::new();
        while let Some((t, a)) = c.next(|_| true) {
            c.finish(t, a);
            out.push((a, t));
        }
        out
    }

    #[test]
    fn four_tasks_on_two_cores_take_twice_as_long() {
        let mut c = Cpu::new(2, 1.0);
        for a in 0..4 {
            c.start(0, a, 10.0);
        }
        assert_eq!(c.rate(), 0.5);
        let ends = drain(&mut c);
        assert!(ends.iter().all(|&(_, t)| t == 20_000), "{ends:?}");
        let mut alone = Cpu::new(2, 1.0);
        alone.start(0, 0, 10.0);
        assert_eq!(drain(&mut alone), vec![(0, 10_000)]);
    }

    #[test]
    fn a_short_task_frees_its_share() {
        let mut c = Cpu::new(1, 2.0);
        c.start(0, 0, 1.0);
        c.start(0, 1, 3.0);
        // Two on one core at speed 2: 1 work/s each; 0 ends at 1 s, then 1
        // has 2 left at 2/s.
        assert_eq!(drain(&mut c), vec![(0, 1_000), (1, 2_000)]);
    }

    #[test]
    fn a_stopped_task_is_skipped() {
        let mut c = Cpu::new(1, 1.0);
        c.start(0, 0, 5.0);
        c.start(0, 1, 5.0);
        c.stop(1_000);
        // Attempt 0 left: it had 0.5 done, 4.5 left alone.
        assert_eq!(c.next(|a| a != 0), Some((5_500, 1)));
    }
}

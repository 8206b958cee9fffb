//! Every job of a run, by id. A copy of a job (a checkpoint's) shares its
//! task tables and its index's lists with it (`sim::share`) until the run
//! changes them, and copies the rest: counters, a few short lists, its
//! names. A job's tables make up nearly all it holds, so a checkpoint of a
//! long run copies a few hundred bytes a job, while the run reads its jobs
//! as the plain vector they are.

/// The run's jobs, by id.
pub type Jobs = Vec<super::job::Job>;

//! Every job of a run, by id, each shared with the run's checkpoints until
//! the run changes it (`sim::share`): a job changes from its arrival to
//! its finish and hardly ever before or after, so a checkpoint of a long
//! run shares its list and the run copies, once, the few jobs it goes on
//! changing.

/// The run's jobs, by id.
pub type Jobs = super::share::Rows<super::job::Job>;

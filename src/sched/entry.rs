//! What the registry lists of a policy: its [`Entry`], the line a policy's
//! file adds to `sched/mod.rs`.

use super::settings::{ConfigError, Settings};
use crate::model::Models;
use crate::sim::policy::{BuildCtx, Policy};

/// Hadoop's default reduce slowstart (`mapred.reduce.slowstart.completed.maps`).
pub const DEFAULT_SLOWSTART: f64 = 0.05;

/// Builds a policy from its settings.
pub type BuildFn = fn(&Settings, &BuildCtx) -> Result<Box<dyn Policy>, ConfigError>;

/// Checks a policy's `[scheduler.NAME]` table on its own.
pub type CheckFn = fn(&Settings) -> Result<(), ConfigError>;

/// One registered policy.
pub struct Entry {
    pub name: &'static str,
    pub summary: &'static str,
    /// The paper or code it follows.
    pub source: &'static str,
    /// The cluster models it runs on (`cluster.slot_model`).
    pub runs_on: Models,
    /// The models its paper assumes, where fewer than those it runs on: a
    /// run on another gets a note (FRESH and OMO share typeless containers
    /// between maps and reduces, which typed slots do not allow).
    pub meant_for: Models,
    pub build: BuildFn,
    /// Checks its table alone, where building needs more than the table
    /// (an external policy's command may come with its spec); `None`:
    /// building it from the table checks it.
    pub check: Option<CheckFn>,
}

impl std::fmt::Debug for Entry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Entry").field("name", &self.name).finish()
    }
}

//! Runs built from scenarios: one run of a scenario with the registry's
//! policies and the observers every run reports, a comparison's grid
//! of runs in parallel, and runs side by side on one clock. This layer sits above `scenario` (which it reads)
//! and `sched` (whose registry it hands the engine); `report` formats what
//! the runs here produce and runs nothing itself.

pub mod compare;
pub mod side;

use crate::model::Scenario;
use crate::sched::omo::PassiveMonitor;
use crate::sched::registry::Registry;
use crate::sim::policy::Observer;
use crate::sim::{Sim, SimError};

/// A run of `sc`: its policies built by the registry from its
/// `[scheduler]` table, the resolved scenario as the summary's `config`,
/// and OMO's passive release-rate monitor attached (so that every
/// policy's run reports the monitor's windows: OMO's Fig. 7 series).
pub fn build_sim(sc: &Scenario) -> Result<Sim, SimError> {
    if let Err(e) = crate::scenario::single_run(sc) {
        return Err(SimError::Refused(e.to_string()));
    }
    let mut sim = Sim::new(sc, Box::new(Registry::new(sc.scheduler.clone())))?;
    sim.config = crate::scenario::resolved(sc);
    let monitor: Box<dyn Observer> = Box::new(PassiveMonitor::new(&sc.scheduler));
    sim.attach(monitor);
    Ok(sim)
}

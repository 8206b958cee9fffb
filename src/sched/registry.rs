//! Every policy slotsim knows, with the paper or code it follows.

/// One registered policy.
#[derive(Debug)]
pub struct PolicyInfo {
    pub name: &'static str,
    pub summary: &'static str,
    pub source: &'static str,
}

pub const POLICIES: &[PolicyInfo] = &[
    PolicyInfo {
        name: "fifo",
        summary: "Hadoop 1.x JobQueueTaskScheduler: priority then submit order, load-factor cap, one off-rack map and one reduce per heartbeat",
        source: "Hadoop 1.0.3 JobQueueTaskScheduler (TestJobQueueTaskScheduler)",
    },
    PolicyInfo {
        name: "fair",
        summary: "Hadoop 1.x FairScheduler: pools with weights and min/max shares, FairShareComparator, delay scheduling",
        source: "Hadoop 1.0.3 FairScheduler (TestFairScheduler, TestComputeFairShares); Zaharia et al., EuroSys'10",
    },
    PolicyInfo {
        name: "fresh",
        summary: "Fair sharing of typeless containers with slowstart 1.0 (OMO's FRESH baseline)",
        source: "Jiang et al., FRESH (as the baseline of seed 000, OMO, IEEE Access 2021)",
    },
    PolicyInfo {
        name: "capacity",
        summary: "Hadoop 1.x CapacityTaskScheduler: queues by occupied/capacity, FIFO with priorities inside, user limits",
        source: "Hadoop 1.0.3 CapacityTaskScheduler (TestCapacityScheduler)",
    },
];

pub fn lookup(name: &str) -> Option<&'static PolicyInfo> {
    POLICIES.iter().find(|p| p.name == name)
}

pub fn names() -> Vec<&'static str> {
    POLICIES.iter().map(|p| p.name).collect()
}

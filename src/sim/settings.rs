//! The settings a run goes by, as the scenario resolved them: read all
//! through the run, changed only by a policy switch (the slowstart of the
//! policy in force).

use crate::model::{Ms, NetworkSpec, PoolSpec, Scenario, TaskSpec, Writer};

#[derive(Clone, Debug)]
pub struct Settings {
    pub seed: u64,
    pub net_spec: NetworkSpec,
    pub tasks: TaskSpec,
    pub block_mb: f64,
    pub replication: u32,
    /// Who wrote the jobs' input (`hdfs.writer`).
    pub writer: Writer,
    pub heartbeat_interval: Option<Ms>,
    pub out_of_band: bool,
    /// The pools (queues), by pool id.
    pub pools: Vec<PoolSpec>,
    /// The reduce slowstart of the policy in force.
    pub slowstart: f64,
}

impl Settings {
    pub fn new(sc: &Scenario, slowstart: f64) -> Settings {
        Settings {
            seed: sc.seed,
            net_spec: sc.network.clone(),
            tasks: sc.tasks.clone(),
            block_mb: sc.hdfs.block_mb,
            replication: sc.hdfs.replication,
            writer: sc.hdfs.writer,
            heartbeat_interval: sc.cluster.heartbeat,
            out_of_band: sc.cluster.out_of_band_heartbeat,
            pools: sc.pools.clone(),
            slowstart,
        }
    }
}

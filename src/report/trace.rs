//! `--trace` (one JSON line per task attempt) and `--inspect` (one JSON line
//! per heartbeat on which the policy was asked for work).

use crate::sim::engine::InspectRecord;
use crate::sim::{Kind, Sim};
use serde_json::json;
use std::io::{self, Write};

/// Writes every attempt, in launch order.
pub fn write_trace(sim: &Sim, out: &mut dyn Write) -> io::Result<()> {
    let w = &sim.w;
    for at in &w.attempts {
        let node = w.node(at.node);
        let job = w.job(at.job);
        let p = if at.kind == Kind::Map { 'm' } else { 'r' };
        let line = json!({
            "job": job.name,
            "task": format!("{p}{}", at.task),
            "kind": at.kind,
            "attempt": at.attempt,
            "node": at.node,
            "rack": node.rack,
            "dc": w.cluster.dcs[node.dc as usize].name,
            "start_s": at.start as f64 / 1000.0,
            "end_s": at.end.map(|e| e as f64 / 1000.0),
            "locality": at.locality.map(|l| l.as_str()),
            "speculative": at.speculative,
            "outcome": at.outcome,
            "policy": w.labels[at.policy as usize],
            "rule": at.rule,
        });
        serde_json::to_writer(&mut *out, &line)?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// One inspect line.
pub fn inspect_line(rec: &InspectRecord) -> String {
    let v = json!({
        "t_s": rec.t as f64 / 1000.0,
        "node": rec.node,
        "policy": rec.policy,
        "cluster": rec.inspection.cluster,
        "pools": rec.inspection.pools,
        "jobs": rec.inspection.jobs,
        "assigned": rec.assigned,
    });
    v.to_string()
}

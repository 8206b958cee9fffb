//! The `config` of every `--json`: the scenario a run ran, resolved — its
//! defaults filled in, `--seed`, `--policy` and a sweep's overrides
//! applied — in the scenario file's own keys and units (durations as
//! `"3000ms"`, sizes in MB), so a result says what produced it. Jobs and
//! events are counted, not listed: the summary's `jobs` lists every job.

use crate::model::{NetworkModel, Scenario, Speculation, Writer};
use serde_json::{json, Value};

fn ms(t: u64) -> Value {
    Value::String(format!("{t}ms"))
}

/// The resolved scenario as a JSON object.
pub fn resolved(sc: &Scenario) -> Value {
    let yarn = sc.cluster.slot_model == crate::model::SlotModel::Yarn;
    let mut out = json!({
        "name": sc.name,
        "seed": sc.seed,
        "cluster": cluster(sc),
        "network": network(sc),
        "hdfs": {
            "block_mb": sc.hdfs.block_mb,
            "replication": sc.hdfs.replication,
            "writer": match sc.hdfs.writer {
                Writer::Client => json!("client"),
                Writer::Maps => json!("maps"),
                Writer::Jobs => json!("jobs"),
                Writer::Node(i) => json!(i),
            },
        },
        "tasks": tasks(sc),
        "scheduler": scheduler(sc),
        "pools": sc.pools.iter().map(|p| p.resolved(yarn)).collect::<Vec<Value>>(),
        "failures": sc.failures.map(|f| json!({"mtbf": ms(f.mtbf), "mttr": ms(f.mttr)})),
        "jobs": sc.jobs.len(),
        "events": sc.events.len(),
    });
    // YARN's keys, only where they apply (a slot run's config is as it was).
    if yarn {
        add_yarn(&mut out, sc);
    }
    out
}

fn cluster(sc: &Scenario) -> Value {
    let c = &sc.cluster;
    let datacenters: Vec<Value> = c
        .datacenters
        .iter()
        .map(|d| json!({"name": d.name, "nodes": d.nodes, "racks": d.racks, "rack_sizes": d.rack_sizes}))
        .collect();
    json!({
        "nodes": c.node_count(),
        "datacenters": datacenters,
        "map_slots": c.map_slots,
        "reduce_slots": c.reduce_slots,
        "slot_model": c.slot_model.name(),
        "cores": c.cores,
        "heartbeat": c.heartbeat.map_or(Value::String("manual".into()), ms),
        "out_of_band_heartbeat": c.out_of_band_heartbeat,
        "speed": [c.speed.0, c.speed.1],
        "from_trace": c.from_trace,
    })
}

fn network(sc: &Scenario) -> Value {
    let n = &sc.network;
    let mut v = json!({
        "model": match n.model { NetworkModel::Shared => "shared", NetworkModel::Coarse => "coarse", NetworkModel::Fixed => "fixed" },
        "disk_mbps": n.disk_mbps,
        "nic_mbps": n.nic_mbps,
        "rack_oversubscription": n.rack_oversubscription,
        "inter_dc_mbps": n.inter_dc_mbps,
        "parallel_copies": n.parallel_copies,
        "shuffle_buffer_mb": n.shuffle_buffer_mb,
        "rack_mbps": n.rack_mbps,
        "cross_rack_mbps": n.cross_rack_mbps,
        "shuffle_mbps": n.shuffle_mbps,
    });
    // It only acts on a reducer over its shuffle buffer: only then, so that
    // every other run's config reads as before.
    if n.shuffle_buffer_mb.is_some() {
        v["io_sort_factor"] = json!(n.io_sort_factor);
    }
    v
}

fn tasks(sc: &Scenario) -> Value {
    let t = &sc.tasks;
    let mut v = json!({
        "startup": ms(t.startup),
        "setup": t.setup.map_or(Value::String("off".into()), ms),
        "cleanup": t.cleanup.map_or(Value::String("off".into()), ms),
        "duration_cv": t.duration_cv,
        "straggler_prob": t.straggler_prob,
        "straggler_slowdown": [t.straggler_slowdown.0, t.straggler_slowdown.1],
        "speculation": match t.speculation { Speculation::Off => "off", Speculation::Hadoop => "hadoop", Speculation::Late => "late" },
    });
    // Only when set, so that every other run's config reads as before.
    if t.reduce_cost_scale != 1.0 {
        v["reduce_cost_scale"] = json!(t.reduce_cost_scale);
    }
    v
}

/// The `[scheduler]` table as written (a TOML table serialises as the
/// JSON object of the same keys and values), with the policy the run
/// started with (`--policy` included).
fn scheduler(sc: &Scenario) -> Value {
    let mut scheduler = serde_json::to_value(&sc.scheduler).unwrap_or(Value::Null);
    if let Value::Object(m) = &mut scheduler {
        m.insert("policy".into(), Value::String(sc.policy.to_string()));
    }
    scheduler
}

/// A YARN run's keys: each node's resources, the containers (the AM's
/// start-up "recorded" where replayed jobs bring their own); each pool's
/// policy and resources are its own ([`crate::model::PoolSpec::resolved`]).
fn add_yarn(out: &mut Value, sc: &Scenario) {
    let (c, t) = (&sc.cluster, &sc.tasks);
    let res = |r: crate::model::Resource| json!({"memory_mb": r.mb(), "vcores": r.vcores()});
    out["cluster"]["memory_mb"] = json!(c.node_resource.mb());
    out["cluster"]["vcores"] = json!(c.node_resource.vcores());
    let am = t.am.unwrap_or(crate::model::AmSpec {
        ask: crate::model::Resource::ZERO,
        startup: 0,
        startup_given: false,
    });
    out["tasks"]["am"] = res(am.ask);
    out["tasks"]["am_startup"] = if am.startup_given || sc.jobs.iter().all(|j| j.recorded.is_none())
    {
        ms(am.startup)
    } else {
        Value::String("recorded".into())
    };
    out["tasks"]["map_container"] = res(t.map_container);
    out["tasks"]["reduce_container"] = res(t.reduce_container);
}

//! Engine benchmarks: the cost of a heartbeat on a full node (which must be
//! O(1): it does not depend on the number of jobs or nodes), a small run,
//! and the 400-node scale scenario under fair, fifo, capacity, hybsmrp and
//! joss-t.
//!
//!   cargo bench --bench engine

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use slotsim::scenario;
use slotsim::sim::{Command, Sim};
use std::path::Path;
use std::time::Duration;

fn scenario(name: &str, policy: &str) -> slotsim::model::Scenario {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenarios")
        .join(name);
    scenario::load_file(&p, Some(policy), None).expect("bundled scenario loads")
}

/// A sim advanced, from `from_ms` on, to the first instant at which some
/// node has no free slot of either kind, and that node.
fn busy(name: &str, from_ms: u64) -> (Sim, u32) {
    let sc = scenario(name, "fair");
    let mut sim = slotsim::sched::build_sim(&sc).unwrap();
    sim.run_until(Some(from_ms));
    loop {
        let model = sim.w.cluster.model;
        let full = sim
            .w
            .cluster
            .nodes
            .iter()
            .find(|n| !n.has_free_slot(model))
            .map(|n| n.id);
        if let Some(id) = full {
            return (sim, id);
        }
        assert!(!sim.is_finished(), "{name}: no node was ever full");
        sim.step();
    }
}

fn heartbeat_full_node(c: &mut Criterion) {
    let mut g = c.benchmark_group("heartbeat_full_node");
    // The same cluster early (few jobs running) and late (hundreds): the
    // cost must not grow with the number of jobs.
    for (name, t) in [("scale-400.toml", 30_000), ("scale-400.toml", 600_000)] {
        let (mut sim, node) = busy(name, t);
        let active = sim.w.active.len();
        g.bench_function(
            format!(
                "{name} at {}s ({} nodes, {active} active jobs)",
                t / 1000,
                sim.w.cluster.nodes.len()
            ),
            |b| b.iter(|| sim.command(Command::Heartbeat(node)).unwrap()),
        );
    }
    g.finish();
}

fn runs(c: &mut Criterion) {
    let mut g = c.benchmark_group("run");
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(30));
    let quick = scenario("quickstart.toml", "fair");
    g.bench_function("quickstart fair", |b| {
        b.iter_batched(
            || slotsim::sched::build_sim(&quick).unwrap(),
            |mut sim| {
                sim.run_until(None);
                sim.w.attempts.len()
            },
            BatchSize::LargeInput,
        )
    });
    for policy in ["fair", "fifo", "capacity", "hybsmrp", "joss-t"] {
        let sc = scenario("scale-400.toml", policy);
        g.bench_function(format!("scale-400 {policy} (246,531 tasks)"), |b| {
            b.iter_batched(
                || slotsim::sched::build_sim(&sc).unwrap(),
                |mut sim| {
                    sim.run_until(None);
                    sim.w.attempts.len()
                },
                BatchSize::LargeInput,
            )
        });
    }
    g.finish();
}

criterion_group!(benches, heartbeat_full_node, runs);
criterion_main!(benches);

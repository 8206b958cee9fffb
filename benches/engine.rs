//! Engine benchmarks: the cost of a heartbeat on a full node (which must be
//! O(1): it does not depend on the number of jobs or nodes), a small run,
//! the 400-node scale scenario under fair, fifo, capacity, hybsmrp and
//! joss-t (fixed network) and under the shared network, and the max-min
//! solver among 10,000 flows.
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
    // The scale scenario whole under the fixed network model (the cost of
    // heartbeats and policies), and its first 200 s under the shared model
    // (the cost of the max-min solver on a busy network).
    for policy in ["fair", "fifo", "capacity", "hybsmrp", "joss-t"] {
        let mut sc = scenario("scale-400.toml", policy);
        sc.network.model = slotsim::model::NetworkModel::Fixed;
        g.bench_function(
            format!("scale-400 {policy}, fixed network (251,844 tasks)"),
            |b| {
                b.iter_batched(
                    || slotsim::sched::build_sim(&sc).unwrap(),
                    |mut sim| {
                        sim.run_until(None);
                        sim.w.attempts.len()
                    },
                    BatchSize::LargeInput,
                )
            },
        );
    }
    let sc = scenario("scale-400.toml", "fair");
    g.bench_function("scale-400 fair, shared network, first 200 s", |b| {
        b.iter_batched(
            || slotsim::sched::build_sim(&sc).unwrap(),
            |mut sim| {
                sim.run_until(Some(200_000));
                sim.w.events
            },
            BatchSize::LargeInput,
        )
    });
    g.finish();
}

/// The max-min solver alone: one flow starting and one ending (and the
/// flushes that settle them) among 10,000 active flows on a 600-node,
/// 20-rack cluster's disks and links (paths like a shuffle fetch's).
fn solver(c: &mut Criterion) {
    use slotsim::sim::network::Network;
    let mut g = c.benchmark_group("solver");
    let nodes = 600u32;
    let racks = 20u32;
    let mut net = Network::new();
    for _ in 0..nodes {
        net.add_resource(100.0);
        net.add_resource(125.0);
        net.add_resource(125.0);
    }
    for _ in 0..racks {
        net.add_resource(30.0 * 125.0 / 4.0);
        net.add_resource(30.0 * 125.0 / 4.0);
    }
    // A deterministic spread of sources and destinations.
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let path = |src: u32, dst: u32| -> Vec<u32> {
        let (rs, rd) = (src % racks, dst % racks);
        let mut p = vec![3 * src, 3 * src + 1];
        if rs != rd {
            p.push(3 * nodes + 2 * rs);
            p.push(3 * nodes + 2 * rd + 1);
        }
        p.push(3 * dst + 2);
        p
    };
    let mut flows = Vec::new();
    for i in 0..10_000u64 {
        let (s, d) = (
            (next() % nodes as u64) as u32,
            (next() % nodes as u64) as u32,
        );
        let p = if s == d { vec![3 * s] } else { path(s, d) };
        flows.push(net.start(0, &p, 1e9, f64::INFINITY, i));
    }
    net.flush(0);
    let mut t = 0u64;
    let mut k = 0usize;
    g.bench_function("a start and an end among 10,000 flows (600 nodes)", |b| {
        b.iter(|| {
            t += 1;
            let (s, d) = (
                (next() % nodes as u64) as u32,
                (next() % nodes as u64) as u32,
            );
            let p = if s == d { vec![3 * s] } else { path(s, d) };
            let f = net.start(t, &p, 1e9, f64::INFINITY, 0);
            net.flush(t);
            k = (k + 7919) % flows.len();
            net.stop(t, flows[k]);
            flows[k] = f;
            net.flush(t);
        })
    });
    g.finish();
}

criterion_group!(benches, heartbeat_full_node, runs, solver);
criterion_main!(benches);

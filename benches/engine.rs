//! Engine benchmarks: the cost of a heartbeat on a full node (which must be
//! O(1): it does not depend on the number of jobs or nodes), a small run,
//! the 400-node scale scenario under fair, fifo, capacity, hybsmrp and
//! joss-t (fixed network) and under the shared network, and the max-min
//! solver among 10,000 flows.
//!
//! `heartbeat_3000`: the cost of one heartbeat that the policy decides (a
//! node with a free slot while tasks are pending) on a saturated 3,000-node
//! cluster in 100 racks under the shared network, for one policy of each
//! family: fifo, fair, capacity, omo (unified containers), dynamicmr,
//! hybsmrp, joss-t and adaptive-fair. Each takes over the same cluster
//! after 20 simulated seconds under fair.
//!
//!   cargo bench --bench engine
//!   cargo bench --bench engine -- heartbeat_3000

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use slotsim::model::Action;
use slotsim::model::PolicySpec;
use slotsim::scenario;
use slotsim::sim::Sim;
use std::path::Path;
use std::time::{Duration, Instant};

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
    let mut sim = slotsim::runs::build_sim(&sc).unwrap();
    sim.run_until(Some(from_ms));
    loop {
        let cap = sim.view().cluster().capacity;
        let full = sim
            .view()
            .cluster()
            .nodes
            .iter()
            .find(|n| !n.admits_any(&cap))
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
        let active = sim.view().active().len();
        g.bench_function(
            format!(
                "{name} at {}s ({} nodes, {active} active jobs)",
                t / 1000,
                sim.view().cluster().nodes.len()
            ),
            |b| b.iter(|| sim.command(Action::Heartbeat(node)).unwrap()),
        );
    }
    g.finish();
}

/// `scale-400.toml` grown to 3,000 nodes in 100 racks (12,000 map and
/// 6,000 reduce slots), its production pool's minimum shares scaled alike,
/// and Poisson jobs every 20 ms on average, more work than the cluster
/// runs: after 20 simulated seconds under fair 886 jobs are active, 16,084
/// of the 18,000 slots busy, and the number of active jobs keeps growing.
/// `@SLOT_MODEL@` is `typed` or `unified`.
const CLUSTER_3000: &str = r#"
name = "heartbeat-3000"
description = "3,000 nodes x (4 map + 2 reduce) in 100 racks, Poisson jobs every 20 ms"
seed = 42

[cluster]
nodes = 3000
racks = 100
map_slots = 4
reduce_slots = 2
slot_model = "@SLOT_MODEL@"
heartbeat = "3s"

[hdfs]
block = "64MB"
replication = 3

[[pools]]
name = "production"
weight = 2.0
min_maps = 3000
min_reduces = 1500

[[pools]]
name = "research"

[[pools]]
name = "adhoc"
weight = 0.5

[[workloads]]
kind = "poisson"
jobs = 4000
mean_interarrival = "20ms"
mix = { terasort = 2, wordcount = 3, grep = 2, sequencecount = 1, invertedindex = 1, histogrammovies = 1, classification = 1 }
input = ["128MB", "20GB"]
reduces = [1, 40]
pools = ["production", "research", "adhoc"]
"#;

/// Simulated time, under fair, after which a family's policy takes over.
const WARM_MS: u64 = 20_000;

/// Heartbeats are measured in the 10 simulated seconds after [`WARM_MS`]:
/// past them the run starts over, so that every family is measured on
/// about as many active jobs (under fair their number grows by some 40 a
/// second).
const SPAN_MS: u64 = 10_000;

/// One policy of each family, and the slot model its scenario uses.
const FAMILIES: &[(&str, &str)] = &[
    ("fifo", "typed"),
    ("fair", "typed"),
    ("capacity", "typed"),
    ("omo", "unified"),
    ("dynamicmr", "typed"),
    ("hybsmrp", "typed"),
    ("joss-t", "typed"),
    ("adaptive-fair", "typed"),
];

/// The 3,000-node cluster run under fair to [`WARM_MS`], then switched to
/// `policy` (as `Action::SwitchPolicy` does mid-run), and where the
/// search for a node with a free slot goes on from. Every family takes
/// over the same cluster, and setting it up costs what fair's first 20 s
/// do (3.5 s; 6 s on unified containers): policies that read much input
/// across racks (fifo, joss-t, adaptive-fair, dynamicmr) would keep the
/// shared network's solver busy for 17 to 34 s to get there themselves.
struct Saturated {
    policy: &'static str,
    slot_model: &'static str,
    sim: Sim,
    cursor: usize,
    /// Heartbeats measured, and the active jobs and busy slots summed
    /// over them.
    measured: u64,
    active_sum: u64,
    busy_sum: u64,
    /// Times the run started over.
    restarts: u32,
}

impl Saturated {
    fn new(policy: &'static str, slot_model: &'static str) -> Saturated {
        let text = CLUSTER_3000.replace("@SLOT_MODEL@", slot_model);
        let sc = scenario::load_str(&text, "heartbeat-3000", Some("fair"), None)
            .expect("the 3,000-node scenario loads");
        let mut sim = slotsim::runs::build_sim(&sc).unwrap();
        sim.run_until(Some(WARM_MS));
        sim.command(Action::SwitchPolicy(PolicySpec::plain(policy)))
            .expect("the policy builds");
        Saturated {
            policy,
            slot_model,
            sim,
            cursor: 0,
            measured: 0,
            active_sum: 0,
            busy_sum: 0,
            restarts: 0,
        }
    }

    /// Steps the run (at least one event) until a live node has a free
    /// slot while some active job has a pending task, and returns that
    /// node, the network's rates settled. Starts over if the run ends or
    /// leaves [`SPAN_MS`].
    fn next_free(&mut self) -> u32 {
        loop {
            if self.sim.step().is_none()
                || self.sim.is_finished()
                || self.sim.view().now() > WARM_MS + SPAN_MS
            {
                let fresh = Saturated::new(self.policy, self.slot_model);
                self.sim = fresh.sim;
                self.cursor = 0;
                self.restarts += 1;
                continue;
            }
            let w = self.sim.view();
            // Every running task holds one slot: whether some node has a
            // free slot is known without looking at each node.
            if w.metrics().running >= i64::from(w.cluster().total_slots()) {
                continue;
            }
            let pending = w.active().iter().any(|&j| {
                let j = &w.jobs()[j as usize];
                j.maps_pending > 0 || j.reduces_pending > 0
            });
            if !pending {
                continue;
            }
            let nodes = &w.cluster().nodes;
            let found = (0..nodes.len())
                .map(|i| (self.cursor + i) % nodes.len())
                .find(|&i| nodes[i].alive && nodes[i].admits_any(&w.cluster().capacity));
            if let Some(i) = found {
                self.cursor = i + 1;
                self.sim.settle_rates();
                self.measured += 1;
                self.active_sum += self.sim.view().active().len() as u64;
                self.busy_sum += self.sim.view().metrics().running.max(0) as u64;
                return i as u32;
            }
        }
    }
}

/// One heartbeat the policy decides on a saturated 3,000-node cluster.
/// `Sim` is not `Clone`: each measured heartbeat follows some untimed
/// steps of the run, which search for a node with a free slot. Criterion
/// sizes the samples by wall time, untimed steps included, so a family
/// whose steps are slow (the solver again) gets fewer heartbeats measured,
/// and the group takes under two minutes (a run starting over costs 3.5 s).
fn heartbeat_3000(c: &mut Criterion) {
    let mut g = c.benchmark_group("heartbeat_3000");
    g.sample_size(10);
    g.warm_up_time(Duration::from_millis(500));
    g.measurement_time(Duration::from_millis(1500));
    for &(policy, slot_model) in FAMILIES {
        // Built on first use, so that a filter that skips this benchmark
        // skips its setup too.
        let mut state: Option<Saturated> = None;
        g.bench_function(policy, |b| {
            let st = state.get_or_insert_with(|| Saturated::new(policy, slot_model));
            b.iter_custom(|iters| {
                let mut timed = Duration::ZERO;
                for _ in 0..iters {
                    let node = st.next_free();
                    let t0 = Instant::now();
                    st.sim.command(Action::Heartbeat(node)).unwrap();
                    timed += t0.elapsed();
                }
                timed
            })
        });
        if let Some(st) = state {
            let n = st.measured.max(1) as f64;
            eprintln!(
                "heartbeat_3000/{policy}: {} heartbeats on {} nodes, on average {:.0} active jobs and {:.0} of {} slots busy; {} restarts, at {:.1} s",
                st.measured,
                st.sim.view().cluster().nodes.len(),
                st.active_sum as f64 / n,
                st.busy_sum as f64 / n,
                st.sim.view().cluster().total_slots(),
                st.restarts,
                st.sim.view().now() as f64 / 1000.0
            );
        }
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
            || slotsim::runs::build_sim(&quick).unwrap(),
            |mut sim| {
                sim.run_until(None);
                sim.view().attempts().len()
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
                    || slotsim::runs::build_sim(&sc).unwrap(),
                    |mut sim| {
                        sim.run_until(None);
                        sim.view().attempts().len()
                    },
                    BatchSize::LargeInput,
                )
            },
        );
    }
    let sc = scenario("scale-400.toml", "fair");
    g.bench_function("scale-400 fair, shared network, first 200 s", |b| {
        b.iter_batched(
            || slotsim::runs::build_sim(&sc).unwrap(),
            |mut sim| {
                sim.run_until(Some(200_000));
                sim.view().events()
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

criterion_group!(benches, heartbeat_full_node, heartbeat_3000, runs, solver);
criterion_main!(benches);

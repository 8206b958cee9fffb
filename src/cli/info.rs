//! `slotsim validate`, `slotsim policies`, `slotsim profiles`.

use super::{emit, Failure};
use slotsim::model::{AmSpec, Gauge, JobSpec, PolicySpec, Scenario};
use slotsim::scenario;
use slotsim::sched::POLICIES;
use slotsim::units::plural;
use std::path::Path;

pub fn cmd_validate(path: &Path, set: &[String]) -> Result<(), Failure> {
    let sc = super::sets::load(Some(path), &super::sets::parse(set)?, None, None)?;
    let mut o = String::new();
    let racks: u32 = sc
        .cluster
        .datacenters
        .iter()
        .map(|d| d.racks.min(d.nodes))
        .sum();
    let work = Work::of(&sc);
    outln!(o, "{}: ok", path.display());
    outln!(
        o,
        "  scenario   {}{}",
        sc.name,
        if sc.description.is_empty() {
            String::new()
        } else {
            format!(" — {}", sc.description)
        }
    );
    cluster_lines(&mut o, &sc, racks);
    physics_line(&mut o, &sc, racks);
    policy_line(&mut o, &sc);
    outln!(
        o,
        "  pools      {}",
        sc.pools
            .iter()
            .map(|p| p.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
    outln!(
        o,
        "  jobs       {}{} ({} + {} = {}, {:.1} GB input)",
        sc.jobs.len(),
        match work.jobs.len() - sc.jobs.len() {
            0 => String::new(),
            n => format!(" + {n} by submit events"),
        },
        plural(work.maps, "map"),
        plural(work.reduces, "reduce"),
        plural(work.maps + work.reduces, "task"),
        work.input_gb
    );
    cost_lines(&mut o, &sc, &work);
    if !sc.events.is_empty() {
        outln!(o, "  events     {}", sc.events.len());
    }
    for note in capacity_notes(&sc, &work) {
        outln!(o, "  note       {note}");
    }
    if let (Some(first), Some(last)) = (sc.notes.first(), sc.notes.last()) {
        outln!(
            o,
            "  notes      {}, {} to {} (captions in the TUI and recordings)",
            sc.notes.len(),
            slotsim::units::fmt_secs(first.at),
            slotsim::units::fmt_secs(last.until)
        );
    }
    emit(&o, false)
}

/// What the capacity schedulers do with this scenario that surprises: the
/// `default` pool every scenario has is a queue of its own, with its share
/// of the slots, even when no job is in it; and a lone user stops at its
/// queue's capacity under `user_limit_factor = 1` (Hadoop's default).
fn capacity_notes(sc: &Scenario, work: &Work) -> Vec<String> {
    let name = sc.policy.name();
    if name != "capacity" && name != "yarn-capacity" {
        return Vec::new();
    }
    let mut out = Vec::new();
    let used = |pool: &str| work.jobs.iter().any(|j| j.pool == pool);
    if sc.pools.len() > 1 && !used("default") {
        let share = sc
            .pools
            .iter()
            .find(|p| p.name == "default")
            .and_then(|p| p.capacity)
            .map_or("an equal share".to_string(), |c| format!("{c}%"));
        if share != "0%" {
            out.push(format!(
                "no job is in the pool default, yet {name} keeps it as a queue with {share} \
                 of the slots; declare [[pools]] name = \"default\" with capacity = 0 (or use it)"
            ));
        }
    }
    let capped: Vec<&str> = sc
        .pools
        .iter()
        .filter(|p| used(&p.name) && p.user_limit_factor <= 1.0)
        .map(|p| p.name.as_str())
        .collect();
    if !capped.is_empty() && sc.pools.len() > 1 {
        out.push(format!(
            "user_limit_factor = 1 in {}: a queue's lone user stops at the queue's capacity \
             while other queues' slots stand idle; raise it to let a queue grow",
            capped.join(", ")
        ));
    }
    out
}

/// The jobs of the scenario and of its `submit` events alike, and their
/// tasks and input.
struct Work<'a> {
    jobs: Vec<&'a JobSpec>,
    maps: u64,
    reduces: u64,
    input_gb: f64,
}

impl Work<'_> {
    fn of(sc: &Scenario) -> Work<'_> {
        let submitted = sc.events.iter().filter_map(|e| match &e.action {
            slotsim::model::Action::Submit(j) => Some(j.as_ref()),
            _ => None,
        });
        let jobs: Vec<&JobSpec> = sc.jobs.iter().chain(submitted).collect();
        let maps: u64 = jobs.iter().map(|j| j.maps as u64).sum();
        let reduces: u64 = jobs.iter().map(|j| j.reduces as u64).sum();
        // `+ 0.0`: an empty f64 sum is -0.0.
        let input_gb: f64 = jobs.iter().map(|j| j.input_mb).sum::<f64>() / 1024.0 + 0.0;
        Work {
            jobs,
            maps,
            reduces,
            input_gb,
        }
    }
}

/// The cluster: its size, slots or containers, heartbeat; a YARN run's
/// containers; a trace's hosts.
fn cluster_lines(o: &mut String, sc: &Scenario, racks: u32) {
    let nodes = sc.cluster.node_count();
    let cap = sc.cluster.capacity();
    let per_node = match cap.gauge() {
        Gauge::TypedSlots => format!(
            "{} map + {} reduce slots per node",
            sc.cluster.map_slots, sc.cluster.reduce_slots
        ),
        Gauge::Containers => format!(
            "{} map + {} reduce containers per node",
            sc.cluster.map_slots, sc.cluster.reduce_slots
        ),
        Gauge::Memory => format!(
            "YARN: {} MB and {} vcores per node",
            sc.cluster.node_resource.mb(),
            sc.cluster.node_resource.vcores()
        ),
    };
    outln!(
        o,
        "  cluster    {}, {}, {}, {per_node} ({})",
        plural(sc.cluster.datacenters.len() as u64, "datacenter"),
        plural(racks as u64, "rack"),
        plural(nodes as u64, "node"),
        match sc.cluster.heartbeat {
            Some(h) => format!("heartbeat {}", slotsim::units::fmt_secs(h)),
            None => "manual heartbeats".into(),
        }
    );
    if let Some(am) = sc.tasks.am {
        containers_line(o, sc, am);
    }
    if let Some(trace) = &sc.cluster.from_trace {
        let slots = if cap.gauge() == Gauge::Memory {
            ""
        } else {
            ", and as many slots as its busiest host ran attempts at once"
        };
        outln!(
            o,
            "             from {trace}: its hosts in their racks{slots}"
        );
    }
}

/// A YARN run's containers: the ApplicationMaster's, a map's, a reduce's.
fn containers_line(o: &mut String, sc: &Scenario, am: AmSpec) {
    let t = &sc.tasks;
    let replayed = sc.jobs.iter().any(|j| j.recorded.is_some()) && !am.startup_given;
    let vcores = |r: slotsim::model::Resource| plural(r.vcores().max(0) as u64, "vcore");
    let am = if am.ask.is_zero() {
        "no ApplicationMaster container".to_string()
    } else {
        format!(
            "ApplicationMaster {} MB, {}, start-up {}",
            am.ask.mb(),
            vcores(am.ask),
            if replayed {
                "each job's recorded".to_string()
            } else {
                slotsim::units::fmt_secs(am.startup)
            }
        )
    };
    // Jobs may ask their own (a replay's recorded sizes, a job's keys):
    // the default is only what the others ask.
    let own = sc
        .jobs
        .iter()
        .filter(|j| j.map_container.is_some() || j.reduce_container.is_some())
        .count();
    if own > 0 && own == sc.jobs.len() {
        // The distinct asks, smallest first (three at most, then how many
        // more).
        let range = |f: &dyn Fn(&slotsim::model::JobSpec) -> Option<slotsim::model::Resource>,
                     default: slotsim::model::Resource| {
            let mut asks: Vec<(i64, i64)> = sc
                .jobs
                .iter()
                .filter_map(|j| f(j).map(|r| (r.mb(), r.vcores())))
                .collect();
            asks.sort_unstable();
            asks.dedup();
            if asks.is_empty() {
                // No job sets this one: what they all ask is `[tasks]`'.
                return format!(
                    "{} MB {} (no job sets its own)",
                    default.mb(),
                    vcores(default)
                );
            }
            let mut text: Vec<String> = asks
                .iter()
                .take(3)
                .map(|&(mb, vc)| format!("{mb} MB {}", plural(vc.max(0) as u64, "vcore")))
                .collect();
            if asks.len() > 3 {
                text.push(format!("{} more", asks.len() - 3));
            }
            text.join(" or ")
        };
        outln!(
            o,
            "             {am}; every job asks its own: maps {}, reduces {} (before normalisation)",
            range(&|j| j.map_container, t.map_container),
            range(&|j| j.reduce_container, t.reduce_container),
        );
        return;
    }
    let others = if own > 0 {
        format!("; {own} of {} jobs ask their own", sc.jobs.len())
    } else {
        String::new()
    };
    outln!(
        o,
        "             {am}; maps ask {} MB, {}; reduces {} MB, {} (before normalisation{others})",
        t.map_container.mb(),
        vcores(t.map_container),
        t.reduce_container.mb(),
        vcores(t.reduce_container),
    );
}

/// What decides task times: the cores the slots share, the network,
/// where the input lies.
fn physics_line(o: &mut String, sc: &Scenario, racks: u32) {
    let n = &sc.network;
    let net = if n.model == slotsim::model::NetworkModel::Fixed {
        format!(
            "fixed: rack {} MB/s, off-rack {} MB/s, shuffle {} MB/s",
            n.rack_mbps, n.cross_rack_mbps, n.shuffle_mbps
        )
    } else {
        format!(
            "{}: disks {} MB/s, NICs {} MB/s{}{}",
            n.model.name(),
            n.disk_mbps,
            n.nic_mbps,
            if racks > 1 {
                format!(", rack uplinks {}:1", n.rack_oversubscription)
            } else {
                String::new()
            },
            if sc.cluster.datacenters.len() > 1 {
                format!(", WAN {} MB/s", n.inter_dc_mbps)
            } else {
                String::new()
            }
        )
    };
    let writer = match sc.hdfs.writer {
        slotsim::model::Writer::Client => "a client".to_string(),
        slotsim::model::Writer::Maps => "the jobs' maps".to_string(),
        slotsim::model::Writer::Jobs => "a node per job, in turn".to_string(),
        slotsim::model::Writer::Node(i) => format!("node {i}"),
    };
    let buffer = match n.shuffle_buffer_mb {
        None => String::new(),
        Some(mb) => format!(
            " (to disk above {mb} MB, merged {} at a time)",
            n.io_sort_factor
        ),
    };
    outln!(
        o,
        "  physics    {} per node; {}, {} parallel copies{}; {} MB blocks x {}, written from {}",
        plural(sc.cluster.cores as u64, "core"),
        net,
        n.parallel_copies,
        buffer,
        sc.hdfs.block_mb,
        sc.hdfs.replication,
        writer
    );
}

/// The policy as a run labels it (an external policy's command from its
/// spec, else its table; building one starts no process), and the seed.
fn policy_line(o: &mut String, sc: &Scenario) {
    let ctx = slotsim::sim::policy::BuildCtx {
        heartbeat: sc.cluster.heartbeat,
        capacity: sc.cluster.capacity(),
    };
    let label = slotsim::sched::registry::build(&sc.policy, &sc.scheduler, &ctx)
        .map_or_else(|_| sc.policy.label(), |b| b.label);
    let process = if matches!(sc.policy, PolicySpec::External(_)) {
        " (a process of its own, started by a run, not by validate; its time is not in the cost below)"
    } else {
        ""
    };
    outln!(o, "  policy     {label}   seed {}{process}", sc.seed);
}

/// What a run would cost: events and time under the scenario's network
/// model (and the coarse model's where it would save much), and memory.
fn cost_lines(o: &mut String, sc: &Scenario, work: &Work) {
    let nodes = sc.cluster.node_count();
    let tasks = work.maps + work.reduces;
    // Each reducer fetches at least once from every node its job's maps
    // ran on.
    let fetches: u64 = work
        .jobs
        .iter()
        .map(|j| (j.maps as u64).min(nodes as u64) * j.reduces as u64)
        .sum();
    let cost = slotsim::sim::cost_estimate(tasks, fetches, nodes as u64);
    let model = sc.network.model;
    let secs = cost.seconds(model);
    outln!(
        o,
        "  cost       about {} events, {} under network.model = \"{}\" (estimates, within a few times)",
        slotsim::units::human_count(cost.events as f64),
        slotsim::units::human_secs(secs),
        model.name()
    );
    let coarse = cost.seconds(slotsim::model::NetworkModel::Coarse);
    if model == slotsim::model::NetworkModel::Shared && secs > 600.0 && coarse < 600.0 {
        outln!(
            o,
            "             network.model = \"coarse\" would take about {} (docs/model.md)",
            slotsim::units::human_secs(coarse)
        );
    }
    let cap = sc.cluster.capacity();
    let sources = work
        .jobs
        .iter()
        .map(|j| {
            let (reducers, from) =
                slotsim::sim::job_sources(j.maps as u64, j.reduces as u64, nodes as u64, &cap);
            reducers * from
        })
        .max()
        .unwrap_or(0);
    let need = slotsim::sim::memory_estimate(tasks, nodes as u64, sources);
    outln!(
        o,
        "  memory     about {} MB at its peak (an estimate)",
        need.div_ceil(1 << 20)
    );
}

pub fn cmd_policies() -> String {
    let mut o = String::new();
    let w = POLICIES.iter().map(|p| p.name.len()).max().unwrap_or(0);
    for p in POLICIES {
        outln!(o, "{:<w$} {}", p.name, p.summary);
        outln!(o, "{:<w$} source: {}", "", p.source);
    }
    o
}

pub fn cmd_profiles() -> String {
    let mut o = String::new();
    outln!(
        o,
        "{:<18} {:>8} {:>12} {:>14} {:>12}  source",
        "profile",
        "FP",
        "map s/MB",
        "reduce s/MB",
        "64MB map s"
    );
    let net = slotsim::model::NetworkSpec::default();
    for p in scenario::profiles::all() {
        let t64 = 64.0 / net.disk_mbps + 64.0 * p.map_s_per_mb + 64.0 * p.fp / net.disk_mbps;
        outln!(
            o,
            "{:<18} {:>8.4} {:>12.4} {:>14.4} {:>12.2}  {}",
            p.name,
            p.fp,
            p.map_s_per_mb,
            p.reduce_s_per_mb,
            t64,
            p.source
        );
    }
    o
}

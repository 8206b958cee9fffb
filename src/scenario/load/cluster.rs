//! `[cluster]`, `[network]`, `[hdfs]` and `[tasks]`.

use std::collections::BTreeSet;

use toml::Spanned;

use super::{Cx, MAX_NODES, MAX_SLOTS, R};
use crate::model::{
    auto_heartbeat, ClusterSpec, DatacenterSpec, HdfsSpec, Ms, NetworkModel, NetworkSpec, NodeId,
    SlotModel, Speculation, TaskSpec, Writer,
};
use crate::scenario::rumen::Survey;
use crate::scenario::schema::{
    ClusterDef, Dur, HdfsDef, Heartbeat, JobTaskTime, NetworkDef, Size, TasksDef, WriterDef,
};
use crate::units::MAX_DURATION_MS;

/// `[cluster]`. A Rumen scenario may leave out its nodes (or the whole
/// table): `trace` is then the trace's survey and its path, and the cluster
/// is the trace's hosts in its racks, with as many slots per node as the
/// busiest host ran attempts at once, unless `[cluster]` says otherwise.
pub(super) fn compile_cluster(
    cx: &Cx,
    def: Option<&ClusterDef>,
    trace: Option<(&Survey, &str)>,
) -> R<ClusterSpec> {
    let empty = ClusterDef::default();
    let c = match (def, trace) {
        (Some(c), _) => c,
        (None, Some(_)) => &empty,
        (None, None) => {
            return Err(cx.at_key(
                &[],
                "missing [cluster] table; expected [cluster] with nodes = N (or [[cluster.datacenters]])",
            ))
        }
    };
    let trace = trace.filter(|_| c.nodes.is_none() && c.datacenters.is_none());
    if let (Some((_, path)), Some(r)) = (trace, &c.racks) {
        return Err(cx.at(
            r,
            format!("racks without nodes: the cluster is the hosts of {path}, in its racks; expected nodes = N with racks, or neither"),
        ));
    }
    if let Some((survey, path)) = trace {
        if i64::from(survey.node_count()) > MAX_NODES {
            return Err(cx.at_key(
                &["cluster"],
                format!(
                    "{path} names {} hosts; expected at most {MAX_NODES}",
                    survey.node_count()
                ),
            ));
        }
    }
    let datacenters = match (&c.datacenters, trace) {
        (None, Some((survey, _))) => vec![DatacenterSpec {
            name: "dc0".into(),
            nodes: survey.node_count(),
            racks: survey.racks.len() as u32,
            rack_sizes: survey.racks.iter().map(|(_, h)| h.len() as u32).collect(),
        }],
        (dcs, _) => compile_datacenters(cx, c, dcs.as_ref())?,
    };
    let default_slots = |k: usize| trace.map_or(2, |(s, _)| [s.map_slots, s.reduce_slots][k]);
    let map_slots = c.map_slots.as_ref().map_or(Ok(default_slots(0)), |v| {
        cx.int(v, "map_slots", 1, MAX_SLOTS)
    })?;
    let reduce_slots = c.reduce_slots.as_ref().map_or(Ok(default_slots(1)), |v| {
        cx.int(v, "reduce_slots", 1, MAX_SLOTS)
    })?;
    if i64::from(map_slots.max(reduce_slots)) > MAX_SLOTS {
        return Err(cx.at_key(
            &["cluster"],
            format!("the trace's busiest host ran {} attempts at once; expected at most {MAX_SLOTS} (give map_slots and reduce_slots in [cluster])", map_slots.max(reduce_slots)),
        ));
    }
    finish_cluster(
        cx,
        c,
        datacenters,
        map_slots,
        reduce_slots,
        trace.map(|(_, p)| p.to_string()),
    )
}

fn compile_datacenters(
    cx: &Cx,
    c: &ClusterDef,
    dcs: Option<&Vec<crate::scenario::schema::DatacenterDef>>,
) -> R<Vec<DatacenterSpec>> {
    Ok(match dcs {
        Some(list) => {
            for (key, v) in [("nodes", &c.nodes), ("racks", &c.racks)] {
                if let Some(v) = v {
                    return Err(cx.at(
                        v,
                        format!(
                            "[cluster] {key} cannot be combined with [[cluster.datacenters]]; expected {key} inside each datacenter"
                        ),
                    ));
                }
            }
            if list.is_empty() {
                return Err(cx.at_key(
                    &["cluster", "datacenters"],
                    "cluster.datacenters is empty; expected at least one [[cluster.datacenters]]",
                ));
            }
            let mut seen = BTreeSet::new();
            let mut total: i64 = 0;
            let mut out = Vec::new();
            for dc in list {
                let name = dc.name.get_ref().trim();
                if name.is_empty() {
                    return Err(cx.at(&dc.name, "datacenter name is empty; expected a name"));
                }
                if !seen.insert(name.to_string()) {
                    return Err(cx.at(
                        &dc.name,
                        format!(
                            "duplicate datacenter \"{name}\"; expected each datacenter name once"
                        ),
                    ));
                }
                let nodes = cx.int(&dc.nodes, "nodes", 1, MAX_NODES)?;
                total += i64::from(nodes);
                if total > MAX_NODES {
                    return Err(cx.at(
                        &dc.nodes,
                        format!(
                            "the cluster has {total} nodes; expected at most {MAX_NODES} in all"
                        ),
                    ));
                }
                let racks = racks_for(cx, dc.racks.as_ref(), nodes)?;
                out.push(DatacenterSpec {
                    name: name.to_string(),
                    nodes,
                    racks,
                    rack_sizes: Vec::new(),
                });
            }
            out
        }
        None => {
            let Some(n) = &c.nodes else {
                return Err(cx.at_key(
                    &["cluster"],
                    "[cluster] has no nodes; expected nodes = N or [[cluster.datacenters]]",
                ));
            };
            let nodes = cx.int(n, "nodes", 1, MAX_NODES)?;
            let racks = racks_for(cx, c.racks.as_ref(), nodes)?;
            vec![DatacenterSpec {
                name: "dc0".into(),
                nodes,
                racks,
                rack_sizes: Vec::new(),
            }]
        }
    })
}

fn finish_cluster(
    cx: &Cx,
    c: &ClusterDef,
    datacenters: Vec<DatacenterSpec>,
    map_slots: u32,
    reduce_slots: u32,
    from_trace: Option<String>,
) -> R<ClusterSpec> {
    let slot_model = match &c.slot_model {
        None => SlotModel::Typed,
        Some(s) => match s.get_ref().as_str() {
            "typed" => SlotModel::Typed,
            "unified" => SlotModel::Unified,
            "yarn" => SlotModel::Yarn,
            other => {
                return Err(cx.at(
                    s,
                    format!(
                    "unknown slot_model \"{other}\"; expected \"typed\", \"unified\" or \"yarn\""
                ),
                ))
            }
        },
    };
    let node_resource = if slot_model == SlotModel::Yarn {
        let r = super::yarn::resource(
            cx,
            (&c.memory, "memory"),
            (&c.vcores, "vcores"),
            crate::model::yarn_defaults::NODE,
        )?;
        let min = crate::model::yarn_defaults::MIN_ALLOCATION;
        if !min.fits_in(r) {
            let at = c
                .memory
                .as_ref()
                .map(|m| m.span())
                .or(c.vcores.as_ref().map(|v| v.span()));
            return Err(cx.at_span(
                &at.unwrap_or(0..0),
                format!("a node of {} MB and {} vcores holds no container; expected at least {} MB and {} vcore (yarn.scheduler.minimum-allocation-*)", r.mb(), r.vcores(), min.mb(), min.vcores()),
            ));
        }
        r
    } else {
        if let Some((key, at)) =
            super::yarn::first_set(&[("memory", &c.memory)], &[("vcores", &c.vcores)])
        {
            return Err(cx.at_span(
                &at,
                format!("{key} sizes a node's containers under slot_model = \"yarn\" only; expected slot_model = \"yarn\" or no {key}"),
            ));
        }
        crate::model::Resource::ZERO
    };
    let nodes: u32 = datacenters.iter().map(|d| d.nodes).sum();
    let scaling = match &c.heartbeat_scaling {
        None => 1.0,
        Some(v) => cx.within(v, "heartbeat_scaling", 0.01, 100.0)?,
    };
    let heartbeat = match c.heartbeat.unwrap_or(Heartbeat::Auto) {
        // YARN's NodeManagers heartbeat at a fixed interval whatever the
        // cluster's size.
        Heartbeat::Auto if slot_model == SlotModel::Yarn => {
            Some(crate::model::yarn_defaults::NM_HEARTBEAT)
        }
        Heartbeat::Auto => Some(auto_heartbeat(nodes, scaling)),
        Heartbeat::Every(ms) => Some(ms),
        Heartbeat::Manual => None,
    };
    let cores = match &c.cores {
        None if slot_model == SlotModel::Yarn => {
            u32::try_from(node_resource.vcores().max(1)).unwrap_or(u32::MAX)
        }
        None => map_slots + reduce_slots,
        Some(v) => cx.int(v, "cores", 1, MAX_SLOTS)?,
    };
    let speed = match &c.speed {
        None => (1.0, 1.0),
        Some(s) => {
            let (lo, hi) = *s.get_ref();
            if !(lo.is_finite() && hi.is_finite() && lo >= 0.01 && lo <= hi && hi <= 100.0) {
                return Err(cx.at(
                    s,
                    format!("invalid speed [{lo}, {hi}]; expected [lo, hi] with 0.01 <= lo <= hi <= 100"),
                ));
            }
            (lo, hi)
        }
    };
    Ok(ClusterSpec {
        datacenters,
        map_slots,
        reduce_slots,
        slot_model,
        node_resource,
        cores,
        heartbeat,
        // A NodeManager heartbeats out of band whenever a container ends
        // (Hadoop 2 always does).
        out_of_band_heartbeat: c.out_of_band_heartbeat || slot_model == SlotModel::Yarn,
        speed,
        from_trace,
    })
}

/// Racks of a datacenter: default 1, at most one per node.
pub(super) fn racks_for(cx: &Cx, racks: Option<&Spanned<i64>>, nodes: u32) -> R<u32> {
    let Some(r) = racks else { return Ok(1) };
    let n = cx.int(r, "racks", 1, MAX_NODES)?;
    if n > nodes {
        return Err(cx.at(
            r,
            format!("racks = {n} exceeds nodes = {nodes}; expected at most one rack per node"),
        ));
    }
    Ok(n)
}

pub(super) fn compile_network(cx: &Cx, n: &NetworkDef) -> R<NetworkSpec> {
    let mut spec = NetworkSpec::default();
    if let Some(m) = &n.model {
        spec.model = match m.get_ref().as_str() {
            "shared" => NetworkModel::Shared,
            "coarse" => NetworkModel::Coarse,
            "fixed" => NetworkModel::Fixed,
            other => {
                return Err(cx.at(
                    m,
                    format!("unknown network model \"{other}\"; expected \"shared\", \"coarse\" or \"fixed\""),
                ))
            }
        };
    }
    if spec.model.shares() {
        for (key, v) in [
            ("rack_mbps", &n.rack_mbps),
            ("cross_rack_mbps", &n.cross_rack_mbps),
            ("shuffle_mbps", &n.shuffle_mbps),
        ] {
            if let Some(v) = v {
                return Err(cx.at(
                    v,
                    format!(
                        "{key} is a per-transfer bandwidth of model = \"fixed\"; under \"shared\" transfers share disk_mbps, nic_mbps, the rack uplinks (rack_oversubscription) and inter_dc_mbps"
                    ),
                ));
            }
        }
    }
    for (key, value, slot) in [
        ("disk_mbps", &n.disk_mbps, &mut spec.disk_mbps),
        ("nic_mbps", &n.nic_mbps, &mut spec.nic_mbps),
        ("inter_dc_mbps", &n.inter_dc_mbps, &mut spec.inter_dc_mbps),
        ("rack_mbps", &n.rack_mbps, &mut spec.rack_mbps),
        (
            "cross_rack_mbps",
            &n.cross_rack_mbps,
            &mut spec.cross_rack_mbps,
        ),
        ("shuffle_mbps", &n.shuffle_mbps, &mut spec.shuffle_mbps),
    ] {
        if let Some(v) = value {
            // Bounded so that no transfer of a bounded size outlasts the
            // simulated clock's range.
            *slot = cx.within(v, key, 0.001, 1e7)?;
        }
    }
    if let Some(v) = &n.rack_oversubscription {
        spec.rack_oversubscription = cx.within(v, "rack_oversubscription", 0.01, 1e6)?;
    }
    if let Some(v) = &n.parallel_copies {
        spec.parallel_copies = cx.int(v, "parallel_copies", 1, 1_000)?;
    }
    if let Some(v) = &n.io_sort_factor {
        spec.io_sort_factor = cx.int(v, "io_sort_factor", 2, 100_000)?;
    }
    if let Some(v) = &n.shuffle_buffer {
        spec.shuffle_buffer_mb = match v.get_ref().trim() {
            "unlimited" => None,
            s => match crate::units::parse_size_mb(s) {
                Ok(mb) if mb.is_finite() && mb >= 0.0 => Some(mb),
                _ => {
                    return Err(cx.at(
                        v,
                        format!("shuffle_buffer must be a size such as \"140MB\" or \"unlimited\", got \"{s}\""),
                    ))
                }
            },
        };
    }
    Ok(spec)
}

pub(super) fn compile_hdfs(cx: &Cx, h: &HdfsDef, node_count: u32) -> R<HdfsSpec> {
    let block_mb = match &h.block {
        None => 128.0,
        Some(b) => {
            let mb = b.get_ref().0;
            if !(mb.is_finite() && mb > 0.0) {
                return Err(cx.at(b, "block size must be larger than 0, like \"128MB\""));
            }
            mb
        }
    };
    // HDFS cannot hold more replicas than there are nodes: the default of 3
    // shrinks on tiny clusters, an explicit value that cannot be met is an error.
    let replication = match &h.replication {
        None => 3.min(node_count),
        Some(r) => {
            let n = cx.int(r, "replication", 1, MAX_NODES)?;
            if n > node_count {
                return Err(cx.at(
                    r,
                    format!(
                        "replication = {n} exceeds the {node_count} nodes of the cluster; expected at most {node_count}"
                    ),
                ));
            }
            n
        }
    };
    let writer = match &h.writer {
        None => Writer::Client,
        Some(w) => writer(cx, w, node_count)?,
    };
    Ok(HdfsSpec {
        block_mb,
        replication,
        writer,
    })
}

/// `writer = "client" | "maps" | "jobs" | NODE` (a node of the cluster).
pub(super) fn writer(cx: &Cx, w: &Spanned<WriterDef>, node_count: u32) -> R<Writer> {
    match w.get_ref() {
        WriterDef::Name(s) if s == "client" => Ok(Writer::Client),
        WriterDef::Name(s) if s == "maps" => Ok(Writer::Maps),
        WriterDef::Name(s) if s == "jobs" => Ok(Writer::Jobs),
        WriterDef::Node(n) if (0..i64::from(node_count)).contains(n) => Ok(Writer::Node(*n as NodeId)),
        WriterDef::Node(n) => Err(cx.at(
            w,
            format!("writer = {n} is not a node of this cluster; expected a node id from 0 to {}", node_count.saturating_sub(1)),
        )),
        WriterDef::Name(s) => Err(cx.at(
            w,
            format!("unknown writer \"{s}\"; expected \"client\" (loaded from outside the cluster), \"maps\" (written by the job's maps), \"jobs\" (each job's from a node of its own, in turn) or a node id"),
        )),
    }
}

/// `[tasks]`. `manual`: the cluster heartbeats only where the script says
/// (Hadoop's own tests, replayed heartbeat by heartbeat, whose jobs run
/// no set-up or clean-up task): "auto" set-up and clean-up are then off.
pub(super) fn compile_tasks(cx: &Cx, t: &TasksDef, cluster: &ClusterSpec) -> R<TaskSpec> {
    let manual = cluster.heartbeat.is_none();
    let straggler_prob = t
        .straggler_prob
        .as_ref()
        .map_or(Ok(0.0), |v| cx.within(v, "straggler_prob", 0.0, 1.0))?;
    let straggler_slowdown = straggler_slowdown(cx, &t.straggler_slowdown)?;
    let speculation = speculation(cx, &t.speculation)?;
    let startup = task_startup(cx, &t.startup)?;
    let duration_cv = t
        .duration_cv
        .as_ref()
        .map_or(Ok(0.1), |v| cx.within(v, "duration_cv", 0.0, 10.0))?;
    let reduce_cost_scale = t
        .reduce_cost_scale
        .as_ref()
        .map_or(Ok(1.0), |v| cx.within(v, "reduce_cost_scale", 0.0, 1e3))?;
    let auto = (!manual).then_some(startup);
    let (setup, cleanup) = (
        job_task(cx, &t.setup, "setup", auto)?,
        job_task(cx, &t.cleanup, "cleanup", auto)?,
    );
    let spec = TaskSpec {
        startup,
        duration_cv,
        reduce_cost_scale,
        straggler_prob,
        straggler_slowdown,
        speculation,
        setup,
        cleanup,
        am: None,
        map_container: crate::model::Resource::ZERO,
        reduce_container: crate::model::Resource::ZERO,
    };
    if cluster.slot_model == SlotModel::Yarn {
        yarn_tasks(cx, t, cluster, spec)
    } else {
        no_yarn_keys(cx, t)?;
        Ok(spec)
    }
}

/// `straggler_slowdown`, [lo, hi] (default [1.5, 4]).
fn straggler_slowdown(cx: &Cx, v: &Option<Spanned<(f64, f64)>>) -> R<(f64, f64)> {
    let Some(s) = v else {
        return Ok((1.5, 4.0));
    };
    let (lo, hi) = *s.get_ref();
    if !(lo.is_finite() && hi.is_finite() && lo >= 1.0 && lo <= hi && hi <= 1000.0) {
        return Err(cx.at(
            s,
            format!(
                "invalid straggler_slowdown [{lo}, {hi}]; expected [lo, hi] with 1 <= lo <= hi <= 1000"
            ),
        ));
    }
    Ok((lo, hi))
}

fn speculation(cx: &Cx, v: &Option<Spanned<String>>) -> R<Speculation> {
    let Some(s) = v else {
        return Ok(Speculation::Off);
    };
    match s.get_ref().as_str() {
        "off" => Ok(Speculation::Off),
        "hadoop" => Ok(Speculation::Hadoop),
        "late" => Ok(Speculation::Late),
        other => Err(cx.at(
            s,
            format!("unknown speculation \"{other}\"; expected \"off\", \"hadoop\" or \"late\""),
        )),
    }
}

/// A task's `startup` (default 1 s).
fn task_startup(cx: &Cx, v: &Option<Spanned<Dur>>) -> R<Ms> {
    let Some(d) = v else {
        return Ok(1_000);
    };
    let ms = d.get_ref().0;
    if ms > MAX_DURATION_MS / 1_000 {
        return Err(cx.at(
            d,
            "startup must be at most 87.6h (a thousandth of the clock's range)",
        ));
    }
    Ok(ms)
}

/// A job's set-up or clean-up task (`key`): "auto" (and no key) is `auto`,
/// the task start-up or none on a manual cluster. Hadoop 1.x's set-up and
/// clean-up tasks are a task's JVM start and the OutputCommitter's
/// setupJob / commitJob (FileOutputCommitter: creating and removing
/// `_temporary`, writing `_SUCCESS`: NameNode operations of milliseconds),
/// so "auto" is the task start-up.
fn job_task(
    cx: &Cx,
    v: &Option<Spanned<JobTaskTime>>,
    key: &str,
    auto: Option<Ms>,
) -> R<Option<Ms>> {
    match v.as_ref().map(|s| (s, *s.get_ref())) {
        None | Some((_, JobTaskTime::Auto)) => Ok(auto),
        Some((_, JobTaskTime::Off)) => Ok(None),
        Some((s, JobTaskTime::Every(ms))) => {
            if ms > MAX_DURATION_MS / 1_000 {
                return Err(cx.at(
                    s,
                    format!("{key} must be at most 87.6h (a thousandth of the clock's range)"),
                ));
            }
            Ok(Some(ms))
        }
    }
}

/// Outside `slot_model = "yarn"`, no container key is set.
fn no_yarn_keys(cx: &Cx, t: &TasksDef) -> R<()> {
    let sizes = [
        ("am_memory", &t.am_memory),
        ("map_memory", &t.map_memory),
        ("reduce_memory", &t.reduce_memory),
    ];
    let counts = [
        ("am_vcores", &t.am_vcores),
        ("map_vcores", &t.map_vcores),
        ("reduce_vcores", &t.reduce_vcores),
    ];
    let startup_key = t.am_startup.as_ref().map(|v| ("am_startup", v.span()));
    if let Some((key, at)) = super::yarn::first_set(&sizes, &counts).or(startup_key) {
        return Err(cx.at_span(
            &at,
            format!("{key} is a YARN container's; expected slot_model = \"yarn\" in [cluster], or no {key}"),
        ));
    }
    Ok(())
}

/// Under `slot_model = "yarn"`: no set-up or clean-up task (the AM sets
/// up and commits), no speculation yet, and the ApplicationMaster's, a
/// map's and a reduce's containers, each within a node.
fn yarn_tasks(cx: &Cx, t: &TasksDef, cluster: &ClusterSpec, mut spec: TaskSpec) -> R<TaskSpec> {
    use super::yarn::{check_container, resource};
    use crate::model::yarn_defaults as d;
    let manual = cluster.heartbeat.is_none();
    spec.setup = None;
    spec.cleanup = None;
    if spec.speculation != Speculation::Off {
        let at = t.speculation.as_ref().map_or(0..0, |s| s.span());
        return Err(cx.at_span(
            &at,
            "speculation is not modelled under slot_model = \"yarn\" yet; expected speculation = \"off\"",
        ));
    }
    let am = resource(
        cx,
        (&t.am_memory, "am_memory"),
        (&t.am_vcores, "am_vcores"),
        d::AM,
    )?;
    // The AM's start-up (JVM, registration, job initialisation and set-up)
    // has no Hadoop default: one task start-up unless the scenario says.
    let am_startup = match &t.am_startup {
        None if am.is_zero() || manual => 0,
        None => spec.startup,
        Some(v) => v.get_ref().0,
    };
    spec.am = Some(crate::model::AmSpec {
        ask: am,
        startup: am_startup,
        startup_given: t.am_startup.is_some(),
    });
    spec.map_container = resource(
        cx,
        (&t.map_memory, "map_memory"),
        (&t.map_vcores, "map_vcores"),
        d::MAP,
    )?;
    spec.reduce_container = resource(
        cx,
        (&t.reduce_memory, "reduce_memory"),
        (&t.reduce_vcores, "reduce_vcores"),
        d::REDUCE,
    )?;
    let node = cluster.node_resource;
    let span = |v: &Option<Spanned<Size>>| v.as_ref().map_or(0..0, |v| v.span());
    check_container(cx, span(&t.am_memory), "the ApplicationMaster", am, node)?;
    check_container(cx, span(&t.map_memory), "a map", spec.map_container, node)?;
    check_container(
        cx,
        span(&t.reduce_memory),
        "a reduce",
        spec.reduce_container,
        node,
    )?;
    Ok(spec)
}

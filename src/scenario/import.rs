//! `slotsim import hadoop CONF_DIR`: Hadoop 1.x configuration files into
//! scenario TOML. Reads `mapred-site.xml` (slots per TaskTracker,
//! slowstart, speculation, parallel copies, the scheduler class and the
//! fair scheduler's global keys), `hdfs-site.xml` (block size,
//! replication), `slaves` (how many nodes), and `fair-scheduler.xml`
//! (pools) or `capacity-scheduler.xml` (queues). Every key it does not
//! model is a warning, not silently dropped.
//!
//! The XML is parsed without DTDs: a document type declaration is refused,
//! so no entity is expanded and nothing is fetched from a file or the
//! network on a configuration file's behalf.

use crate::error::InputError;
use std::collections::BTreeMap;

/// One configuration file's text, named as the error messages should
/// name it.
pub struct ConfFile<'a> {
    pub name: &'a str,
    pub text: &'a str,
}

/// The scenario, and a warning per key left out.
pub struct Imported {
    pub toml: String,
    pub warnings: Vec<String>,
}

/// `name → value` of a Hadoop `<configuration>` file, in file order.
fn properties(f: &ConfFile) -> Result<Vec<(String, String)>, InputError> {
    let doc = xml(f)?;
    let mut out = Vec::new();
    for p in doc
        .root_element()
        .children()
        .filter(|n| n.has_tag_name("property"))
    {
        let child = |tag: &str| {
            p.children()
                .find(|n| n.has_tag_name(tag))
                .and_then(|n| n.text())
                .map(|t| t.trim().to_string())
        };
        if let (Some(k), Some(v)) = (child("name"), child("value")) {
            out.push((k, v));
        }
    }
    Ok(out)
}

fn xml<'a>(f: &'a ConfFile) -> Result<roxmltree::Document<'a>, InputError> {
    roxmltree::Document::parse_with_options(
        f.text,
        roxmltree::ParsingOptions {
            allow_dtd: false,
            ..Default::default()
        },
    )
    .map_err(|e| match (&e, f.text.find("<!DOCTYPE")) {
        // Point at the declaration itself.
        (roxmltree::Error::DtdDetected, Some(at)) => InputError::at(
            f.name,
            f.text,
            at,
            "a DTD (<!DOCTYPE …>); expected Hadoop configuration XML without one (entities are not expanded)",
        ),
        _ => InputError {
            origin: f.name.to_string(),
            pos: Some((e.pos().row as usize, e.pos().col as usize)),
            message: format!("{e}; expected Hadoop configuration XML"),
        },
    })
}

/// A TOML string literal.
fn q(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

fn number(f: &ConfFile, key: &str, v: &str) -> Result<f64, InputError> {
    v.trim()
        .parse::<f64>()
        .ok()
        .filter(|x| x.is_finite())
        .ok_or_else(|| InputError::new(f.name, format!("{key} = {v:?}: expected a number")))
}

/// Turns the files found into a scenario. `slaves`: the node count from a
/// `slaves` file, if there was one.
pub fn hadoop(
    mapred: Option<&ConfFile>,
    hdfs: Option<&ConfFile>,
    fair: Option<&ConfFile>,
    capacity: Option<&ConfFile>,
    slaves: Option<usize>,
) -> Result<Imported, InputError> {
    let mut warnings = Vec::new();
    let mut t = Tables::new();
    match slaves {
        Some(n) if n > 0 => {
            t.cluster.insert("nodes", n.to_string());
        }
        _ => {
            t.cluster.insert("nodes", "10".into());
            warnings.push("no slaves file: nodes = 10; set it to your cluster's size".into());
        }
    }
    if let Some(f) = mapred {
        t.mapred_site(f, &mut warnings)?;
    }
    if t.speculate {
        t.tasks.insert("speculation", q("hadoop"));
    }
    if let Some(f) = hdfs {
        t.hdfs_site(f, &mut warnings)?;
    }
    let mut pools = String::new();
    if let Some(f) = fair {
        pools.push_str(&fair_pools(f, &mut warnings)?);
    }
    if let Some(f) = capacity {
        pools.push_str(&capacity_queues(f, &mut warnings)?);
    }
    Ok(Imported {
        toml: t.into_toml(&pools),
        warnings,
    })
}

/// The scenario's tables as the files fill them, each key → its TOML
/// value, in key order.
struct Tables {
    cluster: BTreeMap<&'static str, String>,
    hdfs: BTreeMap<&'static str, String>,
    tasks: BTreeMap<&'static str, String>,
    network: BTreeMap<&'static str, String>,
    scheduler: BTreeMap<&'static str, String>,
    /// `[scheduler.fair]`.
    fair: BTreeMap<&'static str, String>,
    policy: &'static str,
    /// Whether either kind of task runs speculatively.
    speculate: bool,
}

impl Tables {
    fn new() -> Tables {
        Tables {
            cluster: BTreeMap::new(),
            hdfs: BTreeMap::new(),
            tasks: BTreeMap::new(),
            network: BTreeMap::new(),
            scheduler: BTreeMap::new(),
            fair: BTreeMap::new(),
            policy: "fifo",
            speculate: false,
        }
    }

    /// `mapred-site.xml`: slots, slowstart, speculation, parallel copies,
    /// the scheduler class and the fair scheduler's global keys.
    fn mapred_site(&mut self, f: &ConfFile, warnings: &mut Vec<String>) -> Result<(), InputError> {
        for (k, v) in properties(f)? {
            match k.as_str() {
                "mapred.tasktracker.map.tasks.maximum" => {
                    self.cluster
                        .insert("map_slots", (number(f, &k, &v)? as i64).to_string());
                }
                "mapred.tasktracker.reduce.tasks.maximum" => {
                    self.cluster
                        .insert("reduce_slots", (number(f, &k, &v)? as i64).to_string());
                }
                "mapred.reduce.slowstart.completed.maps" => {
                    self.scheduler
                        .insert("slowstart", format!("{:?}", number(f, &k, &v)?));
                }
                "mapred.map.tasks.speculative.execution"
                | "mapred.reduce.tasks.speculative.execution" => {
                    self.speculate |= v.trim() == "true";
                }
                "mapred.reduce.parallel.copies" => {
                    self.network
                        .insert("parallel_copies", (number(f, &k, &v)? as i64).to_string());
                }
                "mapred.jobtracker.taskScheduler" => {
                    self.policy = scheduler_class(f, &k, v.trim(), warnings);
                }
                "mapred.fairscheduler.locality.delay" => {
                    let ms = number(f, &k, &v)? as i64;
                    self.fair
                        .insert("node_locality_delay", q(&format!("{ms}ms")));
                    self.fair
                        .insert("rack_locality_delay", q(&format!("{ms}ms")));
                }
                "mapred.fairscheduler.assignmultiple" => {
                    self.fair
                        .insert("assign_multiple", (v.trim() == "true").to_string());
                }
                "mapred.fairscheduler.preemption" => {
                    self.fair
                        .insert("preemption", (v.trim() == "true").to_string());
                }
                "mapred.fairscheduler.sizebasedweight" => {
                    self.fair
                        .insert("size_based_weight", (v.trim() == "true").to_string());
                }
                _ => warnings.push(format!("{}: {k} is not modelled", f.name)),
            }
        }
        Ok(())
    }

    /// `hdfs-site.xml`: block size and replication.
    fn hdfs_site(&mut self, f: &ConfFile, warnings: &mut Vec<String>) -> Result<(), InputError> {
        for (k, v) in properties(f)? {
            match k.as_str() {
                "dfs.block.size" | "dfs.blocksize" => {
                    let mb = number(f, &k, &v)? / 1048576.0;
                    self.hdfs.insert("block", q(&format!("{mb}MB")));
                }
                "dfs.replication" => {
                    self.hdfs
                        .insert("replication", (number(f, &k, &v)? as i64).to_string());
                }
                _ => warnings.push(format!("{}: {k} is not modelled", f.name)),
            }
        }
        Ok(())
    }

    /// The scenario's text: the tables (2 slots of each kind unless a file
    /// said), the pools, and an example job.
    fn into_toml(mut self, pools: &str) -> String {
        self.cluster
            .entry("map_slots")
            .or_insert_with(|| "2".into());
        self.cluster
            .entry("reduce_slots")
            .or_insert_with(|| "2".into());
        let table = |name: &str, t: &BTreeMap<&str, String>| -> String {
            if t.is_empty() {
                return String::new();
            }
            let mut s = format!("\n[{name}]\n");
            for (k, v) in t {
                s.push_str(&format!("{k} = {v}\n"));
            }
            s
        };
        let mut out = String::from(
            "# Imported from a Hadoop 1.x configuration by `slotsim import hadoop`.\n\
             # Jobs are not part of a configuration: add [[jobs]] or [[workloads]].\n\
             name = \"imported\"\n",
        );
        out.push_str(&table("cluster", &self.cluster));
        out.push_str(&table("network", &self.network));
        out.push_str(&table("hdfs", &self.hdfs));
        out.push_str(&table("tasks", &self.tasks));
        self.scheduler.insert("policy", q(self.policy));
        out.push_str(&table("scheduler", &self.scheduler));
        out.push_str(&table("scheduler.fair", &self.fair));
        out.push_str(pools);
        out.push_str("\n[[jobs]]\nname = \"example\"\nprofile = \"wordcount\"\ninput = \"4GB\"\n");
        out
    }
}

/// `mapred.jobtracker.taskScheduler` (`key`, its value `class`) as a
/// policy; a class slotsim does not have is fifo, with a warning.
fn scheduler_class(
    f: &ConfFile,
    key: &str,
    class: &str,
    warnings: &mut Vec<String>,
) -> &'static str {
    match class {
        "org.apache.hadoop.mapred.FairScheduler" => "fair",
        "org.apache.hadoop.mapred.CapacityTaskScheduler" => "capacity",
        "org.apache.hadoop.mapred.JobQueueTaskScheduler" => "fifo",
        other => {
            warnings.push(format!(
                "{}: {key} = {other}: not a scheduler slotsim has; using fifo",
                f.name
            ));
            "fifo"
        }
    }
}

/// `fair-scheduler.xml`: `<pool name="…">` with weight, minMaps,
/// minReduces, maxMaps, maxReduces, maxRunningJobs, schedulingMode,
/// minSharePreemptionTimeout (seconds).
fn fair_pools(f: &ConfFile, warnings: &mut Vec<String>) -> Result<String, InputError> {
    let doc = xml(f)?;
    let mut out = String::new();
    for el in doc.root_element().children().filter(|n| n.is_element()) {
        let tag = el.tag_name().name();
        if tag != "pool" {
            warnings.push(format!("{}: <{tag}> is not modelled", f.name));
            continue;
        }
        let Some(name) = el.attribute("name") else {
            return Err(InputError::new(f.name, "a <pool> without a name attribute"));
        };
        out.push_str(&format!("\n[[pools]]\nname = {}\n", q(name)));
        for c in el.children().filter(|n| n.is_element()) {
            let key = c.tag_name().name();
            let v = c.text().unwrap_or("").trim();
            let num = || number(f, key, v);
            match key {
                "weight" => out.push_str(&format!("weight = {:?}\n", num()?)),
                "minMaps" => out.push_str(&format!("min_maps = {}\n", num()? as i64)),
                "minReduces" => out.push_str(&format!("min_reduces = {}\n", num()? as i64)),
                "maxMaps" => out.push_str(&format!("max_maps = {}\n", num()? as i64)),
                "maxReduces" => out.push_str(&format!("max_reduces = {}\n", num()? as i64)),
                "maxRunningJobs" => {
                    out.push_str(&format!("max_running_jobs = {}\n", num()? as i64))
                }
                "schedulingMode" => {
                    out.push_str(&format!("scheduling_mode = {}\n", q(&v.to_lowercase())))
                }
                "minSharePreemptionTimeout" => out.push_str(&format!(
                    "min_share_timeout = {}\n",
                    q(&format!("{}s", num()?))
                )),
                other => warnings.push(format!(
                    "{}: pool {name}: <{other}> is not modelled",
                    f.name
                )),
            }
        }
    }
    Ok(out)
}

/// `capacity-scheduler.xml`: `mapred.capacity-scheduler.queue.Q.KEY` for
/// capacity, minimum-user-limit-percent and user-limit-factor.
fn capacity_queues(f: &ConfFile, warnings: &mut Vec<String>) -> Result<String, InputError> {
    let mut queues: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (k, v) in properties(f)? {
        let Some(rest) = k.strip_prefix("mapred.capacity-scheduler.queue.") else {
            warnings.push(format!("{}: {k} is not modelled", f.name));
            continue;
        };
        let Some((queue, key)) = rest.rsplit_once('.') else {
            warnings.push(format!("{}: {k} is not modelled", f.name));
            continue;
        };
        let line = match key {
            "capacity" => format!("capacity = {:?}", number(f, &k, &v)?),
            "minimum-user-limit-percent" => format!("min_user_limit = {:?}", number(f, &k, &v)?),
            "user-limit-factor" => format!("user_limit_factor = {:?}", number(f, &k, &v)?),
            _ => {
                warnings.push(format!("{}: {k} is not modelled", f.name));
                continue;
            }
        };
        queues.entry(queue.to_string()).or_default().push(line);
    }
    let mut out = String::new();
    for (q_name, lines) in queues {
        out.push_str(&format!("\n[[pools]]\nname = {}\n", q(&q_name)));
        for l in lines {
            out.push_str(&l);
            out.push('\n');
        }
    }
    Ok(out)
}

//! `slotsim import hadoop`: configuration files as Hadoop 1.x's
//! documentation writes them become scenarios that load; keys it does not
//! model are warnings; XML with a DTD (entities) is refused.

use std::path::Path;
use std::process::Command;

fn import(dir: &Path) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_slotsim"))
        .args(["import", "hadoop"])
        .arg(dir)
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn property(name: &str, value: &str) -> String {
    format!("  <property>\n    <name>{name}</name>\n    <value>{value}</value>\n  </property>\n")
}

fn configuration(props: &[(&str, &str)]) -> String {
    let mut s = String::from("<?xml version=\"1.0\"?>\n<configuration>\n");
    for (k, v) in props {
        s.push_str(&property(k, v));
    }
    s.push_str("</configuration>\n");
    s
}

#[test]
fn fair_scheduler_configuration_becomes_a_scenario() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("mapred-site.xml"),
        configuration(&[
            ("mapred.tasktracker.map.tasks.maximum", "4"),
            ("mapred.tasktracker.reduce.tasks.maximum", "2"),
            ("mapred.reduce.slowstart.completed.maps", "0.8"),
            (
                "mapred.jobtracker.taskScheduler",
                "org.apache.hadoop.mapred.FairScheduler",
            ),
            ("mapred.fairscheduler.locality.delay", "6000"),
            ("mapred.job.tracker", "jobtracker:9001"),
        ]),
    )
    .unwrap();
    std::fs::write(
        d.path().join("hdfs-site.xml"),
        configuration(&[("dfs.block.size", "134217728"), ("dfs.replication", "2")]),
    )
    .unwrap();
    std::fs::write(
        d.path().join("fair-scheduler.xml"),
        "<?xml version=\"1.0\"?>\n<allocations>\n  <pool name=\"prod\">\n    <minMaps>5</minMaps>\n    <weight>2.0</weight>\n  </pool>\n  <user name=\"u\">\n    <maxRunningJobs>6</maxRunningJobs>\n  </user>\n</allocations>\n",
    )
    .unwrap();
    std::fs::write(d.path().join("slaves"), "tt1\ntt2\n# a comment\ntt3\n").unwrap();
    let (code, toml, warnings) = import(d.path());
    assert_eq!(code, 0, "{warnings}");
    assert!(
        warnings.contains("mapred.job.tracker is not modelled"),
        "{warnings}"
    );
    assert!(warnings.contains("<user> is not modelled"), "{warnings}");
    let sc = slotsim::scenario::load_str(&toml, "imported.toml", None, None).unwrap();
    assert_eq!(sc.cluster.node_count(), 3);
    assert_eq!(sc.policy.name(), "fair");
    assert_eq!(sc.hdfs.replication, 2);
    assert_eq!(sc.hdfs.block_mb, 128.0);
    let prod = sc.pools.iter().find(|p| p.name == "prod").unwrap();
    assert_eq!((prod.min_maps, prod.weight), (5, 2.0));
    assert!(toml.contains("node_locality_delay = \"6000ms\""), "{toml}");
    assert!(toml.contains("slowstart = 0.8"), "{toml}");
}

#[test]
fn capacity_scheduler_queues_become_pools() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("mapred-site.xml"),
        configuration(&[(
            "mapred.jobtracker.taskScheduler",
            "org.apache.hadoop.mapred.CapacityTaskScheduler",
        )]),
    )
    .unwrap();
    std::fs::write(
        d.path().join("capacity-scheduler.xml"),
        configuration(&[
            ("mapred.capacity-scheduler.queue.default.capacity", "70"),
            (
                "mapred.capacity-scheduler.queue.default.user-limit-factor",
                "2",
            ),
            ("mapred.capacity-scheduler.queue.research.capacity", "30"),
            (
                "mapred.capacity-scheduler.queue.research.minimum-user-limit-percent",
                "50",
            ),
            (
                "mapred.capacity-scheduler.default-init-accept-jobs-factor",
                "10",
            ),
        ]),
    )
    .unwrap();
    let (code, toml, warnings) = import(d.path());
    assert_eq!(code, 0, "{warnings}");
    assert!(warnings.contains("default-init-accept-jobs-factor is not modelled"));
    assert!(warnings.contains("no slaves file"), "{warnings}");
    let sc = slotsim::scenario::load_str(&toml, "imported.toml", None, None).unwrap();
    assert_eq!(sc.policy.name(), "capacity");
    let default = sc.pools.iter().find(|p| p.name == "default").unwrap();
    assert_eq!(
        (default.capacity, default.user_limit_factor),
        (Some(70.0), 2.0)
    );
    let research = sc.pools.iter().find(|p| p.name == "research").unwrap();
    assert_eq!(research.min_user_limit, 50.0);
}

/// A DTD is refused: no entity is expanded (a billion laughs would be),
/// no external file is read.
#[test]
fn xml_with_a_dtd_is_refused() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("mapred-site.xml"),
        "<?xml version=\"1.0\"?>\n<!DOCTYPE configuration [\n  <!ENTITY x SYSTEM \"file:///etc/passwd\">\n  <!ENTITY a \"aaaaaaaaaa\">\n  <!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\">\n]>\n<configuration>\n  <property>\n    <name>mapred.job.tracker</name>\n    <value>&x;&b;</value>\n  </property>\n</configuration>\n",
    )
    .unwrap();
    let (code, out, err) = import(d.path());
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.starts_with("error: "), "{err}");
    assert!(err.contains("mapred-site.xml:2:"), "{err}");
    assert!(out.is_empty());
    assert!(!err.contains("root:"), "{err}");
}

#[test]
fn a_directory_without_configuration_is_bad_input() {
    let d = tempfile::tempdir().unwrap();
    let (code, _, err) = import(d.path());
    assert_eq!(code, 2);
    assert!(err.contains("no mapred-site.xml"), "{err}");
}

use crate::common;

/// TestComputeFairShares.testWeightedSharingWithLowDemands from a
/// configuration as Hadoop 1.x's documentation writes it: 15 TaskTrackers
/// of 3 map slots (45), pools of weight 2, 1, 1 and 0.5 in
/// fair-scheduler.xml; with demands of 10, 11, 30 and 20 maps the imported
/// scenario gives the test's fair shares, 10, 11, 16 and 8.
#[test]
fn imported_pools_give_the_fair_shares_of_hadoops_test() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("mapred-site.xml"),
        configuration(&[
            ("mapred.tasktracker.map.tasks.maximum", "3"),
            ("mapred.tasktracker.reduce.tasks.maximum", "1"),
            (
                "mapred.jobtracker.taskScheduler",
                "org.apache.hadoop.mapred.FairScheduler",
            ),
        ]),
    )
    .unwrap();
    std::fs::write(
        d.path().join("fair-scheduler.xml"),
        "<?xml version=\"1.0\"?>\n<allocations>\n  <pool name=\"a\"><weight>2.0</weight></pool>\n  <pool name=\"b\"><weight>1.0</weight></pool>\n  <pool name=\"c\"><weight>1.0</weight></pool>\n  <pool name=\"d\"><weight>0.5</weight></pool>\n</allocations>\n",
    )
    .unwrap();
    let slaves: String = (1..=15).map(|i| format!("tt{i}\n")).collect();
    std::fs::write(d.path().join("slaves"), slaves).unwrap();
    let (code, toml, warnings) = import(d.path());
    assert_eq!(code, 0, "{warnings}");
    // The import's example job goes: the test's four jobs replace it.
    let cut = toml.find("\n[[jobs]]").expect("an example job");
    let mut toml = toml[..cut].to_string();
    for (pool, maps) in [("a", 10), ("b", 11), ("c", 30), ("d", 20)] {
        toml += &format!(
            "\n[[jobs]]\nname = \"j{pool}\"\nprofile = \"grep\"\nmaps = {maps}\nreduces = 0\npool = \"{pool}\"\n"
        );
    }
    let (_, recs) = common::run_inspect(&common::load_text(&toml, None));
    // The first heartbeat with every job running (past its set-up task), as
    // in Hadoop's test.
    let rec = recs
        .iter()
        .find(|r| {
            ["a", "b", "c", "d"].iter().all(|p| {
                r.inspection.pools[*p]["demand_map"]
                    .as_f64()
                    .is_some_and(|d| d > 0.0)
            })
        })
        .expect("a heartbeat with every job running");
    let shares: Vec<f64> = ["a", "b", "c", "d"]
        .iter()
        .map(|p| rec.inspection.pools[*p]["fair_share_map"].as_f64().unwrap())
        .collect();
    for (got, want) in shares.iter().zip([10.0, 11.0, 16.0, 8.0]) {
        assert!((got - want).abs() < 0.01, "{shares:?}");
    }
}

//! Acting on a job mid-run, as `[[events]]` and the TUI do it: killing it
//! (`hadoop job -kill`), setting its priority (`-set-priority`) and moving
//! it to another pool (the fair scheduler's pool move).

use crate::common;

use common::{check, launches, load_text, run};
use slotsim::model::Action;
use slotsim::sim::Outcome;

/// Two fixed-time jobs on two nodes of two map slots and one reduce slot,
/// with `extra` appended (events, pools).
fn two_jobs(policy: &str, extra: &str) -> String {
    format!(
        r#"
[cluster]
nodes = 2
map_slots = 2
reduce_slots = 1
heartbeat = "1s"
[scheduler]
policy = "{policy}"
slowstart = 1.0
[[pools]]
name = "p1"
[[pools]]
name = "p2"
[[jobs]]
name = "a"
profile = "grep"
maps = 8
input = "512MB"
reduces = 1
map_time = "10s"
reduce_time = "5s"
pool = "p1"
[[jobs]]
name = "b"
profile = "grep"
maps = 4
input = "256MB"
reduces = 1
map_time = "10s"
reduce_time = "5s"
pool = "p1"
{extra}"#
    )
}

#[test]
fn a_killed_job_stops_at_once_and_the_other_finishes() {
    let text = two_jobs(
        "fifo",
        "[[events]]\nat = \"12s\"\naction = \"kill_job\"\njob = \"a\"\n",
    );
    let (sim, sum) = run(&load_text(&text, None));
    check(&sim).unwrap();
    let w = sim.view();
    let a = w.jobs().iter().find(|j| j.name.as_ref() == "a").unwrap();
    assert!(a.killed);
    assert_eq!(a.finished_at, Some(12_000));
    // Its running maps were killed at 12 s; those done before stay done.
    let outcomes: Vec<Outcome> = w
        .attempts()
        .iter()
        .filter(|x| x.job == a.id)
        .map(|x| x.outcome)
        .collect();
    assert!(outcomes.contains(&Outcome::Killed), "{outcomes:?}");
    assert!(outcomes.contains(&Outcome::Succeeded), "{outcomes:?}");
    let ja = sum.jobs.iter().find(|j| j.name == "a").unwrap();
    let jb = sum.jobs.iter().find(|j| j.name == "b").unwrap();
    assert!(ja.killed && ja.turnaround_s.is_none());
    assert_eq!(ja.finish_s, Some(12.0));
    assert!(!jb.killed);
    assert_eq!(sum.mean_turnaround_s, jb.turnaround_s);
    // Without the kill, b waits behind a's maps and finishes later.
    let (alone, _) = run(&load_text(&two_jobs("fifo", ""), None));
    let b_finish = |s: &slotsim::sim::Sim| s.view().jobs()[1].finished_at.unwrap();
    assert!(b_finish(&sim) < b_finish(&alone));
}

/// Hadoop's FIFO orders its queue by priority, then submission: b raised
/// to very_high takes every map slot freed after the change.
#[test]
fn a_raised_priority_puts_the_job_first_in_fifo_order() {
    let text = two_jobs(
        "fifo",
        "[[events]]\nat = \"5s\"\naction = \"set_priority\"\njob = \"b\"\npriority = \"very_high\"\n",
    );
    let (sim, _) = run(&load_text(&text, None));
    check(&sim).unwrap();
    assert_eq!(sim.view().jobs()[1].priority.as_str(), "very_high");
    let order = launches(&sim);
    // The first wave (4 slots) is a's; at 10 s the freed slots go to b.
    assert_eq!(&order[..4], ["a/m0", "a/m1", "a/m2", "a/m3"]);
    assert_eq!(&order[4..8], ["b/m0", "b/m1", "b/m2", "b/m3"]);
    let (plain, _) = run(&load_text(&two_jobs("fifo", ""), None));
    assert_eq!(&launches(&plain)[4..8], ["a/m4", "a/m5", "a/m6", "a/m7"]);
}

/// A moved job's running tasks count against its new pool at once, and
/// the summary names the new pool.
#[test]
fn a_moved_job_counts_against_its_new_pool() {
    let sc = load_text(&two_jobs("fair", ""), None);
    let mut sim = slotsim::runs::build_sim(&sc).unwrap();
    sim.run_until(Some(3_000));
    let running = |sim: &slotsim::sim::Sim, pool: u32| -> u32 {
        let w = sim.view();
        w.attempts()
            .iter()
            .filter(|x| x.outcome == Outcome::Running && w.job(x.job).pool == pool)
            .count() as u32
    };
    let p1 = sim
        .view()
        .pools()
        .iter()
        .position(|p| p.name == "p1")
        .unwrap() as u32;
    let p2 = sim
        .view()
        .pools()
        .iter()
        .position(|p| p.name == "p2")
        .unwrap() as u32;
    assert!(running(&sim, p1) > 0);
    sim.command(Action::MoveJob("b".into(), "p2".into()))
        .unwrap();
    for p in [p1, p2] {
        let s = &sim.view().pool_stats()[p as usize];
        assert_eq!(
            s.running_maps + s.running_reduces,
            running(&sim, p),
            "pool {p}"
        );
    }
    assert_eq!(sim.view().pool_stats()[p2 as usize].runnable_jobs, 1);
    assert_eq!(sim.view().pool_stats()[p1 as usize].runnable_jobs, 1);
    sim.run_until(None);
    check(&sim).unwrap();
    let sum = slotsim::report::summary::summarize(&sim);
    assert_eq!(sum.jobs.iter().find(|j| j.name == "b").unwrap().pool, "p2");
    for s in sim.view().pool_stats() {
        assert_eq!(
            (s.running_maps, s.running_reduces, s.runnable_jobs),
            (0, 0, 0)
        );
    }
    // A finished job can be acted on no more; an unknown one not at all.
    for cmd in [
        Action::KillJob("b".into()),
        Action::KillJob("nope".into()),
        Action::SetPriority("a".into(), slotsim::model::Priority::High),
    ] {
        assert!(sim.command(cmd).is_err());
    }
}

/// On YARN a queue's usage is its applications': a moved job takes what
/// its containers and its ApplicationMaster hold to its new queue, and
/// every queue's books stay the sum of its jobs'.
#[test]
fn a_moved_yarn_job_takes_what_its_containers_hold() {
    let text = two_jobs("yarn-fair", "").replace(
        "map_slots = 2\nreduce_slots = 1",
        "slot_model = \"yarn\"\nmemory = \"4GB\"\nvcores = 4",
    );
    let sc = load_text(&text, None);
    let mut sim = slotsim::runs::build_sim(&sc).unwrap();
    sim.run_until(Some(4_000));
    let pool = |name: &str| {
        sim.view()
            .pools()
            .iter()
            .position(|p| p.name == name)
            .unwrap()
    };
    let (p1, p2) = (pool("p1"), pool("p2"));
    let b = sim
        .view()
        .jobs()
        .iter()
        .find(|j| j.name.as_ref() == "b")
        .unwrap()
        .id;
    let held = sim.view().job(b).used;
    assert!(held.mb() > 0, "b holds containers before the move");
    let books = |sim: &slotsim::sim::Sim| {
        for (p, s) in sim.view().pool_stats().iter().enumerate() {
            let jobs = sim.view().jobs().iter().filter(|j| j.pool as usize == p);
            let used = jobs.fold(slotsim::model::Resource::ZERO, |a, j| a + j.used);
            assert_eq!(s.used, used, "pool {p} at {} ms", sim.view().now());
            assert!(s.am_used.fits_in(s.used), "pool {p}: AMs within its usage");
        }
    };
    books(&sim);
    let before = (
        sim.view().pool_stats()[p1].used,
        sim.view().pool_stats()[p2].used,
    );
    sim.command(Action::MoveJob("b".into(), "p2".into()))
        .unwrap();
    assert_eq!(sim.view().pool_stats()[p1].used, before.0 - held);
    assert_eq!(sim.view().pool_stats()[p2].used, before.1 + held);
    books(&sim);
    while sim.step().is_some() && !sim.is_finished() {
        books(&sim);
    }
    sim.run_until(None);
    check(&sim).unwrap();
    // All that is left is AMs lingering after their jobs (5 s).
    for s in sim.view().pool_stats() {
        assert_eq!(s.used, s.am_used);
    }
    assert_eq!(
        sim.view()
            .pool_stats()
            .iter()
            .fold(slotsim::model::Resource::ZERO, |a, s| a + s.used),
        sim.view().cluster().used
    );
}

#[test]
fn job_actions_name_jobs_and_pools_the_scenario_has() {
    for (event, want) in [
        ("action = \"kill_job\"\njob = \"zz\"", "does not have"),
        ("action = \"kill_job\"", "needs a job"),
        (
            "action = \"move_job\"\njob = \"a\"\npool = \"nope\"",
            "unknown pool \"nope\"",
        ),
        ("action = \"move_job\"\njob = \"a\"", "needs a pool"),
        (
            "action = \"set_priority\"\njob = \"a\"\npriority = \"urgent\"",
            "unknown priority",
        ),
        (
            "action = \"kill_job\"\njob = \"a\"\npriority = \"high\"",
            "only used by action = \"set_priority\"",
        ),
        (
            "action = \"fail_node\"\nnode = 0\njob = \"a\"",
            "only used by action = \"submit\"",
        ),
    ] {
        let text = two_jobs("fifo", &format!("[[events]]\nat = \"1s\"\n{event}\n"));
        let err = slotsim::scenario::load_str(&text, "t.toml", None, None)
            .expect_err(event)
            .to_string();
        assert!(err.contains(want), "{event}: {err}");
    }
    // A job named before its submission.
    let text = two_jobs(
        "fifo",
        "[[events]]\nat = \"1s\"\naction = \"kill_job\"\njob = \"c\"\n[[events]]\nat = \"9s\"\naction = \"submit\"\njob = { name = \"c\", profile = \"grep\", input = \"64MB\" }\n",
    );
    let err = slotsim::scenario::load_str(&text, "t.toml", None, None)
        .expect_err("kill before submit")
        .to_string();
    assert!(err.contains("submitted only at 9 s"), "{err}");
}

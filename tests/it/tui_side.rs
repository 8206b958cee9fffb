//! The TUI side by side (`run --policies a,b`): runs in lockstep on one
//! clock, keyboard commands to every run, a switch to the focused run
//! alone, `W`'s session replayed by `compare`, and snapshots of every view.

use crate::common::*;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use slotsim::report::summary::summarize;
use slotsim::tui::app::{Action, View};
use slotsim::tui::record::buffer_text;
use slotsim::tui::{keymap, views, App};
use std::path::Path;

/// One scenario per spec, each cut to its own `run = N` events, as the
/// command line loads them.
fn side(path: &Path, specs: &[&str], seed: Option<u64>) -> App {
    let scs = specs
        .iter()
        .enumerate()
        .map(|(k, s)| {
            let mut sc = slotsim::scenario::load_file(path, Some(s), seed).unwrap();
            slotsim::scenario::side_run(&mut sc, k, specs.len()).unwrap();
            sc
        })
        .collect();
    App::side_by_side(scs).unwrap()
}

fn key(app: &mut App, code: KeyCode) {
    let k = KeyEvent::new(code, KeyModifiers::NONE);
    if let Some(a) = keymap::action_for(&app.overlay, k) {
        app.update(a);
    }
}

fn keys(app: &mut App, s: &str) {
    for c in s.chars() {
        key(app, KeyCode::Char(c));
    }
}

fn clocks(a: &App) -> Vec<u64> {
    a.panes().iter().map(|p| p.sim.view().now()).collect()
}

/// `secs` of wall clock frame by frame; after each frame every run that
/// goes on is at the one clock (a finished run's stays at its end).
fn run_for(a: &mut App, secs: u64) {
    for _ in 0..secs * 10 {
        a.update(Action::Tick(100));
        let c = clocks(a);
        let now = *c.iter().max().unwrap();
        for p in a.panes() {
            let t = p.sim.view().now();
            assert!(
                t == now || (p.sim.is_finished() && t < now),
                "clocks apart: {c:?}"
            );
        }
    }
}

/// The first place two JSON values differ, as a path with both sides.
fn json_diff(a: &serde_json::Value, b: &serde_json::Value, at: &str) -> Option<String> {
    use serde_json::Value;
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            keys.into_iter().find_map(|k| match (x.get(k), y.get(k)) {
                (Some(p), Some(q)) => json_diff(p, q, &format!("{at}.{k}")),
                _ => Some(format!("{at}.{k}: present on one side only")),
            })
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (p, q))| json_diff(p, q, &format!("{at}[{i}]"))),
        _ if a == b => None,
        _ => Some(format!("{at}: {a} against {b}")),
    }
}

/// A run's summary as its `--json` text reads back: what the binary
/// printed goes through the same parser (which may round a float's last
/// digit), so equal texts compare equal.
fn as_read(sim: &slotsim::sim::Sim) -> serde_json::Value {
    serde_json::from_str(&serde_json::to_string(&summarize(sim)).unwrap()).unwrap()
}

fn assert_same(a: &serde_json::Value, b: &serde_json::Value, what: &str) {
    if let Some(d) = json_diff(a, b, "") {
        panic!("{what}: {d}");
    }
}

/// On, a wall second at a time, until every run has finished.
fn run_to_end(a: &mut App) {
    for _ in 0..2_000 {
        if a.all_finished() {
            return;
        }
        run_for(a, 1);
    }
    panic!("the runs did not finish");
}

fn screen(app: &App, w: u16, h: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| views::render(app, f)).unwrap();
    buffer_text(t.backend().buffer())
}

#[test]
fn every_frame_leaves_the_runs_at_one_clock_at_every_speed() {
    let mut a = side(&scenario_path("quickstart.toml"), &["fifo", "fair"], None);
    // 1× to 1000×: each frame's target is reached by every run.
    for _ in 0..9 {
        run_for(&mut a, 1);
        keys(&mut a, "+");
    }
    assert!(a.panes()[0].sim.view().now() > 60_000);
    // The runs differ (the point of the view), on one clock.
    let done: Vec<usize> = a
        .panes()
        .iter()
        .map(|p| p.sim.view().finished_jobs())
        .collect();
    let ends: Vec<Vec<Option<u64>>> = a
        .panes()
        .iter()
        .map(|p| p.sim.view().jobs().iter().map(|j| j.finished_at).collect())
        .collect();
    assert!(ends[0] != ends[1], "{done:?}");
}

/// What the header and the panes say side by side, and what `n` moves.
#[test]
fn the_header_names_each_run_and_n_moves_the_focus() {
    let mut a = side(&scenario_path("quickstart.toml"), &["fifo", "fair"], None);
    run_for(&mut a, 5);
    let s = screen(&a, 80, 24);
    let second = s.lines().nth(1).unwrap();
    assert!(
        second.contains("▸1 fifo jobs: ") && second.contains(" 2 fair jobs: "),
        "{s}"
    );
    assert_eq!(a.focus(), 0);
    keys(&mut a, "n");
    assert_eq!(a.focus(), 1);
    assert_eq!(a.sim().policy_label(), "fair");
    let s = screen(&a, 80, 24);
    assert!(s.lines().nth(1).unwrap().contains(" 1 fifo jobs: "), "{s}");
    assert!(s.lines().nth(1).unwrap().contains("▸2 fair jobs: "), "{s}");
    keys(&mut a, "n");
    assert_eq!(a.focus(), 0);
    // No seeking side by side: said, and nothing moves.
    let before = clocks(&a);
    keys(&mut a, "[");
    assert_eq!(clocks(&a), before);
    assert!(a.status.as_deref().unwrap_or("").contains("single run"));
}

/// A side-by-side session with keys pressed (a node failed, a job
/// killed, the second run's policy switched): each run's summary equals
/// the same run of `compare` on the scenario `W` wrote, and the first
/// run's (which no `run = N` event names) a headless run of its policy.
#[test]
fn w_writes_a_session_that_compare_replays_run_for_run() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("quick.toml");
    std::fs::copy(scenario_path("quickstart.toml"), &src).unwrap();
    // compare runs seeds 1 to N: the session is seed 1.
    let mut a = side(&src, &["fifo", "fair"], Some(1));
    a.source = Some(src.clone());
    a.session_dir = dir.path().to_path_buf();
    keys(&mut a, "+++++");
    run_for(&mut a, 1);
    keys(&mut a, "f"); // node 0 fails, in both runs
    run_for(&mut a, 1);
    keys(&mut a, "r");
    // A job killed in both runs: the first in the list.
    key(&mut a, KeyCode::Down);
    let j = a.sel_job.expect("a job is selected");
    keys(&mut a, "Ky");
    for p in a.panes() {
        assert!(p.sim.view().job(j).killed, "{:?}", a.status);
    }
    run_for(&mut a, 1);
    // The second run switches to sjf; the first stays fifo.
    keys(&mut a, "n");
    keys(&mut a, "p");
    let sjf = slotsim::sched::registry::for_capacity(a.sim().view().capacity())
        .iter()
        .position(|p| p.name == "sjf")
        .unwrap();
    let cur = slotsim::sched::registry::for_capacity(a.sim().view().capacity())
        .iter()
        .position(|p| p.name == "fair")
        .unwrap();
    for _ in 0..(sjf + 20 - cur) % 20 {
        key(&mut a, KeyCode::Down);
    }
    key(&mut a, KeyCode::Enter);
    assert_eq!(a.panes()[1].sim.policy_label(), "sjf", "{:?}", a.status);
    assert_eq!(a.panes()[0].sim.policy_label(), "fifo");
    keys(&mut a, "++++");
    run_to_end(&mut a);
    assert!(a.all_finished());
    key(&mut a, KeyCode::Char('W'));
    let saved = dir.path().join("quick-session-1.toml");
    let status = a.status.clone().unwrap_or_default();
    assert!(status.contains("--policies fifo,fair"), "{status}");
    let text = std::fs::read_to_string(&saved).unwrap();
    assert!(text.contains("run = 2"), "{text}");
    // compare, as the binary runs it.
    let json = dir.path().join("cmp.json");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_slotsim"))
        .args([
            "compare",
            saved.to_str().unwrap(),
            "--policies",
            "fifo,fair",
        ])
        .args(["--seeds", "1", "--json", json.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let cmp: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(cmp.len(), 2);
    for (k, p) in a.panes().iter().enumerate() {
        let mine = as_read(&p.sim);
        assert_same(&cmp[k], &mine, &format!("run {}", k + 1));
    }
    assert_eq!(cmp[1]["policy_switches"].as_array().unwrap().len(), 1);
    assert_eq!(cmp[0]["policy_switches"].as_array().unwrap().len(), 0);
}

/// Without a `run = N` event, each run of a side-by-side session is a
/// headless run of its policy on the scenario `W` wrote.
#[test]
fn w_without_a_switch_replays_each_run_headless() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("quick.toml");
    std::fs::copy(scenario_path("quickstart.toml"), &src).unwrap();
    let mut a = side(&src, &["fifo", "fair"], None);
    a.source = Some(src.clone());
    a.session_dir = dir.path().to_path_buf();
    keys(&mut a, "+++++");
    run_for(&mut a, 2);
    keys(&mut a, "f");
    key(&mut a, KeyCode::Down);
    keys(&mut a, "Ky");
    keys(&mut a, "++++");
    run_to_end(&mut a);
    key(&mut a, KeyCode::Char('W'));
    let saved = dir.path().join("quick-session-1.toml");
    assert!(saved.exists(), "{:?}", a.status);
    for (k, spec) in ["fifo", "fair"].iter().enumerate() {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_slotsim"))
            .args([
                "run",
                saved.to_str().unwrap(),
                "--headless",
                "--policy",
                spec,
            ])
            .args(["--json", "-"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let alone: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let mine = as_read(&a.panes()[k].sim);
        assert_same(&alone, &mine, &format!("run {}", k + 1));
        assert_eq!(
            alone["jobs"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|j| j["killed"] == true)
                .count(),
            1
        );
    }
}

/// A mid-run moment where fifo and fair differ on screen.
fn busy_side() -> App {
    let mut a = side(&scenario_path("quickstart.toml"), &["fifo", "fair"], None);
    keys(&mut a, "++++");
    run_for(&mut a, 6);
    keys(&mut a, " ");
    a
}

#[test]
fn snapshot_side_by_side_views() {
    let mut a = busy_side();
    for v in View::ALL {
        while a.view != v {
            key(&mut a, KeyCode::Tab);
        }
        for (w, h) in [(80u16, 24u16), (120, 36)] {
            insta::assert_snapshot!(
                format!("side_{}_{w}x{h}", v.name().to_lowercase()),
                screen(&a, w, h)
            );
        }
    }
}

/// A policy in another process beside a built-in one: both run to the
/// end on one clock, the client's FIFO placing as the built-in does, and
/// the session ends with the process told `end` and gone.
#[test]
fn an_external_policy_runs_beside_a_builtin_and_ends_cleanly() {
    let ext = "external:python3 clients/python/examples/fifo.py";
    let mut a = side(&scenario_path("quickstart.toml"), &[ext, "fifo"], None);
    keys(&mut a, "++++++++");
    run_to_end(&mut a);
    assert!(a.all_finished(), "{:?}", a.status);
    assert!(a.panes().iter().all(|p| p.sim.halted().is_none()));
    let ends = |k: usize| -> Vec<Option<u64>> {
        a.panes()[k]
            .sim
            .view()
            .jobs()
            .iter()
            .map(|j| j.finished_at)
            .collect()
    };
    assert_eq!(ends(0), ends(1));
    let s = screen(&a, 120, 36);
    assert!(
        s.contains("external:python3") && s.contains("■ finished"),
        "{s}"
    );
    drop(a);
}

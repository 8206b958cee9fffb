//! The TUI without a terminal: the update logic (actions in, state out) and
//! whole-app snapshots of every view and overlay at 80×24 and 120×36 on
//! ratatui's TestBackend, keys injected through the real keymap.

use crate::common;
use common::*;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use slotsim::sim::policy::ShareBasis;
use slotsim::tui::app::{Action, Overlay, View};
use slotsim::tui::record::buffer_text;
use slotsim::tui::{keymap, views, App};

fn app() -> App {
    App::new(load("quickstart.toml", None)).unwrap()
}

fn key(app: &mut App, code: KeyCode) {
    let k = KeyEvent::new(code, KeyModifiers::NONE);
    if let Some(a) = keymap::action_for(&app.overlay, k) {
        app.update(a);
    }
}

/// Tab to view `v` (at most once round the views).
fn goto(a: &mut App, v: View) {
    for _ in 0..View::ALL.len() {
        if a.view == v {
            return;
        }
        key(a, KeyCode::Tab);
    }
    assert_eq!(a.view, v);
}

fn keys(app: &mut App, s: &str) {
    for c in s.chars() {
        key(app, KeyCode::Char(c));
    }
}

/// Advances `secs` seconds of wall clock at the current speed, frame by frame.
fn run_for(app: &mut App, secs: u64) {
    for _ in 0..secs * 10 {
        app.update(Action::Tick(100));
    }
}

/// Speeds up to the top and runs until every job has finished.
fn run_to_the_end(app: &mut App) {
    keys(app, "++++++++");
    for _ in 0..10_000 {
        if app.sim().is_finished() {
            return;
        }
        run_for(app, 1);
    }
    panic!("the run did not finish");
}

/// The inspector's `back`, if it is open.
fn back(app: &App) -> Option<usize> {
    match app.overlay {
        Overlay::Inspector { back, .. } => Some(back),
        _ => None,
    }
}

fn screen(app: &App, w: u16, h: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| views::render(app, f)).unwrap();
    buffer_text(t.backend().buffer())
}

// ------------------------------------------------------------ update logic

#[test]
fn ticks_advance_the_clock_by_wall_time_times_speed() {
    let mut a = app();
    a.update(Action::Tick(1500));
    assert_eq!(a.sim().view().now(), 1500, "1× speed");
    a.update(Action::SpeedUp); // 2×
    a.update(Action::Tick(1000));
    assert_eq!(a.sim().view().now(), 3500);
    for _ in 0..2 {
        a.update(Action::SpeedDown);
    }
    assert_eq!(a.speed_label(), "0.5×");
    a.update(Action::Tick(1000));
    assert_eq!(a.sim().view().now(), 4000);
    for _ in 0..30 {
        a.update(Action::SpeedDown);
    }
    assert_eq!(a.speed_label(), "0.1×", "speed stops at its slowest step");
    for _ in 0..30 {
        a.update(Action::SpeedUp);
    }
    assert_eq!(a.speed_label(), "max");
    a.update(Action::Tick(33));
    assert!(
        a.sim().view().now() > 60_000,
        "max speed runs many events per frame"
    );
}

#[test]
fn pause_holds_the_clock_and_step_moves_one_heartbeat() {
    let mut a = app();
    run_for(&mut a, 2);
    keys(&mut a, " ");
    assert!(a.paused);
    let (t, hb) = (a.sim().view().now(), a.sim().view().heartbeats());
    run_for(&mut a, 5);
    assert_eq!(
        (a.sim().view().now(), a.sim().view().heartbeats()),
        (t, hb),
        "paused: nothing moves"
    );
    keys(&mut a, ".");
    assert_eq!(a.sim().view().heartbeats(), hb + 1, "one heartbeat forward");
    assert!(a.sim().view().now() >= t);
    keys(&mut a, " ");
    assert!(!a.paused);
    keys(&mut a, ".");
    assert_eq!(
        a.sim().view().heartbeats(),
        hb + 1,
        ". does nothing while running"
    );
    assert!(a.status.as_deref().unwrap_or("").contains("pause"));
}

/// `.` under manual heartbeats: each press stops after the next scripted
/// heartbeat; once none is pending, after the next event, so one press
/// never jumps to the end of the run.
#[test]
fn step_heartbeat_stops_at_scripted_heartbeats_then_single_events() {
    let mut sim = slotsim::runs::build_sim(&load("hadoop-small-jobs.toml", None)).unwrap();
    for k in 1..=7u64 {
        let s = sim.step_heartbeat().expect("a heartbeat is pending");
        assert!(s.heartbeat, "press {k} stops at a heartbeat");
        assert_eq!(
            (s.t, sim.view().heartbeats()),
            (k * 1000, k),
            "scripted at {k} s"
        );
    }
    let mut presses = 0;
    while !sim.is_finished() {
        let next = sim.next_event_time().unwrap();
        let s = sim.step_heartbeat().expect("events left");
        assert!(!s.heartbeat);
        assert_eq!(s.t, next, "one event per press, never more");
        presses += 1;
        assert!(presses < 100);
    }
    assert!(presses > 1, "the last hour takes more than one press");
    assert_eq!(sim.view().heartbeats(), 7);
    assert!(sim.step_heartbeat().is_none(), "finished: nothing to step");
}

/// Periodic heartbeats: each press is exactly one heartbeat. Out-of-band
/// heartbeats (here over manual ones) count too; between them, with none
/// pending, a press is one event.
#[test]
fn step_heartbeat_stops_after_one_periodic_or_out_of_band_heartbeat() {
    let mut sim = slotsim::runs::build_sim(&load("quickstart.toml", None)).unwrap();
    for k in 1..=500 {
        let s = sim.step_heartbeat().unwrap();
        assert!(s.heartbeat);
        assert_eq!(
            sim.view().heartbeats(),
            k,
            "one periodic heartbeat per press"
        );
    }
    let mut sim = slotsim::runs::build_sim(&load("fig45-fifo-vs-fair.toml", None)).unwrap();
    assert!(sim.view().out_of_band() && sim.view().heartbeat_interval().is_none());
    let (mut beats, mut events) = (0, 0);
    loop {
        let (hb, next) = (sim.view().heartbeats(), sim.next_event_time());
        let Some(s) = sim.step_heartbeat() else { break };
        if s.heartbeat {
            beats += 1;
            assert_eq!(sim.view().heartbeats(), hb + 1, "one heartbeat per press");
        } else {
            events += 1;
            assert_eq!(
                (sim.view().heartbeats(), Some(s.t)),
                (hb, next),
                "one event"
            );
        }
        assert!(beats + events < 10_000);
    }
    assert!(sim.is_finished());
    assert!(
        beats > 3 && events > 0,
        "{beats} heartbeats, {events} events"
    );
}

#[test]
fn step_key_under_manual_heartbeats_and_after_the_end() {
    let mut a = App::new(load("hadoop-small-jobs.toml", None)).unwrap();
    keys(&mut a, " ");
    for _ in 0..7 {
        keys(&mut a, ".");
    }
    assert_eq!(
        (a.sim().view().now(), a.sim().view().heartbeats()),
        (7000, 7)
    );
    let next = a.sim_mut().next_event_time().unwrap();
    keys(&mut a, ".");
    assert_eq!(
        a.sim().view().now(),
        next,
        "one event, not the rest of the run"
    );
    assert!(!a.sim().is_finished());
    assert!(
        a.status
            .as_deref()
            .unwrap_or("")
            .contains("no heartbeat pending"),
        "{:?}",
        a.status
    );
    for _ in 0..100 {
        keys(&mut a, ".");
    }
    assert!(a.sim().is_finished());
    assert!(a.status.as_deref().unwrap_or("").contains("finished"));
    keys(&mut a, " "); // running again: still "finished", not "pause first"
    keys(&mut a, ".");
    let st = a.status.clone().unwrap_or_default();
    assert!(st.contains("finished") && !st.contains("pause"), "{st}");
}

#[test]
fn backtab_goes_to_the_previous_view() {
    let mut a = app();
    key(&mut a, KeyCode::BackTab);
    assert_eq!(a.view, View::Network);
    key(&mut a, KeyCode::BackTab);
    assert_eq!(a.view, View::Timeline);
    key(&mut a, KeyCode::Tab);
    assert_eq!(a.view, View::Network);
    // In the form it is the previous field.
    keys(&mut a, "s");
    key(&mut a, KeyCode::BackTab);
    let Overlay::Submit(f) = &a.overlay else {
        panic!()
    };
    assert_eq!(f.focus, 3, "from profile back to pool");
    assert_eq!(a.view, View::Network, "the view stays");
}

/// The help lists every key (↑ and ↓ together, PgUp/PgDn, Home/End,
/// shift-tab), fits 80×24 and scrolls on a smaller screen.
#[test]
fn help_lists_every_binding_and_scrolls_when_short() {
    let mut a = app();
    keys(&mut a, "?");
    // Every page of the help, scrolled through.
    let mut s = screen(&a, 80, 24);
    for _ in 0..10 {
        key(&mut a, KeyCode::PageDown);
        s.push_str(&screen(&a, 80, 24));
    }
    key(&mut a, KeyCode::Home);
    for k in [
        "1/2/3/4/5/6",
        "fail the selected node",
        "rack N",
        "T_m",
        "β",
        "t_fair",
        "m'",
        "↑/↓",
        "PgUp/PgDn",
        "Home/End",
        "tab/⇧tab",
        "[/]",
        "←/→",
        "+/=",
        "esc",
        "q ",
    ] {
        assert!(s.contains(k), "{k} missing:\n{s}");
    }
    let short = screen(&a, 80, 12);
    assert!(short.contains("below"), "{short}");
    assert!(short.lines().last().unwrap().contains("scroll"), "{short}");
    key(&mut a, KeyCode::End);
    let end = screen(&a, 80, 12);
    assert!(end.contains("t_batch"), "{end}");
    key(&mut a, KeyCode::Home);
    assert_eq!(screen(&a, 80, 12), short);
    key(&mut a, KeyCode::Esc);
    assert_eq!(a.overlay, Overlay::None);
}

/// Counts read as English: `1 reduce`, `2 reduces`.
#[test]
fn counts_are_pluralized() {
    let mut a = busy_app();
    let log: Vec<String> = a.log_lines(50).into_iter().map(|l| l.1).collect();
    assert!(
        log.iter()
            .any(|l| l.contains("(8 maps, 1 reduce, pool default)")),
        "{log:?}"
    );
    assert!(!log.iter().any(|l| l.contains(" 1 reduces")), "{log:?}");
    assert!(!screen(&a, 80, 24).contains(" 1 maps"));
    assert_eq!(slotsim::tui::app::count(1, "map"), "1 map");
    assert_eq!(slotsim::tui::app::count(0, "map"), "0 maps");
    keys(&mut a, "s");
    key(&mut a, KeyCode::Tab);
    key(&mut a, KeyCode::Tab);
    key(&mut a, KeyCode::Backspace);
    keys(&mut a, "1");
    assert!(screen(&a, 80, 24).contains("32 maps, 1 reduce"));
}

#[test]
fn tab_cycles_the_views() {
    let mut a = app();
    let mut seen = vec![a.view];
    for _ in 0..6 {
        key(&mut a, KeyCode::Tab);
        seen.push(a.view);
    }
    assert_eq!(
        seen,
        [
            View::Overview,
            View::Cluster,
            View::Jobs,
            View::Pools,
            View::Timeline,
            View::Network,
            View::Overview
        ]
    );
}

/// Under adaptive-fair the Pools view lists the policy's own pools, the
/// shared pool too, with running tasks against their allocations.
#[test]
fn pools_view_under_adaptive_fair_shows_allocations_and_the_shared_pool() {
    let mut a = App::new(load("adaptive-fair.toml", None)).unwrap();
    run_for(&mut a, 5);
    goto(&mut a, View::Pools);
    let s = screen(&a, 120, 36);
    assert!(s.contains("maps run/alloc"), "{s}");
    let shared = s
        .lines()
        .find(|l| l.contains("sharedPool"))
        .unwrap_or_else(|| panic!("{s}"));
    // Three 6-map jobs in the shared pool, allocated ceil(6/2) = 3 map
    // slots and ceil(1/2) = 1 reduce slot; it has no min or max.
    let cells: Vec<&str> = shared.split_whitespace().collect();
    assert_eq!(cells[2], "3", "{shared}");
    assert!(cells[3].ends_with("/3.0"), "{shared}");
    assert!(cells[5].ends_with("/1.0"), "{shared}");
    assert_eq!(cells[7..9], ["-", "-"], "{shared}");
}

/// On a YARN cluster the overview counts memory, vcores and AMs, each
/// node's cell is the memory its containers hold, the pools panel shows
/// what each queue holds, and the picker offers only YARN's schedulers;
/// switching among them works mid-run.
#[test]
fn a_yarn_cluster_shows_memory_ams_and_yarn_policies() {
    let mut a = App::new(load("yarn-quickstart.toml", None)).unwrap();
    run_for(&mut a, 8);
    let s = screen(&a, 120, 36);
    let held = a.sim().view().cluster().used;
    assert!(held.mb() > 0);
    let title = format!("{:.1}/160.0 GB · ", held.mb() as f64 / 1024.0);
    assert!(s.contains(&title), "{title}\n{s}");
    assert!(s.contains("AMs,"), "{s}");
    assert!(s.contains("Queues: memory held/fair share"), "{s}");
    assert!(s.contains("GB, ") && s.contains("vcores held ("), "{s}");
    keys(&mut a, "p");
    let picker = screen(&a, 120, 36);
    assert!(
        picker.contains("yarn-fifo")
            && picker.contains("yarn-capacity")
            && picker.contains("yarn-fair"),
        "{picker}"
    );
    assert!(
        !picker.contains(" fifo ") && !picker.contains("omo"),
        "{picker}"
    );
    keys(&mut a, "k");
    key(&mut a, KeyCode::Enter);
    assert_eq!(a.sim().policy_label(), "yarn-capacity");
    run_to_the_end(&mut a);
    check(a.sim()).unwrap();
}

#[test]
fn picker_switches_policy_through_the_command_api() {
    let mut a = app();
    run_for(&mut a, 3);
    keys(&mut a, "p");
    assert!(
        matches!(a.overlay, Overlay::Picker { selected: 1 }),
        "opens on the current policy"
    );
    keys(&mut a, "k"); // up to fifo
    key(&mut a, KeyCode::Enter);
    assert_eq!(a.overlay, Overlay::None);
    assert_eq!(a.sim().policy_label(), "fifo");
    assert_eq!(a.sim().view().switches().len(), 1);
    assert_eq!(a.sim().view().switches()[0].to, "fifo");
    let log = a.log_lines(10);
    assert!(
        log.iter().any(|(_, l)| l.contains("fair → fifo")),
        "{log:?}"
    );
    // Esc cancels without switching.
    keys(&mut a, "p");
    key(&mut a, KeyCode::Down);
    key(&mut a, KeyCode::Esc);
    assert_eq!(a.sim().policy_label(), "fifo");
}

/// `W` writes the session as a scenario beside the one it runs: a
/// headless run of that file gives the session's own summary (its
/// `--json`) field for field, after a policy switch, a submission, and a
/// node failed and recovered from the keyboard.
#[test]
fn w_writes_a_session_that_a_headless_run_replays_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("quick.toml");
    std::fs::copy(scenario_path("quickstart.toml"), &src).unwrap();
    let mut a = App::new(slotsim::scenario::load_file(&src, None, Some(7)).unwrap()).unwrap();
    a.source = Some(src.clone());
    // Sessions go to one place, wherever the scenario is.
    let out = tempfile::tempdir().unwrap();
    a.session_dir = out.path().to_path_buf();
    run_for(&mut a, 3);
    keys(&mut a, "pk"); // the picker, up to fifo
    key(&mut a, KeyCode::Enter);
    run_for(&mut a, 2);
    keys(&mut a, "s");
    key(&mut a, KeyCode::Enter); // the form's default job
    run_for(&mut a, 2);
    keys(&mut a, "f"); // node 0 fails
    run_for(&mut a, 4);
    keys(&mut a, "r");
    assert_eq!(a.sim().session_events().len(), 4, "{:?}", a.status);
    // The job actions on the selected job: a priority up, a pool move, a
    // kill declined and then confirmed.
    key(&mut a, KeyCode::Down);
    let j = a.sel_job.expect("a job is selected");
    let prio = a.sim().view().job(j).priority;
    keys(&mut a, ">");
    assert!(a.sim().view().job(j).priority < prio, "{:?}", a.status);
    let pool = a.sim().view().job(j).pool;
    keys(&mut a, "m");
    assert!(matches!(a.overlay, Overlay::MovePool { .. }));
    key(&mut a, KeyCode::Down);
    key(&mut a, KeyCode::Enter);
    assert_ne!(a.sim().view().job(j).pool, pool, "{:?}", a.status);
    run_for(&mut a, 1);
    keys(&mut a, "K");
    assert!(matches!(a.overlay, Overlay::ConfirmKill { .. }));
    keys(&mut a, "n");
    assert!(!a.sim().view().job(j).is_done());
    keys(&mut a, "Ky");
    assert!(a.sim().view().job(j).killed, "{:?}", a.status);
    assert_eq!(a.sim().session_events().len(), 7, "{:?}", a.status);
    // The header counts the killed job apart, not among the finished.
    let done = a
        .sim()
        .view()
        .jobs()
        .iter()
        .filter(|x| x.is_done() && !x.killed)
        .count();
    let head = screen(&a, 120, 36).lines().next().unwrap().to_string();
    assert!(
        head.contains(&format!(
            "jobs: {done}/{} (1 killed)",
            a.sim().view().submitted_jobs()
        )),
        "{head}"
    );
    // So does the Jobs view's title.
    goto(&mut a, View::Jobs);
    let title = screen(&a, 160, 36).lines().nth(1).unwrap().to_string();
    assert!(title.contains(" done · 1 killed · "), "{title}");
    goto(&mut a, View::Overview);
    // Saved before the end: the header and the status give the replay
    // command up to then, which stops where the session was.
    key(&mut a, KeyCode::Char('W'));
    let early = out.path().join("quick-session-1.toml");
    let until = slotsim::units::fmt_secs(a.sim().view().now());
    let replay_cmd = format!("--headless --until {until}");
    let status = a.status.clone().unwrap_or_default();
    assert!(
        status.contains(&early.display().to_string()) && status.contains(&replay_cmd),
        "{status}"
    );
    let text = std::fs::read_to_string(&early).unwrap();
    assert!(text.lines().nth(1).unwrap().contains(&replay_cmd), "{text}");
    let until_ms = a.sim().view().now();
    let sc = slotsim::scenario::load_file(&early, None, None).unwrap();
    let mut sim = slotsim::runs::build_sim(&sc).unwrap();
    sim.run_until(Some(until_ms));
    assert_eq!(
        serde_json::to_value(slotsim::report::summary::summarize(&sim)).unwrap()["jobs"],
        serde_json::to_value(slotsim::report::summary::summarize(a.sim())).unwrap()["jobs"]
    );
    run_to_the_end(&mut a);
    key(&mut a, KeyCode::Char('W'));
    let saved = out.path().join("quick-session-2.toml");
    assert!(saved.exists(), "{:?}", a.status);
    assert!(!a.status.clone().unwrap_or_default().contains("--until"));
    let session = serde_json::to_value(slotsim::report::summary::summarize(a.sim())).unwrap();
    let sc = slotsim::scenario::load_file(&saved, None, None).unwrap();
    let (_, replay) = run(&sc);
    let replay = serde_json::to_value(replay).unwrap();
    assert_eq!(replay, session);
    assert_eq!(replay["policy_switches"].as_array().unwrap().len(), 1);
    let killed = replay["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|j| j["killed"] == true);
    assert_eq!(killed.count(), 1);
    // Saving again writes another file, never over the others.
    key(&mut a, KeyCode::Char('W'));
    assert!(out.path().join("quick-session-3.toml").exists());
}

#[test]
fn submit_form_submits_now_and_refuses_bad_values() {
    let mut a = app();
    run_for(&mut a, 2);
    // At 2.099 s the job lands at 2.100 s: the form, the log and the job
    // say one time.
    a.update(Action::Tick(99));
    assert_eq!(a.sim().view().now(), 2_099);
    let before = a.sim().view().submitted_jobs();
    keys(&mut a, "s");
    assert!(matches!(a.overlay, Overlay::Submit(_)));
    let form = screen(&a, 120, 36);
    key(&mut a, KeyCode::Enter);
    assert_eq!(a.overlay, Overlay::None);
    let at = slotsim::tui::app::clock(a.sim().view().jobs().last().unwrap().submit);
    assert!(
        form.contains(&format!("A job submitted now, at {at}.")),
        "{form}"
    );
    let (t, line) = a.log_lines(1).pop().unwrap();
    assert!(line.starts_with("submitted tui-"), "{line}");
    assert_eq!(slotsim::tui::app::clock(t), at);
    assert_eq!(
        a.sim().view().submitted_jobs(),
        before + 1,
        "jobs: F/S rises by one at once"
    );
    let job = a.sim().view().jobs().last().unwrap();
    assert_eq!(
        job.submit,
        a.sim().view().now(),
        "submitted at the next millisecond"
    );
    assert_eq!(
        (job.n_maps(), job.n_reduces()),
        (32, 2),
        "4GB of 128MB blocks, 2 reduces"
    );

    // A bad size is refused in the form, with a message, and nothing is submitted.
    keys(&mut a, "s");
    key(&mut a, KeyCode::Tab); // input
    for _ in 0..3 {
        key(&mut a, KeyCode::Backspace);
    }
    keys(&mut a, "12 parsecs");
    key(&mut a, KeyCode::Enter);
    let Overlay::Submit(f) = &a.overlay else {
        panic!("form stays open")
    };
    assert!(
        f.error.as_deref().unwrap_or("").contains("invalid size"),
        "{:?}",
        f.error
    );
    assert_eq!(a.sim().view().submitted_jobs(), before + 1);
    // A bad reduce count too.
    key(&mut a, KeyCode::Esc);
    keys(&mut a, "s");
    key(&mut a, KeyCode::Tab);
    key(&mut a, KeyCode::Tab); // reduces
    keys(&mut a, "x");
    key(&mut a, KeyCode::Enter);
    let Overlay::Submit(f) = &a.overlay else {
        panic!("form stays open")
    };
    assert!(f.error.as_deref().unwrap_or("").contains("whole number"));
    // Choosing profile and pool with arrows.
    key(&mut a, KeyCode::Esc);
    keys(&mut a, "s");
    key(&mut a, KeyCode::Right);
    key(&mut a, KeyCode::BackTab); // to pool
    key(&mut a, KeyCode::Right);
    key(&mut a, KeyCode::Enter);
    let job = a.sim().view().jobs().last().unwrap();
    assert_eq!(job.profile.name, "wordcount");
    assert_eq!(a.sim().view().pool_name(job.id), "default");
}

/// A long error wraps inside the form; editing the field clears it.
#[test]
fn submit_form_wraps_errors_and_clears_them_on_edit() {
    let mut a = app();
    keys(&mut a, "s");
    key(&mut a, KeyCode::Tab); // input
    for _ in 0..3 {
        key(&mut a, KeyCode::Backspace);
    }
    keys(&mut a, "abc");
    key(&mut a, KeyCode::Enter);
    let Overlay::Submit(f) = &a.overlay else {
        panic!("form stays open")
    };
    let e = f.error.clone().expect("an error");
    assert!(e.ends_with("\"1TB\""), "{e}");
    let s = screen(&a, 80, 24);
    assert!(s.contains("\"1TB\""), "the whole message shows:\n{s}");
    insta::assert_snapshot!("submit_long_error_80x24", s);
    key(&mut a, KeyCode::Backspace);
    let Overlay::Submit(f) = &a.overlay else {
        panic!("form stays open")
    };
    assert_eq!(f.error, None, "an edit clears the stale error");
    assert!(!screen(&a, 80, 24).contains("invalid size"));
}

/// `q` is text in the submit form: it never quits there (losing the run);
/// Esc cancels and Ctrl-C still quits. Elsewhere `q` quits.
#[test]
fn q_in_the_submit_form_is_text_not_quit() {
    let mut a = app();
    run_for(&mut a, 2);
    keys(&mut a, "s");
    keys(&mut a, "q"); // on the profile field: ignored
    assert!(!a.quit);
    key(&mut a, KeyCode::Tab); // input
    keys(&mut a, "q");
    assert!(!a.quit, "q in the form must not quit");
    let Overlay::Submit(f) = &a.overlay else {
        panic!("the form stays open")
    };
    assert_eq!(f.input, "4GBq", "typed into the field");
    key(&mut a, KeyCode::Tab); // reduces
    keys(&mut a, "q");
    let Overlay::Submit(f) = &a.overlay else {
        panic!("the form stays open")
    };
    assert_eq!(f.reduces, "2q");
    assert!(!a.quit);
    // Esc cancels the form; q then quits as everywhere else.
    key(&mut a, KeyCode::Esc);
    assert_eq!(a.overlay, Overlay::None);
    assert!(!a.quit);
    keys(&mut a, "q");
    assert!(a.quit);
    // Ctrl-C quits from inside the form.
    let mut b = app();
    keys(&mut b, "s");
    key(&mut b, KeyCode::Tab);
    let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
    b.update(keymap::action_for(&b.overlay, ctrl_c).unwrap());
    assert!(b.quit);
    // In the other overlays q still quits.
    for open in ["p", "i", "?"] {
        let mut c = app();
        keys(&mut c, open);
        keys(&mut c, "q");
        assert!(c.quit, "q quits from overlay {open}");
    }
}

#[test]
fn inspector_shows_fair_values_and_steps_back_while_paused() {
    let mut a = app();
    run_for(&mut a, 10);
    keys(&mut a, "i");
    let recs = a.inspections();
    assert!(!recs.is_empty());
    let last = recs.last().unwrap();
    assert!(last
        .inspection
        .jobs
        .values()
        .all(|v| v.contains_key("fair_share_map")));
    // Running: arrows do not move.
    key(&mut a, KeyCode::Left);
    assert_eq!(back(&a), Some(0));
    keys(&mut a, " ");
    key(&mut a, KeyCode::Left);
    key(&mut a, KeyCode::Left);
    assert_eq!(back(&a), Some(2));
    key(&mut a, KeyCode::Right);
    assert_eq!(back(&a), Some(1));
    for _ in 0..1000 {
        key(&mut a, KeyCode::Left);
    }
    let n = a.inspections().len();
    assert_eq!(back(&a), Some(n - 1), "bounded by the ring");
    assert!(n <= slotsim::tui::app::INSPECT_RING);
    key(&mut a, KeyCode::Esc);
    assert_eq!(a.overlay, Overlay::None);
}

/// A screen line's text inside the inspector's frame (2 columns in from
/// each side of the screen).
fn inspector_text(l: &str) -> String {
    let chars: Vec<char> = l.chars().collect();
    chars[3.min(chars.len())..chars.len().saturating_sub(3).max(3)]
        .iter()
        .collect()
}

/// Inspector rows follow the policy's order (fifo reports one), not names.
#[test]
fn inspector_rows_follow_the_policy_order() {
    let mut a = busy_app(); // fifo since 40 s
    keys(&mut a, "i");
    let s = screen(&a, 80, 24);
    let orders: Vec<String> = s
        .lines()
        .skip_while(|l| !l.contains("order"))
        .skip(1)
        .map(inspector_text)
        .map_while(|l| l.split_whitespace().nth(1).map(str::to_string))
        .collect();
    let want: Vec<String> = (0..orders.len()).map(|i| i.to_string()).collect();
    assert!(orders.len() >= 4, "{s}");
    assert_eq!(orders, want, "{s}");
}

/// At 80×24 under fair every column fits; on a narrower screen the hidden
/// ones are counted and `]` / `[` bring them in.
#[test]
fn inspector_columns_fit_or_say_so_and_scroll() {
    let mut a = app();
    run_for(&mut a, 30);
    keys(&mut a, " i");
    let s = screen(&a, 80, 24);
    for col in ["fs m", "dem r", "weight", "level", "wait s"] {
        assert!(s.contains(col), "{col} missing at 80x24:\n{s}");
    }
    assert!(!s.contains("cols"), "{s}");
    insta::assert_snapshot!("inspector_fair_80x24", s);
    let narrow = screen(&a, 60, 24);
    assert!(narrow.contains("+") && narrow.contains("cols▸"), "{narrow}");
    assert!(!narrow.contains("wait s"), "{narrow}");
    for _ in 0..20 {
        keys(&mut a, "]");
        screen(&a, 60, 24);
    }
    let right = screen(&a, 60, 24);
    assert!(right.contains("wait s") && right.contains("◂+"), "{right}");
    assert!(!right.contains("fs m"), "{right}");
    for _ in 0..20 {
        keys(&mut a, "[");
    }
    assert_eq!(screen(&a, 60, 24), narrow, "back to the first column");
}

/// More jobs than rows: ↑/↓ (and j/k, PgUp/PgDn, Home/End) scroll the job
/// table, and stepping keeps the job just assigned to in view.
#[test]
fn inspector_job_table_scrolls_and_follows_the_assignment() {
    let mut a = App::new(load("quickstart.toml", Some("fifo"))).unwrap();
    run_for(&mut a, 90);
    keys(&mut a, " i");
    let rows_of = |s: &str| -> Vec<String> {
        s.lines()
            .skip_while(|l| !l.contains("order"))
            .skip(1)
            .map(inspector_text)
            .map(|l| l.split_whitespace().next().unwrap_or("").to_string())
            .take_while(|n| !n.is_empty() && !n.starts_with('↑') && !n.starts_with('↓'))
            .collect()
    };
    let (w, h) = (80, 12);
    let top = screen(&a, w, h);
    assert!(top.contains("below"), "{top}");
    let first = rows_of(&top);
    assert!(first.len() > 1, "{top}");
    key(&mut a, KeyCode::Down);
    let down = rows_of(&screen(&a, w, h));
    assert_eq!(down[0], first[1], "one row down");
    keys(&mut a, "k");
    assert_eq!(rows_of(&screen(&a, w, h)), first, "k is up");
    key(&mut a, KeyCode::End);
    let end = screen(&a, w, h);
    assert!(end.contains("above") && !end.contains("below"), "{end}");
    key(&mut a, KeyCode::Home);
    assert_eq!(rows_of(&screen(&a, w, h)), first);
    // Stepping: whatever a heartbeat assigns to is on screen (a few rows
    // taller, since the "now" lines grow with the node's running attempts).
    let mut seen = 0;
    for _ in 0..400 {
        keys(&mut a, ".");
        let s = screen(&a, w, h + 4);
        let (r, _) = a.inspection(0).unwrap();
        if let Some(job) = r.assigned.first().and_then(|x| x.rsplit_once('/')) {
            let shown = rows_of(&s);
            let name = views::fit_mid(job.0, 14);
            assert!(shown.contains(&name), "{name} not in {shown:?}\n{s}");
            seen += 1;
        }
    }
    assert!(seen >= 3, "{seen} assignments seen");
}

/// Headers are whole (capacity's at 120 columns), hybsmrp's and fresh's
/// columns all fit at 80, and similar names keep the part that differs.
#[test]
fn inspector_headers_whole_and_names_distinct() {
    let open = |file: &str, policy: &str, speedups: usize, secs: u64| {
        let mut a = App::new(load(file, Some(policy))).unwrap();
        for _ in 0..speedups {
            a.update(Action::SpeedUp);
        }
        run_for(&mut a, secs);
        keys(&mut a, " i");
        a
    };
    let a = open("quickstart.toml", "capacity", 4, 3);
    let s = screen(&a, 120, 36);
    assert!(s.contains("capacity m") && s.contains("missed"), "{s}");
    assert!(!s.contains("capacit…"), "{s}");
    let a = open("hybsmrp-terasort.toml", "hybsmrp", 4, 3);
    let s = screen(&a, 80, 24);
    assert!(
        s.contains("wait f") && s.contains("m'") && !s.contains("cols"),
        "{s}"
    );
    let a = open("omo-set-a.toml", "fresh", 4, 4);
    let s = screen(&a, 80, 24);
    assert!(s.contains("fs c") && !s.contains("cols"), "{s}");
    assert!(s.contains("…-10g") && s.contains("…-20g"), "{s}");
    insta::assert_snapshot!("inspector_fresh_80x24", s);
}

#[test]
fn names_are_cut_in_the_middle_keeping_the_suffix() {
    assert_eq!(views::fit_mid("classification-10g", 12), "classif…-10g");
    assert_ne!(
        views::fit_mid("sequencecount-10g", 10),
        views::fit_mid("sequencecount-20g", 10)
    );
    assert_eq!(views::fit_mid("short", 10), "short");
    assert_eq!(views::fit_mid("abcdefghij", 5), "ab…ij");
}

#[test]
fn help_and_quit() {
    let mut a = app();
    keys(&mut a, "?");
    assert_eq!(a.overlay, Overlay::Help);
    let s = screen(&a, 80, 24);
    assert!(s.contains("quit"), "{s}");
    keys(&mut a, "?");
    assert_eq!(a.overlay, Overlay::None);
    keys(&mut a, "q");
    assert!(a.quit);
    let mut b = app();
    let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
    b.update(keymap::action_for(&b.overlay, ctrl_c).unwrap());
    assert!(b.quit);
}

#[test]
fn header_shows_the_contract_fields() {
    let mut a = app();
    run_for(&mut a, 12);
    let s = screen(&a, 80, 24);
    let head = s.lines().next().unwrap();
    assert!(head.contains("policy: fair"), "{head}");
    assert!(head.contains("00:00:12.0"), "{head}");
    assert!(head.contains("1×") && head.contains("running"), "{head}");
    assert!(head.contains(&format!(
        "jobs: {}/{}",
        a.sim().view().finished_jobs(),
        a.sim().view().submitted_jobs()
    )));
    keys(&mut a, " ");
    assert!(screen(&a, 80, 24)
        .lines()
        .next()
        .unwrap()
        .contains("paused"));
}

/// Every contract item of the header shows at 80×24 however long the
/// policy label (cut in the middle), and at 40×12 (on two lines); the
/// footer keeps `? help` and `q quit` down to 40 columns.
#[test]
fn header_and_footer_keep_the_contract_at_narrow_widths() {
    let label = "fair[node_locality_delay=0s;rack_locality_delay=0s]";
    let mut a = App::new(load("quickstart.toml", Some(label))).unwrap();
    assert_eq!(a.sim().policy_label(), label);
    run_for(&mut a, 12);
    for paused in [false, true] {
        for (w, h) in [(80u16, 24u16), (60, 20), (40, 12)] {
            let s = screen(&a, w, h);
            let lines: Vec<&str> = s.lines().collect();
            let head = if w < 60 {
                format!("{}{}", lines[0], lines[1])
            } else {
                lines[0].to_string()
            };
            let state = if paused { "paused" } else { "running" };
            let jobs = format!(
                "jobs: {}/{}",
                a.sim().view().finished_jobs(),
                a.sim().view().submitted_jobs()
            );
            for item in ["policy: fair", "00:00:12.0", "1×", state, &jobs] {
                assert!(head.contains(item), "{w}x{h}: {item} missing in {head:?}");
            }
            let foot = lines.last().unwrap();
            assert!(
                foot.contains("? help") && foot.contains("q quit"),
                "{w}x{h}: {foot:?}"
            );
            if w == 80 {
                assert!(head.contains("…"), "label cut in the middle: {head}");
                assert!(head.contains("=0s]"), "the label's end stays: {head}");
            }
        }
        keys(&mut a, " ");
    }
    insta::assert_snapshot!("variant_header_80x24", screen(&a, 80, 24));
    insta::assert_snapshot!("narrow_40x12", screen(&a, 40, 12));
    // The picker marks the variant's base policy and opens on it.
    keys(&mut a, "p");
    assert!(matches!(a.overlay, Overlay::Picker { selected: 1 }));
    let s = screen(&a, 80, 24);
    assert!(s.contains("●  fair"), "{s}");
}

// ------------------------------------------------------------- snapshots

/// A deterministic mid-run state with some of everything on screen.
fn busy_app() -> App {
    let mut a = app();
    run_for(&mut a, 40);
    keys(&mut a, "p");
    keys(&mut a, "k");
    key(&mut a, KeyCode::Enter); // switch to fifo at 40 s
    run_for(&mut a, 20);
    keys(&mut a, " ");
    a
}

fn snap_all(name: &str, a: &mut App) {
    for (w, h) in [(80u16, 24u16), (120, 36)] {
        insta::assert_snapshot!(format!("{name}_{w}x{h}"), screen(a, w, h));
    }
}

#[test]
fn snapshot_views() {
    let mut a = busy_app();
    for v in [
        "overview", "cluster", "jobs", "pools", "timeline", "network",
    ] {
        snap_all(v, &mut a);
        key(&mut a, KeyCode::Tab);
    }
}

/// The Network view's head cuts nothing at 80 columns: the bytes moved
/// by kind go on lines of their own, each kind whole, and under `fixed`
/// its note is wrapped, not cut (a cut line has no `…` to show it).
#[test]
fn network_view_wraps_its_head_at_80_columns() {
    for model in ["shared", "coarse", "fixed"] {
        let text = std::fs::read_to_string(scenario_path("quickstart.toml")).unwrap();
        assert!(
            !text.contains("[network]"),
            "the quickstart leaves the model to its default"
        );
        let text = text.replacen(
            "[cluster]",
            &format!("[network]\nmodel = \"{model}\"\n\n[cluster]"),
            1,
        );
        let mut a = App::new(load_text(&text, None)).unwrap();
        run_for(&mut a, 20);
        goto(&mut a, View::Network);
        let s = screen(&a, 80, 24);
        for kind in ["input", "spill", "shuffle", "output"] {
            assert!(
                s.lines()
                    .any(|l| l.contains(&format!(" {kind} ")) && l.contains(" GB")),
                "{model}: {kind} moved, whole: {s}"
            );
        }
        let wide = screen(&a, 200, 50);
        let moved = wide
            .lines()
            .find(|l| l.contains(" moved "))
            .unwrap_or_else(|| panic!("{wide}"));
        assert!(
            moved.contains(" model ") && moved.contains(" output "),
            "one line when it fits: {moved}"
        );
        if model == "fixed" {
            let words: Vec<&str> = s
                .split(|c: char| c.is_whitespace() || c == '│')
                .filter(|w| !w.is_empty())
                .collect();
            let words = words.join(" ");
            assert!(
                words.contains("at its class bandwidth: no disk or link is shared."),
                "the whole note: {s}"
            );
        }
    }
}

#[test]
fn snapshot_overlays() {
    let mut a = busy_app();
    keys(&mut a, "p");
    snap_all("picker", &mut a);
    key(&mut a, KeyCode::Esc);
    keys(&mut a, "s");
    snap_all("submit", &mut a);
    key(&mut a, KeyCode::Tab);
    keys(&mut a, "x");
    key(&mut a, KeyCode::Enter);
    snap_all("submit_error", &mut a);
    key(&mut a, KeyCode::Esc);
    keys(&mut a, "i");
    snap_all("inspector", &mut a);
    key(&mut a, KeyCode::Esc);
    keys(&mut a, "?");
    snap_all("help", &mut a);
}

#[test]
fn snapshot_inspector_under_fair() {
    let mut a = app();
    run_for(&mut a, 30);
    keys(&mut a, " ");
    keys(&mut a, "i");
    let s = screen(&a, 120, 36);
    assert!(s.contains("fs m") && s.contains("wait s"), "{s}");
    insta::assert_snapshot!("inspector_fair_120x36", s);
}

// ------------------------------------------------------------- recording

fn record_to(path: &std::path::Path, keys: &str) -> (u64, u64) {
    use slotsim::tui::offscreen::{parse_keys, record, RecordOpts};
    let opts = RecordOpts {
        width: 100,
        height: 30,
        fps: 5,
        until: Some(30_000),
        speed: 5.0,
        keys: parse_keys(keys).unwrap(),
        stop: None,
    };
    let (frames, ms, stopped) = record(app(), path, &opts).unwrap();
    assert_eq!(stopped, None);
    (frames, ms)
}

#[test]
fn record_is_deterministic_and_valid_asciinema_v2() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.cast"), dir.path().join("b.cast"));
    let keys = "s,Enter,p,Up,Enter,Tab,i,Esc";
    let (frames, ms) = record_to(&a, keys);
    record_to(&b, keys);
    let (ta, tb) = (std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    assert_eq!(ta, tb, "same scenario, seed and keys: same bytes");
    assert!(frames > 20 && ms >= 8_000, "{frames} frames, {ms} ms");
    let text = String::from_utf8(ta).unwrap();
    let mut lines = text.lines();
    let header: serde_json::Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    assert_eq!(header["version"], 2);
    assert_eq!(
        (header["width"].as_u64(), header["height"].as_u64()),
        (Some(100), Some(30))
    );
    let mut last_t = -1.0;
    let mut all = String::new();
    for l in lines {
        let ev: serde_json::Value = serde_json::from_str(l).unwrap();
        let t = ev[0].as_f64().unwrap();
        assert!(t >= last_t, "times never go back");
        last_t = t;
        assert_eq!(ev[1], "o");
        all.push_str(ev[2].as_str().unwrap());
    }
    // The keys took effect: a submission and a policy switch were drawn.
    assert!(
        all.contains("submitted tui-terasort-1"),
        "submit key reached the app"
    );
    assert!(
        all.contains("policy switched fair → fifo"),
        "the picker switched the policy"
    );
    // Different keys, different file.
    let c = dir.path().join("c.cast");
    record_to(&c, "Tab");
    assert_ne!(std::fs::read(&c).unwrap(), std::fs::read(&a).unwrap());
}

#[test]
fn record_keys_parse_and_reject() {
    use slotsim::tui::offscreen::{parse_keys, Step};
    let k = parse_keys("s, Enter,2s,Down").unwrap();
    assert_eq!(k.len(), 4);
    assert_eq!(k[2], Step::Wait(2000));
    assert!(parse_keys("Ctrl-Alt-Del")
        .unwrap_err()
        .to_string()
        .contains("unknown key"));
}

/// Under OMO the inspector shows the paper's symbols (F_o, A_o, T_m, T_s,
/// F_e, x*, β) and the Fig. 7 chart of estimated vs observed release rate.
#[test]
fn snapshot_inspector_under_omo() {
    let mut a = App::new(load("omo-set-a.toml", Some("omo"))).unwrap();
    for _ in 0..4 {
        a.update(Action::SpeedUp); // 10×
    }
    run_for(&mut a, 20); // 200 simulated seconds
    keys(&mut a, " ");
    keys(&mut a, "i");
    let s = screen(&a, 120, 36);
    for sym in [
        "F_o",
        "A_o",
        "T_m",
        "T_s",
        "F_e",
        "x*",
        "β",
        "Fig. 7",
        "observed f_t",
        "estimated F_e",
    ] {
        assert!(s.contains(sym), "{sym} missing:\n{s}");
    }
    // A negative x* or β keeps its "not yet" whole, and the chart's legend
    // is in its title line, not a box on the lines.
    assert!(!s.contains("not y…"), "{s}");
    assert!(
        s.lines()
            .any(|l| l.contains("Fig. 7") && l.contains("observed f_t")),
        "{s}"
    );
    insta::assert_snapshot!("inspector_omo_120x36", s);
}

#[test]
fn jobs_and_timeline_scroll_within_bounds() {
    let mut a = app();
    run_for(&mut a, 60);
    goto(&mut a, View::Jobs);
    // Everything fits at 80×24: ↓ selects, nothing scrolls.
    screen(&a, 80, 24);
    key(&mut a, KeyCode::Down);
    assert_eq!(a.jobs_row, 0);
    let first_job = a.sel_job.expect("↓ selects the first job");
    assert!(screen(&a, 80, 24).contains("▶ sort-big"));
    // On a short screen the list scrolls to keep the selection in view,
    // one row at a time, to the last full page.
    let (w, h) = (80, 14);
    let top = screen(&a, w, h);
    assert!(top.contains("↓ ") && top.contains("below"), "{top}");
    let page = a.pages.get().jobs.rows;
    for _ in 0..page - 1 {
        key(&mut a, KeyCode::Down);
    }
    assert_eq!(a.jobs_row, 0, "the selection moves down the page first");
    key(&mut a, KeyCode::Down);
    assert_eq!(a.jobs_row, 1, "then the list scrolls by one row");
    let name =
        |s: &str, i: usize| -> String { s.lines().nth(i).unwrap_or("").chars().skip(3).collect() };
    assert_eq!(name(&screen(&a, w, h), 3), name(&top, 4), "by one row");
    for _ in 0..1000 {
        key(&mut a, KeyCode::Down);
    }
    let bottom = screen(&a, w, h);
    let rows = |s: &str| {
        s.lines()
            .skip(3)
            .take_while(|l| !l.starts_with('└') && !l.contains("d/r/p"))
            .count()
    };
    assert_eq!(rows(&bottom), rows(&top), "the last page is full");
    assert!(
        !bottom.contains("below") && bottom.contains("above"),
        "{bottom}"
    );
    key(&mut a, KeyCode::Home);
    assert_eq!(a.sel_job, Some(first_job));
    assert_eq!(name(&screen(&a, w, h), 3), name(&top, 3));
    key(&mut a, KeyCode::End);
    assert_eq!(screen(&a, w, h), bottom);
    goto(&mut a, View::Timeline);
    for _ in 0..1000 {
        key(&mut a, KeyCode::Down);
    }
    assert!(a.timeline_row < 80, "20 nodes × 4 lanes");
    // Pages: PgDn/PgUp by what is on screen, Home/End to the ends.
    key(&mut a, KeyCode::Home);
    assert_eq!(a.timeline_row, 0);
    screen(&a, 80, 24);
    let page = a.pages.get().timeline;
    assert_eq!(page.max, 80 - page.rows, "the last page is full");
    key(&mut a, KeyCode::PageDown);
    assert_eq!(a.timeline_row, page.rows);
    key(&mut a, KeyCode::End);
    assert_eq!(a.timeline_row, page.max);
    let end = screen(&a, 80, 24);
    assert!(end.contains("n19  r3"), "the last slot shows: {end}");
    key(&mut a, KeyCode::PageUp);
    assert_eq!(a.timeline_row, page.max - page.rows);
}

/// Finished jobs show their turnaround; the title counts the rows' states;
/// the progress bar is not full while reduces are left.
#[test]
fn jobs_view_states_turnaround_and_progress() {
    let mut a = busy_app();
    goto(&mut a, View::Jobs);
    let s = screen(&a, 80, 24);
    let title = s.lines().nth(1).unwrap();
    let rows: Vec<&str> = s
        .lines()
        .skip(3)
        .take_while(|l| !l.starts_with('└'))
        .collect();
    for state in ["running", "queued", "waiting", "done"] {
        let n = rows
            .iter()
            .filter(|r| r.contains(&format!(" {state} ")))
            .count();
        // Counts of nothing give way when the title is too long.
        assert!(
            title.contains(&format!(" {n} {state}")) || n == 0,
            "{state}: {n} rows but title {title}"
        );
    }
    let done = rows
        .iter()
        .find(|r| r.contains(" done "))
        .expect("a done row");
    let job = a
        .sim()
        .view()
        .jobs()
        .iter()
        .find(|j| j.finished_at.is_some() && done.contains(&*j.name))
        .expect("the done row's job");
    let turnaround = slotsim::tui::app::dur(job.finished_at.unwrap() - job.submit);
    assert!(
        done.contains(&format!("done {turnaround}")),
        "turnaround {turnaround}: {done}"
    );
    // sort-big: 64/64 maps done, no reduce done: half full, not full.
    let big = rows.iter().find(|r| r.contains("sort-big")).unwrap();
    assert!(big.contains("████░░░░"), "{big}");
    assert!(!s.contains("null"), "{s}");
}

/// On a unified cluster the Pools view shows the container share the
/// policy divides by: fresh's own, omo's fair base's; never `-` and never
/// the typed map share (which is half of it).
#[test]
fn pools_show_container_shares_on_unified_clusters() {
    for policy in ["fresh", "omo"] {
        let mut a = App::new(load("omo-set-a.toml", Some(policy))).unwrap();
        for _ in 0..4 {
            a.update(Action::SpeedUp); // 20×
        }
        run_for(&mut a, 10);
        goto(&mut a, View::Pools);
        let s = screen(&a, 80, 24);
        let shares = a
            .pane()
            .shares
            .as_ref()
            .unwrap_or_else(|| panic!("{policy}: no pool shares"));
        assert_eq!(shares.basis, ShareBasis::Containers, "{policy}");
        let share = shares.pools[0].share_map;
        assert!(s.contains("containers"), "{policy}:\n{s}");
        assert!(
            s.contains(&format!("/{share:.1}")),
            "{policy}: {share}\n{s}"
        );
        insta::assert_snapshot!(format!("pools_unified_{policy}_80x24"), s);
    }
}

/// The line of the Timeline's axis and the title's scale.
fn timeline_scale(s: &str) -> (String, String) {
    let title = s.lines().nth(1).unwrap();
    let scale = title
        .split("1 column = ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .unwrap_or_default()
        .to_string();
    (scale, s.lines().nth(2).unwrap().to_string())
}

/// The Timeline's scale fits the run so far whatever the speed: the whole
/// run from 0 s is in view, at the finest nice step that fits.
#[test]
fn timeline_fits_the_whole_run_at_any_speed() {
    for (secs, speedups) in [(30u64, 0), (1, 30)] {
        let mut a = app();
        for _ in 0..speedups {
            a.update(Action::SpeedUp); // to max
        }
        run_for(&mut a, secs);
        goto(&mut a, View::Timeline);
        for (w, h) in [(80u16, 24u16), (120, 36)] {
            let s = screen(&a, w, h);
            let cols = w as usize - 2 - 9;
            let step = views::timeline_step(a.sim().view().now(), cols);
            assert!(a.sim().view().now() / step < cols as u64);
            let (scale, axis) = timeline_scale(&s);
            assert_eq!(scale, views::tick_label(step), "{s}");
            assert!(axis.contains("time    ╵0s"), "from 0: {axis}");
            // The first slot's row is drawn up to now's column, not past it.
            let row: String = s.lines().nth(3).unwrap().chars().skip(10).collect();
            let drawn = row.trim_end_matches(['│', ' ']).chars().count();
            assert_eq!(drawn as u64, a.sim().view().now() / step + 1, "{s}");
            // The sparklines have one value per drawn column.
            let v = a.pane().index.history.columns(step, cols, a.sim().view());
            assert_eq!(v.len() as u64, a.sim().view().now() / step + 1);
        }
        if speedups > 0 {
            assert!(a.sim().is_finished(), "max speed ran it all");
            insta::assert_snapshot!("timeline_finished_80x24", screen(&a, 80, 24));
        }
    }
    // At the end of hadoop-small-jobs (2 h) the whole run shows.
    let mut a = App::new(load("hadoop-small-jobs.toml", None)).unwrap();
    for _ in 0..30 {
        a.update(Action::SpeedUp);
    }
    run_for(&mut a, 1);
    assert!(a.sim().is_finished());
    goto(&mut a, View::Timeline);
    let s = screen(&a, 80, 24);
    let (scale, axis) = timeline_scale(&s);
    assert_eq!(scale, "2m", "{s}");
    assert!(axis.contains("╵0s") && axis.contains("╵1h"), "{axis}");
}

/// Switch labels never overwrite each other; dead nodes are drawn `✗`.
#[test]
fn timeline_switch_labels_and_dead_nodes() {
    let text = std::fs::read_to_string(scenario_path("quickstart.toml")).unwrap()
        + "\n[[events]]\nat = \"10s\"\naction = \"fail_node\"\nnode = 0\n"
        + "[[events]]\nat = \"30s\"\naction = \"recover_node\"\nnode = 0\n";
    let mut a = App::new(load_text(&text, None)).unwrap();
    run_for(&mut a, 40);
    keys(&mut a, "p");
    keys(&mut a, "k");
    key(&mut a, KeyCode::Enter); // fifo at 40 s
    run_for(&mut a, 1);
    keys(&mut a, "p");
    keys(&mut a, "jj");
    key(&mut a, KeyCode::Enter); // fresh at 41 s
    run_for(&mut a, 5);
    keys(&mut a, " ");
    goto(&mut a, View::Timeline);
    let s = screen(&a, 80, 24);
    let (_, axis) = timeline_scale(&s);
    assert!(axis.contains("▼▼ fresh"), "{axis}");
    assert!(!axis.contains("fifo▼") && !axis.contains("fi▼"), "{axis}");
    // Node 0 was dead from 10 s to 30 s: columns 10..29 of its rows.
    let row: Vec<char> = s.lines().nth(3).unwrap().chars().skip(10).collect();
    assert!(s.lines().nth(3).unwrap().contains("n0"));
    assert!(row[10..30].iter().all(|&c| c == '✗'), "{s}");
    assert!(row[..10].iter().all(|&c| c != '✗') && row[30] != '✗', "{s}");
    insta::assert_snapshot!("timeline_dead_and_switches_80x24", s);
}

/// When racks do not fit, the Cluster view says how many more there are and
/// ↑/↓ (PgUp/PgDn, Home/End) scroll them.
#[test]
fn cluster_view_scrolls_racks_that_do_not_fit() {
    let mut a = App::new(load("scale-400.toml", None)).unwrap();
    run_for(&mut a, 3);
    keys(&mut a, " ");
    goto(&mut a, View::Cluster);
    let top = screen(&a, 80, 24);
    assert!(top.contains(" r0 ") && top.contains("more racks"), "{top}");
    let racks_shown = |s: &str| -> Vec<String> {
        s.lines()
            .filter_map(|l| l.strip_prefix("│ r"))
            .map(|l| l.split_whitespace().next().unwrap().to_string())
            .collect()
    };
    let shown = racks_shown(&top);
    assert!(shown.len() >= 2 && shown.len() < 10, "{shown:?}");
    insta::assert_snapshot!("cluster_scale400_80x24", top);
    // ↓ selects the node at the same place in the next rack; the racks
    // scroll when it is below the last one shown.
    key(&mut a, KeyCode::Down);
    assert_eq!(a.sim().view().cluster().nodes[a.sel_node as usize].rack, 1);
    assert_eq!(racks_shown(&screen(&a, 80, 24))[0], "0");
    key(&mut a, KeyCode::Down);
    let down = screen(&a, 80, 24);
    assert_eq!(racks_shown(&down)[0], "1", "{down}");
    assert!(down.contains("↑ 1 rack ·"), "{down}");
    assert!(down.contains("▶ node 80 (rack r2)"), "{down}");
    key(&mut a, KeyCode::End);
    let end = screen(&a, 80, 24);
    assert_eq!(racks_shown(&end).last().unwrap(), "9", "{end}");
    assert!(!end.contains("more racks"), "{end}");
    for _ in 0..5 {
        key(&mut a, KeyCode::PageDown);
    }
    assert_eq!(screen(&a, 80, 24), end, "stops at the last full page");
    key(&mut a, KeyCode::Home);
    assert_eq!(racks_shown(&screen(&a, 80, 24)), racks_shown(&top));
    // Everything fits at 120×36 on the quickstart: no marker, no scrolling.
    let mut b = app();
    run_for(&mut b, 3);
    let s = screen(&b, 80, 24);
    assert!(!s.contains("more rack"), "{s}");
    key(&mut b, KeyCode::Down);
    assert_eq!(b.cluster_row, 0);
}

/// On a short terminal the picker lists one line per policy and scrolls to
/// keep the selection in view: the last policy can be chosen at 60×8.
#[test]
fn picker_scrolls_on_a_short_terminal() {
    let mut a = busy_app();
    keys(&mut a, "p");
    let offered = slotsim::sched::registry::for_capacity(a.sim().view().capacity());
    for _ in 1..offered.len() {
        key(&mut a, KeyCode::Down);
    }
    let s = screen(&a, 60, 8);
    let last = offered.last().unwrap().name;
    assert!(s.contains(last), "{s}");
    assert!(
        !s.contains("JobQueueTaskScheduler"),
        "scrolled past the first: {s}"
    );
    insta::assert_snapshot!("picker_scrolled_60x8", s);
}

/// At high speed a frame inspects only the heartbeats the inspector can
/// still show (the last 256), and those it does inspect: the newest record
/// is from the frame's last stretch, and stepping while paused records.
#[test]
fn fast_frames_inspect_only_the_tail_the_ring_keeps() {
    let mut a = app();
    for _ in 0..6 {
        a.update(Action::SpeedUp); // 100×
    }
    a.update(Action::Tick(1000)); // 100 s in one frame
    let now = a.sim().view().now();
    assert!(now >= 100_000, "{now}");
    let (first, last, n) = {
        let r = a.pane().ring.lock().unwrap();
        (
            r.all.front().unwrap().t,
            r.all.back().unwrap().t,
            r.all.len(),
        )
    };
    // 20 nodes, 3 s heartbeats: 256 heartbeats span 38.4 s.
    assert!(first >= now - 38_400, "oldest record at {first}, now {now}");
    assert!(last + 3_000 >= now, "newest record at {last}, now {now}");
    assert!(n <= slotsim::tui::app::INSPECT_RING);
    a.update(Action::TogglePause);
    let before = a.pane().ring.lock().unwrap().all.len();
    for _ in 0..20 {
        a.update(Action::Step);
    }
    let after = a.pane().ring.lock().unwrap().all.back().unwrap().t;
    assert!(
        after > last,
        "stepping records heartbeats: {after} vs {last}"
    );
    assert!(before > 0);
}

// ------------------------------------------------------------- selection

fn click(a: &mut App, target: slotsim::tui::app::Target) {
    use crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
    let hit = a
        .hits
        .borrow()
        .iter()
        .find(|h| h.target == target)
        .copied()
        .unwrap_or_else(|| panic!("{target:?} is not on screen"));
    let ev = MouseEvent {
        kind: MouseEventKind::Down(MouseButton::Left),
        column: hit.area.x,
        row: hit.area.y,
        modifiers: KeyModifiers::NONE,
    };
    if let Some(act) = keymap::action_for_mouse(a, ev) {
        a.update(act);
    }
}

#[test]
fn arrows_and_clicks_select_nodes_jobs_and_views_and_the_inspector_follows() {
    use slotsim::tui::app::Target;
    let mut a = app();
    run_for(&mut a, 30);
    keys(&mut a, " ");
    assert_eq!(a.sel_node, 0);
    key(&mut a, KeyCode::Right);
    key(&mut a, KeyCode::Right);
    assert_eq!(a.sel_node, 2, "→ selects the next node");
    key(&mut a, KeyCode::Left);
    assert_eq!(a.sel_node, 1);
    key(&mut a, KeyCode::Down);
    let first = a.sel_job.expect("↓ selects a job");
    let s = screen(&a, 120, 36);
    assert!(s.contains("▶ node 1 (r0)"), "{s}");
    // Clicks, through what the frame drew where.
    click(&mut a, Target::Node(13));
    assert_eq!(a.sel_node, 13);
    let second = a.sim().view().active()[1];
    click(&mut a, Target::Job(second));
    assert_eq!(a.sel_job, Some(second));
    assert_ne!(first, second);
    click(&mut a, Target::View(2));
    assert_eq!(a.view, View::Jobs);
    // The inspector shows the selected node's heartbeats, oldest 1/N.
    keys(&mut a, "i");
    let recs = a.inspections();
    assert!(!recs.is_empty() && recs.iter().all(|r| r.node == 13));
    let n = recs.len();
    let s = screen(&a, 120, 36);
    assert!(s.contains(&format!("node 13's heartbeat {n}/{n}")), "{s}");
    key(&mut a, KeyCode::Left);
    let s = screen(&a, 120, 36);
    assert!(
        s.contains(&format!("heartbeat {}/{n}", n - 1)),
        "← is older, counted forward: {s}"
    );
    key(&mut a, KeyCode::Esc);
    // Cluster: ↑/↓ move across racks, the selection is described.
    keys(&mut a, "2");
    assert_eq!(a.view, View::Cluster);
    key(&mut a, KeyCode::Down);
    let node = &a.sim().view().cluster().nodes[a.sel_node as usize];
    assert_eq!(node.rack, 1);
    let s = screen(&a, 120, 36);
    assert!(
        s.contains(&format!("▶ node {} (rack r1)", a.sel_node)),
        "{s}"
    );
}

#[test]
fn number_keys_jump_to_the_views_in_tab_order() {
    let mut a = app();
    for (i, v) in View::ALL.iter().enumerate().rev() {
        keys(&mut a, &(i + 1).to_string());
        assert_eq!(a.view, *v);
    }
}

#[test]
fn enter_shows_a_jobs_tasks_and_esc_closes() {
    let mut a = app();
    run_for(&mut a, 40);
    keys(&mut a, " 3");
    key(&mut a, KeyCode::Down);
    let j = a.sel_job.unwrap();
    key(&mut a, KeyCode::Enter);
    assert!(matches!(a.overlay, Overlay::Detail { job, .. } if job == j));
    let s = screen(&a, 120, 36);
    let name = a.sim().view().job(j).name.clone();
    for want in [
        format!("Tasks of {name}"),
        "m0 ".to_string(),
        "state".into(),
        "phase".into(),
        "started".into(),
    ] {
        assert!(s.contains(&want), "{want} missing:\n{s}");
    }
    insta::assert_snapshot!("detail_120x36", s);
    key(&mut a, KeyCode::End);
    let end = screen(&a, 120, 36);
    assert!(end.contains("above") && end.contains("r1 "), "{end}");
    key(&mut a, KeyCode::Esc);
    assert_eq!(a.overlay, Overlay::None);
}

#[test]
fn jobs_filter_and_order() {
    let mut a = app();
    run_for(&mut a, 60);
    keys(&mut a, " /");
    assert_eq!(a.view, View::Jobs, "/ opens the Jobs view's filter");
    keys(&mut a, "research");
    let s = screen(&a, 120, 36);
    assert!(s.contains("filter /research"), "{s}");
    let rows = slotsim::tui::app::job_rows(&a);
    assert!(!rows.is_empty());
    for (j, _) in &rows {
        let w = &a.sim().view();
        assert!(w.pool_name(*j) == "research" || w.job(*j).name.contains("research"));
    }
    key(&mut a, KeyCode::Enter);
    assert_eq!(a.jobs_filter, "research", "Enter keeps it");
    assert_eq!(slotsim::tui::app::job_rows(&a).len(), rows.len());
    keys(&mut a, "/");
    key(&mut a, KeyCode::Esc);
    assert_eq!(a.jobs_filter, "", "Esc clears it");
    // A kept filter: Esc with nothing open clears it too.
    keys(&mut a, "/research");
    key(&mut a, KeyCode::Enter);
    assert_eq!(a.jobs_filter, "research");
    key(&mut a, KeyCode::Esc);
    assert_eq!(a.jobs_filter, "", "Esc clears a kept filter");
    // Paused, the footer offers to resume.
    assert!(a.paused);
    let footer = |a: &App| screen(a, 120, 36).lines().last().unwrap().to_string();
    assert!(
        footer(&a).contains("resume") && !footer(&a).contains("pause"),
        "{}",
        footer(&a)
    );
    keys(&mut a, " ");
    assert!(
        footer(&a).contains("pause") && !footer(&a).contains("resume"),
        "{}",
        footer(&a)
    );
    keys(&mut a, " ");
    // The order: submit, progress, name, shown in the title.
    keys(&mut a, "o");
    assert!(screen(&a, 120, 36).contains("by progress"));
    let prog: Vec<f64> = slotsim::tui::app::job_rows(&a)
        .iter()
        .map(|(j, _)| slotsim::tui::app::job_progress(a.sim().view().job(*j)))
        .collect();
    assert!(prog.windows(2).all(|p| p[0] >= p[1]), "{prog:?}");
    keys(&mut a, "o");
    assert!(screen(&a, 120, 36).contains("by name"));
    let names: Vec<String> = slotsim::tui::app::job_rows(&a)
        .iter()
        .map(|(j, _)| a.sim().view().job(*j).name.to_string())
        .collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);
    // Then every column; O reverses; a click on a header sorts by it.
    keys(&mut a, "o");
    assert!(screen(&a, 120, 36).contains("by pool"));
    let pools = |a: &App| -> Vec<String> {
        slotsim::tui::app::job_rows(a)
            .iter()
            .map(|(j, _)| a.sim().view().pool_name(*j).to_string())
            .collect()
    };
    let by_pool = pools(&a);
    assert!(by_pool.windows(2).all(|p| p[0] <= p[1]), "{by_pool:?}");
    keys(&mut a, "O");
    assert!(screen(&a, 120, 36).contains("by pool, reversed"));
    let reversed = pools(&a);
    assert!(reversed.windows(2).all(|p| p[0] >= p[1]), "{reversed:?}");
    assert_ne!(by_pool, reversed);
    use slotsim::tui::app::{Sort, Target};
    let _ = screen(&a, 120, 36);
    click(&mut a, Target::Sort(Sort::Submitted));
    assert_eq!((a.jobs_sort, a.jobs_reversed), (Sort::Submitted, false));
    let s = screen(&a, 120, 36);
    assert!(
        s.contains("by submitted") && s.contains("submitted▾"),
        "{s}"
    );
    let submits: Vec<u64> = slotsim::tui::app::job_rows(&a)
        .iter()
        .map(|(j, _)| a.sim().view().job(*j).submit)
        .collect();
    assert!(submits.windows(2).all(|p| p[0] <= p[1]), "{submits:?}");
    click(&mut a, Target::Sort(Sort::Submitted));
    assert!(a.jobs_reversed, "a second click reverses");
    for _ in 0..Sort::ALL.len()
        - Sort::ALL
            .iter()
            .position(|&s| s == Sort::Submitted)
            .unwrap()
    {
        keys(&mut a, "o");
    }
    assert!(
        screen(&a, 120, 36).contains("by submit "),
        "back to the start"
    );
    let ids = |a: &App| -> Vec<u32> {
        slotsim::tui::app::job_rows(a)
            .iter()
            .map(|(j, _)| *j)
            .collect()
    };
    let forward = ids(&a);
    keys(&mut a, "O");
    let mut back = ids(&a);
    back.reverse();
    assert_eq!(back, forward, "reversed: the same rows from the other end");
}

#[test]
fn f_and_r_fail_and_recover_the_selected_node_through_the_command_api() {
    let mut a = app();
    run_for(&mut a, 20);
    for _ in 0..3 {
        key(&mut a, KeyCode::Right);
    }
    keys(&mut a, "f");
    assert!(!a.sim().view().cluster().nodes[3].alive);
    let s = screen(&a, 80, 24);
    assert!(s.contains("node 3 failed"), "the log shows it: {s}");
    keys(&mut a, "f");
    assert!(a.status.as_deref().unwrap().contains("already dead"));
    run_for(&mut a, 5);
    keys(&mut a, "r");
    assert!(a.sim().view().cluster().nodes[3].alive);
    assert!(screen(&a, 80, 24).contains("node 3 recovered"));
}

/// The picker, the submit form and the filter hold the simulated clock,
/// so the switch or the job lands at the instant the user chose: the next
/// millisecond, where a scripted event replaying it would run (the events
/// of the current one may have run already).
#[test]
fn input_overlays_freeze_the_clock() {
    let mut a = app();
    run_for(&mut a, 5);
    let t = a.sim().view().now();
    keys(&mut a, "p");
    run_for(&mut a, 10);
    assert_eq!(a.sim().view().now(), t, "the picker holds the clock");
    keys(&mut a, "k");
    key(&mut a, KeyCode::Enter);
    assert_eq!(
        a.sim().view().switches().last().unwrap().at_s * 1000.0,
        (t + 1) as f64
    );
    run_for(&mut a, 3);
    let t = a.sim().view().now();
    keys(&mut a, "s");
    run_for(&mut a, 10);
    assert_eq!(a.sim().view().now(), t, "the form holds the clock");
    key(&mut a, KeyCode::Enter);
    let job = a
        .sim()
        .view()
        .jobs()
        .iter()
        .find(|j| j.name.starts_with("tui-"))
        .unwrap();
    assert_eq!(job.submit, t + 1, "submitted when the form was opened");
    let t = a.sim().view().now();
    keys(&mut a, "/");
    run_for(&mut a, 2);
    assert_eq!(a.sim().view().now(), t, "the filter holds it too");
    key(&mut a, KeyCode::Esc);
    // The inspector and help do not.
    keys(&mut a, "i");
    run_for(&mut a, 1);
    assert!(a.sim().view().now() > t);
}

/// 400 nodes: the packed Overview keeps rack labels; no colour legend
/// ends in "…"; narrow screens drop columns instead of cutting words.
#[test]
fn large_clusters_and_narrow_screens_stay_legible() {
    let mut a = App::new(load("scale-400.toml", None)).unwrap();
    run_for(&mut a, 20);
    keys(&mut a, " ");
    for (w, h) in [(80, 24), (120, 36)] {
        let s = screen(&a, w, h);
        assert!(s.contains("r0 ") && s.contains("r9 "), "{s}");
        assert!(w > 80 || s.contains("1 cell = "), "packed at 80x24: {s}");
        insta::assert_snapshot!(format!("overview_scale400_{w}x{h}"), s);
    }
    keys(&mut a, "2");
    for (w, h) in [(80, 24), (120, 36), (200, 50)] {
        let s = screen(&a, w, h);
        let legend = s
            .lines()
            .find(|l| l.contains(" jobs: ") || l.contains(" pools ("))
            .unwrap_or_else(|| panic!("{s}"));
        assert!(
            !legend.trim_end_matches('│').trim_end().ends_with('…'),
            "{legend}"
        );
    }
    keys(&mut a, "3");
    for w in [60u16, 70, 80] {
        let s = screen(&a, w, 24);
        for l in s.lines() {
            for word in l.split(|c: char| !c.is_alphanumeric()) {
                assert!(
                    !matches!(word, "runnin" | "resear" | "researc" | "queue" | "waitin"),
                    "{word} cut at {w} columns:\n{s}"
                );
            }
        }
    }
}

/// Under omo the inspector explains its symbols and says "not yet" for
/// the negative values that mean it.
#[test]
fn inspector_explains_symbols_and_not_yet() {
    let mut a = App::new(load("omo-set-a.toml", Some("omo"))).unwrap();
    for _ in 0..4 {
        a.update(Action::SpeedUp);
    }
    run_for(&mut a, 20);
    keys(&mut a, " i");
    let s = screen(&a, 120, 36);
    for want in [
        "T_m = mean map time",
        "x* = ",
        "β = ",
        "t_fair = ",
        "F_e = ",
    ] {
        assert!(s.contains(want), "{want} missing:\n{s}");
    }
    assert!(s.contains("not yet"), "{s}");
}

/// The Overview at three sizes under fair and under omo, and the inspector
/// at 120 columns spelling out "fair share".
#[test]
fn snapshot_overview_fair_and_omo_at_three_sizes() {
    let mut fair = app();
    run_for(&mut fair, 40);
    keys(&mut fair, " ");
    let mut omo = App::new(load("omo-set-a.toml", Some("omo"))).unwrap();
    for _ in 0..4 {
        omo.update(Action::SpeedUp);
    }
    run_for(&mut omo, 20);
    keys(&mut omo, " ");
    for (w, h) in [(80u16, 24u16), (120, 36), (200, 50)] {
        insta::assert_snapshot!(format!("overview_fair_{w}x{h}"), screen(&fair, w, h));
        insta::assert_snapshot!(format!("overview_omo_{w}x{h}"), screen(&omo, w, h));
    }
    keys(&mut fair, "i");
    let s = screen(&fair, 120, 36);
    assert!(s.contains("fair share"), "{s}");
    insta::assert_snapshot!("inspector_fair_share_120x36", s);
}

/// Once the run is over, the Overview at three sizes keeps the run's
/// outcome on screen: the log's last line says it is done, with its
/// makespan, mean turnaround and node locality, and the pools are listed.
#[test]
fn snapshot_end_of_run_at_three_sizes() {
    let mut a = app();
    run_to_the_end(&mut a);
    for (w, h) in [(80u16, 24u16), (120, 36), (200, 50)] {
        let s = screen(&a, w, h);
        assert!(s.contains("■ done: makespan"), "{w}x{h}:\n{s}");
        assert!(s.contains("research"), "{w}x{h}:\n{s}");
        insta::assert_snapshot!(format!("end_of_run_{w}x{h}"), s);
    }
}

/// A frame spends at most its wall-clock budget on the run: with none at
/// all it processes one instant and leaves the rest, rather than every
/// event up to the speed's target; the header then shows the speed the
/// run achieved beside the one asked for.
#[test]
fn a_frame_stops_at_its_budget_and_the_header_says_the_speed_achieved() {
    let mut a = app();
    run_for(&mut a, 30);
    let t0 = a.sim().view().now();
    a.frame_budget = Some(std::time::Duration::ZERO);
    for _ in 0..5 {
        a.update(Action::Tick(1000));
    }
    // At 20× five frames of a second would take the clock 100 s on; one
    // instant each takes it a few milliseconds.
    assert!(
        a.sim().view().now() - t0 < 5_000,
        "{} ms",
        a.sim().view().now() - t0
    );
    let label = a.speed_label();
    assert!(label.contains("(got "), "{label}");
    // With time to spare the run keeps up, and the header says so: the
    // speed kept over the last second is the one asked for.
    a.frame_budget = None;
    for _ in 0..20 {
        a.update(Action::Tick(1000));
    }
    let asked = a.speed_asked();
    assert_eq!(a.speed_label(), format!("{asked} (got {asked})"));
    // Paused, the header names the speed asked for only.
    a.update(Action::TogglePause);
    assert_eq!(a.speed_label(), asked);
}

/// The speed kept is measured over the last second of wall time, frame
/// by frame: a slow second shows at once, and is forgotten a second later.
#[test]
fn the_speed_kept_is_the_last_seconds() {
    let mut p = slotsim::tui::app::Pace::default();
    assert_eq!(p.speed(), None);
    for _ in 0..30 {
        p.push(33, 33_000);
    }
    assert_eq!(p.speed(), Some(1000.0));
    // Ten frames of 100 ms that move 1 s each: the last second is theirs.
    for _ in 0..10 {
        p.push(100, 1_000);
    }
    assert_eq!(p.speed(), Some(10.0));
    p.clear();
    assert_eq!(p.speed(), None);
}

/// `l`: the whole run's log, searched as you type; every line shown
/// contains the search, and the lines keep coming while it is open.
#[test]
fn l_searches_the_whole_log() {
    let mut a = app();
    run_for(&mut a, 120);
    let all = a.pane().log.borrow().lines.len();
    assert!(all > 5, "{all}");
    keys(&mut a, "l");
    assert!(matches!(a.overlay, Overlay::Log { .. }));
    assert_eq!(
        a.pane().log.borrow().matches.len(),
        all,
        "no search: every line"
    );
    keys(&mut a, "finished");
    let s = screen(&a, 100, 30);
    let hits = a.pane().log.borrow().matches.len();
    assert!(hits > 0 && hits < all, "{hits} of {all}");
    assert!(
        s.contains(&format!("{hits} of {all} lines match /finished")),
        "{s}"
    );
    {
        let log = a.pane().log.borrow();
        for &i in &log.matches {
            assert!(log.lines[i].1.contains("finished"), "{}", log.lines[i].1);
        }
    }
    // q is text here, not quit.
    keys(&mut a, "q");
    assert!(!a.quit);
    key(&mut a, KeyCode::Backspace);
    run_for(&mut a, 60);
    assert!(
        a.pane().log.borrow().matches.len() >= hits,
        "matches grow with the run"
    );
    key(&mut a, KeyCode::Esc);
    assert_eq!(a.overlay, Overlay::None);
}

/// `[` re-runs the scenario to an earlier time, replaying the keyboard's
/// actions from the tape, and `]` runs on: the run is the same one, to the
/// byte of its summary, as the one never rewound.
#[test]
fn seeking_back_and_forth_replays_the_same_run() {
    let session = |seek: bool| {
        let mut a = app();
        run_for(&mut a, 20);
        key(&mut a, KeyCode::Down);
        keys(&mut a, "Ky"); // a kill on the tape
        let killed_at = a.sim().view().now();
        let j = a.sel_job.unwrap();
        run_for(&mut a, 5);
        if seek {
            keys(&mut a, " "); // paused: seeking does not run on by itself
            let before = a.sim().view().now();
            keys(&mut a, "[");
            let back = a.sim().view().now();
            assert!(
                back < killed_at && back + 10_000 <= before,
                "{back} {before} {killed_at}"
            );
            assert!(!a.sim().view().job(j).killed, "before the kill");
            assert_eq!(a.sim().session_events().len(), 1, "the tape is kept");
            keys(&mut a, "]");
            keys(&mut a, "]");
            assert!(a.sim().view().now() > killed_at);
            assert!(
                a.sim().view().job(j).killed,
                "the kill replayed from the tape"
            );
            keys(&mut a, " ");
        }
        run_to_the_end(&mut a);
        serde_json::to_value(slotsim::report::summary::summarize(a.sim())).unwrap()
    };
    assert_eq!(session(true), session(false));
}

/// Live (a frame budget), a seek runs a frame's budget at a time: the
/// status line shows its progress, view keys act while it runs, what
/// would change the run waits, and Esc puts the run back exactly where it
/// was; offscreen the same seek completes within its key and starts from
/// a checkpoint, not from the start.
#[test]
fn a_live_seek_never_blocks_and_esc_puts_the_run_back() {
    let summary =
        |a: &App| serde_json::to_value(slotsim::report::summary::summarize(a.sim())).unwrap();
    let mut a = app();
    run_for(&mut a, 40);
    let (kept, spacing, bytes) = a.checkpoints.stats();
    assert!(
        kept >= 2,
        "checkpoints kept as the run goes: {kept} every {spacing} ms, {bytes} B"
    );
    keys(&mut a, " ");
    let before = a.sim().view().now();
    let untouched = summary(&a);
    // A budget of nothing: each frame of the seek processes one instant.
    a.frame_budget = Some(std::time::Duration::ZERO);
    keys(&mut a, "[");
    assert!(a.seeking(), "one frame is not enough to seek back");
    a.update(Action::Tick(33));
    let status = a.status.clone().unwrap_or_default();
    assert!(
        status.contains("seeking back to") && status.contains("esc cancels"),
        "{status}"
    );
    assert!(
        a.sim().view().now() < before,
        "the run went back to a checkpoint"
    );
    let view = a.view;
    keys(&mut a, "3");
    assert_ne!(a.view, view, "a view key acts during the seek");
    keys(&mut a, "s");
    assert_eq!(
        a.overlay,
        Overlay::None,
        "no submitting half-way through a seek"
    );
    key(&mut a, KeyCode::Esc);
    assert!(!a.seeking());
    assert_eq!(a.sim().view().now(), before);
    assert_eq!(summary(&a), untouched, "Esc restores the run exactly");
    // Again, to the end: the seek lands on its target, a step back.
    keys(&mut a, "[");
    while a.seeking() {
        a.update(Action::Tick(33));
    }
    assert!(
        a.sim().view().now() + 10_000 <= before,
        "{} {before}",
        a.sim().view().now()
    );
    assert!(
        a.status.as_deref().unwrap_or("").starts_with("at "),
        "{:?}",
        a.status
    );
    // However the session ends (a signal, a closed terminal), a seek
    // under way is cancelled first: the outputs are the session's run.
    let here = a.sim().view().now();
    keys(&mut a, "[");
    assert!(a.seeking());
    a.settle();
    assert!(!a.seeking());
    assert_eq!(a.sim().view().now(), here);
    // `q` during a seek quits with the session's run, not the half-way one.
    keys(&mut a, "]]");
    while a.seeking() {
        a.update(Action::Tick(33));
    }
    let furthest = a.sim().view().now();
    assert!(furthest > before, "two steps forward: {furthest} {before}");
    keys(&mut a, "[");
    keys(&mut a, "q");
    assert!(a.quit && !a.seeking());
    assert_eq!(a.sim().view().now(), furthest);
}

/// Under a policy in another process (which cannot be copied) a seek
/// back replays the run from its start, and lands on the same run.
#[test]
fn a_seek_back_under_an_external_policy_replays_from_the_start() {
    let fifo_py = "external:python3 clients/python/examples/fifo.py";
    let session = |seek: bool| {
        let mut a = App::new(load("quickstart.toml", Some(fifo_py))).unwrap();
        run_for(&mut a, 20);
        if seek {
            keys(&mut a, " [");
            assert!(!a.checkpoints.possible);
            keys(&mut a, "] ");
        }
        run_to_the_end(&mut a);
        serde_json::to_value(slotsim::report::summary::summarize(a.sim())).unwrap()
    };
    assert_eq!(session(true), session(false));
}

/// The picker's `external` with no command to run (none on the command
/// line, none in the scenario) switches nothing and says what it needs:
/// a session written after it must load.
#[test]
fn the_picker_refuses_an_external_policy_without_a_command() {
    let mut a = app();
    run_for(&mut a, 5);
    keys(&mut a, "p");
    let names: Vec<&str> = slotsim::sched::registry::for_capacity(a.sim().view().capacity())
        .iter()
        .map(|e| e.name)
        .collect();
    let at = names.iter().position(|n| *n == "external").expect("listed");
    a.overlay = Overlay::Picker { selected: at };
    key(&mut a, KeyCode::Enter);
    assert!(a.sim().session_events().is_empty(), "no switch on the tape");
    let status = a.status.clone().unwrap_or_default();
    assert!(status.contains("external needs its command"), "{status}");
}

/// A job submitted from the keyboard and selected, then a seek back to
/// before its submission: it is no longer selected, and the job keys say
/// so instead of acting on a job that is not there.
#[test]
fn seeking_back_past_a_selected_submission_drops_the_selection() {
    let mut a = app();
    run_for(&mut a, 30);
    keys(&mut a, "s");
    key(&mut a, KeyCode::Enter);
    let j = (a.sim().view().jobs().len() - 1) as u32;
    a.update(Action::SelectJob(j));
    assert_eq!(a.sel_job, Some(j));
    keys(&mut a, "[");
    assert!(a.sim().view().jobs().len() <= j as usize || !a.sim().view().job(j).arrived);
    assert_eq!(a.sel_job, None);
    keys(&mut a, "><mK");
    assert_eq!(a.overlay, Overlay::None);
    assert!(
        a.status.as_deref().unwrap_or("").contains("select a job"),
        "{:?}",
        a.status
    );
}

// ------------------------------------------------------ external policies

#[test]
fn inspector_shows_an_external_policys_values() {
    let fifo_py = "external:python3 clients/python/examples/fifo.py";
    let mut a = App::new(load("quickstart.toml", Some(fifo_py))).unwrap();
    run_for(&mut a, 10);
    keys(&mut a, "i");
    let recs = a.inspections();
    let last = recs.last().expect("inspected heartbeats");
    assert_eq!(last.policy, fifo_py);
    assert!(last.inspection.cluster.contains_key("map_load_factor"));
    assert!(last
        .inspection
        .jobs
        .values()
        .all(|v| v.contains_key("pending_maps") && v.contains_key("order")));
    let s = screen(&a, 120, 36);
    assert!(s.contains("map_load_factor"), "{s}");
    assert!(s.contains("pending maps"), "{s}");
}

#[test]
fn a_failing_external_policy_pauses_the_session_and_says_why() {
    // `false` exits at once, before any reply.
    let mut a = App::new(load("quickstart.toml", Some("external:false"))).unwrap();
    run_for(&mut a, 3);
    let why = a.sim().halted().expect("the run stopped").to_string();
    assert!(
        why.starts_with("policy \"false\": message ") && why.contains("exited with status 1"),
        "{why}"
    );
    assert!(a.paused);
    let t = a.sim().view().now();
    run_for(&mut a, 2);
    keys(&mut a, " .");
    assert_eq!(a.sim().view().now(), t, "nothing moves after the fault");
    let s = screen(&a, 100, 30);
    assert!(s.contains("stopped: policy \"false\""), "{s}");
}

#[test]
fn an_external_policys_stderr_goes_to_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("talky.py");
    let lib = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("clients/python");
    std::fs::write(
        &script,
        format!(
            "import sys\nsys.path.insert(0, {lib:?})\nimport slotsim_policy as sp\n\nclass Talky(sp.Policy):\n    def heartbeat(self, node, free, running):\n        print('thinking about node', node.id)\n        for job in self.queue():\n            while free.map and job.pending_maps:\n                self.launch(job, sp.MAP)\n            while free.reduce and job.pending_reduces and job.reduces_schedulable(self.slowstart):\n                self.launch(job, sp.REDUCE)\n\nsp.run(Talky())\n",
            lib = lib.display().to_string()
        ),
    )
    .unwrap();
    // As the TUI's command sets it: the process's stderr is kept.
    slotsim::sched::external::keep_stderr(true);
    let spec = format!("external:python3 {}", script.display());
    let mut a = App::new(load("quickstart.toml", Some(&spec))).unwrap();
    // The process's stderr is read by a thread of its own, so its lines
    // reach the log at a later heartbeat than they were written: how much
    // later depends on the machine's load. Run on (in wall time too) until
    // they show, for up to 20 s.
    let said = |a: &App| {
        a.log_lines(400)
            .iter()
            .any(|(_, l)| l.starts_with("policy: thinking about node "))
    };
    run_for(&mut a, 5);
    for _ in 0..200 {
        if said(&a) || a.sim().is_finished() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
        run_for(&mut a, 1);
    }
    assert!(a.sim().halted().is_none(), "{:?}", a.sim().halted());
    assert!(said(&a), "{:?}", a.log_lines(400));
}

// ------------------------------------------------------------------ YARN

/// A YARN scenario run `secs` seconds, then paused.
fn yarn_app(name: &str, secs: u64) -> App {
    let mut a = App::new(load(name, None)).unwrap();
    run_for(&mut a, secs);
    keys(&mut a, " ");
    a
}

/// The Pools, Overview and Cluster views of a YARN run as YARN sees it:
/// yarn-quickstart (yarn-fair, memory fair shares) at 8 s, its two AMs
/// up and node 0 reserved for `wc`; drf.toml (yarn-fair with DRF) once its
/// five heartbeats have run, A and B both at a dominant share of 2/3.
#[test]
fn snapshot_yarn_views() {
    for (scenario, stem, secs) in [
        ("yarn-quickstart.toml", "yarn_quickstart", 8),
        ("drf.toml", "drf", 6),
    ] {
        let mut a = yarn_app(scenario, secs);
        for (view, key) in [("pools", "4"), ("overview", "1"), ("cluster", "2")] {
            keys(&mut a, key);
            snap_all(&format!("{stem}_{view}"), &mut a);
        }
    }
}

/// What the YARN views say, at both sizes: memory and vcores against each
/// queue's share, AMs, the reservation and (under drf) dominant shares.
#[test]
fn yarn_views_show_memory_vcores_ams_and_dominant_shares() {
    let mut a = yarn_app("yarn-quickstart.toml", 8);
    for (w, h) in [(80, 24), (120, 36)] {
        keys(&mut a, "4");
        let pools = screen(&a, w, h);
        assert!(pools.contains("against each queue's fair share"), "{pools}");
        for q in ["research", "default"] {
            let row = pools.lines().find(|l| l.contains(q)).unwrap();
            assert!(row.contains(" GB ") && row.contains("(2.0 GB)"), "{row}");
        }
        assert!(
            pools.contains("R reserved: node 0 for wc (queue default, a map of 1.0 GB, 1 vcore)"),
            "{pools}"
        );
        keys(&mut a, "2");
        let cluster = screen(&a, w, h);
        // Node 0: two 2 GB AMs, four 1 GB maps; reserved.
        assert!(cluster.contains("0R◆◆◆◆████│◆◆████··"), "{cluster}");
        assert!(cluster.contains("8.0/8.0 GB, 6/8 vcores"), "{cluster}");
        assert!(cluster.contains("reserved for wc"), "{cluster}");
        keys(&mut a, "3");
        let jobs = screen(&a, w, h);
        assert!(
            jobs.contains("fair sh") && jobs.contains("107 GB"),
            "{jobs}"
        );
    }
    let mut d = yarn_app("drf.toml", 6);
    for (w, h) in [(80, 24), (120, 36)] {
        keys(&mut d, "1");
        let over = screen(&d, w, h);
        // B holds 2 GB of 18 but 6 of 9 vcores: as large as A.
        // The queue's row in the Queues panel (a segment between borders).
        let bar = |q: &str| {
            let row = over
                .lines()
                .flat_map(|l| l.split('│'))
                .find(|seg| seg.starts_with(&format!("{q} ")) && seg.contains("% · "))
                .unwrap_or_else(|| panic!("{over}"));
            let cells = row.chars().filter(|&c| c == '█').count();
            (cells, row.to_string())
        };
        let ((a_cells, a_row), (b_cells, b_row)) = (bar("A"), bar("B"));
        assert_eq!(a_cells, b_cells, "{a_row}\n{b_row}");
        assert!(b_row.contains("67% ·  2.0 GB · 6 vc"), "{b_row}");
        keys(&mut d, "4");
        let pools = screen(&d, w, h);
        assert!(pools.contains("3/5") && pools.contains("6/5"), "{pools}");
        keys(&mut d, "3");
        let jobs = screen(&d, w, h);
        assert!(jobs.contains("dom sh") && jobs.contains("67%"), "{jobs}");
    }
}

/// DRF's worked example with tasks to spare: at the sixth heartbeat B,
/// at the same dominant share as A and out of CPU, reserves the node.
fn drf_reserving() -> App {
    let text = std::fs::read_to_string(scenario_path("drf.toml"))
        .unwrap()
        .replace("maps = 3\n", "maps = 20\n")
        .replace("maps = 2\n", "maps = 20\n")
        + "[[events]]\nat = \"6s\"\naction = \"heartbeat\"\nnode = 0\n\n[[events]]\nat = \"7s\"\naction = \"heartbeat\"\nnode = 0\n";
    let mut a = App::new(load_text(&text, None)).unwrap();
    run_for(&mut a, 8);
    keys(&mut a, " ");
    a
}

/// The inspector names the application holding each reserved node (the
/// seventh heartbeat finds the node reserved for B), as the policy's
/// inspection lists it; the Cluster view marks the node and the Pools view
/// counts it against B's queue.
#[test]
fn inspector_names_the_application_holding_a_reservation() {
    use slotsim::sched::yarn::show::{reservations, Reservation};
    use slotsim::sched::yarn::Ask;
    let mut a = drf_reserving();
    let held = reservations(&a.sim().policy().inspect(a.sim().view(), 0));
    let want = Reservation {
        node: 0,
        app: "B".into(),
        queue: "B".into(),
        ask: Ask::Map,
        container: slotsim::model::Resource::memory(1024, 3),
    };
    assert_eq!(held, [want]);
    keys(&mut a, "i");
    for (w, h) in [(80, 24), (120, 36)] {
        let s = screen(&a, w, h);
        assert!(s.contains("heartbeat 7/7"), "{s}");
        assert!(s.contains("reserved_nodes = 1"), "{s}");
        assert!(
            s.contains("reserved node 0 for B (queue B, a map of 1.0 GB, 3 vcores)"),
            "{s}"
        );
    }
    key(&mut a, KeyCode::Esc);
    keys(&mut a, "2");
    let s = screen(&a, 80, 24);
    assert!(s.contains("0R█"), "{s}");
    assert!(s.contains("1 node reserved"), "{s}");
    keys(&mut a, "4");
    let s = screen(&a, 80, 24);
    let b = s.lines().filter(|l| l.starts_with("│B ")).nth(1).unwrap();
    assert!(b.contains("1 node"), "{s}");
}

/// The inspector's AM count (`am_containers`) agrees with its
/// applications' AM states at every second of yarn-quickstart, AMs
/// waiting, starting, running and lingering after their jobs; under
/// drf.toml's AMs sized 0 no application says its AM runs.
#[test]
fn inspector_am_count_agrees_with_the_applications_am_states() {
    use slotsim::sim::policy::Value;
    let holding = |i: &slotsim::sim::policy::Inspection| {
        i.jobs
            .values()
            .filter(|v| {
                matches!(v.get("am"), Some(Value::Text(s)) if ["starting", "running", "exiting"].contains(&s.as_str()))
            })
            .count() as i64
    };
    let mut a = App::new(load("yarn-quickstart.toml", None)).unwrap();
    keys(&mut a, "+");
    let mut seen = std::collections::BTreeSet::new();
    while !a.sim().is_finished() {
        run_for(&mut a, 1);
        let i = a.sim().policy().inspect(a.sim().view(), 0);
        let count = slotsim::sched::yarn::show::am_containers(&i).unwrap();
        assert_eq!(count, a.sim().view().running_ams() as i64);
        assert_eq!(holding(&i), count, "at {}", a.sim().view().now());
        for v in i.jobs.values() {
            if let Some(Value::Text(s)) = v.get("am") {
                seen.insert(s.clone());
            }
        }
        assert!(a.sim().view().now() < 3_600_000, "the run ends");
    }
    for state in ["waiting", "starting", "running", "exiting"] {
        assert!(seen.contains(state), "{state}: {seen:?}");
    }
    let d = yarn_app("drf.toml", 6);
    let i = d.sim().policy().inspect(d.sim().view(), 0);
    assert_eq!(slotsim::sched::yarn::show::am_containers(&i), Some(0));
    assert_eq!(holding(&i), 0);
    assert!(i
        .jobs
        .values()
        .all(|v| v.get("am") == Some(&Value::Text("none".into()))));
}

// ------------------------------------------------- small clusters, no colour

/// Two pools share eight nodes in two racks: a fixed batch and a job
/// every ten seconds.
const SMALL: &str = r#"
name = "small"
description = "Two pools share an 8-node cluster"
seed = 3
[cluster]
nodes = 8
racks = 2
map_slots = 2
reduce_slots = 2
heartbeat = "3s"
[scheduler]
policy = "fair"
[[pools]]
name = "research"
weight = 2.0
[[pools]]
name = "default"
[[jobs]]
name = "sort-big"
profile = "terasort"
input = "2GB"
pool = "research"
submit = "0s"
[[jobs]]
name = "wc"
profile = "wordcount"
input = "1GB"
pool = "default"
submit = "5s"
[[jobs]]
name = "grep"
profile = "grep"
input = "512MB"
pool = "default"
submit = "10s"
[[jobs]]
name = "small"
profile = "wordcount"
input = "256MB"
pool = "research"
count = 8
every = "10s"
submit = "15s"
"#;

/// Rows with nothing on them but borders.
fn blank_rows(s: &str) -> usize {
    s.lines()
        .filter(|l| l.chars().all(|c| " │┌┐└┘─".contains(c)))
        .count()
}

/// A small cluster's Overview and Cluster view are as tall as what they
/// hold (the log takes the rest): at most a quarter of the screen's rows
/// blank at 120×36 and 80×24, and the pools panel says its numbers are
/// running/share.
#[test]
fn snapshot_a_small_cluster_leaves_no_screen_empty() {
    let mut a = App::new(load_text(SMALL, None)).unwrap();
    // Ninety seconds in: nine jobs have come and gone, twenty log lines.
    run_for(&mut a, 90);
    for (view, name) in [(View::Overview, "overview"), (View::Cluster, "cluster")] {
        goto(&mut a, view);
        for (w, h) in [(80u16, 24u16), (120, 36)] {
            let s = screen(&a, w, h);
            let blank = blank_rows(&s);
            assert!(blank * 4 <= h as usize, "{blank} of {h} rows blank:\n{s}");
            if view == View::Overview {
                let pools = s.lines().find(|l| l.contains("┌ Pools")).unwrap();
                assert!(pools.contains("running/share"), "{pools}");
            }
            insta::assert_snapshot!(format!("small_{name}_{w}x{h}"), s);
        }
    }
    // The log takes what the panels leave (it had 7 rows at 120×36).
    goto(&mut a, View::Overview);
    let s = screen(&a, 120, 36);
    let log = s.lines().position(|l| l.starts_with(" log ")).unwrap();
    assert!(log <= 18, "{s}");
}

/// With no colours (NO_COLOR) every job on screen has a letter of its own
/// in the slots and the legend, and each running job's letter is in its
/// slots.
#[test]
fn snapshot_no_color_tells_every_job_apart() {
    let mut a = App::new(load_text(SMALL, None)).unwrap();
    a.mono = true;
    run_for(&mut a, 40);
    goto(&mut a, View::Cluster);
    let s = screen(&a, 80, 24);
    let legend = s
        .lines()
        .find_map(|l| l.strip_prefix("│ jobs: "))
        .unwrap()
        .trim_end_matches([' ', '│']);
    let items: Vec<&str> = legend.split(' ').collect();
    let pairs: Vec<(char, &str)> = items
        .chunks(2)
        .map(|p| (p[0].chars().next().unwrap(), p[1]))
        .collect();
    let running: Vec<&str> = a
        .sim()
        .view()
        .jobs()
        .iter()
        .filter(|j| j.maps_running + j.reduces_running > 0)
        .map(|j| &*j.name)
        .collect();
    assert!(running.len() >= 3, "{running:?}");
    let racks: String = s
        .lines()
        .filter(|l| l.starts_with("│ r") && !l.contains('░'))
        .collect();
    for name in &running {
        let (letter, _) = pairs
            .iter()
            .find(|p| p.1 == *name)
            .unwrap_or_else(|| panic!("{name} not in the legend {legend}"));
        let others = pairs.iter().filter(|p| p.0 == *letter).count();
        assert_eq!(others, 1, "{letter} names one job: {legend}");
        assert!(
            racks.contains(*letter) || racks.contains(letter.to_ascii_lowercase()),
            "{name}'s {letter} in the slots:\n{s}"
        );
    }
    insta::assert_snapshot!("no_color_cluster_80x24", s);
    goto(&mut a, View::Timeline);
    let s = screen(&a, 80, 24);
    assert!(s.contains(" jobs: A sort-big B wc C grep"), "{s}");
    insta::assert_snapshot!("no_color_timeline_80x24", s);
    goto(&mut a, View::Overview);
    let s = screen(&a, 80, 24);
    assert!(s.contains("│A sort-big"), "{s}");
    insta::assert_snapshot!("no_color_overview_80x24", s);
}

/// In the inspector `+`/`-` change the speed and `?` opens the help,
/// whose esc comes back to the inspector as it was.
#[test]
fn inspector_takes_speed_keys_and_its_help_returns_to_it() {
    let mut a = busy_app();
    keys(&mut a, "i");
    key(&mut a, KeyCode::Down);
    let inspector = a.overlay.clone();
    assert!(matches!(inspector, Overlay::Inspector { .. }));
    let speed = a.speed;
    keys(&mut a, "+");
    assert_eq!(a.speed, speed + 1);
    keys(&mut a, "--");
    assert_eq!(a.speed, speed - 1);
    keys(&mut a, "?");
    assert_eq!(a.overlay, Overlay::Help);
    key(&mut a, KeyCode::Esc);
    assert_eq!(a.overlay, inspector);
    key(&mut a, KeyCode::Esc);
    assert_eq!(a.overlay, Overlay::None);
    // From the main screen the help closes to it.
    keys(&mut a, "?");
    key(&mut a, KeyCode::Esc);
    assert_eq!(a.overlay, Overlay::None);
}

/// The summary printed when a session quits: at most 80 columns, and a
/// run stopped early says it is partial.
#[test]
fn the_quit_summary_fits_80_columns_and_says_partial() {
    let sc = load("quickstart.toml", None);
    let mut sim = slotsim::runs::build_sim(&sc).unwrap();
    sim.run_until(Some(60_000));
    let mut sum = slotsim::report::summary::summarize(&sim);
    sum.partial = true;
    sum.stopped_at_s = Some(60.0);
    let t = slotsim::report::summary::table(&sum);
    assert_eq!(
        t.lines().nth(1),
        Some("partial: stopped at 60.0s simulated, before every job had ended")
    );
    for l in t.lines() {
        assert!(l.chars().count() <= 80, "{} wide: {l}", l.chars().count());
    }
    // Whole runs say nothing of it.
    let (_, whole) = run(&sc);
    assert!(!slotsim::report::summary::table(&whole).contains("partial"));
}

/// A killed job's state and a sorted column's header are never cut.
#[test]
fn jobs_view_states_and_sorted_headers_are_whole() {
    let mut a = busy_app();
    goto(&mut a, View::Jobs);
    key(&mut a, KeyCode::Down);
    keys(&mut a, "Ky");
    let j = a.sel_job.unwrap();
    assert!(a.sim().view().job(j).killed);
    let w = &a.sim().view();
    let state = format!(
        "killed {}",
        slotsim::tui::app::dur(w.job(j).finished_at.unwrap() - w.job(j).submit)
    );
    for (wd, h) in [(80u16, 24u16), (120, 36)] {
        let s = screen(&a, wd, h);
        let name = &a.sim().view().job(j).name;
        let row = s.lines().find(|l| l.contains(&**name)).unwrap();
        // Whole, or the word alone where its time does not fit.
        assert!(
            row.contains(&format!("{state} ")) || row.contains("killed     "),
            "{state}:\n{s}"
        );
        if wd >= 120 {
            assert!(row.contains(&format!("{state} ")), "{state}:\n{s}");
        }
        // Sorted by each column in turn: its header whole, with its mark.
        let mut b = busy_app();
        goto(&mut b, View::Jobs);
        for _ in 0..12 {
            keys(&mut b, "o");
            let s = screen(&b, wd, h);
            let head = s.lines().nth(2).unwrap();
            for name in [
                "maps d/r/p",
                "reds d/r/p",
                "progress",
                "submitted",
                "state",
                "pool",
            ] {
                if head.contains(&name[..3]) {
                    assert!(head.contains(name), "{name} cut: {head}");
                }
            }
        }
    }
}

/// Under a policy that does not use OMO's predictor the release-rate
/// chart says it only watches.
#[test]
fn the_release_chart_is_titled_for_the_policy_on_screen() {
    let mut a = App::new(load("adaptive-fair.toml", None)).unwrap();
    run_for(&mut a, 60);
    keys(&mut a, "i");
    let s = screen(&a, 160, 40);
    assert!(
        s.contains("(OMO's predictor, watching adaptive-fair)"),
        "{s}"
    );
    assert!(!s.contains("OMO Fig. 7"), "{s}");
    let mut a = App::new(load("omo-set-a.toml", Some("omo"))).unwrap();
    run_for(&mut a, 60);
    keys(&mut a, "i");
    assert!(screen(&a, 160, 40).contains("(OMO Fig. 7)"));
}

/// On a full node the inspector stays on the node's last heartbeat that
/// asked for work, and says why.
#[test]
fn inspector_on_a_full_node_says_why_it_stays() {
    let text = r#"
[cluster]
nodes = 1
racks = 1
slot_model = "unified"
map_slots = 1
reduce_slots = 1
heartbeat = "3s"
[scheduler]
policy = "fifo"
[[jobs]]
name = "long"
profile = "wordcount"
maps = 4
reduces = 0
map_time = "60s"
"#;
    let mut a = App::new(load_text(text, None)).unwrap();
    run_for(&mut a, 20);
    let n = &a.sim().view().cluster().nodes[0];
    assert!(n.lanes.iter().all(Option::is_some), "the node is full");
    keys(&mut a, "i");
    let s = screen(&a, 120, 36);
    assert!(
        s.contains("node 0 has no room now, so its heartbeats ask the policy for nothing"),
        "{s}"
    );
}

/// A scenario's `[[notes]]` show in the log's last line while they hold,
/// and not before or after.
#[test]
fn a_note_shows_while_it_holds() {
    let text = std::fs::read_to_string(scenario_path("quickstart.toml")).unwrap()
        + "\n[[notes]]\nat = \"2s\"\nuntil = \"6s\"\ntext = \"watch the small jobs\"\n";
    let mut a = App::new(common::load_text(&text, None)).unwrap();
    assert!(!screen(&a, 100, 30).contains("watch the small jobs"));
    run_for(&mut a, 3);
    let s = screen(&a, 100, 30);
    assert!(s.contains(" note  watch the small jobs"), "{s}");
    run_for(&mut a, 4);
    assert!(!screen(&a, 100, 30).contains("watch the small jobs"));
}

/// On YARN the Timeline gives each node a lane of its ApplicationMasters
/// (◆, in the legend), its container lanes read `c`, and the Pools view
/// is the Queues view, its jobs in queues.
#[test]
fn yarn_in_yarns_words_queues_containers_and_ams_on_the_timeline() {
    let mut a = App::new(load("yarn-quickstart.toml", None)).unwrap();
    run_for(&mut a, 10);
    goto(&mut a, View::Timeline);
    let s = screen(&a, 120, 36);
    assert!(s.contains("◆ AM"), "{s}");
    assert!(s.contains("n0   am  ◆"), "{s}");
    assert!(s.contains("n0   c0 "), "{s}");
    assert!(!s.contains("n0   m0 "), "{s}");
    assert_eq!(a.view_name(View::Pools), "Queues");
    assert!(s.contains("queue research)"), "{s}");
    // MRv1 keeps its words.
    let mut m = app();
    run_for(&mut m, 10);
    goto(&mut m, View::Timeline);
    let s = screen(&m, 120, 36);
    assert!(s.contains("n0   m0 ") && !s.contains(" am "), "{s}");
    assert_eq!(m.view_name(View::Pools), "Pools");
    assert!(s.contains("pool research)"), "{s}");
}

/// The first screen: one second into a run, rows the log does not fill
/// yet show the submissions to come and what the scenario is. Every
/// shipped scenario's figure (rows holding more than blanks and borders,
/// of 36 at 120×36) is printed (`--nocapture`; docs/tui.md gives them);
/// the two quickstarts, the first screens most people see, use at least
/// two thirds of their rows.
#[test]
fn the_first_screen_uses_its_rows() {
    let mut report = Vec::new();
    for dir in ["scenarios", "scenarios/lessons"] {
        let mut files: Vec<_> = std::fs::read_dir(scenario_path("").join("..").join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            .collect();
        files.sort();
        for p in files {
            let sc = slotsim::scenario::load_file(&p, None, None).unwrap();
            let Ok(mut a) = App::new(sc) else { continue };
            run_for(&mut a, 1);
            let s = screen(&a, 120, 36);
            let used = s
                .lines()
                .filter(|l| l.chars().any(|c| !" │─┌┐└┘├┤┬┴┼╭╮╰╯".contains(c)))
                .count();
            let name = format!("{dir}/{}", p.file_name().unwrap().to_string_lossy());
            if name.ends_with("/quickstart.toml") || name.ends_with("/yarn-quickstart.toml") {
                assert!(used * 3 >= 36 * 2, "{name} uses {used} of 36 rows:\n{s}");
                assert!(s.contains(" to come: "), "{s}");
            }
            report.push(format!("{name}: {used}/36"));
        }
    }
    eprintln!("{}", report.join("\n"));
}

/// The Jobs view shows a `prio` column once some job's priority is not
/// normal.
#[test]
fn the_jobs_view_shows_priority_once_one_differs() {
    let mut a = app();
    run_for(&mut a, 5);
    goto(&mut a, View::Jobs);
    assert!(!screen(&a, 160, 36).contains(" prio "));
    key(&mut a, KeyCode::Down);
    keys(&mut a, ">");
    run_for(&mut a, 1);
    let s = screen(&a, 160, 36);
    assert!(s.contains(" prio "), "{s}");
    assert!(s.contains(" high ") && s.contains(" normal "), "{s}");
}

/// The Overview's sparkline labels keep a blank between their number and
/// their bars.
#[test]
fn sparkline_numbers_do_not_touch_their_bars() {
    let mut a = app();
    run_for(&mut a, 30);
    let s = screen(&a, 120, 36);
    for label in ["│busy ", "│queue "] {
        let line = s.lines().find(|l| l.contains(label)).unwrap();
        let rest = &line[line.find(label).unwrap() + label.len()..];
        let num_end = rest
            .char_indices()
            .find(|&(i, c)| i > 0 && !(c.is_ascii_digit() || c == '%' || c == ' '))
            .map(|(i, _)| i)
            .unwrap();
        assert!(rest[..num_end].ends_with(' '), "{line}");
    }
}

//! A soak of the TUI on ratatui's TestBackend: random keys (every binding
//! of the key table and random text), mouse clicks and wheel turns, wall-
//! clock ticks and terminal resizes against running simulations. Nothing
//! may panic, every frame must draw, and memory must stay bounded: the
//! TUI's own histories are rings or are thinned as the run grows, so what
//! remains is the simulation's, which grows with the tasks submitted.
//!
//! CI runs a short soak; the long one is a command:
//!
//!   SLOTSIM_SOAK_EVENTS=200000 cargo test --release --test it soak:: -- --nocapture

use crate::common;
use common::*;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use slotsim::tui::app::Action;
use slotsim::tui::{keymap, views, App};

fn events() -> u64 {
    std::env::var("SLOTSIM_SOAK_EVENTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000)
}

/// Resident memory in MB (Linux), or 0 where it cannot be read.
fn rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<f64>().ok())
        .map_or(0.0, |pages| pages * 4096.0 / (1024.0 * 1024.0))
}

const SCENARIOS: [&str; 5] = [
    "quickstart.toml",
    "omo-set-a.toml",
    "joss-small.toml",
    "dynamicmr-batch.toml",
    "yarn-quickstart.toml",
];

fn random_key(rng: &mut ChaCha8Rng) -> KeyEvent {
    let code = match rng.random_range(0..10) {
        // A binding of the key table (most of what a user presses).
        0..=5 => {
            let k = keymap::KEYS;
            k[rng.random_range(0..k.len())].1
        }
        6 => KeyCode::Char(rng.random_range(b' '..=b'~') as char),
        7 => [KeyCode::Up, KeyCode::Down, KeyCode::Left, KeyCode::Right][rng.random_range(0..4)],
        8 => [
            KeyCode::Enter,
            KeyCode::Esc,
            KeyCode::Backspace,
            KeyCode::Tab,
        ][rng.random_range(0..4)],
        _ => KeyCode::Char(char::from_digit(rng.random_range(0..10), 10).unwrap()),
    };
    let mods = if rng.random_range(0..50) == 0 {
        KeyModifiers::CONTROL
    } else {
        KeyModifiers::NONE
    };
    KeyEvent::new(code, mods)
}

#[test]
fn random_keys_mouse_and_resizes_against_running_simulations() {
    let n = events();
    let mut rng = ChaCha8Rng::seed_from_u64(0x50a6);
    // Each scenario runs from a copy in a scratch directory, where `W`
    // writes its sessions (none of the four names a file of its own).
    let dir = tempfile::tempdir().unwrap();
    let new_app = |k: usize| {
        let name = SCENARIOS[k % SCENARIOS.len()];
        let src = dir.path().join(name);
        if !src.exists() {
            std::fs::copy(scenario_path(name), &src).unwrap();
        }
        let mut a = App::new(slotsim::scenario::load_file(&src, None, None).unwrap()).unwrap();
        a.source = Some(src);
        a.session_dir = dir.path().to_path_buf();
        a
    };
    let mut sessions = 1usize;
    let mut app = new_app(0);
    let (mut w, mut h) = (120u16, 36u16);
    let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
    let (mut keys, mut clicks, mut resizes, mut frames) = (0u64, 0u64, 0u64, 0u64);
    let mut rss_warm = 0.0;
    let mut rss_peak: f64 = 0.0;
    for i in 0..n {
        match rng.random_range(0..100) {
            0..=69 => {
                let k = random_key(&mut rng);
                // Quitting ends the session: start the next scenario, but
                // rarely, so sessions last long enough to grow.
                let quits = matches!(k.code, KeyCode::Char('q'))
                    || (k.modifiers.contains(KeyModifiers::CONTROL)
                        && k.code == KeyCode::Char('c'));
                if quits && rng.random_range(0..20) != 0 {
                    continue;
                }
                if let Some(a) = keymap::action_for(&app.overlay, k) {
                    app.update(a);
                }
                keys += 1;
            }
            70..=79 => {
                let kind = match rng.random_range(0..4) {
                    0 => MouseEventKind::ScrollUp,
                    1 => MouseEventKind::ScrollDown,
                    _ => MouseEventKind::Down(MouseButton::Left),
                };
                let ev = MouseEvent {
                    kind,
                    column: rng.random_range(0..w),
                    row: rng.random_range(0..h),
                    modifiers: KeyModifiers::NONE,
                };
                if let Some(a) = keymap::action_for_mouse(&app, ev) {
                    app.update(a);
                }
                clicks += 1;
            }
            80..=84 => {
                w = rng.random_range(20..=220);
                h = rng.random_range(6..=60);
                term.backend_mut().resize(w, h);
                term.resize(ratatui::layout::Rect::new(0, 0, w, h)).unwrap();
                resizes += 1;
            }
            _ => app.update(Action::Tick(rng.random_range(0..3_000))),
        }
        if app.quit {
            app = new_app(sessions);
            sessions += 1;
        }
        // Draw most steps, as the live loop does after each input.
        if i % 3 == 0 {
            term.draw(|f| views::render(&app, f)).unwrap();
            frames += 1;
        }
        if i == n / 10 {
            rss_warm = rss_mb();
        }
        if i % 1000 == 0 {
            rss_peak = rss_peak.max(rss_mb());
        }
    }
    rss_peak = rss_peak.max(rss_mb());
    // Every session `W` wrote is a scenario that loads.
    let mut saved = 0;
    for f in std::fs::read_dir(dir.path()).unwrap() {
        let p = f.unwrap().path();
        if p.to_string_lossy().contains("-session-") {
            slotsim::scenario::load_file(&p, None, None)
                .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            saved += 1;
        }
    }
    println!("soak: {saved} sessions saved by W, each a scenario that loads");
    println!(
        "soak: {n} events ({keys} keys, {clicks} mouse, {resizes} resizes), {frames} frames, {sessions} sessions; resident {rss_warm:.0} MB after a tenth, {rss_peak:.0} MB at the peak"
    );
    // The TUI keeps no history that grows without bound: whatever it holds
    // beyond its simulations is small. (A generous bound: a leak of a frame
    // per event would pass it many times over in the long soak.)
    if rss_warm > 0.0 {
        assert!(
            rss_peak < rss_warm + 400.0,
            "resident memory grew from {rss_warm:.0} MB to {rss_peak:.0} MB"
        );
    }
}

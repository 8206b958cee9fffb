//! How fast runs side by side go at `max`, with no terminal: the `App`
//! driven through its actions in 33 ms frames (the TUI's 22 ms budget),
//! for a number of wall-clock seconds, once with the scenario alone and
//! once with it under each of several policies side by side. Prints the
//! simulated seconds per wall second of each (docs/performance.md, "Side
//! by side").
//!
//!   cargo run --release --example side_pace -- SCENARIO WALL_SECONDS POLICY [POLICY...]
use slotsim::tui::app::{Action, App};
use std::time::{Duration, Instant};

fn pace(mut app: App, wall: Duration) -> f64 {
    app.frame_budget = Some(Duration::from_millis(22));
    for _ in 0..20 {
        app.update(Action::SpeedUp);
    }
    let t0 = Instant::now();
    let start = app.sim().view().now();
    while t0.elapsed() < wall && !app.all_finished() {
        app.update(Action::Tick(33));
    }
    let sim = app
        .panes()
        .iter()
        .map(|p| p.sim.view().now())
        .min()
        .unwrap_or(0);
    (sim - start) as f64 / 1000.0 / t0.elapsed().as_secs_f64()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(path), Some(wall)) = (args.get(1), args.get(2).and_then(|s| s.parse::<u64>().ok()))
    else {
        eprintln!("usage: side_pace SCENARIO WALL_SECONDS POLICY [POLICY...]");
        std::process::exit(2);
    };
    let specs = &args[3..];
    if specs.len() < 2 {
        eprintln!("usage: side_pace SCENARIO WALL_SECONDS POLICY POLICY [POLICY...]");
        std::process::exit(2);
    }
    let load = |spec: &str, k: usize| {
        let mut sc = slotsim::scenario::load_file(std::path::Path::new(path), Some(spec), None)
            .unwrap_or_else(|e| {
                eprintln!("error: {e}");
                std::process::exit(2)
            });
        slotsim::scenario::side_run(&mut sc, k, specs.len()).expect("no run = N past the runs");
        sc
    };
    let wall = Duration::from_secs(wall);
    let one = pace(App::new(load(&specs[0], 0)).expect("runs"), wall);
    let scs = specs.iter().enumerate().map(|(k, s)| load(s, k)).collect();
    let side = pace(App::side_by_side(scs).expect("runs"), wall);
    println!(
        "{path}: {} alone {one:.1} simulated s per s; {} side by side {side:.1} ({:.2}x)",
        specs[0],
        specs.join(","),
        side / one
    );
}

//! What seeking back costs on a big run, with no terminal: the `App` is
//! driven through its actions, frames of 33 ms at `max`, to a simulated
//! time, then one seek back (`[`). Prints the worst frames, the
//! checkpoints kept, what a checkpoint costs to copy and to free, and
//! the seek's frames (docs/performance.md, "Seeking back").
//!
//!   cargo run --release --example seek_time -- SCENARIO SECONDS
use slotsim::tui::app::{Action, App};
use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(path), Some(until)) = (args.get(1), args.get(2).and_then(|s| s.parse::<u64>().ok()))
    else {
        eprintln!("usage: seek_time SCENARIO SECONDS");
        std::process::exit(2);
    };
    let sc = match slotsim::scenario::load_file(std::path::Path::new(path), None, None) {
        Ok(sc) => sc,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let mut app = App::new(sc).expect("a scenario that loads runs");
    // The TUI's budget: two thirds of a 33 ms frame.
    app.frame_budget = Some(Duration::from_millis(22));
    for _ in 0..10 {
        app.update(Action::SpeedUp);
    }
    let t0 = Instant::now();
    let (mut worst, mut over50, mut slow) = (Duration::ZERO, 0, 0);
    while app.sim().view().now() < until * 1000 {
        let f = Instant::now();
        app.update(Action::Tick(33));
        worst = worst.max(f.elapsed());
        over50 += usize::from(f.elapsed().as_millis() > 50);
        slow += usize::from(f.elapsed().as_millis() > 100);
    }
    println!(
        "ran to {} ms in {:.1} s; worst frame {worst:?}, {over50} over 50 ms, {slow} over 100 ms; checkpoints (count, spacing ms, bytes) {:?}",
        app.sim().view().now(),
        t0.elapsed().as_secs_f64(),
        app.checkpoints.stats()
    );
    // Copies timed apart from freeing them (the TUI frees replaced
    // copies on another thread).
    let mut kept = Vec::new();
    let mut each = Vec::new();
    for _ in 0..10 {
        let c = Instant::now();
        kept.push(app.sim().checkpoint());
        each.push(c.elapsed());
    }
    let copied: Duration = each.iter().sum();
    let most = each.iter().max().copied().unwrap_or_default();
    let d0 = Instant::now();
    drop(kept);
    println!(
        "10 checkpoints copied in {copied:?} (the most {most:?}), freed in {:?}",
        d0.elapsed()
    );
    app.update(Action::TogglePause);
    let before = app.sim().view().now();
    let t = Instant::now();
    app.update(Action::SeekBack);
    println!("first seek frame {:?}", t.elapsed());
    let (mut worst, mut frames) = (t.elapsed(), 1);
    while app.seeking() {
        let f = Instant::now();
        app.update(Action::Tick(33));
        worst = worst.max(f.elapsed());
        frames += 1;
    }
    println!(
        "seek back {before} -> {} ms in {:.2} s ({frames} frames, worst {worst:?})",
        app.sim().view().now(),
        t.elapsed().as_secs_f64(),
    );
}

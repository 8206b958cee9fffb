//! Frame render time: the whole TUI drawn into a 120×36 TestBackend for a
//! 200-node cluster mid-run, per view; and one Overview frame of a
//! 3,000-node cluster (the target: under 2 ms); and the per-view frames
//! with two runs side by side (at most twice a single run's).
//!
//!   cargo bench --bench tui

use criterion::{criterion_group, criterion_main, Criterion};
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use slotsim::tui::app::{Action, View};
use slotsim::tui::{views, App};

const SCENARIO: &str = r#"
name = "render-200"
seed = 5
[cluster]
nodes = 200
racks = 10
map_slots = 4
reduce_slots = 2
heartbeat = "3s"
[scheduler]
policy = "fair"
[[pools]]
name = "research"
weight = 2.0
[[workloads]]
kind = "poisson"
jobs = 200
mean_interarrival = "2s"
mix = { terasort = 1, wordcount = 1, grep = 1 }
input = ["1GB", "20GB"]
pools = ["research", "default"]
"#;

fn busy_app() -> App {
    busy_side(&["fair"])
}

/// The scenario under each policy (one: a single run; more: side by
/// side), five simulated minutes in.
fn busy_side(policies: &[&str]) -> App {
    let scs = policies
        .iter()
        .map(|p| slotsim::scenario::load_str(SCENARIO, "render-200.toml", Some(p), None).unwrap())
        .collect();
    let mut app = App::side_by_side(scs).unwrap();
    // Five simulated minutes at 10×, in 33 ms frames.
    for _ in 0..4 {
        app.update(Action::SpeedUp);
    }
    for _ in 0..900 {
        app.update(Action::Tick(33));
    }
    app
}

fn render(c: &mut Criterion) {
    render_group(c, busy_app(), "render_120x36_200_nodes");
}

/// The same frames with fair and fifo side by side (docs/performance.md,
/// "Side by side": at most twice a single run's).
fn render_side(c: &mut Criterion) {
    render_group(
        c,
        busy_side(&["fair", "fifo"]),
        "render_120x36_200_nodes_side_by_side",
    );
}

fn render_group(c: &mut Criterion, mut app: App, name: &str) {
    let mut g = c.benchmark_group(name);
    for view in View::ALL {
        while app.view != view {
            app.update(Action::NextView);
        }
        let mut term = Terminal::new(TestBackend::new(120, 36)).unwrap();
        g.bench_function(view.name(), |b| {
            b.iter(|| term.draw(|f| views::render(&app, f)).unwrap().area)
        });
    }
    g.finish();
}

const SCENARIO_3000: &str = r#"
name = "render-3000"
seed = 5
[cluster]
nodes = 3000
racks = 60
map_slots = 4
reduce_slots = 2
heartbeat = "3s"
[scheduler]
policy = "fair"
[[workloads]]
kind = "poisson"
jobs = 300
mean_interarrival = "1s"
mix = { terasort = 1, wordcount = 1, grep = 1 }
input = ["10GB", "200GB"]
"#;

fn overview_3000(c: &mut Criterion) {
    let sc = slotsim::scenario::load_str(SCENARIO_3000, "render-3000.toml", None, None).unwrap();
    let mut app = App::new(sc).unwrap();
    for _ in 0..4 {
        app.update(Action::SpeedUp); // 10×
    }
    for _ in 0..300 {
        app.update(Action::Tick(33)); // 100 simulated seconds
    }
    app.update(Action::TogglePause);
    let mut term = Terminal::new(TestBackend::new(120, 36)).unwrap();
    c.bench_function("overview_120x36_3000_nodes", |b| {
        b.iter(|| term.draw(|f| views::render(&app, f)).unwrap().area)
    });
}

criterion_group!(benches, render, render_side, overview_3000);
criterion_main!(benches);

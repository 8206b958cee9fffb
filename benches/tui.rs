//! Frame render time: the whole TUI drawn into a 120×36 TestBackend for a
//! 200-node cluster mid-run, per view.
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
    let sc = slotsim::scenario::load_str(SCENARIO, "render-200.toml", None, None).unwrap();
    let mut app = App::new(sc).unwrap();
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
    let mut app = busy_app();
    let mut g = c.benchmark_group("render_120x36_200_nodes");
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

criterion_group!(benches, render);
criterion_main!(benches);

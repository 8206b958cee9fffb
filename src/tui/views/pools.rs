//! The Pools view: per pool, running tasks against fair share, min share
//! and max, with weights; for capacity, queue capacity and use; for
//! adaptive-fair, its own pools (the shared pool too) against their
//! allocations.

use super::super::app::App;
use super::super::theme;
use super::bar;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::Span;
use ratatui::widgets::{Cell, Row};
use ratatui::Frame;

fn num(v: Option<&serde_json::Value>) -> Option<f64> {
    v.and_then(|x| x.as_f64())
}

fn max_str(x: u32) -> String {
    if x == u32::MAX {
        "∞".into()
    } else {
        x.to_string()
    }
}

/// One row: a pool's name, weight, jobs, running maps and reduces against
/// its share, and the last cells: min and max shares (capacity % under
/// capacity).
struct PoolRow {
    name: String,
    weight: f64,
    jobs: usize,
    running: (u32, u32),
    share: (Option<f64>, Option<f64>),
    limits: Vec<String>,
}

pub fn render(app: &App, f: &mut Frame, area: Rect) {
    let w = &app.sim.w;
    let label = app.sim.policy_label();
    let capacity = label.starts_with("capacity");
    // adaptive-fair's pools are its own: the user pools less the jobs it
    // moved to its shared pool, plus that pool; shares are allocations.
    let adaptive = label.starts_with("adaptive-fair");
    let bw = if area.width >= 110 { 20 } else { 6 };
    let limits = |name: &str| match w.pools.iter().find(|p| p.name == name) {
        Some(spec) => vec![
            format!("{}/{}", spec.min_maps, spec.min_reduces),
            format!("{}/{}", max_str(spec.max_maps), max_str(spec.max_reduces)),
        ],
        None => vec!["-".to_string(), "-".to_string()],
    };
    let mut data = Vec::new();
    if adaptive {
        for (name, v) in &app.values.pools {
            let u = |k: &str| v.get(k).and_then(|x| x.as_u64()).unwrap_or(0) as u32;
            data.push(PoolRow {
                name: name.clone(),
                weight: num(v.get("weight")).unwrap_or(1.0),
                jobs: app
                    .values
                    .jobs
                    .values()
                    .filter(|j| j.get("pool").and_then(|p| p.as_str()) == Some(name.as_str()))
                    .count(),
                running: (u("workload_map"), u("workload_reduce")),
                share: (
                    num(v.get("allocation_map")),
                    num(v.get("allocation_reduce")),
                ),
                limits: limits(name),
            });
        }
    } else {
        for (p, spec) in w.pools.iter().enumerate() {
            let v = app.values.pools.get(&spec.name);
            let st = &w.pool_stats[p];
            let get = |k: &str| num(v.and_then(|v| v.get(k)));
            let (share, limits) = if capacity {
                let pct = get("capacity_pct");
                (
                    (get("capacity_map"), get("capacity_reduce")),
                    vec![pct.map_or("-".into(), |p| format!("{p:.0}%"))],
                )
            } else {
                (
                    (get("fair_share_map"), get("fair_share_reduce")),
                    limits(&spec.name),
                )
            };
            data.push(PoolRow {
                name: spec.name.clone(),
                weight: spec.weight,
                jobs: w
                    .active
                    .iter()
                    .filter(|&&j| w.job(j).pool as usize == p)
                    .count(),
                running: (st.running_maps, st.running_reduces),
                share,
                limits,
            });
        }
    }
    let fmt = |x: Option<f64>| x.map_or("-".to_string(), |x| format!("{x:.1}"));
    let frac = |run: u32, share: Option<f64>| match share {
        Some(s) if s > 0.0 => run as f64 / s,
        _ => 0.0,
    };
    let mut rows = Vec::new();
    for d in data {
        let mut cells = vec![
            Cell::from(Span::styled(d.name, theme::title())),
            Cell::from(format!("{:.2}", d.weight)),
            Cell::from(d.jobs.to_string()),
            Cell::from(format!("{}/{}", d.running.0, fmt(d.share.0))),
            Cell::from(bar(frac(d.running.0, d.share.0), bw)),
            Cell::from(format!("{}/{}", d.running.1, fmt(d.share.1))),
            Cell::from(bar(frac(d.running.1, d.share.1), bw)),
        ];
        cells.extend(d.limits.into_iter().map(Cell::from));
        rows.push(Row::new(cells).height(1));
    }
    let share = if capacity {
        "capacity"
    } else if adaptive {
        "alloc"
    } else {
        "fair share"
    };
    let mut header = vec![
        "pool".to_string(),
        "weight".into(),
        "jobs".into(),
        if bw > 6 {
            format!("maps run/{share}")
        } else {
            "maps".to_string()
        },
        String::new(),
        if bw > 6 {
            format!("reds run/{share}")
        } else {
            "reduces".to_string()
        },
        String::new(),
    ];
    let mut widths = vec![
        Constraint::Length(12),
        Constraint::Length(6),
        Constraint::Length(4),
        Constraint::Length(if bw > 6 { 14 } else { 9 }),
        Constraint::Length(bw as u16),
        Constraint::Length(if bw > 6 { 14 } else { 9 }),
        Constraint::Length(bw as u16),
    ];
    if capacity {
        header.push("cap%".into());
        widths.push(Constraint::Length(5));
    } else {
        header.push("min m/r".into());
        header.push("max m/r".into());
        widths.push(Constraint::Length(8));
        widths.push(Constraint::Length(9));
    }
    let table = super::table(rows, widths, Row::new(header), " Pools ");
    f.render_widget(table, area);
}

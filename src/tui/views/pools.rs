//! The Pools view: per pool, running tasks against fair share, min share
//! and max, with weights; for capacity, queue capacity and use.

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

pub fn render(app: &App, f: &mut Frame, area: Rect) {
    let w = &app.sim.w;
    let capacity = app.sim.policy_label().starts_with("capacity");
    let bw = if area.width >= 110 { 20 } else { 6 };
    let mut rows = Vec::new();
    for (p, spec) in w.pools.iter().enumerate() {
        let v = app.values.pools.get(&spec.name);
        let st = &w.pool_stats[p];
        let (share_m, share_r) = if capacity {
            (
                num(v.and_then(|v| v.get("capacity_map"))),
                num(v.and_then(|v| v.get("capacity_reduce"))),
            )
        } else {
            (
                num(v.and_then(|v| v.get("fair_share_map"))),
                num(v.and_then(|v| v.get("fair_share_reduce"))),
            )
        };
        let fmt = |x: Option<f64>| x.map_or("-".to_string(), |x| format!("{x:.1}"));
        let frac = |run: u32, share: Option<f64>| match share {
            Some(s) if s > 0.0 => run as f64 / s,
            _ => 0.0,
        };
        let jobs = w
            .active
            .iter()
            .filter(|&&j| w.job(j).pool as usize == p)
            .count();
        let mut cells = vec![
            Cell::from(Span::styled(spec.name.clone(), theme::title())),
            Cell::from(format!("{:.2}", spec.weight)),
            Cell::from(jobs.to_string()),
            Cell::from(format!("{}/{}", st.running_maps, fmt(share_m))),
            Cell::from(bar(frac(st.running_maps, share_m), bw)),
            Cell::from(format!("{}/{}", st.running_reduces, fmt(share_r))),
            Cell::from(bar(frac(st.running_reduces, share_r), bw)),
        ];
        if capacity {
            let pct = num(v.and_then(|v| v.get("capacity_pct")));
            cells.push(Cell::from(pct.map_or("-".into(), |p| format!("{p:.0}%"))));
        } else {
            cells.push(Cell::from(format!(
                "{}/{}",
                spec.min_maps, spec.min_reduces
            )));
            cells.push(Cell::from(format!(
                "{}/{}",
                max_str(spec.max_maps),
                max_str(spec.max_reduces)
            )));
        }
        rows.push(Row::new(cells).height(1));
    }
    let share = if capacity { "capacity" } else { "fair share" };
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
    let table = super::table(rows, widths, Row::new(header), super::panel(" Pools "));
    f.render_widget(table, area);
}

//! The Jobs view: running, waiting and finished jobs with their progress
//! and the current policy's order value for each.

use super::super::app::{clock, App};
use super::super::theme;
use super::{bar, fit};
use crate::model::JobId;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::Style;
use ratatui::text::Span;
use ratatui::widgets::{Cell, Row};
use ratatui::Frame;

/// The policy value to show per job, by policy family: the first key the
/// policy's inspection has among these.
const VALUE_KEYS: &[(&str, &str)] = &[
    ("order", "order"),
    ("fair_share_containers", "share"),
    ("fair_share_map", "share m"),
    ("x_star", "x*"),
    ("priority_value", "prio"),
    ("missed_opportunities", "missed"),
];

fn policy_value(app: &App, name: &str) -> (String, &'static str) {
    let Some(v) = app.values.jobs.get(name) else {
        return (String::new(), "policy");
    };
    for (k, label) in VALUE_KEYS {
        if let Some(x) = v.get(*k) {
            let s = match x {
                serde_json::Value::Number(n) => {
                    let f = n.as_f64().unwrap_or(0.0);
                    if f.fract() == 0.0 {
                        format!("{f:.0}")
                    } else {
                        format!("{f:.2}")
                    }
                }
                other => other.to_string(),
            };
            return (s, label);
        }
    }
    (String::new(), "policy")
}

pub fn render(app: &App, f: &mut Frame, area: Rect) {
    let w = &app.sim.w;
    let mut order: Vec<(JobId, &str)> = w.active.iter().map(|&j| (j, "running")).collect();
    order.extend(w.waiting.iter().map(|&j| (j, "waiting")));
    let mut done: Vec<JobId> = w
        .jobs
        .iter()
        .filter(|j| j.is_done())
        .map(|j| j.id)
        .collect();
    done.sort_by_key(|&j| std::cmp::Reverse((w.job(j).finished_at, j)));
    order.extend(done.into_iter().map(|j| (j, "done")));
    let queued: Vec<JobId> = w.jobs.iter().filter(|j| !j.arrived).map(|j| j.id).collect();
    let wide = area.width >= 110;
    let mut value_label = "policy";
    let rows: Vec<Row> = order
        .iter()
        .skip(app.jobs_row.min(order.len().saturating_sub(1)))
        .take(area.height.saturating_sub(3) as usize)
        .map(|&(j, state)| {
            let job = w.job(j);
            let total = (job.n_maps() + job.n_reduces()).max(1);
            let frac = (job.maps_done + job.reduces_done) as f64 / total as f64;
            let (val, label) = policy_value(app, &job.name);
            value_label = if label != "policy" {
                label
            } else {
                value_label
            };
            let state_style = match state {
                "running" if job.maps_running + job.reduces_running > 0 => {
                    Style::default().fg(theme::OK)
                }
                "done" => theme::dim(),
                _ => Style::default(),
            };
            let state = if state == "running" && job.maps_running + job.reduces_running == 0 {
                "queued"
            } else {
                state
            };
            let mut cells = vec![
                Cell::from(Span::styled("■", Style::default().fg(theme::job_color(j)))),
                Cell::from(fit(&job.name, if wide { 24 } else { 16 })),
                Cell::from(fit(w.pool_name(j), 10)),
                Cell::from(Span::styled(state, state_style)),
                Cell::from(format!(
                    "{}/{}/{}",
                    job.maps_done, job.maps_running, job.maps_pending
                )),
                Cell::from(format!(
                    "{}/{}/{}",
                    job.reduces_done, job.reduces_running, job.reduces_pending
                )),
                Cell::from(bar(frac, if wide { 16 } else { 8 })),
            ];
            if wide {
                cells.push(Cell::from(clock(job.submit)));
            }
            cells.push(Cell::from(val));
            Row::new(cells)
        })
        .collect();
    let mut header = vec![
        "",
        "job",
        "pool",
        "state",
        "maps d/r/p",
        "reds d/r/p",
        "progress",
    ];
    if wide {
        header.push("submitted");
    }
    header.push(value_label);
    let mut widths = vec![
        Constraint::Length(1),
        Constraint::Length(if wide { 24 } else { 16 }),
        Constraint::Length(10),
        Constraint::Length(7),
        Constraint::Length(11),
        Constraint::Length(10),
        Constraint::Length(if wide { 16 } else { 8 }),
    ];
    if wide {
        widths.push(Constraint::Length(10));
    }
    widths.push(Constraint::Min(6));
    let title = format!(
        " Jobs: {} running · {} waiting · {} done · {} not yet submitted ",
        w.active.len(),
        w.waiting.len(),
        w.finished_jobs(),
        queued.len()
    );
    let table = super::table(rows, widths, Row::new(header), title);
    f.render_widget(table, area);
}

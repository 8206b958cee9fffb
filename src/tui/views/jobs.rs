//! The Jobs view: running, queued, waiting and finished jobs with their
//! progress, turnaround and the current policy's value for each.

use super::super::app::{clock, dur, App, Page};
use super::super::theme;
use super::{bar, fit_mid};
use crate::model::JobId;
use crate::sim::job::Job;
use crate::sim::policy::Value;
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
        if let Some(x) = v.get(k) {
            let s = match x {
                Value::Int(i) => i.to_string(),
                Value::Num(f) => {
                    if f.fract() == 0.0 {
                        format!("{f:.0}")
                    } else {
                        format!("{f:.2}")
                    }
                }
                Value::Text(s) => s.clone(),
                Value::Null => "-".into(),
                other => crate::report::trace::value_json(other).to_string(),
            };
            return (s, label);
        }
    }
    (String::new(), "policy")
}

/// A job's state as the rows and the title name it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    /// Runnable with tasks running.
    Running,
    /// Runnable, nothing running yet (or just now).
    Queued,
    /// Held back by its pool's `max_running_jobs`.
    Waiting,
    Done,
}

fn state(job: &Job, waiting: bool) -> State {
    if job.is_done() {
        State::Done
    } else if waiting {
        State::Waiting
    } else if job.maps_running + job.reduces_running > 0 {
        State::Running
    } else {
        State::Queued
    }
}

/// Progress as Hadoop reports a job's: half maps, half reduces (all maps
/// when there are no reduces). Full only once everything is done.
fn progress(job: &Job) -> f64 {
    let maps = job.maps_done as f64 / job.n_maps().max(1) as f64;
    if job.n_reduces() == 0 {
        return maps;
    }
    let reds = job.reduces_done as f64 / job.n_reduces() as f64;
    (maps + reds) / 2.0
}

/// Rows in order: runnable jobs (by submission), waiting ones, then the
/// finished, newest first.
fn rows_in_order(app: &App) -> Vec<(JobId, State)> {
    let w = &app.sim.w;
    let mut order: Vec<(JobId, State)> = w
        .active
        .iter()
        .map(|&j| (j, state(w.job(j), false)))
        .collect();
    order.extend(w.waiting.iter().map(|&j| (j, State::Waiting)));
    let mut done: Vec<JobId> = w
        .jobs
        .iter()
        .filter(|j| j.is_done())
        .map(|j| j.id)
        .collect();
    done.sort_by_key(|&j| std::cmp::Reverse((w.job(j).finished_at, j)));
    order.extend(done.into_iter().map(|j| (j, State::Done)));
    order
}

pub fn render(app: &App, f: &mut Frame, area: Rect) {
    let w = &app.sim.w;
    let order = rows_in_order(app);
    let not_yet = w.jobs.iter().filter(|j| !j.arrived).count();
    let wide = area.width >= 110;
    let name_w: usize = if wide { 24 } else { 16 };
    let bar_w: usize = if wide { 16 } else { 8 };
    let rows_h = area.height.saturating_sub(3) as usize;
    let max = order.len().saturating_sub(rows_h);
    let first = app.jobs_row.min(max);
    let mut pages = app.pages.get();
    pages.jobs = Page {
        first,
        rows: rows_h.max(1),
        max,
    };
    app.pages.set(pages);
    let mut value_label = "policy";
    let rows: Vec<Row> = order
        .iter()
        .skip(first)
        .take(rows_h)
        .map(|&(j, st)| {
            let job = w.job(j);
            let (val, label) = policy_value(app, &job.name);
            if label != "policy" {
                value_label = label;
            }
            let (text, style) = match st {
                State::Running => ("running".to_string(), Style::default().fg(theme::OK)),
                State::Queued => ("queued".to_string(), Style::default()),
                State::Waiting => ("waiting".to_string(), Style::default()),
                State::Done => (
                    format!(
                        "done {}",
                        dur(job.finished_at.unwrap_or(w.now).saturating_sub(job.submit))
                    ),
                    theme::dim(),
                ),
            };
            let mut cells = vec![
                Cell::from(Span::styled("■", Style::default().fg(theme::job_color(j)))),
                Cell::from(fit_mid(&job.name, name_w)),
                Cell::from(fit_mid(w.pool_name(j), if wide { 10 } else { 8 })),
                Cell::from(Span::styled(text, style)),
                Cell::from(format!(
                    "{}/{}/{}",
                    job.maps_done, job.maps_running, job.maps_pending
                )),
                Cell::from(format!(
                    "{}/{}/{}",
                    job.reduces_done, job.reduces_running, job.reduces_pending
                )),
                Cell::from(bar(progress(job), bar_w)),
            ];
            if wide {
                cells.push(Cell::from(clock(job.submit)));
                cells.push(Cell::from(job.finished_at.map(clock).unwrap_or_default()));
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
        header.push("finished");
    }
    header.push(value_label);
    let mut widths = vec![
        Constraint::Length(1),
        Constraint::Length(name_w as u16),
        Constraint::Length(if wide { 10 } else { 8 }),
        Constraint::Length(11),
        Constraint::Length(11),
        Constraint::Length(10),
        Constraint::Length(bar_w as u16),
    ];
    if wide {
        widths.push(Constraint::Length(10));
        widths.push(Constraint::Length(10));
    }
    widths.push(Constraint::Min(5));
    let n = |s: State| order.iter().filter(|(_, x)| *x == s).count();
    let title = format!(
        " Jobs: {} running · {} queued · {} waiting · {} done · {} not yet submitted ",
        n(State::Running),
        n(State::Queued),
        n(State::Waiting),
        n(State::Done),
        not_yet
    );
    let mut block = super::panel(title);
    if let Some(note) = super::scroll_note(first, rows_h, order.len()) {
        block = block.title_bottom(Span::styled(note, theme::dim()));
    }
    let table = super::table(rows, widths, Row::new(header), block);
    f.render_widget(table, area);
}

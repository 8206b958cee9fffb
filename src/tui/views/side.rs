//! Side by side (`slotsim run --policies a,b`): where each run's pane
//! goes, the header's line of runs, the Jobs view that lines the jobs up
//! across runs, and the Overview's chart of jobs finished over time.

use super::super::app::{clock, job_progress, job_rows, App, Hit, JobState, Target, View};
use super::super::theme;
use super::{fit, fit_mid};
use crate::model::{JobId, Ms};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Block, Borders, Cell, Chart, Dataset, GraphType, Paragraph, Row};
use ratatui::Frame;
use std::collections::HashMap;

/// The narrowest a pane is drawn in a column of its own: narrower, the
/// panes are stacked.
const MIN_COLUMN: u16 = 60;

/// Each run's line colour (the chart, the marks): the theme's first
/// colours, which read on dark and light backgrounds alike.
const RUN_COLORS: [Color; 4] = [
    theme::ACCENT,
    Color::Rgb(0xf5, 0x9e, 0x0b),
    theme::OK,
    Color::Rgb(0xec, 0x48, 0x99),
];

/// Without colours the chart's lines are told apart by their marks.
const RUN_MARKERS: [Marker; 4] = [Marker::Braille, Marker::Dot, Marker::Block, Marker::Bar];
const RUN_KEYS: [&str; 4] = ["⣀⣀", "••", "██", "▄▄"];

pub fn run_color(k: usize) -> Color {
    RUN_COLORS[k % RUN_COLORS.len()]
}

/// The runs' panes in `area`: in columns where each gets at least
/// [`MIN_COLUMN`] (two columns of two rows for four runs), else stacked.
pub fn pane_areas(n: usize, area: Rect) -> Vec<Rect> {
    let cols = [n, 2, 1]
        .into_iter()
        .find(|&c| c <= n && area.width / c as u16 >= MIN_COLUMN)
        .unwrap_or(1);
    let rows = n.div_ceil(cols);
    let row_areas = Layout::vertical(vec![Constraint::Ratio(1, rows as u32); rows]).split(area);
    let mut out = Vec::with_capacity(n);
    for (r, ra) in row_areas.iter().enumerate() {
        let here = (n - r * cols).min(cols);
        let cells = Layout::horizontal(vec![Constraint::Ratio(1, here as u32); here]).split(*ra);
        out.extend(cells.iter().copied());
    }
    out
}

/// Draws each run's pane of the current view, the focused one marked.
pub fn render_panes(app: &App, f: &mut Frame, body: Rect, draw: fn(&App, &mut Frame, Rect)) {
    for (k, area) in pane_areas(app.panes().len(), body).into_iter().enumerate() {
        app.drawing_pane(k, || draw(app, f, area));
        mark(app, f, area, k);
    }
}

/// A pane's mark on its top border, at the right: `▸1 fifo` for the
/// focused run, ` 2 fair` for the others.
fn mark(app: &App, f: &mut Frame, area: Rect, k: usize) {
    let label = app.panes()[k].sim.policy_label();
    let focused = k == app.focus();
    let room = (area.width as usize).saturating_sub(24).min(30);
    if room < 7 {
        return;
    }
    let text = format!(
        " {}{} {} ",
        if focused { "▸" } else { " " },
        k + 1,
        fit_mid(label, room - 5)
    );
    let w = text.chars().count() as u16;
    let style = if focused {
        theme::selected()
    } else {
        Style::default()
            .fg(run_color(k))
            .add_modifier(Modifier::BOLD)
    };
    let at = Rect::new(area.x + area.width - w - 1, area.y, w, 1);
    f.render_widget(Paragraph::new(Span::styled(text, style)), at);
}

/// The header's line of runs: each run's number, policy and
/// `jobs: FINISHED/SUBMITTED`, the focused one marked.
pub fn runs_line(app: &App, width: usize) -> Line<'static> {
    let n = app.panes().len();
    let items: Vec<(usize, String)> = app
        .panes()
        .iter()
        .enumerate()
        .map(|(k, p)| {
            let w = p.sim.view();
            (
                k,
                format!("jobs: {}/{}", w.finished_jobs(), w.submitted_jobs()),
            )
        })
        .collect();
    // What the labels may take: the line less the numbers, the jobs and
    // the separators.
    let fixed: usize = items.iter().map(|(_, j)| j.len() + 4).sum::<usize>() + 3 * (n - 1) + 1;
    let room = width.saturating_sub(fixed) / n;
    let mut spans = vec![Span::raw(" ")];
    for (k, jobs) in items {
        if k > 0 {
            spans.push(Span::styled(" │ ", theme::dim()));
        }
        let focused = k == app.focus();
        let num = format!("{}{}", if focused { "▸" } else { " " }, k + 1);
        let num_style = if focused {
            theme::selected()
        } else {
            Style::default().fg(run_color(k))
        };
        spans.push(Span::styled(num, num_style));
        let label = fit_mid(app.panes()[k].sim.policy_label(), room.max(4));
        spans.push(Span::styled(
            format!(" {label} "),
            Style::default()
                .fg(run_color(k))
                .add_modifier(Modifier::BOLD),
        ));
        spans.push(Span::raw(jobs));
    }
    Line::from(spans)
}

/// The Jobs view side by side: one row per job, its state or turnaround
/// in each run, and each later run's turnaround against the first's.
pub fn render_jobs(app: &App, f: &mut Frame, area: Rect) {
    let n = app.panes().len();
    // Each run's state of each job; the rows in the focused run's order.
    let states: Vec<HashMap<JobId, JobState>> = (0..n)
        .map(|k| app.drawing_pane(k, || job_rows(app)).into_iter().collect())
        .collect();
    let order: Vec<JobId> = job_rows(app).into_iter().map(|(j, _)| j).collect();
    let diff_w = 8;
    // A run's column: its label whole where the width allows.
    let longest = app
        .panes()
        .iter()
        .map(|p| p.sim.policy_label().chars().count() + 2)
        .max()
        .unwrap_or(0);
    let others = 2 + 6 + 8 + 12 + (n - 1) * (diff_w + 1);
    let room = (area.width as usize).saturating_sub(others + 2) / n;
    let run_w = longest.clamp(11, 24).min(room.max(11)) - 1;
    let fixed = 2 + 6 + 8 + n * (run_w + 1) + (n - 1) * (diff_w + 1);
    let name_w = (area.width as usize).saturating_sub(fixed + 2).clamp(6, 24);
    let finished: Vec<usize> = app
        .panes()
        .iter()
        .map(|p| p.sim.view().finished_jobs())
        .collect();
    let counts: Vec<String> = finished
        .iter()
        .enumerate()
        .map(|(k, f)| format!("{f} in run {}", k + 1))
        .collect();
    let block = super::panel(super::first_fit(
        &[
            format!(
                " Jobs side by side · {} jobs · finished {} · Δ = turnaround against run 1 ",
                order.len(),
                counts.join(", ")
            ),
            format!(" Jobs · finished {} · Δ vs run 1 ", counts.join(", ")),
            format!(" Jobs · finished {} ", counts.join(", ")),
            " Jobs ".to_string(),
        ],
        area.width,
    ));
    let inner = block.inner(area);
    f.render_widget(block, area);
    let rows_h = inner.height.saturating_sub(1) as usize;
    let first = super::jobs::jobs_page(app, rows_h, order.len());
    let mut header = vec![
        Cell::from(" "),
        Cell::from("job"),
        Cell::from(app.pool_word()),
        Cell::from("submit"),
    ];
    for k in 0..n {
        let label = app.panes()[k].sim.policy_label();
        header.push(
            Cell::from(fit(&format!("{} {label}", k + 1), run_w))
                .style(Style::default().fg(run_color(k))),
        );
        if k > 0 {
            header.push(Cell::from(format!("Δ{}", k + 1)));
        }
    }
    let mut hits = app.hits.borrow_mut();
    let rows: Vec<Row> = order
        .iter()
        .skip(first)
        .take(rows_h)
        .enumerate()
        .map(|(i, &j)| {
            hits.push(Hit {
                area: Rect::new(inner.x, inner.y + 1 + i as u16, inner.width, 1),
                target: Target::Job(j),
            });
            let w = app.panes()[0].sim.view();
            let job = w.job(j);
            let sel = app.sel_job == Some(j);
            let mut cells = vec![
                Cell::from(if sel { "▶" } else { " " }),
                Cell::from(fit_mid(&job.name, name_w))
                    .style(Style::default().fg(theme::job_color(j))),
                Cell::from(fit(w.pool_name(j), 8)),
                Cell::from(clock_short(job.submit)),
            ];
            let base = turnaround(app, 0, j);
            for (k, st) in states.iter().enumerate() {
                cells.push(Cell::from(state_text(app, k, j, st.get(&j).copied())));
                if k > 0 {
                    let d = match (base, turnaround(app, k, j)) {
                        (Some(a), Some(b)) => delta_secs(b as f64 - a as f64),
                        _ => String::new(),
                    };
                    let style = if d.starts_with('−') {
                        Style::default().fg(theme::OK)
                    } else if d.starts_with('+') {
                        Style::default().fg(theme::WARN)
                    } else {
                        Style::default()
                    };
                    cells.push(Cell::from(d).style(style));
                }
            }
            let row = Row::new(cells);
            if sel {
                row.style(theme::cursor())
            } else {
                row
            }
        })
        .collect();
    drop(hits);
    let mut widths = vec![
        Constraint::Length(1),
        Constraint::Length(name_w as u16),
        Constraint::Length(8),
        Constraint::Length(6),
    ];
    for k in 0..n {
        widths.push(Constraint::Length(run_w as u16));
        if k > 0 {
            widths.push(Constraint::Length(diff_w as u16));
        }
    }
    let table = ratatui::widgets::Table::new(rows, widths)
        .header(Row::new(header).style(theme::title()))
        .column_spacing(1);
    f.render_widget(table, inner);
}

/// Job `j`'s turnaround in run `k` (ms), once it finished (not killed).
fn turnaround(app: &App, k: usize, j: JobId) -> Option<Ms> {
    let w = app.panes()[k].sim.view();
    let job = w.jobs().get(j as usize)?;
    (!job.killed)
        .then_some(job.finished_at)
        .flatten()
        .map(|f| f - job.submit)
}

/// A job's cell in run `k`: its turnaround once done, else its state.
fn state_text(app: &App, k: usize, j: JobId, st: Option<JobState>) -> String {
    let w = app.panes()[k].sim.view();
    let Some(job) = w.jobs().get(j as usize) else {
        return String::new();
    };
    if job.killed {
        return "killed".into();
    }
    if let Some(t) = turnaround(app, k, j) {
        return format!("{:.1}s", t as f64 / 1000.0);
    }
    match st {
        Some(JobState::Running) => format!("run {:.0}%", 100.0 * job_progress(job)),
        Some(JobState::Queued) => "queued".into(),
        Some(JobState::Waiting) => "waiting".into(),
        Some(JobState::SetUp) => "set-up".into(),
        Some(JobState::Finishing) => "finishing".into(),
        Some(JobState::Done) => "done".into(),
        None if !job.arrived => "not yet".into(),
        None => String::new(),
    }
}

/// `+12.3s`, `−4.0s`, `0.0s`.
fn delta_secs(ms: f64) -> String {
    let s = ms / 1000.0;
    if s.abs() < 0.05 {
        "0.0s".into()
    } else if s > 0.0 {
        format!("+{s:.1}s")
    } else {
        format!("−{:.1}s", -s)
    }
}

/// `mm:ss` (`h:mm:ss` past an hour): the submit column.
fn clock_short(t: Ms) -> String {
    let c = clock(t);
    let c = c.split('.').next().unwrap_or(&c);
    c.strip_prefix("00:").unwrap_or(c).to_string()
}

/// The Overview's chart side by side: jobs finished against simulated
/// time, one line per run, on one axis.
pub fn render_finished(app: &App, f: &mut Frame, area: Rect) {
    let now = app.now();
    let series: Vec<Vec<(f64, f64)>> = app
        .panes()
        .iter()
        .map(|p| {
            let w = p.sim.view();
            let mut ends: Vec<Ms> = w.jobs().iter().filter_map(|j| j.finished_at).collect();
            ends.sort_unstable();
            // A step per finish: the count before and after it.
            let mut pts = vec![(0.0, 0.0)];
            for (i, &t) in ends.iter().enumerate() {
                let x = t as f64 / 1000.0;
                pts.push((x, i as f64));
                pts.push((x, (i + 1) as f64));
            }
            pts.push((now as f64 / 1000.0, ends.len() as f64));
            pts
        })
        .collect();
    let x_max = (now as f64 / 1000.0).max(1.0);
    let y_max = app
        .panes()
        .iter()
        .map(|p| p.sim.view().submitted_jobs())
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    let datasets: Vec<Dataset> = series
        .iter()
        .enumerate()
        .map(|(k, pts)| {
            Dataset::default()
                .marker(if app.mono {
                    RUN_MARKERS[k % 4]
                } else {
                    Marker::Braille
                })
                .graph_type(GraphType::Line)
                .style(Style::default().fg(run_color(k)))
                .data(pts)
        })
        .collect();
    let mut title = vec![Span::styled(" Jobs finished · ", theme::title())];
    for (k, p) in app.panes().iter().enumerate() {
        if k > 0 {
            title.push(Span::styled(" · ", theme::title()));
        }
        let key = if app.mono { RUN_KEYS[k % 4] } else { "──" };
        title.push(Span::styled(
            format!("{key} {} {}", k + 1, p.sim.policy_label()),
            Style::default()
                .fg(run_color(k))
                .add_modifier(Modifier::BOLD),
        ));
    }
    title.push(Span::raw(" "));
    let chart = Chart::new(datasets)
        .legend_position(None)
        .block(
            Block::default()
                .borders(Borders::ALL)
                .border_style(theme::dim())
                .title(Line::from(title)),
        )
        .x_axis(
            Axis::default()
                .bounds([0.0, x_max])
                .style(theme::dim())
                .labels(vec![Span::raw("0"), Span::raw(clock(now))]),
        )
        .y_axis(
            Axis::default()
                .bounds([0.0, y_max])
                .style(theme::dim())
                .labels(vec![Span::raw("0"), Span::raw(format!("{y_max:.0}"))]),
        );
    f.render_widget(chart, area);
}

/// The Overview side by side: the chart of jobs finished above, each
/// run's Overview below it; on a short screen (80×24) the chart alone,
/// where a run's Overview would have three rows to say nothing in.
pub fn render_overview(app: &App, f: &mut Frame, body: Rect, draw: fn(&App, &mut Frame, Rect)) {
    if body.height < 24 {
        render_finished(app, f, body);
        return;
    }
    let chart_h = (body.height / 3).clamp(8, 14);
    let [chart, panes] =
        Layout::vertical([Constraint::Length(chart_h), Constraint::Min(3)]).areas(body);
    render_finished(app, f, chart);
    render_panes(app, f, panes, draw);
}

/// Whether a view is drawn as one table across the runs rather than a
/// pane per run.
pub fn across(view: View) -> bool {
    view == View::Jobs
}

//! The Jobs view: running, queued, waiting and finished jobs with their
//! progress, turnaround and the current policy's value for each; the
//! selected job marked `▶`, a filter (`/`) and an order (`o`).

use super::super::app::{
    clock, dur, job_progress, job_rows, value_key, App, Hit, JobState, Overlay, Page, Sort, Target,
};
use super::super::theme;
use super::{bar, fit, fit_mid};
use crate::model::JobId;
use crate::sim::policy::Value;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Paragraph, Row};
use ratatui::Frame;

/// Job `name`'s value of the policy column's `key`, as the column shows
/// it: YARN's memory in GB, its dominant share in percent.
fn policy_value(app: &App, key: Option<&str>, name: &str) -> String {
    let Some(x) = key.and_then(|k| app.pane().values.jobs.get(name)?.get(k)) else {
        return String::new();
    };
    match (key, x) {
        (Some("fair_share_mb"), Value::Int(mb)) => {
            format!("{} GB", super::queues::gb(*mb, true))
        }
        (Some("dominant_share"), Value::Num(f)) => format!("{:.0}%", f * 100.0),
        (_, Value::Int(i)) => i.to_string(),
        (_, Value::Num(f)) => {
            if f.fract() == 0.0 {
                format!("{f:.0}")
            } else {
                format!("{f:.2}")
            }
        }
        (_, Value::Text(s)) => s.clone(),
        (_, Value::Null) => "-".into(),
        (_, other) => crate::report::trace::value_json(other).to_string(),
    }
}

/// What the policy column's header means, for the legend.
fn value_meaning(label: &str) -> Option<&'static str> {
    Some(match label {
        "order" => "order = the policy's queue order",
        "share" => "share = fair share, containers",
        "share m" => "share m = fair share of map slots",
        "x*" => "x* = most pending maps at which the reduces may start (< 0: not yet)",
        "prio" => "prio = priority value",
        "missed" => "missed = missed locality opportunities",
        "fair sh" => "fair sh = its fair share of its queue's memory",
        "dom sh" => "dom sh = its largest share of memory or vcores",
        _ => return None,
    })
}

/// The columns, most needed first: on a narrow screen the last ones that
/// do not fit are left out rather than cut.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Col {
    Mark,
    Name,
    State,
    Maps,
    Reds,
    Pool,
    /// Shown when some job's priority is not normal.
    Prio,
    Progress,
    Value,
    Submitted,
    Finished,
}

pub fn render(app: &App, f: &mut Frame, area: Rect) {
    let order = job_rows(app);
    let cols = Columns::fitting(app, &order, area.width.saturating_sub(2) as usize);
    let block = super::panel(title(app, &order, area.width as usize));
    let inner = block.inner(area);
    f.render_widget(block, area);
    let [table_a, legend_a] =
        Layout::vertical([Constraint::Min(1), Constraint::Length(1)]).areas(inner);
    let rows_h = table_a.height.saturating_sub(1) as usize;
    let first = jobs_page(app, rows_h, order.len());
    let mut hits = app.hits.borrow_mut();
    let rows: Vec<Row> = order
        .iter()
        .skip(first)
        .take(rows_h)
        .enumerate()
        .map(|(i, &(j, st))| {
            hits.push(Hit {
                area: Rect::new(table_a.x, table_a.y + 1 + i as u16, table_a.width, 1),
                target: Target::Job(j),
            });
            cols.row(app, j, st)
        })
        .collect();
    let header = cols.header(app, table_a, &mut hits);
    drop(hits);
    let widths: Vec<Constraint> = cols
        .cols
        .iter()
        .map(|&c| Constraint::Length(cols.width(c) as u16))
        .collect();
    let table = ratatui::widgets::Table::new(rows, widths)
        .header(Row::new(header).style(theme::title()))
        .column_spacing(1);
    f.render_widget(table, table_a);
    let legend = legend(&cols, first, rows_h, order.len(), inner.width as usize);
    f.render_widget(
        Paragraph::new(Line::from(Span::styled(legend, theme::dim()))),
        legend_a,
    );
}

/// The Jobs list's first row shown, `rows` rows high over `len` jobs,
/// kept as the frame's page for scrolling.
pub fn jobs_page(app: &App, rows: usize, len: usize) -> usize {
    let max = len.saturating_sub(rows);
    let first = app.jobs_row.min(max);
    let mut pages = app.pages.get();
    pages.jobs = Page {
        first,
        rows: rows.max(1),
        max,
    };
    app.pages.set(pages);
    first
}

/// The panel's title: the jobs by state, the order and the filter; counts
/// of nothing give way first when it is too long for `width`.
fn title(app: &App, order: &[(JobId, JobState)], width: usize) -> String {
    let not_yet = app
        .sim()
        .view()
        .jobs()
        .iter()
        .filter(|j| !j.arrived)
        .count();
    let n = |s: JobState| order.iter().filter(|(_, x)| *x == s).count();
    let filter = match &app.overlay {
        Overlay::Filter { draft } => Some(format!("/{draft}▏")),
        _ if !app.jobs_filter.is_empty() => Some(format!("/{}", app.jobs_filter)),
        _ => None,
    };
    // Killed jobs ended without finishing: counted apart from the done,
    // as the header counts them.
    let killed = order
        .iter()
        .filter(|&&(j, x)| x == JobState::Done && app.sim().view().job(j).killed)
        .count();
    let mut parts = vec![
        format!("{} running", n(JobState::Running)),
        format!("{} queued", n(JobState::Queued)),
        format!("{} waiting", n(JobState::Waiting)),
        format!("{} done", n(JobState::Done) - killed),
        format!("{not_yet} not yet submitted"),
    ];
    if killed > 0 {
        parts.insert(4, format!("{killed} killed"));
    }
    // Jobs in their set-up or clean-up, when there are any.
    for (s, label) in [
        (JobState::SetUp, "set-up"),
        (JobState::Finishing, "clean-up"),
    ] {
        if n(s) > 0 {
            parts.insert(3, format!("{} {label}", n(s)));
        }
    }
    let sort = format!(
        "by {}{}",
        match app.jobs_sort {
            crate::tui::app::Sort::Pool => app.pool_word(),
            s => s.label(),
        },
        if app.jobs_reversed { ", reversed" } else { "" }
    );
    let title = |parts: &[String]| {
        let mut t = format!(" Jobs: {} · {sort}", parts.join(" · "));
        if let Some(fl) = &filter {
            t.push_str(&format!(" · filter {fl}"));
        }
        t.push(' ');
        t
    };
    while title(&parts).chars().count() + 2 > width {
        match parts.iter().rposition(|p| p.starts_with("0 ")) {
            Some(i) => {
                parts.remove(i);
            }
            None if parts.len() > 1 => {
                parts.pop();
            }
            None => break,
        }
    }
    fit(&title(&parts), width.saturating_sub(2))
}

/// The columns shown and their widths.
struct Columns {
    cols: Vec<Col>,
    name_w: usize,
    bar_w: usize,
    pool_w: usize,
    /// The policy column's header (its value's name), and the key of the
    /// policy's values it shows.
    value_label: &'static str,
    value_key: Option<&'static str>,
    state_w: usize,
    /// The column the rows are sorted by, whose header carries the mark.
    sorted: Option<Col>,
    /// "pool", or "queue" on YARN.
    pool_word: &'static str,
}

impl Columns {
    /// The columns for a table `inner_w` wide: the least needed left out
    /// until the rest fit whole.
    fn fitting(app: &App, order: &[(JobId, JobState)], inner_w: usize) -> Columns {
        let w = app.sim().view();
        let wide = inner_w >= 108;
        let pool_w: usize = w
            .pools()
            .iter()
            .map(|p| p.name.chars().count())
            .max()
            .unwrap_or(4)
            .clamp(4, if wide { 12 } else { 10 });
        let key = value_key(&app.pane().values);
        let has = |j: JobId| {
            key.is_some_and(|(k, _)| {
                app.pane()
                    .values
                    .jobs
                    .get(&*w.job(j).name)
                    .is_some_and(|v| v.contains_key(k))
            })
        };
        let value_label = match key {
            Some((_, label)) if order.iter().any(|&(j, _)| has(j)) => label,
            _ => "policy",
        };
        let mut c = Columns {
            cols: vec![
                Col::Mark,
                Col::Name,
                Col::Pool,
                Col::State,
                Col::Maps,
                Col::Reds,
                Col::Progress,
            ],
            name_w: if wide { 24 } else { 16 },
            bar_w: if wide { 16 } else { 8 },
            pool_w,
            value_label,
            value_key: key.map(|(k, _)| k),
            state_w: if wide { 13 } else { 11 },
            sorted: None,
            pool_word: app.pool_word(),
        };
        c.sorted = c
            .cols
            .iter()
            .copied()
            .find(|&x| sort_of(x) == Some(app.jobs_sort));
        if wide {
            c.cols.push(Col::Submitted);
            c.cols.push(Col::Finished);
        }
        c.cols.push(Col::Value);
        let w = app.sim().view();
        if order
            .iter()
            .any(|&(j, _)| w.job(j).priority != crate::model::Priority::Normal)
        {
            let at = c.cols.iter().position(|&x| x == Col::State).unwrap_or(2);
            c.cols.insert(at, Col::Prio);
        }
        for drop in [
            Col::Finished,
            Col::Submitted,
            Col::Prio,
            Col::Value,
            Col::Progress,
            Col::Pool,
            Col::Reds,
        ] {
            let total: usize = c.cols.iter().map(|&x| c.width(x) + 1).sum();
            if total <= inner_w + 1 {
                break;
            }
            c.cols.retain(|&x| x != drop);
        }
        c
    }

    /// A column's width: its widest value, and for the sorted column room
    /// for its header and the sort mark (so sorting never cuts a header).
    fn width(&self, c: Col) -> usize {
        let header = if Some(c) == self.sorted {
            self.name(c).chars().count() + 1
        } else {
            0
        };
        self.value_width(c).max(header)
    }

    fn value_width(&self, c: Col) -> usize {
        match c {
            Col::Mark => 1,
            Col::Name => self.name_w,
            // "killed 599.9s" where there is room; else the state's word
            // alone when its time does not fit (see `state_cell`).
            Col::State => self.state_w,
            Col::Maps => 10,
            Col::Reds => 10,
            Col::Pool => self.pool_w,
            Col::Prio => 6,
            Col::Progress => self.bar_w,
            Col::Value => self.value_label.chars().count().max(6),
            Col::Submitted | Col::Finished => 10,
        }
    }

    /// Job `j`'s row, in state `st`; the selected one marked `▶`.
    fn row(&self, app: &App, j: JobId, st: JobState) -> Row<'static> {
        let w = app.sim().view();
        let job = w.job(j);
        let selected = app.sel_job == Some(j);
        let cells: Vec<Cell> = self
            .cols
            .iter()
            .map(|c| match c {
                Col::Mark => Cell::from(Span::styled(
                    if selected { "▶" } else { "■" },
                    Style::default().fg(theme::job_color(j)),
                )),
                Col::Name => Cell::from(fit_mid(&job.name, self.name_w)),
                Col::Pool => Cell::from(fit_mid(w.pool_name(j), self.pool_w)),
                Col::Prio => Cell::from(priority_word(job.priority)),
                Col::State => state_cell(app, j, st, self.state_w),
                Col::Maps => Cell::from(format!(
                    "{}/{}/{}",
                    job.maps_done, job.maps_running, job.maps_pending
                )),
                Col::Reds => Cell::from(format!(
                    "{}/{}/{}",
                    job.reduces_done, job.reduces_running, job.reduces_pending
                )),
                Col::Progress => Cell::from(bar(job_progress(job), self.bar_w)),
                Col::Submitted => Cell::from(clock(job.submit)),
                Col::Finished => Cell::from(job.finished_at.map(clock).unwrap_or_default()),
                Col::Value => Cell::from(policy_value(app, self.value_key, &job.name)),
            })
            .collect();
        let row = Row::new(cells);
        if selected {
            row.style(theme::cursor())
        } else {
            row
        }
    }

    /// A column's header.
    fn name(&self, c: Col) -> &'static str {
        match c {
            Col::Mark => "",
            Col::Name => "job",
            Col::Pool => self.pool_word,
            Col::Prio => "prio",
            Col::State => "state",
            Col::Maps => "maps d/r/p",
            Col::Reds => "reds d/r/p",
            Col::Progress => "progress",
            Col::Submitted => "submitted",
            Col::Finished => "finished",
            Col::Value => self.value_label,
        }
    }

    /// The header: each sorts by its column when clicked (a hit in
    /// `table_a`'s first line); the sorted one is marked ▾ (▴ reversed).
    fn header(&self, app: &App, table_a: Rect, hits: &mut Vec<Hit>) -> Vec<String> {
        let mut x = table_a.x;
        self.cols
            .iter()
            .map(|&c| {
                let name = self.name(c);
                let width = self.width(c) as u16;
                if let Some(s) = sort_of(c) {
                    hits.push(Hit {
                        area: Rect::new(
                            x,
                            table_a.y,
                            width.min(table_a.right().saturating_sub(x)),
                            1,
                        ),
                        target: Target::Sort(s),
                    });
                }
                x = x.saturating_add(width + 1);
                match sort_of(c) {
                    Some(s) if s == app.jobs_sort => {
                        let mark = if app.jobs_reversed { '▴' } else { '▾' };
                        fit(&format!("{name}{mark}"), self.width(c))
                    }
                    _ => name.to_string(),
                }
            })
            .collect()
    }
}

/// The state column: running, queued, ..., or done (killed) and its
/// turnaround.
fn state_cell(app: &App, j: JobId, st: JobState, width: usize) -> Cell<'static> {
    let w = app.sim().view();
    let job = w.job(j);
    let (mut text, style) = match st {
        JobState::Running => ("running".to_string(), Style::default().fg(theme::OK)),
        JobState::Queued => ("queued".to_string(), Style::default()),
        JobState::Waiting => ("waiting".to_string(), Style::default()),
        JobState::SetUp => ("set-up".to_string(), Style::default()),
        JobState::Finishing => ("clean-up".to_string(), Style::default()),
        JobState::Done => (
            format!(
                "{} {}",
                if job.killed { "killed" } else { "done" },
                dur(job
                    .finished_at
                    .unwrap_or(w.now())
                    .saturating_sub(job.submit))
            ),
            theme::dim(),
        ),
    };
    // Never a cut word: a time that does not fit goes, the word stays.
    if text.chars().count() > width {
        text.truncate(text.find(' ').unwrap_or(text.len()));
    }
    Cell::from(Span::styled(text, style))
}

/// A priority in six characters at most: `v.high`, `high`, `normal`,
/// `low`, `v.low`.
fn priority_word(p: crate::model::Priority) -> &'static str {
    use crate::model::Priority::*;
    match p {
        VeryHigh => "v.high",
        High => "high",
        Normal => "normal",
        Low => "low",
        VeryLow => "v.low",
    }
}

/// The order a column's header sorts by; none for the mark.
fn sort_of(c: Col) -> Option<Sort> {
    match c {
        Col::Mark => None,
        Col::Name => Some(Sort::Name),
        Col::Pool => Some(Sort::Pool),
        Col::Prio => None,
        Col::State => Some(Sort::State),
        Col::Maps => Some(Sort::Maps),
        Col::Reds => Some(Sort::Reds),
        Col::Progress => Some(Sort::Progress),
        Col::Submitted => Some(Sort::Submitted),
        Col::Finished => Some(Sort::Finished),
        Col::Value => Some(Sort::Value),
    }
}

/// The legend: what the headers stand for, and what is scrolled away;
/// as many of its parts as fit in `width`.
fn legend(cols: &Columns, first: usize, rows_h: usize, len: usize, width: usize) -> String {
    let mut legend = vec!["d/r/p = done/running/pending".to_string()];
    let note = super::scroll_note(first, rows_h, len);
    if let Some(note) = &note {
        legend.push(note.trim().to_string());
    }
    if cols.cols.contains(&Col::Value) {
        if let Some(m) = value_meaning(cols.value_label) {
            legend.push(m.to_string());
        }
    }
    if note.is_none() {
        legend.push("↑↓ select · enter tasks · / filter · o order · click a header to sort".into());
    }
    let mut text = String::new();
    for l in legend {
        let add = if text.is_empty() {
            l
        } else {
            format!(" · {l}")
        };
        if text.chars().count() + add.chars().count() <= width {
            text.push_str(&add);
        }
    }
    text
}

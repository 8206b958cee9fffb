//! The inspector (`i`): what the policy computed at a heartbeat, and the
//! release-rate chart (OMO Fig. 7).

use super::super::super::app::{clock, count, App, Page, Pages, INSPECT_RING};
use super::super::queues::reservation_text;
use super::super::theme;
use super::super::{fit, fit_mid};
use super::{centered, frame_block};
use crate::sched::omo::{mean_abs_error_pct, policy_windows, release_windows};
use crate::sched::yarn::show;
use crate::sim::jobtask::JobTaskKind;
use crate::sim::policy::{Value, Values};
use crate::sim::InspectRecord;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};
use ratatui::Frame;
use std::collections::BTreeMap;

/// A value as the inspector shows it: whole numbers without decimals,
/// others with two; lists and maps in JSON's compact form.
pub fn value_str(v: &Value) -> String {
    match v {
        Value::Int(i) => i.to_string(),
        Value::Num(x) => {
            if x.fract() == 0.0 && x.abs() < 1e12 {
                format!("{x:.0}")
            } else {
                format!("{x:.2}")
            }
        }
        Value::Text(s) => s.clone(),
        Value::Null => "-".into(),
        other => crate::report::trace::value_json(other).to_string(),
    }
}

/// A key's full header: the papers' symbols as they write them (`T_m`,
/// `F_e`, `x*`, `β`), other keys with spaces for underscores.
fn full_name(key: &str) -> String {
    match key {
        "x_star" => "x*".into(),
        "beta" => "β".into(),
        "t_fair" | "t_batch" => key.into(),
        k if k.chars().any(|c| c.is_ascii_uppercase()) => k.into(),
        k => k.replace('_', " "),
    }
}

/// Short column headers for the inspection keys policies use.
fn short(key: &str) -> String {
    // The papers' symbols first, then abbreviations.
    key.replace("pending_maps", "m'")
        .replace("reduce_started", "started")
        .replace("fair_share", "fs")
        .replace("demand", "dem")
        .replace("running", "run")
        .replace("_map", " m")
        .replace("_reduce", " r")
        .replace("locality_level", "level")
        .replace("waited_s", "wait s")
        .replace("x_star", "x*")
        .replace("beta", "β")
        .replace("_pct", " %")
        .replace("missed_opportunities", "missed")
        .replace("_containers", " c")
        .replace("_factor", " f")
}

/// What a paper symbol or terse key means, for the legend (and the help).
pub fn meaning(key: &str) -> Option<&'static str> {
    Some(match key {
        "T_m" => "mean map time, s",
        "T_s" => "last reduce's shuffle time, s",
        "F_e" => "release rate the job would see, containers/s",
        "F_o" => "observed release rate, containers/s",
        "A_o" => "available containers",
        "D" => "jobs running",
        "x_star" => "most pending maps at which its reduces may start (< 0: not yet)",
        "beta" => "shuffle end − map end if its reduces start now, s (< 0: not yet)",
        "t_fair" => "map-stage time under fair sharing, s",
        "t_batch" => "time to serve the others if its maps go first, s",
        "pending_maps" => "pending maps",
        _ => return None,
    })
}

/// Keys whose negative values mean "not yet" (start the reduces later).
fn not_yet(key: &str, v: &Value) -> bool {
    matches!(key, "x_star" | "beta") && v.as_f64().is_some_and(|x| x < 0.0)
}

/// A value's cell: its text, and "not yet" after a negative `x*` or `β`.
fn cell_str(key: &str, v: &Value) -> String {
    if not_yet(key, v) {
        format!("{} not yet", value_str(v))
    } else {
        value_str(v)
    }
}

/// A cell's width in a column capped at `cap`: the value's text is what
/// the cap cuts, never the " not yet" after it (a cut `-212.31 not y…`
/// says nothing).
fn cell_width(key: &str, v: &Value, cap: usize) -> usize {
    let text = value_str(v).chars().count().min(cap);
    if not_yet(key, v) {
        text + " not yet".len()
    } else {
        text
    }
}

/// The rows of an inspection table in the order the policy walks them: by
/// its `order` value when it reports one (fifo, hybsmrp), else by name.
fn ordered(rows: &BTreeMap<String, Values>) -> Vec<(&String, &Values)> {
    let mut v: Vec<(&String, &Values)> = rows.iter().collect();
    let order = |x: &Values| {
        x.get("order")
            .and_then(|o| o.as_f64())
            .unwrap_or(f64::INFINITY)
    };
    if v.iter().any(|(_, x)| x.contains_key("order")) {
        v.sort_by(|a, b| order(a.1).total_cmp(&order(b.1)));
    }
    v
}

/// A values table as laid out for one width: the name column's width and
/// each value column's header and width (as wide as its header and its
/// widest value, so nothing is cut that fits).
struct Cols {
    keys: Vec<String>,
    heads: Vec<String>,
    widths: Vec<usize>,
    name_w: usize,
    /// Spaces before each value column.
    gap: usize,
    /// First and one-past-last value column shown.
    shown: (usize, usize),
    /// Largest first column that still shows every column after it.
    max_first: usize,
}

/// The longest cell a value column takes before values are cut.
const MAX_COL_W: usize = 14;

impl Cols {
    /// `max_gap`: at most this many spaces between columns (so two tables
    /// one above the other can line up).
    fn new(
        title: &str,
        rows: &[(&String, &Values)],
        width: usize,
        first_col: usize,
        max_gap: usize,
    ) -> Cols {
        let mut keys: Vec<String> = Vec::new();
        for (_, v) in rows {
            for k in v.keys() {
                if !keys.iter().any(|x| x == k) {
                    keys.push(k.to_string());
                }
            }
        }
        let name_max = rows
            .iter()
            .map(|(n, _)| n.chars().count())
            .fold(title.chars().count(), usize::max);
        let cap = if width >= 110 { 28 } else { 20 };
        // Full names (underscores as spaces) when every column fits so.
        let full: Vec<String> = keys.iter().map(|k| full_name(k)).collect();
        let col_w = |heads: &[String]| -> Vec<usize> {
            keys.iter()
                .zip(heads)
                .map(|(k, h)| {
                    let cap = MAX_COL_W.max(h.chars().count());
                    rows.iter()
                        .filter_map(|(_, v)| v.get(k))
                        .map(|v| cell_width(k, v, cap))
                        .fold(h.chars().count(), usize::max)
                })
                .collect()
        };
        let full_w = col_w(&full);
        for gap in [2, 1].into_iter().filter(|&g| g <= max_gap) {
            let all: usize = full_w.iter().map(|w| w + gap).sum();
            if name_max.min(cap) + all <= width {
                let n = keys.len();
                return Cols {
                    keys,
                    heads: full,
                    widths: full_w,
                    name_w: name_max.min(cap),
                    gap,
                    shown: (0, n),
                    max_first: 0,
                };
            }
        }
        let heads: Vec<String> = keys.iter().map(|k| short(k)).collect();
        let widths: Vec<usize> = keys
            .iter()
            .zip(&heads)
            .map(|(k, h)| {
                rows.iter()
                    .filter_map(|(_, v)| v.get(k))
                    .map(|v| cell_width(k, v, MAX_COL_W))
                    .fold(h.chars().count(), usize::max)
            })
            .collect();
        let n = keys.len();
        let wide_name = name_max.min(cap);
        for gap in [2, 1].into_iter().filter(|&g| g <= max_gap) {
            let all: usize = widths.iter().map(|w| w + gap).sum();
            if wide_name + all <= width {
                return Cols {
                    keys,
                    heads,
                    widths,
                    name_w: wide_name,
                    gap,
                    shown: (0, n),
                    max_first: 0,
                };
            }
        }
        // Every column still fits if names are cut (in the middle) a bit.
        let all: usize = widths.iter().map(|w| w + 1).sum();
        if width >= all + name_max.min(12) && max_gap >= 1 {
            return Cols {
                keys,
                heads,
                widths,
                name_w: width - all,
                gap: 1,
                shown: (0, n),
                max_first: 0,
            };
        }
        // Not everything fits: a narrower name column, the columns from
        // `first_col` that fit, and room for the "  ◂+N cols▸" marker.
        let name_w = name_max.min(14);
        let room = width.saturating_sub(name_w + 11);
        let fits_from = |f: usize| {
            let mut used = 0;
            let mut end = f;
            while end < n && used + widths[end] < room {
                used += widths[end] + 1;
                end += 1;
            }
            end
        };
        let max_first = (0..n)
            .find(|&f| fits_from(f) == n)
            .unwrap_or(n.saturating_sub(1));
        let first = first_col.min(max_first);
        let end = fits_from(first).max((first + 1).min(n));
        Cols {
            keys,
            heads,
            widths,
            name_w,
            gap: 1,
            shown: (first, end),
            max_first,
        }
    }

    /// What the abbreviated headers and the symbols of the columns shown
    /// stand for: `fs m = fair share map`, `T_m = mean map time, s`.
    fn abbreviations(&self) -> Vec<String> {
        let (first, end) = self.shown;
        self.keys[first..end]
            .iter()
            .zip(&self.heads[first..end])
            .filter_map(|(k, h)| match meaning(k) {
                Some(m) if m != h => Some(format!("{h} = {m}")),
                Some(_) => None,
                None if full_name(k) != *h => Some(format!("{h} = {}", full_name(k))),
                None => None,
            })
            .collect()
    }

    fn hidden(&self) -> usize {
        self.keys.len() - (self.shown.1 - self.shown.0)
    }

    fn header(&self, title: &str) -> Line<'static> {
        let mut head = format!("{:<w$}", fit(title, self.name_w), w = self.name_w);
        for c in self.shown.0..self.shown.1 {
            let w = self.widths[c];
            let g = " ".repeat(self.gap);
            head.push_str(&format!("{g}{:>w$}", fit(&self.heads[c], w)));
        }
        let mut spans = vec![Span::styled(
            head,
            Style::default().add_modifier(Modifier::BOLD),
        )];
        if self.hidden() > 0 {
            let left = if self.shown.0 > 0 { "◂" } else { "" };
            let right = if self.shown.1 < self.keys.len() {
                "▸"
            } else {
                ""
            };
            spans.push(Span::styled(
                format!("  {left}+{}{right}", count(self.hidden() as u64, "col")),
                theme::dim(),
            ));
        }
        Line::from(spans)
    }

    fn row(&self, name: &str, vals: &Values, style: Style) -> Line<'static> {
        let mut row = format!("{:<w$}", fit_mid(name, self.name_w), w = self.name_w);
        for c in self.shown.0..self.shown.1 {
            let w = self.widths[c];
            let k = &self.keys[c];
            // A long value is cut, never the " not yet" after it.
            let v = match vals.get(k) {
                Some(v) if not_yet(k, v) => {
                    let room = w.saturating_sub(" not yet".len());
                    format!("{} not yet", fit(&value_str(v), room))
                }
                Some(v) => fit(&cell_str(k, v), w),
                None => String::new(),
            };
            let g = " ".repeat(self.gap);
            row.push_str(&format!("{g}{v:>w$}"));
        }
        Line::from(Span::styled(row, style))
    }
}

/// `items` joined by `sep` after `label`, wrapped to `width` on at most
/// `max_lines` lines; what does not fit is counted at the end.
fn wrapped(
    label: &str,
    items: &[String],
    sep: &str,
    width: usize,
    max_lines: usize,
) -> Vec<Line<'static>> {
    let indent = label.chars().count();
    let room = width.saturating_sub(indent);
    let mut out: Vec<String> = vec![String::new()];
    for (i, it) in items.iter().enumerate() {
        let full = out.len() >= max_lines;
        let cur = out.last_mut().expect("one line");
        let add = if cur.is_empty() {
            it.clone()
        } else {
            format!("{sep}{it}")
        };
        if cur.is_empty() || cur.chars().count() + add.chars().count() <= room {
            cur.push_str(&add);
        } else if !full {
            out.push(it.clone());
        } else {
            let more = format!("{sep}… +{} more", items.len() - i);
            let keep = room.saturating_sub(more.chars().count());
            *cur = fit(cur, keep) + &more;
            break;
        }
    }
    out.into_iter()
        .enumerate()
        .map(|(i, text)| {
            let lead = if i == 0 {
                Span::styled(label.to_string(), theme::title())
            } else {
                Span::raw(" ".repeat(indent))
            };
            Line::from(vec![lead, Span::raw(fit(&text, room))])
        })
        .collect()
}

pub fn inspector(app: &App, f: &mut Frame, state: (usize, usize, usize, bool)) {
    let (back, row, col, follow) = state;
    let a = f.area();
    let area = centered(f, a.width.saturating_sub(4), a.height.saturating_sub(2));
    f.render_widget(Clear, area);
    // The release-rate chart: OMO's own predictor whenever it fits; the
    // passive monitor under other policies only on tall screens, where it
    // does not squeeze the policy's own tables.
    let min_h = if policy_windows(app.sim().policy()).is_some() {
        20
    } else {
        30
    };
    let chart_h = if area.height >= min_h { 9 } else { 0 };
    let [text_area, chart_area] =
        Layout::vertical([Constraint::Min(3), Constraint::Length(chart_h)]).areas(area);
    let inner_w = text_area.width.saturating_sub(2) as usize;
    let inner_h = text_area.height.saturating_sub(2) as usize;
    let mut pages = app.pages.get();
    let (title, lines) = match app.inspection(back) {
        None => no_heartbeat(app),
        Some((r, n)) => {
            let title = heartbeat_title(&r, n, back, text_area.width as usize);
            let mut lines = summary_lines(app, &r, inner_w);
            let tables = Tables {
                pools: ordered(&r.inspection.pools),
                jobs: ordered(&r.inspection.jobs),
            };
            tables.draw(
                &mut lines,
                &r,
                (inner_w, inner_h),
                (row, col, follow),
                &mut pages,
            );
            (title, lines)
        }
    };
    app.pages.set(pages);
    f.render_widget(Paragraph::new(lines).block(frame_block(title)), text_area);
    if chart_h > 0 {
        release_chart(app, f, chart_area);
    }
}

/// The title and text before the selected node has asked for work.
fn no_heartbeat(app: &App) -> (String, Vec<Line<'static>>) {
    let title = format!(" Inspector: node {} ", app.sel_node);
    let lines = vec![
        Line::from(format!(
            "No heartbeat of node {} has asked the policy for work yet.",
            app.sel_node
        )),
        Line::from(Span::styled(
            "Let the run go on (space), step one heartbeat (.) while paused, or select another node (esc, then ←/→ or a click in the Overview or Cluster view).",
            theme::dim(),
        )),
    ];
    (title, lines)
}

/// The title for heartbeat `back` from the newest of `n` kept: the
/// longest that fits `width`. Counted forward in time: 1/N is the oldest
/// heartbeat kept, N/N the newest (← older, → newer).
fn heartbeat_title(r: &InspectRecord, n: usize, back: usize, width: usize) -> String {
    let shown = n - back.min(n - 1);
    let policy = fit_mid(&r.policy, 24);
    let at = clock(r.t);
    // Heartbeats of a full node ask the policy nothing (Hadoop's
    // askForNewTask), so they are not counted here: the title says so
    // where it fits.
    let candidates = [
        format!(
            " Inspector: node {}'s heartbeat {shown}/{n} at {at} · {policy} · ← older → newer (last {INSPECT_RING} that asked for work; a full node asks nothing) ",
            r.node
        ),
        format!(
            " Inspector: node {}'s heartbeat {shown}/{n} at {at} · {policy} · ← older → newer (last {INSPECT_RING} that asked for work) ",
            r.node
        ),
        format!(
            " Inspector: node {}'s heartbeat {shown}/{n} at {at} · {policy} · ← older → newer (last {INSPECT_RING} kept) ",
            r.node
        ),
        format!(
            " Inspector: node {}'s heartbeat {shown}/{n} at {at} · {policy} · ← older → newer ",
            r.node
        ),
        format!(" Inspector: node {} heartbeat {shown}/{n} at {at} · {policy} ", r.node),
        format!(" node {} {at} · {shown}/{n} ", r.node),
    ];
    candidates
        .iter()
        .find(|t| t.chars().count() + 2 <= width)
        .unwrap_or(&candidates[2])
        .clone()
}

/// The heartbeat's cluster values, what it assigned and by which rule,
/// what runs on the node now, and a blank line.
fn summary_lines(app: &App, r: &InspectRecord, width: usize) -> Vec<Line<'static>> {
    let mut lines: Vec<Line> = Vec::new();
    // A full node's heartbeats ask for no work, so the newest kept may be
    // long past: say why the inspector stays on it.
    let w = app.sim().view();
    let n = &w.cluster().nodes[r.node as usize];
    if n.alive && r.t < w.now() && !n.admits_any(&w.cluster().capacity) {
        lines.extend(wrapped(
            "full     ",
            &[format!(
                "node {} has no room now, so its heartbeats ask the policy for nothing (Hadoop's askForNewTask): this view moves on when a task there ends",
                r.node
            )],
            "",
            width,
            2,
        ));
    }
    if !r.inspection.cluster.is_empty() {
        let c: Vec<String> = r
            .inspection
            .cluster
            .iter()
            .filter(|(k, _)| !show::is_reservations_key(k))
            .map(|(k, v)| format!("{k} = {}", value_str(v)))
            .collect();
        lines.extend(wrapped("cluster  ", &c, "   ", width, 2));
    }
    // YARN: each reserved node with the application holding it.
    let held: Vec<String> = show::reservations(&r.inspection)
        .iter()
        .map(reservation_text)
        .collect();
    if !held.is_empty() {
        lines.extend(wrapped("reserved ", &held, ", ", width, 2));
    }
    let assigned: Vec<String> = r
        .assigned
        .iter()
        .zip(&r.rules)
        .map(|(a, rule)| format!("{a} ({rule})"))
        .collect();
    if assigned.is_empty() {
        lines.push(Line::from(vec![
            Span::styled("assigned ", theme::title()),
            Span::raw("nothing"),
        ]));
    } else {
        lines.extend(wrapped("assigned ", &assigned, ", ", width, 2));
    }
    lines.extend(running_now(app, r.node, width));
    lines.push(Line::from(""));
    lines
}

/// The policy's tables of a heartbeat: its pools and its jobs, by row.
struct Tables<'a> {
    pools: Vec<(&'a String, &'a Values)>,
    jobs: Vec<(&'a String, &'a Values)>,
}

impl Tables<'_> {
    /// The legend of abbreviated headers, the pools (a third of the room
    /// at most) and the jobs (the rest, scrolled to `row`, or to the jobs
    /// the heartbeat assigned with `follow`), from column `col` on; the
    /// pages scrolled set in `pages`.
    fn draw(
        &self,
        lines: &mut Vec<Line<'static>>,
        r: &InspectRecord,
        (width, height): (usize, usize),
        (row, col, follow): (usize, usize, bool),
        pages: &mut Pages,
    ) {
        let budget = height.saturating_sub(lines.len());
        let job_cols = Cols::new("job", &self.jobs, width, col, 2);
        let pool_cols = Cols::new("pool", &self.pools, width, col, job_cols.gap);
        // A legend line for the abbreviated headers of both tables.
        let mut abbrev: Vec<String> = r
            .inspection
            .cluster
            .keys()
            .filter_map(|k| meaning(k).map(|m| format!("{k} = {m}")))
            .collect();
        abbrev.extend(pool_cols.abbreviations());
        for a in job_cols.abbreviations() {
            if !abbrev.contains(&a) {
                abbrev.push(a);
            }
        }
        // Wrapped at entries; two lines at most on a short screen.
        // As many lines as the room the tables leave (2 at least).
        let tables = self.jobs.len()
            + 1
            + if self.pools.is_empty() {
                0
            } else {
                self.pools.len() + 2
            };
        let max_lines = height.saturating_sub(lines.len() + tables).clamp(2, 6);
        lines.extend(legend(&abbrev, max_lines, width));
        if !self.pools.is_empty() {
            self.pool_rows(lines, &pool_cols, budget);
        }
        if self.jobs.is_empty() {
            lines.push(Line::from(Span::styled("no running jobs", theme::dim())));
        } else {
            pages.inspector_cols = Page {
                first: job_cols.shown.0,
                rows: job_cols.shown.1 - job_cols.shown.0,
                max: job_cols.max_first,
            };
            let assigned: Vec<&str> = r
                .assigned
                .iter()
                .map(|a| a.rsplit_once('/').map_or(a.as_str(), |(j, _)| j))
                .collect();
            pages.inspector_rows =
                self.job_rows(lines, &job_cols, height, (row, follow), &assigned);
        }
    }

    /// The pools' table: a third of `budget` lines at most, then a blank
    /// line.
    fn pool_rows(&self, lines: &mut Vec<Line<'static>>, cols: &Cols, budget: usize) {
        let shown = self.pools.len().min((budget / 3).max(1));
        lines.push(cols.header("pool"));
        for (name, v) in self.pools.iter().take(shown) {
            lines.push(cols.row(name, v, Style::default()));
        }
        if self.pools.len() > shown {
            lines.push(Line::from(Span::styled(
                format!(
                    "… {}",
                    count((self.pools.len() - shown) as u64, "more pool")
                ),
                theme::dim(),
            )));
        }
        lines.push(Line::from(""));
    }

    /// The jobs' table in the lines left of `height`: every row, or as
    /// many as fit above a line saying what is scrolled out of view; the
    /// `assigned` jobs highlighted (and, with `follow`, scrolled to).
    /// Returns the page shown.
    fn job_rows(
        &self,
        lines: &mut Vec<Line<'static>>,
        cols: &Cols,
        height: usize,
        (row, follow): (usize, bool),
        assigned: &[&str],
    ) -> Page {
        let jobs = &self.jobs;
        let room = height.saturating_sub(lines.len() + 1).max(1);
        let rows = if jobs.len() <= room {
            jobs.len()
        } else {
            room.saturating_sub(1).max(1)
        };
        let max = jobs.len() - rows;
        let mut first = row.min(max);
        if follow {
            let pos = jobs
                .iter()
                .position(|(n, _)| assigned.contains(&n.as_str()));
            if let Some(pos) = pos {
                if pos < first {
                    first = pos;
                } else if pos >= first + rows {
                    first = pos + 1 - rows;
                }
            }
        }
        lines.push(cols.header("job"));
        for (name, v) in jobs.iter().skip(first).take(rows) {
            let style = if assigned.contains(&name.as_str()) {
                Style::default().fg(theme::ACCENT)
            } else {
                Style::default()
            };
            lines.push(cols.row(name, v, style));
        }
        let below = jobs.len() - first - rows;
        if first > 0 || below > 0 {
            let mut m = Vec::new();
            if first > 0 {
                m.push(format!("↑ {first} above"));
            }
            if below > 0 {
                m.push(format!("↓ {below} below"));
            }
            lines.push(Line::from(Span::styled(
                format!("{} · ↑↓ scroll", m.join(" · ")),
                theme::dim(),
            )));
        }
        Page { first, rows, max }
    }
}

/// The abbreviations' legend: wrapped at entries into at most
/// `max_lines` lines `width` wide, the last saying there is more under ?
/// when they do not all fit.
fn legend(abbrev: &[String], max_lines: usize, width: usize) -> Vec<Line<'static>> {
    let mut legend: Vec<String> = Vec::new();
    for a in abbrev {
        match legend.last_mut() {
            Some(l) if l.chars().count() + 3 + a.chars().count() <= width => {
                l.push_str(" · ");
                l.push_str(a);
            }
            _ => legend.push(a.clone()),
        }
    }
    if legend.len() > max_lines {
        legend.truncate(max_lines);
        let last = legend.last_mut().expect("at least one line");
        let more = " · more under ?";
        *last = format!(
            "{}{more}",
            fit(last, width.saturating_sub(more.chars().count()))
        );
    }
    legend
        .into_iter()
        .map(|l| Line::from(Span::styled(fit(&l, width), theme::dim())))
        .collect()
}

/// What runs on `node` now, each attempt's phase and what it moves.
fn running_now(app: &App, node: u32, width: usize) -> Vec<Line<'static>> {
    let w = app.sim().view();
    let n = &w.cluster().nodes[node as usize];
    // YARN: the ApplicationMasters the node holds first, with their state.
    let ams = w
        .job_tasks()
        .iter()
        .filter(|t| t.kind == JobTaskKind::Am && t.end.is_none() && t.node == node)
        .map(|t| {
            let state = show::am_state(w, t.job, true);
            format!("{}/AM {}", w.job(t.job).name, state.as_str())
        });
    let attempts = n.lanes.iter().flatten().map(|&a| {
        let at = &w.attempts()[a as usize];
        let p = if at.kind == crate::sim::Kind::Map {
            'm'
        } else {
            'r'
        };
        let rate = w
            .transfer_rate(a)
            .map_or(String::new(), |r| format!(" {r:.0} MB/s"));
        format!(
            "{}/{p}{} {}{rate}",
            w.job(at.job).name,
            at.task,
            at.phase.as_str()
        )
    });
    let items: Vec<String> = ams.chain(attempts).collect();
    if items.is_empty() {
        return vec![Line::from(vec![
            Span::styled("now      ", theme::title()),
            Span::raw(format!("node {node} runs nothing")),
        ])];
    }
    wrapped("now      ", &items, ", ", width, 2)
}

/// OMO Fig. 7: the container release rate the predictor observed in each
/// window (f_t) against what it had forecast for it (F_e).
fn release_chart(app: &App, f: &mut Frame, area: Rect) {
    use ratatui::symbols::Marker;
    use ratatui::widgets::{Axis, Chart, Dataset, GraphType};
    let hist = release_windows(app.sim());
    let observed: Vec<(f64, f64)> = hist.iter().map(|w| (w.start_s, w.observed)).collect();
    let estimated: Vec<(f64, f64)> = hist
        .iter()
        .filter_map(|w| w.estimated.map(|e| (w.start_s, e)))
        .collect();
    let x_min = hist.first().map_or(0.0, |w| w.start_s);
    let x_max = hist.last().map_or(1.0, |w| w.start_s).max(x_min + 1.0);
    let y_max = observed
        .iter()
        .chain(&estimated)
        .map(|p| p.1)
        .fold(0.1f64, f64::max)
        * 1.1;
    // No colours: the lines are told apart by their dots.
    let (obs_marker, obs_key) = if app.mono {
        (Marker::Dot, "•• observed f_t")
    } else {
        (Marker::Braille, "── observed f_t")
    };
    let datasets = vec![
        Dataset::default()
            .name("observed f_t")
            .marker(obs_marker)
            .graph_type(GraphType::Line)
            .style(Style::default().fg(theme::OK))
            .data(&observed),
        Dataset::default()
            .name("estimated F_e")
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(Style::default().fg(theme::WARN))
            .data(&estimated),
    ];
    let err = mean_abs_error_pct(hist).map_or("-".to_string(), |e| format!("{e:.1}%"));
    // The legend is in the title, in the lines' colours, so it never sits
    // on the data.
    // OMO's own predictor, or the same predictor only watching the run
    // under another policy (which decides without it).
    let whose = if policy_windows(app.sim().policy()).is_some() {
        " Release rate per window (OMO Fig. 7) · ".to_string()
    } else {
        format!(
            " Release rate per window (OMO's predictor, watching {}) · ",
            app.sim().policy_label()
        )
    };
    let title = Line::from(vec![
        Span::styled(whose, theme::title()),
        Span::styled(obs_key, Style::default().fg(theme::OK)),
        Span::styled(" · ", theme::title()),
        Span::styled(
            if app.mono {
                "⣀⣀ estimated F_e"
            } else {
                "── estimated F_e"
            },
            Style::default().fg(theme::WARN),
        ),
        Span::styled(format!(" · mean abs. error {err} "), theme::title()),
    ]);
    let chart = Chart::new(datasets)
        .legend_position(None)
        .block(
            ratatui::widgets::Block::default()
                .borders(ratatui::widgets::Borders::ALL)
                .border_style(Style::default().fg(theme::ACCENT))
                .title(title),
        )
        .x_axis(
            Axis::default()
                .bounds([x_min, x_max])
                .labels(vec![
                    Span::raw(format!("{x_min:.0}s")),
                    Span::raw(format!("{x_max:.0}s")),
                ])
                .style(theme::dim()),
        )
        .y_axis(
            Axis::default()
                .bounds([0.0, y_max])
                .labels(vec![Span::raw("0"), Span::raw(format!("{y_max:.1}/s"))])
                .style(theme::dim()),
        );
    f.render_widget(chart, area);
}

//! Drawing a state. `render` lays out the header, the current view, the
//! log and the footer, then any overlay on top; each piece is its own module.

mod cluster;
mod jobs;
mod network;
mod overlays;
mod overview;
mod pools;
mod queues;
mod side;
mod slot;
mod timeline;
mod yarn_nodes;

use super::app::{clock, count, App, Hit, Overlay, Target, View};
use super::theme;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};
use ratatui::Frame;

pub use timeline::{step_for as timeline_step, tick_label};

pub fn render(app: &App, f: &mut Frame) {
    let area = f.area();
    // Clickable places are recorded afresh by each frame.
    app.hits.borrow_mut().clear();
    let log_h = match area.height {
        h if h >= 30 => 7,
        h if h >= 16 => 4,
        _ => 3,
    };
    let head = header_lines(app, area.width as usize);
    let [header, mut body, mut log, footer] = Layout::vertical([
        Constraint::Length(head.len() as u16),
        Constraint::Min(5),
        Constraint::Length(log_h),
        Constraint::Length(1),
    ])
    .areas(area);
    // A small cluster's Overview and Cluster view are as tall as what they
    // hold; the log takes the rows they leave.
    let fits = match app.view {
        _ if app.is_side_by_side() => None,
        View::Overview => overview::height(app, body.width, body.height),
        View::Cluster => cluster::height(app, body),
        _ => None,
    };
    if let Some(h) = fits {
        let spare = body.height - h;
        body.height = h;
        log.y -= spare;
        log.height += spare;
    }
    f.render_widget(Paragraph::new(head), header);
    let draw: fn(&App, &mut Frame, Rect) = match app.view {
        View::Overview => overview::render,
        View::Cluster => cluster::render,
        View::Jobs => jobs::render,
        View::Pools => pools::render,
        View::Timeline => timeline::render,
        View::Network => network::render,
    };
    match app.view {
        _ if !app.is_side_by_side() => draw(app, f, body),
        View::Overview => side::render_overview(app, f, body, draw),
        v if side::across(v) => side::render_jobs(app, f, body),
        _ => side::render_panes(app, f, body, draw),
    }
    render_log(app, f, log);
    // The help scrolls when its lines and frame do not fit the screen.
    let help_scrolls = matches!(app.overlay, Overlay::Help) && overlays::help_scrolls(app, area);
    render_footer(app, f, footer, help_scrolls);
    match &app.overlay {
        Overlay::None => {}
        Overlay::Picker { selected } => overlays::picker(app, f, *selected),
        Overlay::Submit(form) => overlays::submit(app, f, form),
        Overlay::Inspector {
            back,
            row,
            col,
            follow,
        } => overlays::inspector(app, f, (*back, *row, *col, *follow)),
        Overlay::Help => overlays::help(app, f),
        Overlay::Detail { job, row } => overlays::detail(app, f, *job, *row),
        Overlay::Filter { .. } => {}
        Overlay::ConfirmKill { job } => overlays::confirm_kill(app, f, *job),
        Overlay::MovePool { job, selected } => overlays::move_pool(app, f, *job, *selected),
        Overlay::Log { query, row } => overlays::log(app, f, query, *row),
    }
}

/// The header's run state: finished, paused or running.
fn state_span(finished: bool, paused: bool, at_until: bool) -> Span<'static> {
    if finished {
        Span::styled("■ finished", Style::default().fg(theme::OK))
    } else if at_until {
        Span::styled("■ stopped at --until", Style::default().fg(theme::WARN))
    } else if paused {
        Span::styled(
            "‖ paused",
            Style::default()
                .fg(theme::WARN)
                .add_modifier(Modifier::BOLD),
        )
    } else {
        Span::styled("▶ running", Style::default().fg(theme::OK))
    }
}

/// The header's lines: everything the contract names (`policy: NAME`, the
/// clock, the speed, running/paused, `jobs: F/S`) always shows. A long
/// policy label is cut in the middle first; the heartbeat count and the
/// view tabs show when there is room; below about 60 columns the header
/// takes two lines.
fn header_lines(app: &App, width: usize) -> Vec<Line<'static>> {
    if app.is_side_by_side() {
        return side_header(app, width);
    }
    let w = app.sim().view();
    let state = state_span(app.sim().is_finished(), app.paused, app.at_until());
    let sep = || Span::styled(" │ ", theme::dim());
    let label = app.sim().policy_label().to_string();
    // Killed jobs ended but did not finish: counted apart.
    let killed = w.jobs().iter().filter(|j| j.killed).count();
    let jobs = match killed {
        0 => format!("jobs: {}/{}", w.finished_jobs(), w.submitted_jobs()),
        k => format!(
            "jobs: {}/{} ({k} killed)",
            w.jobs().iter().filter(|j| j.is_done() && !j.killed).count(),
            w.submitted_jobs()
        ),
    };
    let hb = format!("hb {}", w.heartbeats());
    let len = |spans: &[Span]| -> usize { spans.iter().map(|s| s.content.chars().count()).sum() };
    let speed = |got: bool| {
        if got {
            app.speed_label()
        } else {
            app.speed_asked()
        }
    };
    let build = |label: String, with_hb: bool, got: bool| -> Vec<Span<'static>> {
        let mut v = vec![
            Span::styled(" policy: ", theme::dim()),
            Span::styled(label, theme::title()),
            sep(),
            Span::raw(clock(w.now())),
            sep(),
            Span::raw(speed(got)),
            sep(),
            state.clone(),
            sep(),
            Span::raw(jobs.clone()),
        ];
        if with_hb {
            v.push(sep());
            v.push(Span::raw(hb.clone()));
        }
        v
    };
    // The speed kept goes before the heartbeat count and after the
    // label's middle; the asked speed always stays.
    let base = |got: bool| len(&build(String::new(), false, got));
    let label_w = label.chars().count();
    let mut spans = if base(true) + label_w + 3 + hb.chars().count() <= width {
        build(label, true, true)
    } else if base(true) + label_w <= width {
        build(label, false, true)
    } else if base(false) + label_w <= width {
        build(label, false, false)
    } else if base(true) + 24 <= width {
        build(fit_mid(&label, width - base(true)), false, true)
    } else if base(false) + 8 <= width {
        build(fit_mid(&label, width - base(false)), false, false)
    } else {
        // Two lines: policy and state, then clock, speed and jobs.
        let room = width.saturating_sub(9 + 3 + state.content.chars().count());
        let first = vec![
            Span::styled(" policy: ", theme::dim()),
            Span::styled(fit_mid(&label, room.max(4)), theme::title()),
            sep(),
            state,
        ];
        let got = 1 + clock(w.now()).len() + 3 + speed(true).chars().count() + 3 + jobs.len();
        let second = vec![
            Span::raw(format!(" {}", clock(w.now()))),
            sep(),
            Span::raw(speed(got <= width)),
            sep(),
            Span::raw(jobs),
        ];
        return vec![Line::from(first), Line::from(second)];
    };
    // View tabs on the right when there is room, else the view's name.
    let used = len(&spans);
    let tabs: Vec<Span> = View::ALL
        .iter()
        .flat_map(|v| {
            let style = if *v == app.view {
                theme::selected()
            } else {
                theme::dim()
            };
            [Span::raw(" "), Span::styled(app.view_name(*v), style)]
        })
        .collect();
    let tabs_w = len(&tabs);
    if used + tabs_w < width {
        let mut x = (width - tabs_w) as u16;
        let mut hits = app.hits.borrow_mut();
        for (i, v) in View::ALL.iter().enumerate() {
            let n = app.view_name(*v).len() as u16;
            hits.push(Hit {
                area: Rect::new(x + 1, 0, n, 1),
                target: Target::View(i),
            });
            x += n + 1;
        }
        spans.push(Span::raw(" ".repeat(width - used - tabs_w)));
        spans.extend(tabs);
    } else if used + app.view_name(app.view).len() + 3 <= width {
        spans.push(sep());
        spans.push(Span::styled(app.view_name(app.view), theme::title()));
    }
    vec![Line::from(spans)]
}

/// The header side by side: the one clock, the speed and the state, then
/// a line of the runs, each with its policy and jobs.
fn side_header(app: &App, width: usize) -> Vec<Line<'static>> {
    let state = state_span(app.all_finished(), app.paused, app.at_until());
    let sep = || Span::styled(" │ ", theme::dim());
    let now = app.now();
    let n = app.panes().len();
    let mut spans = vec![
        Span::styled(format!(" {n} runs side by side"), theme::title()),
        sep(),
        Span::raw(clock(now)),
        sep(),
        Span::raw(app.speed_label()),
        sep(),
        state,
    ];
    let len = |spans: &[Span]| -> usize { spans.iter().map(|s| s.content.chars().count()).sum() };
    if len(&spans) > width {
        spans[0] = Span::styled(format!(" {n} runs"), theme::title());
        spans[4] = Span::raw(app.speed_asked());
    }
    let used = len(&spans);
    if used + app.view_name(app.view).len() + 3 <= width {
        spans.push(sep());
        spans.push(Span::styled(app.view_name(app.view), theme::title()));
    }
    vec![Line::from(spans), side::runs_line(app, width)]
}

fn render_log(app: &App, f: &mut Frame, area: Rect) {
    let n = area.height.saturating_sub(1) as usize;
    let mut lines: Vec<Line> = Vec::new();
    let status = app.status.as_ref();
    let ending = app
        .sim()
        .is_finished()
        .then(|| run_ending(app.sim().view()));
    // A scenario's caption ([[notes]]) while it holds.
    let note = app.scenario.note_at(app.sim().view().now());
    let take = n.saturating_sub(
        usize::from(status.is_some()) + usize::from(ending.is_some()) + usize::from(note.is_some()),
    );
    for (t, text) in app.log_lines(take) {
        lines.push(Line::from(vec![
            Span::styled(format!("{} ", clock(t)), theme::dim()),
            Span::raw(text),
        ]));
    }
    // Rows the log does not fill yet say what is to come: the next
    // submissions, then what the scenario is.
    lines.extend(ahead(app, take.saturating_sub(lines.len())));
    // Once the run is over its outcome stays on screen, under the log.
    if let Some(text) = ending {
        lines.push(Line::from(vec![
            Span::styled(format!("{} ", clock(app.sim().view().now())), theme::dim()),
            Span::styled(text, Style::default().fg(theme::OK)),
        ]));
    }
    if let Some(note) = note {
        lines.push(Line::from(vec![
            Span::styled(" note ", theme::key()),
            Span::styled(
                format!(" {}", note.text),
                Style::default().add_modifier(Modifier::BOLD),
            ),
        ]));
    }
    if let Some(s) = status {
        lines.push(Line::from(Span::styled(
            format!("» {s}"),
            Style::default().fg(theme::ACCENT),
        )));
    }
    let title = if app.is_side_by_side() {
        format!(
            " log · run {} {} ",
            app.focus() + 1,
            app.sim().policy_label()
        )
    } else {
        " log ".to_string()
    };
    let block = Block::default()
        .borders(Borders::TOP)
        .title(Span::styled(title, theme::dim()))
        .border_style(theme::dim());
    f.render_widget(Paragraph::new(lines).block(block), area);
}

/// Up to `rows` dim lines of what is ahead while the log is short: the
/// jobs still to be submitted, in order, then the scenario's description
/// and size.
fn ahead(app: &App, rows: usize) -> Vec<Line<'static>> {
    if rows == 0 {
        return Vec::new();
    }
    let w = app.sim().view();
    let now = w.now();
    let sc = &app.scenario;
    let mut about = Vec::new();
    if !sc.description.trim().is_empty() {
        about.push(format!("{}: {}", sc.name, sc.description.trim()));
    }
    about.push(format!(
        "{} on {} in {}; {} to run, seed {}",
        sc.name,
        count(w.cluster().nodes.len() as u64, "node"),
        count(w.cluster().racks.len() as u64, "rack"),
        count(sc.jobs.len() as u64, "job"),
        sc.seed
    ));
    let word = app.pool_word();
    // The scenario's jobs are in submit order: those to come are a tail.
    let coming = &sc.jobs[sc.jobs.partition_point(|j| j.submit <= now)..];
    let room = rows.saturating_sub(about.len() + 1);
    let mut out = Vec::new();
    for j in coming.iter().take(room) {
        out.push(Line::from(Span::styled(
            format!(
                "{} to come: {} ({}, {}, {word} {})",
                clock(j.submit),
                j.name,
                count(j.maps.into(), "map"),
                count(j.reduces.into(), "reduce"),
                j.pool
            ),
            theme::dim(),
        )));
    }
    if coming.len() > room && room > 0 {
        let more = coming.len() - room + 1;
        out.pop();
        out.push(Line::from(Span::styled(
            format!(
                "… and {more} more {} to come",
                if more == 1 { "job" } else { "jobs" }
            ),
            theme::dim(),
        )));
    }
    if rows > out.len() + about.len() {
        out.push(Line::from(""));
    }
    for a in about {
        if out.len() < rows {
            out.push(Line::from(Span::styled(a, theme::dim())));
        }
    }
    out
}

/// The run's outcome in one line: makespan (first submission to last
/// finish), mean turnaround and node-local maps, as the summary gives them.
fn run_ending(w: crate::sim::RunView<'_>) -> String {
    let finished: Vec<(u64, u64)> = w
        .jobs()
        .iter()
        .filter_map(|j| j.finished_at.map(|f| (j.submit, f)))
        .collect();
    let start = w.metrics().start.unwrap_or(0);
    let makespan = finished.iter().map(|&(_, f)| f).max().unwrap_or(start) - start;
    // Killed jobs count in the makespan, not in the turnaround.
    let done: Vec<(u64, u64)> = w
        .jobs()
        .iter()
        .filter(|j| !j.killed)
        .filter_map(|j| j.finished_at.map(|f| (j.submit, f)))
        .collect();
    let mean = done.iter().map(|&(s, f)| (f - s) as f64).sum::<f64>() / done.len().max(1) as f64;
    let maps: u64 = w.metrics().locality.iter().sum();
    let node = 100.0 * w.metrics().locality[0] as f64 / maps.max(1) as f64;
    format!(
        "■ done: makespan {:.1} s · mean turnaround {:.1} s · node-local {node:.1} %",
        makespan as f64 / 1000.0,
        mean / 1000.0
    )
}

/// The footer: the keys that work where you are. Each has a rank: 0
/// always shows (`? help`, `q quit`, `esc`), higher ranks give way first
/// when the line is too narrow, after the labels have shrunk to one word.
fn render_footer(app: &App, f: &mut Frame, area: Rect, help_scrolls: bool) {
    let (keys, tight) = fit_keys(footer_keys(app, help_scrolls), area.width as usize);
    let mut spans = Vec::new();
    for (k, v, _) in keys {
        if tight {
            spans.push(Span::styled(k.to_string(), theme::key()));
            spans.push(Span::raw(format!(" {} ", first_word(v))));
        } else {
            spans.push(Span::styled(format!(" {k} "), theme::key()));
            spans.push(Span::raw(format!(" {v} ")));
        }
    }
    f.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// A footer key: the key, what it does, and its rank (0 always shows).
type FooterKey = (&'static str, &'static str, u8);

/// The keys that work where you are, with their ranks.
fn footer_keys(app: &App, help_scrolls: bool) -> Vec<FooterKey> {
    // Scrolling keys where the view has more rows than it shows (drawn
    // just before the footer, so its page is this frame's).
    let p = app.pages.get();
    let scroll = match app.view {
        View::Timeline => p.timeline.max > 0,
        View::Jobs => p.jobs.max > 0,
        View::Cluster => p.cluster.max > 0,
        View::Overview | View::Pools | View::Network => false,
    };
    let sel_jobs = matches!(app.view, View::Overview | View::Jobs);
    let sel_nodes = matches!(app.view, View::Overview | View::Cluster);
    // Paused, space resumes.
    let space = if app.paused { "resume" } else { "pause" };
    match &app.overlay {
        Overlay::None => [
            ("space", space, 1),
            (".", "step", 5),
            ("+/-", "speed", 6),
            ("tab", "view", 2),
            ("1-6", "views", 9),
            ("↑↓", "select", if sel_jobs { 5 } else { 99 }),
            ("←→", "node", if sel_nodes { 5 } else { 99 }),
            ("↑↓", "rack", if app.view == View::Cluster { 5 } else { 99 }),
            ("enter", "tasks", if sel_jobs { 6 } else { 99 }),
            ("/", "filter", if app.view == View::Jobs { 6 } else { 99 }),
            ("o", "order", if app.view == View::Jobs { 7 } else { 99 }),
            ("K", "kill", if sel_jobs { 8 } else { 99 }),
            ("<>", "priority", if sel_jobs { 9 } else { 99 }),
            ("m", "move", if sel_jobs { 9 } else { 99 }),
            ("l", "log", 8),
            ("f/r", "fail/recover", if sel_nodes { 7 } else { 99 }),
            ("↑↓", "scroll", if scroll && !sel_jobs { 7 } else { 99 }),
            ("PgUp/PgDn", "page", if scroll { 8 } else { 99 }),
            ("n", "next run", if app.is_side_by_side() { 2 } else { 99 }),
            ("p", "policy", 3),
            ("s", "submit", 4),
            ("i", "inspect", 4),
            ("?", "help", 0),
            ("q", "quit", 0),
        ]
        .into_iter()
        .filter(|k| k.2 != 99)
        .collect(),
        Overlay::Picker { .. } => vec![
            ("↑↓/jk", "choose", 1),
            ("enter", "switch now", 1),
            ("esc", "cancel", 0),
            ("q", "quit", 2),
        ],
        Overlay::Submit(_) => vec![
            ("tab/↑↓", "field", 2),
            ("←→", "choose", 3),
            ("type", "edit", 4),
            ("enter", "submit", 1),
            ("esc", "cancel", 0),
        ],
        Overlay::Inspector { .. } => vec![
            ("space", space, 3),
            ("←→", "older/newer (paused)", 2),
            (".", "step", 4),
            ("↑↓", "jobs", 5),
            ("[ ]", "columns", 5),
            ("+/-", "speed", 6),
            ("?", "help", 6),
            ("esc", "close", 0),
            ("q", "quit", 1),
        ],
        Overlay::Detail { .. } => vec![
            ("↑↓/PgUp/PgDn", "scroll", 1),
            ("space", "pause", 2),
            ("esc", "close", 0),
            ("q", "quit", 1),
        ],
        Overlay::ConfirmKill { .. } => vec![("y", "kill", 0), ("n/esc", "keep", 0)],
        Overlay::Log { .. } => vec![
            ("type", "search", 2),
            ("↑↓/PgUp/PgDn", "scroll", 1),
            ("esc", "close", 0),
        ],
        Overlay::MovePool { .. } => vec![
            ("↑↓/jk", "choose", 1),
            ("enter", "move now", 1),
            ("esc", "cancel", 0),
        ],
        Overlay::Filter { .. } => vec![
            ("type", "job or pool", 2),
            ("enter", "keep", 1),
            ("esc", "clear", 0),
        ],
        Overlay::Help => vec![
            ("↑↓", "scroll", if help_scrolls { 1 } else { 99 }),
            ("esc/?", "close", 0),
            ("q", "quit", 0),
        ]
        .into_iter()
        .filter(|k| k.2 != 99)
        .collect(),
    }
}

/// The keys that fit `width`: spaced out with full labels, leaving out the
/// extras (rank 7 and up) if that is what it takes; else tight, one word
/// each, dropping the highest ranks first. True when tight.
fn fit_keys(keys: Vec<FooterKey>, width: usize) -> (Vec<FooterKey>, bool) {
    let full = |ks: &[FooterKey]| -> usize {
        ks.iter()
            .map(|(k, v, _)| k.chars().count() + v.chars().count() + 4)
            .sum()
    };
    let mut keys = keys;
    let mut spaced = keys.clone();
    while full(&spaced) > width {
        match spaced.iter().rposition(|k| k.2 >= 7) {
            Some(i) => {
                spaced.remove(i);
            }
            None => break,
        }
    }
    let tight = full(&spaced) > width;
    if !tight {
        keys = spaced;
    }
    if tight {
        let narrow = |ks: &[FooterKey]| -> usize {
            ks.iter()
                .map(|(k, v, _)| k.chars().count() + first_word(v).chars().count() + 2)
                .sum()
        };
        while narrow(&keys) > width {
            let Some(worst) = keys.iter().map(|k| k.2).max().filter(|&r| r > 0) else {
                break;
            };
            let i = keys.iter().rposition(|k| k.2 == worst).expect("present");
            keys.remove(i);
        }
    }
    (keys, tight)
}

fn first_word(v: &str) -> &str {
    v.split(['/', ' ']).next().unwrap_or(v)
}

/// The frame every view sits in: a dim border and a title.
pub fn panel(title: impl Into<String>) -> Block<'static> {
    Block::default()
        .borders(Borders::ALL)
        .border_style(theme::dim())
        .title(Span::styled(title.into(), theme::title()))
}

/// A view's table: bold header row, one space between columns, in a panel.
pub fn table<'a>(
    rows: Vec<ratatui::widgets::Row<'a>>,
    widths: Vec<Constraint>,
    header: ratatui::widgets::Row<'a>,
    block: Block<'a>,
) -> ratatui::widgets::Table<'a> {
    ratatui::widgets::Table::new(rows, widths)
        .header(header.style(Style::default().add_modifier(Modifier::BOLD)))
        .column_spacing(1)
        .block(block)
}

/// What a scrolled list hides, for its panel's bottom border:
/// ` ↑ 3 above · ↓ 5 below · ↑↓ PgUp PgDn `, or nothing when all shows.
pub fn scroll_note(first: usize, rows: usize, len: usize) -> Option<String> {
    let below = len.saturating_sub(first + rows);
    if first == 0 && below == 0 {
        return None;
    }
    let mut parts = Vec::new();
    if first > 0 {
        parts.push(format!("↑ {first} above"));
    }
    if below > 0 {
        parts.push(format!("↓ {below} below"));
    }
    Some(format!(" {} · ↑↓ PgUp PgDn ", parts.join(" · ")))
}

/// A text progress bar of `width` cells.
pub fn bar(frac: f64, width: usize) -> String {
    let frac = if frac.is_finite() {
        frac.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let mut full = (frac * width as f64).round() as usize;
    if frac < 1.0 {
        // Full only when done.
        full = full.min(width.saturating_sub(1));
    }
    format!("{}{}", "█".repeat(full), "░".repeat(width - full))
}

/// Shortens to `w` characters by cutting the middle, so the end, where
/// similar names differ, stays: `classification-10g` → `classif…-10g`. The
/// part from the last `-`, `_`, `.`, `/` or `[` is kept whole when it takes
/// at most half the room, else head and tail get half each.
pub fn fit_mid(s: &str, w: usize) -> String {
    let chars: Vec<char> = s.chars().collect();
    let n = chars.len();
    if n <= w {
        return s.to_string();
    }
    if w < 3 {
        return fit(s, w);
    }
    let room = w - 1;
    let suffix = chars
        .iter()
        .rposition(|c| matches!(c, '-' | '_' | '.' | '/' | '['))
        .map(|i| n - i);
    let tail = match suffix {
        Some(k) if k <= room / 2 => k,
        _ => room / 2,
    };
    let head = room - tail;
    let mut t: String = chars[..head].iter().collect();
    t.push('…');
    t.extend(&chars[n - tail..]);
    t
}

/// `text`'s ` · `-separated items on lines of at most `width` characters
/// (an item longer than that on a line of its own, cut where it is drawn),
/// each line after the first starting with a space as the first does.
pub fn wrap_items(text: &str, width: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for item in text.trim_start().split(" · ") {
        match out.last_mut() {
            Some(l) if l.chars().count() + 3 + item.chars().count() <= width => {
                l.push_str(" · ");
                l.push_str(item);
            }
            _ => out.push(format!(" {item}")),
        }
    }
    out
}

/// Truncates to `w` characters, marking the cut.
pub fn fit(s: &str, w: usize) -> String {
    if s.chars().count() <= w {
        s.to_string()
    } else if w == 0 {
        String::new()
    } else {
        let mut t: String = s.chars().take(w - 1).collect();
        t.push('…');
        t
    }
}

/// The first of `candidates` that fits a panel `width` wide (its border
/// corners aside), else the last one cut.
pub fn first_fit(candidates: &[String], width: u16) -> String {
    let room = (width as usize).saturating_sub(2);
    candidates
        .iter()
        .find(|c| c.chars().count() <= room)
        .cloned()
        .unwrap_or_else(|| fit(candidates.last().map_or("", |c| c.as_str()), room))
}

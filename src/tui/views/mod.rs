//! Drawing a state. `render` lays out the header, the current view, the
//! log and the footer, then any overlay on top; each piece is its own module.

mod cluster;
mod jobs;
mod overlays;
mod pools;
mod timeline;

use super::app::{clock, App, Overlay, View};
use super::theme;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};
use ratatui::Frame;

pub use timeline::step_ms as timeline_step;

pub fn render(app: &App, f: &mut Frame) {
    let area = f.area();
    let log_h = if area.height >= 30 { 7 } else { 4 };
    let [header, body, log, footer] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(5),
        Constraint::Length(log_h),
        Constraint::Length(1),
    ])
    .areas(area);
    render_header(app, f, header);
    match app.view {
        View::Cluster => cluster::render(app, f, body),
        View::Jobs => jobs::render(app, f, body),
        View::Pools => pools::render(app, f, body),
        View::Timeline => timeline::render(app, f, body),
    }
    render_log(app, f, log);
    render_footer(app, f, footer);
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
        Overlay::Help => overlays::help(f),
    }
}

fn render_header(app: &App, f: &mut Frame, area: Rect) {
    let w = &app.sim.w;
    let state = if app.sim.is_finished() {
        Span::styled("■ finished", Style::default().fg(theme::OK))
    } else if app.paused {
        Span::styled(
            "‖ paused",
            Style::default()
                .fg(theme::WARN)
                .add_modifier(Modifier::BOLD),
        )
    } else {
        Span::styled("▶ running", Style::default().fg(theme::OK))
    };
    let sep = || Span::styled(" │ ", theme::dim());
    let mut spans = vec![
        Span::styled(" policy: ", theme::dim()),
        Span::styled(app.sim.policy_label().to_string(), theme::title()),
        sep(),
        Span::raw(clock(w.now)),
        sep(),
        Span::raw(app.speed_label()),
        sep(),
        state,
        sep(),
        Span::raw(format!(
            "jobs: {}/{}",
            w.finished_jobs(),
            w.submitted_jobs()
        )),
        sep(),
        Span::raw(format!("hb {}", w.heartbeats)),
    ];
    // View tabs on the right when there is room.
    let used: usize = spans.iter().map(|s| s.content.chars().count()).sum();
    let tabs: Vec<Span> = View::ALL
        .iter()
        .flat_map(|v| {
            let style = if *v == app.view {
                theme::selected()
            } else {
                theme::dim()
            };
            [Span::raw(" "), Span::styled(v.name(), style)]
        })
        .collect();
    let tabs_w: usize = tabs.iter().map(|s| s.content.chars().count()).sum();
    if used + tabs_w < area.width as usize {
        let pad = area.width as usize - used - tabs_w;
        spans.push(Span::raw(" ".repeat(pad)));
        spans.extend(tabs);
    } else if used + app.view.name().len() + 3 <= area.width as usize {
        spans.push(sep());
        spans.push(Span::styled(app.view.name(), theme::title()));
    }
    f.render_widget(Paragraph::new(Line::from(spans)), area);
}

fn render_log(app: &App, f: &mut Frame, area: Rect) {
    let n = area.height.saturating_sub(1) as usize;
    let mut lines: Vec<Line> = Vec::new();
    let status = app.status.as_ref();
    let take = n.saturating_sub(usize::from(status.is_some()));
    for (t, text) in app.log_lines(take) {
        lines.push(Line::from(vec![
            Span::styled(format!("{} ", clock(t)), theme::dim()),
            Span::raw(text),
        ]));
    }
    if let Some(s) = status {
        lines.push(Line::from(Span::styled(
            format!("» {s}"),
            Style::default().fg(theme::ACCENT),
        )));
    }
    let block = Block::default()
        .borders(Borders::TOP)
        .title(Span::styled(" log ", theme::dim()))
        .border_style(theme::dim());
    f.render_widget(Paragraph::new(lines).block(block), area);
}

fn render_footer(app: &App, f: &mut Frame, area: Rect) {
    let keys: &[(&str, &str)] = match &app.overlay {
        Overlay::None if matches!(app.view, View::Timeline | View::Jobs) => &[
            ("space", "pause"),
            (".", "step"),
            ("+/-", "speed"),
            ("tab", "view"),
            ("↑↓", "scroll"),
            ("p", "policy"),
            ("s", "submit"),
            ("i", "inspect"),
            ("?", "help"),
            ("q", "quit"),
        ],
        Overlay::None => &[
            ("space", "pause"),
            (".", "step"),
            ("+/-", "speed"),
            ("tab", "view"),
            ("p", "policy"),
            ("s", "submit"),
            ("i", "inspect"),
            ("?", "help"),
            ("q", "quit"),
        ],
        Overlay::Picker { .. } => &[
            ("↑↓/jk", "choose"),
            ("enter", "switch now"),
            ("esc", "cancel"),
        ],
        Overlay::Submit(_) => &[
            ("tab/↑↓", "field"),
            ("←→", "choose"),
            ("type", "edit"),
            ("enter", "submit"),
            ("esc", "cancel"),
        ],
        Overlay::Inspector { .. } => &[
            ("space", "pause"),
            ("←→", "older/newer (paused)"),
            (".", "step"),
            ("↑↓", "jobs"),
            ("[ ]", "columns"),
            ("esc", "close"),
        ],
        Overlay::Help => &[("esc/?", "close"), ("q", "quit")],
    };
    // Full labels when they fit; else the first word of each, tighter.
    let full: usize = keys
        .iter()
        .map(|(k, v)| k.chars().count() + v.chars().count() + 4)
        .sum();
    let tight = full > area.width as usize;
    let mut keys: Vec<(&'static str, &'static str)> = keys.to_vec();
    if tight {
        // Still too wide: drop the keys a newcomer needs least, so that
        // `? help` and `q quit` always show.
        let width = |ks: &[(&'static str, &'static str)]| -> usize {
            ks.iter()
                .map(|(k, v)| k.chars().count() + first_word(v).chars().count() + 2)
                .sum()
        };
        for drop in ["↑↓", "+/-", "."] {
            if width(&keys) <= area.width as usize {
                break;
            }
            keys.retain(|(k, _)| *k != drop);
        }
    }
    let mut spans = Vec::new();
    for (k, v) in keys {
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

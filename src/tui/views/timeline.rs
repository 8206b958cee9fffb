//! The Timeline view: a Gantt of slots over time like OMO's Fig. 9 (one row
//! per slot, maps, shuffles and reduces as coloured spans, dead nodes as
//! `✗`, policy switches marked), scrollable, with utilisation and
//! queue-length sparklines on the same columns. The scale fits the run so
//! far: the whole run is always in view, at the finest "nice" step that
//! fits, whatever the playback speed.

use super::super::app::{App, Page};
use super::super::theme;
use super::fit;
use crate::model::Ms;
use crate::sim::Kind;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Sparkline};
use ratatui::Frame;

const SWITCH: Color = Color::Rgb(0xea, 0xb3, 0x08);
/// Row labels (`n12  m0 `) and the sparklines' labels.
const LABEL_W: usize = 9;

const SEC: Ms = 1000;
const MIN: Ms = 60 * SEC;
const HOUR: Ms = 60 * MIN;
/// Column steps and tick spacings to choose from.
const NICE: [Ms; 19] = [
    SEC,
    2 * SEC,
    5 * SEC,
    10 * SEC,
    15 * SEC,
    30 * SEC,
    MIN,
    2 * MIN,
    5 * MIN,
    10 * MIN,
    15 * MIN,
    30 * MIN,
    HOUR,
    2 * HOUR,
    3 * HOUR,
    6 * HOUR,
    12 * HOUR,
    24 * HOUR,
    48 * HOUR,
];

/// The finest nice step at which `0..=now` fits in `cols` columns.
pub fn step_for(now: Ms, cols: usize) -> Ms {
    let cols = cols.max(1) as Ms;
    NICE.iter()
        .copied()
        .find(|&s| now / s < cols)
        .unwrap_or_else(|| {
            // Beyond two days: whole days.
            (now / cols / (24 * HOUR) + 1) * 24 * HOUR
        })
}

/// Axis ticks: the first nice spacing, a multiple of `step`, at least
/// ten columns apart.
fn tick_for(step: Ms) -> Ms {
    NICE.iter()
        .copied()
        .find(|&t| t >= 10 * step && t % step == 0)
        .unwrap_or(10 * step)
}

/// `0`, `30s`, `5m`, `1h30`, `2h`.
pub fn tick_label(ms: Ms) -> String {
    let s = ms / SEC;
    match (s / 3600, s / 60 % 60, s % 60) {
        (0, 0, s) => format!("{s}s"),
        (0, m, 0) => format!("{m}m"),
        (0, m, s) => format!("{m}m{s:02}"),
        (h, 0, _) => format!("{h}h"),
        (h, m, _) => format!("{h}h{m:02}"),
    }
}

pub fn render(app: &App, f: &mut Frame, area: Rect) {
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme::dim());
    let inner = block.inner(area);
    let w = app.sim().view();
    let ix = &app.pane().index;
    let cols = (inner.width as usize).saturating_sub(LABEL_W);
    let step = step_for(w.now(), cols);
    let title = if app.mono {
        let col = tick_label(step);
        let dead = theme::DEAD;
        super::first_fit(
            &[
                format!(" Timeline: 1 column = {col} · A map a reduce (shuffle underlined) {dead} dead · ▼ policy switch "),
                format!(" Timeline: 1 column = {col} · A map a reduce {dead} dead · ▼ policy switch "),
            ],
            area.width,
        )
    } else {
        let am = if crate::tui::index::RunIndex::has_am_lane(w) {
            format!("{} AM ", theme::AM)
        } else {
            String::new()
        };
        super::first_fit(
            &[
                format!(
                    " Timeline: 1 column = {} · {am}{} map {} shuffle {} reduce {} dead · ▼ policy switch ",
                    tick_label(step),
                    theme::MAP,
                    theme::SHUFFLE,
                    theme::REDUCE,
                    theme::DEAD
                ),
                format!(
                    " Timeline: 1 column = {} · {am}{} map {} shuffle {} reduce {} dead ",
                    tick_label(step),
                    theme::MAP,
                    theme::SHUFFLE,
                    theme::REDUCE,
                    theme::DEAD
                ),
            ],
            area.width,
        )
    };
    let [gantt, spark] = Layout::vertical([Constraint::Min(2), Constraint::Length(2)]).areas(inner);
    let lanes = ix.lanes.len();
    // No colours: a line under the rows names the jobs' letters.
    let rows_h = (gantt.height as usize).saturating_sub(1 + usize::from(app.mono));
    let max = lanes.saturating_sub(rows_h);
    let first = app.timeline_row.min(max);
    let mut pages = app.pages.get();
    pages.timeline = Page {
        first,
        rows: rows_h.max(1),
        max,
    };
    app.pages.set(pages);
    let mut block = block.title(Span::styled(title, theme::title()));
    if let Some(note) = super::scroll_note(first, rows_h, lanes) {
        block = block.title_bottom(Span::styled(note, theme::dim()));
    }
    f.render_widget(block, area);

    let col_of = |t: Ms| -> usize { (t / step) as usize };
    // Columns after `now` stay blank.
    let now_col = col_of(w.now()).min(cols.saturating_sub(1));
    let mut lines: Vec<Line> = Vec::new();
    lines.push(axis_line(app, step, cols));
    // Lane `l` of node `n` is index lane_base[n] + l.
    let node_of = |lane: usize| -> (u32, usize) {
        let n = ix.lane_base.partition_point(|&b| b <= lane) - 1;
        (n as u32, lane - ix.lane_base[n])
    };
    for lane in first..(first + rows_h).min(lanes) {
        let (n, l) = node_of(lane);
        lines.push(lane_line(app, lane, n, l, step, cols, now_col));
    }
    if app.mono {
        let mut jobs: Vec<u32> = (first..(first + rows_h).min(lanes))
            .flat_map(|lane| ix.lanes[lane].iter())
            .map(|&a| w.attempts()[a as usize].job)
            .collect();
        jobs.sort_unstable();
        jobs.dedup();
        lines.resize(rows_h + 1, Line::from(""));
        lines.push(super::cluster::legend(
            w,
            gantt.width as usize,
            false,
            &jobs,
            true,
        ));
    }
    f.render_widget(Paragraph::new(lines), gantt);
    render_sparklines(app, f, spark, step, cols);
}

/// One Gantt row: lane `l` of node `n`, its attempts and down spans drawn
/// on columns of `step` up to `now_col`.
fn lane_line(
    app: &App,
    lane: usize,
    n: u32,
    l: usize,
    step: Ms,
    cols: usize,
    now_col: usize,
) -> Line<'static> {
    let w = app.sim().view();
    let ix = &app.pane().index;
    let col_of = |t: Ms| -> usize { (t / step) as usize };
    let dead = Style::default().fg(theme::WARN);
    let mut row: Vec<(char, Style)> = vec![(theme::FREE, theme::dim()); now_col + 1];
    row.resize(cols, (' ', theme::dim()));
    for &a in &ix.lanes[lane] {
        let a = &w.attempts()[a as usize];
        let mut style = Style::default().fg(theme::job_color(a.job));
        // A span [start, end) covers the columns it touches.
        let last = a
            .end()
            .map_or(w.now(), |e| e.saturating_sub(1).max(a.start));
        let (c0, c1) = (col_of(a.start), col_of(last).min(now_col));
        let shuffle_end = a.shuffle_end().unwrap_or(Ms::MAX);
        for (c, cell) in row.iter_mut().enumerate().take(c1 + 1).skip(c0) {
            let t = (c as Ms * step).max(a.start);
            let g = match a.kind {
                // No colours: the job's letter, small for a reduce and
                // underlined while it shuffles.
                _ if app.mono => {
                    if a.kind == Kind::Reduce && t < shuffle_end {
                        style = Style::default().add_modifier(Modifier::UNDERLINED);
                    } else {
                        style = Style::default();
                    }
                    theme::job_letter(a.job, a.kind == Kind::Reduce)
                }
                Kind::Map => theme::MAP,
                Kind::Reduce if t < shuffle_end => theme::SHUFFLE,
                Kind::Reduce => theme::REDUCE,
            };
            *cell = (g, style);
        }
    }
    for &(from, to) in &ix.down[n as usize] {
        let last = to.map_or(w.now(), |t| t.saturating_sub(1).max(from));
        for cell in row
            .iter_mut()
            .take(col_of(last).min(now_col) + 1)
            .skip(col_of(from))
        {
            *cell = (theme::DEAD, dead);
        }
    }
    let node = w.node(n);
    // YARN: the lane after the containers' holds the node's AMs.
    let am_lane = l >= w.cluster().nodes[n as usize].lanes.len();
    if am_lane {
        for &t in ix.ams.get(n as usize).map_or(&[][..], Vec::as_slice) {
            let t = &w.job_tasks()[t as usize];
            let last = t.end.map_or(w.now(), |e| e.saturating_sub(1).max(t.start));
            let style = if app.mono {
                Style::default()
            } else {
                Style::default().fg(theme::job_color(t.job))
            };
            for cell in row
                .iter_mut()
                .take(col_of(last).min(now_col) + 1)
                .skip(col_of(t.start))
            {
                *cell = (theme::AM, style);
            }
        }
    }
    let label = if am_lane {
        format!("n{n:<4}am  ")
    } else {
        let kind = match w.capacity().gauge() {
            crate::model::Gauge::Containers | crate::model::Gauge::Memory => 'c',
            _ if l < node.map_slots as usize => 'm',
            _ => 'r',
        };
        format!("n{n:<4}{kind}{l:<2} ")
    };
    let mut spans = vec![Span::styled(label, theme::dim())];
    spans.extend(row.into_iter().map(|(c, s)| Span::styled(c.to_string(), s)));
    Line::from(spans)
}

/// Sparklines on the Gantt's columns: the same step, from time 0.
fn render_sparklines(app: &App, f: &mut Frame, spark: Rect, step: Ms, cols: usize) {
    let w = app.sim().view();
    let ix = &app.pane().index;
    let [util_a, queue_a] =
        Layout::vertical([Constraint::Length(1), Constraint::Length(1)]).areas(spark);
    let values = ix.history.columns(step, cols, w);
    let util: Vec<u64> = values
        .iter()
        .map(|v| (v.0 * 100.0).round() as u64)
        .collect();
    let queue: Vec<u64> = values.iter().map(|v| v.1.round() as u64).collect();
    let cur = super::super::index::state(w);
    let label = |a: Rect| {
        Layout::horizontal([Constraint::Length(LABEL_W as u16), Constraint::Min(1)]).areas::<2>(a)
    };
    let [l, r] = label(util_a);
    f.render_widget(
        Paragraph::new(Span::styled(
            format!("util{:>3}% ", (cur.0 * 100.0).round() as u64),
            theme::dim(),
        )),
        l,
    );
    f.render_widget(
        Sparkline::default()
            .data(&util)
            .max(100)
            .style(Style::default().fg(theme::OK)),
        r,
    );
    let [l, r] = label(queue_a);
    f.render_widget(
        Paragraph::new(Span::styled(
            format!("queue{:>3} ", compact(cur.1 as u64)),
            theme::dim(),
        )),
        l,
    );
    f.render_widget(
        Sparkline::default()
            .data(&queue)
            .style(Style::default().fg(theme::ACCENT)),
        r,
    );
}

/// At most three characters: `999`, `12k`, `3M`.
fn compact(n: u64) -> String {
    match n {
        0..=999 => n.to_string(),
        1_000..=99_999 => format!("{}k", n / 1000),
        _ => format!("{}M", (n / 1_000_000).min(99)),
    }
}

/// The line above the slots: policy switches (`▼ fifo`, the name cut or
/// left out where the next one follows too close) and time ticks where
/// they leave room.
fn axis_line(app: &App, step: Ms, cols: usize) -> Line<'static> {
    let w = app.sim().view();
    let mut cells: Vec<(char, Style)> = vec![(' ', theme::dim()); cols];
    let mut taken = vec![false; cols];
    let marks: Vec<(usize, &str)> = w
        .switches()
        .iter()
        .map(|sw| (((sw.at_s * 1000.0) as Ms / step) as usize, sw.to.as_str()))
        .filter(|(c, _)| *c < cols)
        .collect();
    let sw_style = Style::default().fg(SWITCH);
    for (i, &(c, to)) in marks.iter().enumerate() {
        cells[c] = ('▼', sw_style);
        taken[c] = true;
        // Room up to the next marker, less a space.
        let next = marks[i + 1..]
            .iter()
            .map(|m| m.0)
            .find(|&n| n > c)
            .unwrap_or(cols);
        let room = next.saturating_sub(c + 2);
        if room >= 3 {
            for (k, ch) in format!(" {}", fit(to, room - 1)).chars().enumerate() {
                cells[c + 1 + k] = (ch, sw_style);
                taken[c + 1 + k] = true;
            }
        }
    }
    let tick = tick_for(step);
    let mut t = 0;
    while ((t / step) as usize) < cols {
        let c = (t / step) as usize;
        let text = format!("╵{}", tick_label(t));
        let end = (c + text.chars().count() + 1).min(cols);
        if c + text.chars().count() <= cols && !taken[c..end].iter().any(|&x| x) {
            for (k, ch) in text.chars().enumerate() {
                cells[c + k] = (ch, theme::dim());
            }
        }
        t += tick;
    }
    let mut spans = vec![Span::styled(format!("{:<LABEL_W$}", " time"), theme::dim())];
    spans.extend(
        cells
            .into_iter()
            .map(|(c, s)| Span::styled(c.to_string(), s)),
    );
    Line::from(spans)
}

//! The Timeline view: a Gantt of slots over time like OMO's Fig. 9 (one row
//! per slot, maps, shuffles and reduces as coloured spans, policy switches
//! marked), scrollable, with utilisation and queue-length sparklines.

use super::super::app::App;
use super::super::theme;
use crate::model::Ms;
use crate::sim::Kind;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Sparkline};
use ratatui::Frame;

/// Simulated milliseconds per column, coarser at higher speeds so the
/// picture moves at a readable pace.
pub fn step_ms(speed: f64) -> Ms {
    match speed {
        s if s <= 2.0 => 1_000,
        s if s <= 20.0 => 5_000,
        s if s <= 200.0 => 30_000,
        _ => 120_000,
    }
}

const SWITCH: Color = Color::Rgb(0xea, 0xb3, 0x08);

pub fn render(app: &App, f: &mut Frame, area: Rect) {
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme::dim());
    let inner = block.inner(area);
    let w = &app.sim.w;
    let step = step_ms(app.speed());
    let title = format!(
        " Timeline: 1 column = {}s · {} map {} shuffle {} reduce · ▼ policy switch ",
        step / 1000,
        theme::MAP,
        theme::SHUFFLE,
        theme::REDUCE
    );
    f.render_widget(block.title(Span::styled(title, theme::title())), area);
    let [gantt, spark] = Layout::vertical([Constraint::Min(2), Constraint::Length(2)]).areas(inner);

    // Rows: every lane of every node.
    let lanes: Vec<(u32, usize)> = w
        .cluster
        .nodes
        .iter()
        .flat_map(|n| (0..n.lanes.len()).map(move |l| (n.id, l)))
        .collect();
    let rows_h = gantt.height.saturating_sub(1) as usize;
    let first = app
        .timeline_row
        .min(lanes.len().saturating_sub(rows_h.max(1)));
    let visible = &lanes[first..(first + rows_h).min(lanes.len())];
    let label_w = 9usize;
    let cols = (gantt.width as usize).saturating_sub(label_w);
    let end = w.now;
    let start = end.saturating_sub(step * cols.saturating_sub(1) as Ms) / step * step;
    let col_of = |t: Ms| -> usize { ((t.saturating_sub(start)) / step) as usize };

    let mut row_of = vec![Vec::new(); w.cluster.nodes.len()];
    for (i, &(n, l)) in visible.iter().enumerate() {
        let r = &mut row_of[n as usize];
        if r.len() <= l {
            r.resize(l + 1, usize::MAX);
        }
        r[l] = i;
    }
    // Columns after `now` (early in a run, when the window starts at 0) stay blank.
    let now_col = col_of(end).min(cols);
    let mut template = vec![(theme::FREE, theme::dim()); cols];
    for c in template.iter_mut().skip(now_col + 1) {
        *c = (' ', theme::dim());
    }
    let mut grid: Vec<Vec<(char, Style)>> = vec![template; visible.len()];
    for a in &w.attempts {
        if a.end.is_some_and(|e| e < start) {
            continue;
        }
        let Some(&row) = row_of[a.node as usize].get(a.slot as usize) else {
            continue;
        };
        if row == usize::MAX || cols == 0 {
            continue;
        }
        let style = Style::default().fg(theme::job_color(a.job));
        let a_end = a.end.unwrap_or(end);
        let (c0, c1) = (col_of(a.start.max(start)), col_of(a_end).min(cols - 1));
        let shuffle_end = a
            .shuffle
            .as_ref()
            .and_then(|s| s.done_at)
            .unwrap_or(Ms::MAX);
        for (c, cell) in grid[row].iter_mut().enumerate().take(c1 + 1).skip(c0) {
            let t = start + c as Ms * step;
            let g = match a.kind {
                Kind::Map => theme::MAP,
                Kind::Reduce if t < shuffle_end => theme::SHUFFLE,
                Kind::Reduce => theme::REDUCE,
            };
            *cell = (g, style);
        }
    }
    // Header line: time ticks and policy switches.
    let mut head: Vec<(char, Style)> = vec![(' ', theme::dim()); cols];
    for sw in &w.switches {
        let t = (sw.at_s * 1000.0) as Ms;
        if t >= start && t <= end {
            let c = col_of(t).min(cols.saturating_sub(1));
            if c < cols {
                head[c] = ('▼', Style::default().fg(SWITCH));
                for (k, ch) in format!(" {}", sw.to).chars().enumerate() {
                    if c + 1 + k < cols {
                        head[c + 1 + k] = (ch, Style::default().fg(SWITCH));
                    }
                }
            }
        }
    }
    let mut lines: Vec<Line> = Vec::new();
    let mut hs = vec![Span::styled(
        format!("{:>8} ", format!("{}s", start / 1000)),
        theme::dim(),
    )];
    hs.extend(
        head.into_iter()
            .map(|(c, s)| Span::styled(c.to_string(), s)),
    );
    lines.push(Line::from(hs));
    for (i, &(n, l)) in visible.iter().enumerate() {
        let node = w.node(n);
        let kind = if w.cluster.model == crate::model::SlotModel::Unified {
            'c'
        } else if l < node.map_slots as usize {
            'm'
        } else {
            'r'
        };
        let mut spans = vec![Span::styled(format!("n{n:<4}{kind}{l:<2} "), theme::dim())];
        spans.extend(grid[i].iter().map(|(c, s)| Span::styled(c.to_string(), *s)));
        lines.push(Line::from(spans));
    }
    f.render_widget(Paragraph::new(lines), gantt);

    // Sparklines: slot utilisation and queued tasks, newest on the right.
    let [util_a, queue_a] =
        Layout::vertical([Constraint::Length(1), Constraint::Length(1)]).areas(spark);
    let width = spark.width.saturating_sub(label_w as u16) as usize;
    let hist: Vec<_> = app.history.iter().rev().take(width).rev().collect();
    let total = w.cluster.total_slots().max(1) as u64;
    let util: Vec<u64> = hist.iter().map(|s| s.busy as u64 * 100 / total).collect();
    let queue: Vec<u64> = hist.iter().map(|s| s.queued as u64).collect();
    let label = |a: Rect, text: String| {
        let [l, r] =
            Layout::horizontal([Constraint::Length(label_w as u16), Constraint::Min(1)]).areas(a);
        (l, r, text)
    };
    let (l, r, t) = label(
        util_a,
        format!("util {:>3}%", util.last().copied().unwrap_or(0)),
    );
    f.render_widget(Paragraph::new(Span::styled(t, theme::dim())), l);
    f.render_widget(
        Sparkline::default()
            .data(&util)
            .max(100)
            .style(Style::default().fg(theme::OK)),
        r,
    );
    let (l, r, t) = label(
        queue_a,
        format!("queue{:>4}", queue.last().copied().unwrap_or(0)),
    );
    f.render_widget(Paragraph::new(Span::styled(t, theme::dim())), l);
    f.render_widget(
        Sparkline::default()
            .data(&queue)
            .style(Style::default().fg(theme::ACCENT)),
        r,
    );
}

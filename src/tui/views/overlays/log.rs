//! The whole log (`l`), its search typed into the title, matches
//! highlighted.

use super::super::super::app::{clock, App, Page};
use super::super::theme;
use super::frame_block;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};
use ratatui::Frame;

pub fn log(app: &App, f: &mut Frame, query: &str, row: usize) {
    let a = f.area();
    // Leave the header and footer rows visible.
    let area = Rect::new(a.x, a.y + 1, a.width, a.height.saturating_sub(2));
    f.render_widget(Clear, area);
    let cache = app.pane().log.borrow();
    let n = cache.matches.len();
    let rows = area.height.saturating_sub(2) as usize;
    let last = n.saturating_sub(rows.max(1));
    let first = row.min(last);
    let mut pages = app.pages.get();
    pages.log = Page {
        first,
        rows: rows.max(1),
        max: last,
    };
    app.pages.set(pages);
    let q = query.to_lowercase();
    let lines: Vec<Line> = cache.matches[first..(first + rows).min(n)]
        .iter()
        .map(|&i| {
            let (t, text) = &cache.lines[i];
            let mut spans = vec![Span::styled(format!("{} ", clock(*t)), theme::dim())];
            spans.extend(highlight(text, &q));
            Line::from(spans)
        })
        .collect();
    let title = if query.is_empty() {
        format!(" Log · {n} lines · type to search ")
    } else {
        format!(" Log · {n} of {} lines match /{query}▏ ", cache.lines.len())
    };
    f.render_widget(Paragraph::new(lines).block(frame_block(title)), area);
}

/// `text` with every case-insensitive occurrence of `q` (lower case)
/// highlighted.
fn highlight(text: &str, q: &str) -> Vec<Span<'static>> {
    let lower = text.to_lowercase();
    // Lower-casing can change byte lengths outside ASCII: highlight only
    // when it did not.
    if q.is_empty() || lower.len() != text.len() {
        return vec![Span::raw(text.to_string())];
    }
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(i) = lower[at..].find(q) {
        let (s, e) = (at + i, at + i + q.len());
        if s > at {
            out.push(Span::raw(text[at..s].to_string()));
        }
        out.push(Span::styled(text[s..e].to_string(), theme::selected()));
        at = e;
    }
    if at < text.len() {
        out.push(Span::raw(text[at..].to_string()));
    }
    out
}

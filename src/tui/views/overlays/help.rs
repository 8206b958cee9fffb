//! The help (`?`), generated from the key table.

use super::super::super::app::{App, Page};
use super::super::super::keymap::help_entries;
use super::super::theme;
use super::{centered, frame_block, wrap_words};
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};
use ratatui::Frame;

/// The help's lines for a box `width` wide: one per binding, its text
/// wrapped under itself.
fn help_lines(width: u16) -> Vec<Line<'static>> {
    let entries = help_entries();
    let key_w = entries
        .iter()
        .map(|e| e.0.chars().count())
        .max()
        .unwrap_or(0);
    let text_w = (width as usize).saturating_sub(key_w + 6);
    let mut all: Vec<Line> = Vec::new();
    for (keys, text) in &entries {
        for (i, part) in wrap_words(text, text_w).into_iter().enumerate() {
            let k = if i == 0 { keys.as_str() } else { "" };
            all.push(Line::from(vec![
                Span::styled(format!(" {k:>key_w$} "), theme::key()),
                Span::raw(format!("  {part}")),
            ]));
        }
    }
    all
}

/// The help does not fit a screen of `area` (and scrolls).
pub fn help_scrolls(area: Rect) -> bool {
    help_lines(76u16.min(area.width)).len() + 2 > area.height.saturating_sub(1) as usize
}

pub fn help(app: &App, f: &mut Frame) {
    let width = 76u16.min(f.area().width);
    let all = help_lines(width);
    // Above the footer, which says how to scroll and close.
    let h = (all.len() as u16 + 2).min(f.area().height.saturating_sub(1));
    let area = centered(f, width, h);
    f.render_widget(Clear, area);
    // When the screen is short the list scrolls, a line saying so.
    let rows = area.height.saturating_sub(2) as usize;
    let fits = all.len() <= rows;
    let shown = if fits {
        rows
    } else {
        rows.saturating_sub(1).max(1)
    };
    let max = all.len().saturating_sub(shown);
    let first = app.help_row.min(max);
    let mut pages = app.pages.get();
    pages.help = Page {
        first,
        rows: shown,
        max,
    };
    app.pages.set(pages);
    let n = all.len();
    let mut lines: Vec<Line> = all.into_iter().skip(first).take(shown).collect();
    if !fits {
        lines.push(Line::from(Span::styled(
            super::super::scroll_note(first, shown, n).unwrap_or_default(),
            theme::dim(),
        )));
    }
    f.render_widget(
        Paragraph::new(lines).block(frame_block(" Keys (? or esc closes) ".into())),
        area,
    );
}

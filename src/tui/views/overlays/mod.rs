//! The overlays drawn over a view: the policy picker, the submit form, the
//! inspector and the help, each in its own module, and what they share.

mod detail;
mod help;
mod inspector;
mod jobact;
mod log;
mod picker;
mod submit;

pub use detail::detail;
pub use help::{help, help_scrolls};
pub use inspector::inspector;
pub use jobact::{confirm_kill, move_pool};
pub use log::log;
pub use picker::picker;
pub use submit::submit;

use super::super::theme;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Span;
use ratatui::widgets::{Block, Borders};
use ratatui::Frame;

/// A rectangle of at most `w`×`h` centred in the frame.
pub(super) fn centered(f: &Frame, w: u16, h: u16) -> Rect {
    let a = f.area();
    let w = w.min(a.width);
    let h = h.min(a.height);
    Rect::new(a.x + (a.width - w) / 2, a.y + (a.height - h) / 2, w, h)
}

pub(super) fn frame_block(title: String) -> Block<'static> {
    Block::default()
        .borders(Borders::ALL)
        .border_style(Style::default().fg(theme::ACCENT))
        .title(Span::styled(title, theme::title()))
}

/// Words of `text` on lines of at most `width` characters (a longer word
/// is cut).
pub(super) fn wrap_words(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    for word in text.split(' ') {
        let n = cur.chars().count();
        if n > 0 && n + 1 + word.chars().count() > width {
            out.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(word);
        while cur.chars().count() > width {
            let head: String = cur.chars().take(width).collect();
            cur = cur.chars().skip(width).collect();
            out.push(head);
        }
    }
    if !cur.is_empty() || out.is_empty() {
        out.push(cur);
    }
    out
}

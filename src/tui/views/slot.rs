//! A slot's glyph, as the Cluster view and the YARN nodes draw it.

use super::super::theme;
use crate::sim::cluster::Node;
use crate::sim::job::Phase;
use crate::sim::{Kind, RunView};
use ratatui::style::{Modifier, Style};
use ratatui::text::Span;

/// One slot's glyph: dead, free, or its attempt's phase in its job's (or
/// its pool's) colour; with no colours (`mono`), the job's (or pool's)
/// letter, small for a reduce and underlined while it shuffles.
pub(in crate::tui) fn slot(
    w: RunView<'_>,
    n: &Node,
    lane: Option<u32>,
    by_pool: bool,
    mono: bool,
) -> Span<'static> {
    match (n.alive, lane) {
        (false, _) => Span::styled(theme::DEAD.to_string(), Style::default().fg(theme::WARN)),
        (true, None) => Span::styled(theme::FREE.to_string(), theme::dim()),
        (true, Some(a)) => {
            let at = &w.attempts()[a as usize];
            let shuffling =
                at.kind == Kind::Reduce && matches!(at.phase, Phase::Startup | Phase::Shuffle);
            let id = if by_pool { w.job(at.job).pool } else { at.job };
            if mono {
                let style = if shuffling {
                    Style::default().add_modifier(Modifier::UNDERLINED)
                } else {
                    Style::default()
                };
                return Span::styled(
                    theme::job_letter(id, at.kind == Kind::Reduce).to_string(),
                    style,
                );
            }
            let glyph = match at.kind {
                Kind::Map => theme::MAP,
                Kind::Reduce if shuffling => theme::SHUFFLE,
                Kind::Reduce => theme::REDUCE,
            };
            Span::styled(glyph.to_string(), Style::default().fg(theme::job_color(id)))
        }
    }
}

//! The policy picker (`p`): every policy the cluster can run, the current one marked.

use super::super::super::app::App;
use super::super::fit;
use super::super::theme;
use super::{centered, frame_block};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};
use ratatui::Frame;

pub fn picker(app: &App, f: &mut Frame, selected: usize) {
    let policies = crate::sched::registry::for_capacity(app.sim().view().capacity());
    let n = policies.len();
    // Leave the header and footer rows visible (the header always shows);
    // two lines per policy when they all fit, else one.
    let room = f.area().height.saturating_sub(2);
    let two_lines = n as u16 * 2 + 4;
    let h = if two_lines <= room {
        two_lines
    } else {
        (n as u16 + 4).min(room)
    };
    let area = centered(f, 96, h);
    f.render_widget(Clear, area);
    // A variant (`fair[slowstart=0.5]`) marks its base policy.
    let cur = app.sim().policy_spec().name();
    // Rows inside the frame below the header line. Each policy takes two
    // (name, then summary) when they all fit, else one (name and summary
    // on one line); the list scrolls to keep the selection in view.
    let rows = area.height.saturating_sub(3) as usize;
    let two = rows >= 2 * n;
    let per_page = if two { n } else { rows.max(1) };
    let first = selected
        .saturating_sub(per_page - 1)
        .min(n.saturating_sub(per_page));
    let name_w = policies.iter().map(|p| p.name.len()).max().unwrap_or(0);
    let mut lines = vec![Line::from(Span::styled(
        "Switch policy now: running tasks go on, the new policy adopts the queue.",
        theme::dim(),
    ))];
    for (i, p) in policies.iter().enumerate().skip(first).take(per_page) {
        let mark = if p.name == cur { "●" } else { " " };
        let style = if i == selected {
            theme::selected()
        } else {
            Style::default().add_modifier(Modifier::BOLD)
        };
        let mut line = vec![
            Span::raw(format!(" {mark} ")),
            Span::styled(format!(" {:<name_w$}", p.name), style),
        ];
        if two {
            lines.push(Line::from(line));
            let text_w = area.width.saturating_sub(7) as usize;
            lines.push(Line::from(Span::styled(
                format!("     {}", fit(p.summary, text_w)),
                theme::dim(),
            )));
        } else {
            let text_w = area.width.saturating_sub(8 + name_w as u16) as usize;
            line.push(Span::styled(
                format!(" {}", fit(p.summary, text_w)),
                theme::dim(),
            ));
            lines.push(Line::from(line));
        }
    }
    f.render_widget(
        Paragraph::new(lines).block(frame_block(" Policy ".into())),
        area,
    );
}

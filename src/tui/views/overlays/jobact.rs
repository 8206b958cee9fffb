//! The job actions' overlays: the kill confirmation and the pool picker.

use super::super::super::app::App;
use super::super::theme;
use super::{centered, frame_block};
use crate::model::JobId;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};
use ratatui::Frame;

/// `K`: what a kill does, and y / n.
pub fn confirm_kill(app: &App, f: &mut Frame, job: JobId) {
    let j = app.sim().view().job(job);
    let running = j.maps_running + j.reduces_running;
    let area = centered(f, 60, 6);
    f.render_widget(Clear, area);
    let lines = vec![
        Line::from(vec![
            Span::raw("Kill "),
            Span::styled(
                j.name.to_string(),
                Style::default().add_modifier(Modifier::BOLD),
            ),
            Span::raw(format!("? Its {running} running attempts are killed")),
        ]),
        Line::from(Span::raw(
            "and none of its tasks runs again (hadoop job -kill).",
        )),
        Line::from(""),
        Line::from(Span::styled(
            "y / enter: kill     n / esc: keep it",
            theme::dim(),
        )),
    ];
    f.render_widget(
        Paragraph::new(lines).block(frame_block(" Kill job ".into())),
        area,
    );
}

/// `m`: the pools, the job's own marked.
pub fn move_pool(app: &App, f: &mut Frame, job: JobId, selected: usize) {
    let w = app.sim().view();
    let pools = w.pools();
    let room = f.area().height.saturating_sub(2);
    let area = centered(f, 64, (pools.len() as u16 + 4).min(room));
    f.render_widget(Clear, area);
    let rows = area.height.saturating_sub(3) as usize;
    let first = selected
        .saturating_sub(rows.saturating_sub(1))
        .min(pools.len().saturating_sub(rows.max(1)));
    let own = w.job(job).pool as usize;
    let mut lines = vec![Line::from(Span::styled(
        format!("Move {} to:", w.job(job).name),
        theme::dim(),
    ))];
    for (i, p) in pools.iter().enumerate().skip(first).take(rows.max(1)) {
        let s = &w.pool_stats()[i];
        let style = if i == selected {
            theme::selected()
        } else {
            Style::default().add_modifier(Modifier::BOLD)
        };
        lines.push(Line::from(vec![
            Span::raw(if i == own { " ● " } else { "   " }),
            Span::styled(format!(" {} ", p.name), style),
            Span::styled(
                format!(
                    " {} job{} · {} maps, {} reduces running",
                    s.runnable_jobs,
                    if s.runnable_jobs == 1 { "" } else { "s" },
                    s.running_maps,
                    s.running_reduces
                ),
                theme::dim(),
            ),
        ]));
    }
    f.render_widget(
        Paragraph::new(lines).block(frame_block(" Pool ".into())),
        area,
    );
}

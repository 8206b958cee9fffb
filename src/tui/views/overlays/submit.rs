//! The submit form (`s`).

use super::super::super::app::{clock, count, App, SubmitForm};
use super::super::theme;
use super::{centered, frame_block, wrap_words};
use crate::scenario::profiles;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};
use ratatui::Frame;

pub fn submit(app: &App, f: &mut Frame, form: &SubmitForm) {
    let w = 64u16.min(f.area().width);
    // The error, wrapped to the form's width after " ✗ ".
    let error = form
        .error
        .as_ref()
        .map(|e| wrap_words(e, w.saturating_sub(5) as usize))
        .unwrap_or_default();
    let area = centered(f, 64, 9 + error.len() as u16);
    f.render_widget(Clear, area);
    let profile = profiles::all().get(form.profile).map_or("?", |p| p.name);
    let pool = app
        .scenario
        .pools
        .get(form.pool)
        .map_or("?", |p| p.name.as_str());
    let fields = [
        ("profile", format!("‹ {profile} ›"), "←/→ to choose"),
        ("input", format!("{}▏", form.input), "e.g. 512MB, 4GB"),
        ("reduces", format!("{}▏", form.reduces), "a whole number"),
        (app.pool_word(), format!("‹ {pool} ›"), "←/→ to choose"),
    ];
    let mut lines = vec![Line::from(Span::styled(
        format!("A job submitted now, at {}.", clock(app.acts_at())),
        theme::dim(),
    ))];
    for (i, (name, value, hint)) in fields.iter().enumerate() {
        let style = if i == form.focus {
            theme::selected()
        } else {
            Style::default()
        };
        let mut value = value.clone();
        if i != form.focus {
            value = value.replace('▏', "");
        }
        lines.push(Line::from(vec![
            Span::raw(format!(" {name:>8}  ")),
            Span::styled(format!(" {value:<20}"), style),
            Span::styled(format!("  {hint}"), theme::dim()),
        ]));
    }
    if let Ok(spec) = app.job_from_form(form) {
        lines.push(Line::from(Span::styled(
            format!(
                " → {}: {}, {}",
                spec.name,
                count(spec.maps.into(), "map"),
                count(spec.reduces.into(), "reduce")
            ),
            theme::dim(),
        )));
    } else {
        lines.push(Line::from(""));
    }
    for (i, e) in error.iter().enumerate() {
        let lead = if i == 0 { " ✗ " } else { "   " };
        lines.push(Line::from(Span::styled(
            format!("{lead}{e}"),
            Style::default().fg(theme::WARN),
        )));
    }
    lines.push(Line::from(Span::styled(
        " enter submits · esc cancels",
        theme::dim(),
    )));
    f.render_widget(
        Paragraph::new(lines).block(frame_block(" Submit a job ".into())),
        area,
    );
}

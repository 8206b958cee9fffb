//! Overlays drawn over the current view: the policy picker, the submit
//! form, the inspector and the help.

use super::super::app::{clock, App, SubmitForm, INSPECT_RING};
use super::super::keymap::KEYS;
use super::super::theme;
use super::fit;
use crate::scenario::profiles;
use crate::sched::registry;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};
use ratatui::Frame;

/// A rectangle of at most `w`×`h` centred in the frame.
fn centered(f: &Frame, w: u16, h: u16) -> Rect {
    let a = f.area();
    let w = w.min(a.width);
    let h = h.min(a.height);
    Rect::new(a.x + (a.width - w) / 2, a.y + (a.height - h) / 2, w, h)
}

fn frame_block(title: String) -> Block<'static> {
    Block::default()
        .borders(Borders::ALL)
        .border_style(Style::default().fg(theme::ACCENT))
        .title(Span::styled(title, theme::title()))
}

pub fn picker(app: &App, f: &mut Frame, selected: usize) {
    let n = registry::POLICIES.len();
    // Leave the header and footer rows visible (the header always shows).
    let area = centered(
        f,
        96,
        (n as u16 * 2 + 4).min(f.area().height.saturating_sub(2)),
    );
    f.render_widget(Clear, area);
    let cur = app.sim.policy_label();
    // Rows inside the frame below the header line. Each policy takes two
    // (name, then summary) when they all fit, else one (name and summary
    // on one line); the list scrolls to keep the selection in view.
    let rows = area.height.saturating_sub(3) as usize;
    let two = rows >= 2 * n;
    let per_page = if two { n } else { rows.max(1) };
    let first = selected
        .saturating_sub(per_page - 1)
        .min(n.saturating_sub(per_page));
    let name_w = registry::POLICIES
        .iter()
        .map(|p| p.name.len())
        .max()
        .unwrap_or(0);
    let mut lines = vec![Line::from(Span::styled(
        "Switch policy now: running tasks go on, the new policy adopts the queue.",
        theme::dim(),
    ))];
    for (i, p) in registry::POLICIES
        .iter()
        .enumerate()
        .skip(first)
        .take(per_page)
    {
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

pub fn submit(app: &App, f: &mut Frame, form: &SubmitForm) {
    let area = centered(f, 64, 10);
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
        ("pool", format!("‹ {pool} ›"), "←/→ to choose"),
    ];
    let mut lines = vec![Line::from(Span::styled(
        format!("A job submitted now, at {}.", clock(app.sim.w.now)),
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
                " → {}: {} maps, {} reduces",
                spec.name, spec.maps, spec.reduces
            ),
            theme::dim(),
        )));
    } else {
        lines.push(Line::from(""));
    }
    if let Some(e) = &form.error {
        lines.push(Line::from(Span::styled(
            format!(" ✗ {e}"),
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

fn value_str(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::Number(n) => {
            let x = n.as_f64().unwrap_or(0.0);
            if x.fract() == 0.0 && x.abs() < 1e12 {
                format!("{x:.0}")
            } else {
                format!("{x:.2}")
            }
        }
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Null => "-".into(),
        other => other.to_string(),
    }
}

/// Short column headers for the inspection keys policies use.
fn short(key: &str) -> String {
    // The papers' symbols first, then abbreviations.
    key.replace("pending_maps", "m'")
        .replace("reduce_started", "started")
        .replace("fair_share", "fs")
        .replace("demand", "dem")
        .replace("running", "run")
        .replace("_map", " m")
        .replace("_reduce", " r")
        .replace("locality_level", "level")
        .replace("waited_s", "wait s")
        .replace("x_star", "x*")
        .replace("beta", "β")
}

fn table(
    lines: &mut Vec<Line>,
    title: &str,
    rows: &std::collections::BTreeMap<String, crate::sched::Values>,
    width: usize,
    max_rows: usize,
) {
    let Some(first) = rows.values().next() else {
        return;
    };
    let keys: Vec<&String> = first.keys().collect();
    let name_w = if width >= 110 { 22 } else { 14 };
    let col_w = 8usize;
    let ncols = ((width.saturating_sub(name_w)) / (col_w + 1)).min(keys.len());
    let mut head = format!("{:<name_w$}", title);
    for k in keys.iter().take(ncols) {
        head.push_str(&format!(" {:>col_w$}", fit(&short(k), col_w)));
    }
    lines.push(Line::from(Span::styled(
        head,
        Style::default().add_modifier(Modifier::BOLD),
    )));
    for (name, vals) in rows.iter().take(max_rows) {
        let mut row = format!("{:<name_w$}", fit(name, name_w));
        for k in keys.iter().take(ncols) {
            let v = vals.get(*k).map(value_str).unwrap_or_default();
            row.push_str(&format!(" {:>col_w$}", fit(&v, col_w)));
        }
        lines.push(Line::from(row));
    }
    if rows.len() > max_rows {
        lines.push(Line::from(Span::styled(
            format!("… {} more", rows.len() - max_rows),
            theme::dim(),
        )));
    }
}

pub fn inspector(app: &App, f: &mut Frame, back: usize) {
    let a = f.area();
    let area = centered(f, a.width.saturating_sub(4), a.height.saturating_sub(2));
    f.render_widget(Clear, area);
    let recs = app.inspections();
    let inner_w = area.width.saturating_sub(2) as usize;
    let mut lines: Vec<Line> = Vec::new();
    let title;
    if recs.is_empty() {
        title = " Inspector ".to_string();
        lines.push(Line::from(
            "No heartbeat has asked the policy for work yet.",
        ));
        lines.push(Line::from(Span::styled(
            "Let the run go on (space) or step one heartbeat (.) while paused.",
            theme::dim(),
        )));
    } else {
        let i = recs.len() - 1 - back.min(recs.len() - 1);
        let r = &recs[i];
        title = format!(
            " Inspector: heartbeat of node {} at {} · {} · {}/{} (last {}) ",
            r.node,
            clock(r.t),
            r.policy,
            back + 1,
            recs.len(),
            INSPECT_RING
        );
        if !r.inspection.cluster.is_empty() {
            let c: Vec<String> = r
                .inspection
                .cluster
                .iter()
                .map(|(k, v)| format!("{k} = {}", value_str(v)))
                .collect();
            lines.push(Line::from(vec![
                Span::styled("cluster  ", theme::title()),
                Span::raw(c.join("   ")),
            ]));
        }
        let assigned: Vec<String> = r
            .assigned
            .iter()
            .zip(&r.rules)
            .map(|(a, rule)| format!("{a} ({rule})"))
            .collect();
        lines.push(Line::from(vec![
            Span::styled("assigned ", theme::title()),
            Span::raw(if assigned.is_empty() {
                "nothing".to_string()
            } else {
                assigned.join(", ")
            }),
        ]));
        lines.push(Line::from(""));
        let budget = area.height.saturating_sub(6) as usize;
        let pools_rows = r.inspection.pools.len().min(budget / 3 + 1);
        table(&mut lines, "pool", &r.inspection.pools, inner_w, pools_rows);
        if !r.inspection.pools.is_empty() {
            lines.push(Line::from(""));
        }
        let left = budget.saturating_sub(pools_rows + 4);
        table(&mut lines, "job", &r.inspection.jobs, inner_w, left.max(1));
    }
    // The release-rate chart: OMO's own predictor whenever it fits; the
    // passive monitor under other policies only on tall screens, where it
    // does not squeeze the policy's own tables.
    let min_h = if app.sim.policy().predictor().is_some() {
        20
    } else {
        30
    };
    let chart_h = if area.height >= min_h { 9 } else { 0 };
    let [text_area, chart_area] =
        Layout::vertical([Constraint::Min(3), Constraint::Length(chart_h)]).areas(area);
    f.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(frame_block(title)),
        text_area,
    );
    if chart_h > 0 {
        release_chart(app, f, chart_area);
    }
}

/// OMO Fig. 7: the container release rate the predictor observed in each
/// window (f_t) against what it had forecast for it (F_e).
fn release_chart(app: &App, f: &mut Frame, area: Rect) {
    use ratatui::symbols::Marker;
    use ratatui::widgets::{Axis, Chart, Dataset, GraphType};
    let p = app.sim.predictor();
    let hist = p.history();
    let observed: Vec<(f64, f64)> = hist.iter().map(|w| (w.start_s, w.observed)).collect();
    let estimated: Vec<(f64, f64)> = hist
        .iter()
        .filter_map(|w| w.estimated.map(|e| (w.start_s, e)))
        .collect();
    let x_min = hist.first().map_or(0.0, |w| w.start_s);
    let x_max = hist.last().map_or(1.0, |w| w.start_s).max(x_min + 1.0);
    let y_max = observed
        .iter()
        .chain(&estimated)
        .map(|p| p.1)
        .fold(0.1f64, f64::max)
        * 1.1;
    let datasets = vec![
        Dataset::default()
            .name("observed f_t")
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(Style::default().fg(theme::OK))
            .data(&observed),
        Dataset::default()
            .name("estimated F_e")
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(Style::default().fg(theme::WARN))
            .data(&estimated),
    ];
    let err = crate::sched::predictor::mean_abs_error_pct(hist)
        .map_or("-".to_string(), |e| format!("{e:.1}%"));
    let chart = Chart::new(datasets)
        .hidden_legend_constraints((Constraint::Ratio(1, 2), Constraint::Ratio(1, 1)))
        .block(frame_block(format!(
            " Release rate per window (OMO Fig. 7) · mean abs. error {err} "
        )))
        .x_axis(
            Axis::default()
                .bounds([x_min, x_max])
                .labels(vec![
                    Span::raw(format!("{x_min:.0}s")),
                    Span::raw(format!("{x_max:.0}s")),
                ])
                .style(theme::dim()),
        )
        .y_axis(
            Axis::default()
                .bounds([0.0, y_max])
                .labels(vec![Span::raw("0"), Span::raw(format!("{y_max:.1}/s"))])
                .style(theme::dim()),
        );
    f.render_widget(chart, area);
}

pub fn help(f: &mut Frame) {
    let rows: Vec<&(_, _, _, &str)> = KEYS.iter().filter(|k| !k.3.is_empty()).collect();
    let area = centered(f, 60, rows.len() as u16 + 4);
    f.render_widget(Clear, area);
    let mut lines = Vec::new();
    for (_, code, _, text) in rows {
        let name = match code {
            crossterm::event::KeyCode::Char(' ') => "space".to_string(),
            crossterm::event::KeyCode::Char(c) => c.to_string(),
            crossterm::event::KeyCode::Tab => "tab".into(),
            crossterm::event::KeyCode::Esc => "esc".into(),
            crossterm::event::KeyCode::Enter => "enter".into(),
            crossterm::event::KeyCode::Up => "↑".into(),
            crossterm::event::KeyCode::Down => "↓".into(),
            crossterm::event::KeyCode::Left => "←".into(),
            crossterm::event::KeyCode::Right => "→".into(),
            other => format!("{other:?}"),
        };
        lines.push(Line::from(vec![
            Span::styled(format!(" {name:>6} "), theme::key()),
            Span::raw(format!("  {text}")),
        ]));
    }
    let [body] = Layout::vertical([Constraint::Min(1)]).areas(area);
    f.render_widget(
        Paragraph::new(lines).block(frame_block(" Keys (? or esc closes) ".into())),
        body,
    );
}

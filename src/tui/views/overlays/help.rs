//! The help (`?`), generated from the key table.

use super::super::super::app::{App, Page, View};
use super::super::super::keymap::help_entries;
use super::super::theme;
use super::inspector::meaning;
use super::{centered, frame_block, wrap_words};
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};
use ratatui::Frame;

/// What the abbreviations a view shows stand for.
fn view_glossary(view: View) -> &'static [(&'static str, &'static str)] {
    match view {
        View::Overview => &[
            ("rN", "rack N (in the node grid)"),
            ("▶", "the selected node (reversed in the grid) and job"),
            (
                "m / r",
                "Pools: running maps / reduces against the pool's share",
            ),
            ("run", "Jobs: tasks running"),
        ],
        View::Cluster => &[
            ("rN", "rack N; the numbers beside the slots are node ids"),
            ("▶", "the selected node (reversed)"),
        ],
        View::Jobs => &[
            ("d/r/p", "maps or reduces done / running / pending"),
            ("reds", "reduces"),
            ("▶", "the selected job (Enter shows its tasks)"),
            (
                "x*",
                "under omo: most pending maps at which its reduces may start (< 0: not yet)",
            ),
            ("share m", "fair share of map slots"),
        ],
        View::Pools => &[("m / r", "maps / reduces"), ("fs", "fair share")],
        View::Timeline => &[("▼", "a policy switch"), ("✗", "time on a dead node")],
        View::Network => &[],
    }
}

/// The inspector's abbreviated headers and the papers' symbols.
const INSPECTOR_GLOSSARY: &[(&str, &str)] = &[
    ("fs m / fs r", "fair share of map / reduce slots"),
    (
        "dem m / dem r",
        "demand: maps / reduces the job or pool still wants",
    ),
    ("run m / run r", "running maps / reduces"),
    ("wait s", "seconds waited for locality"),
    ("m'", "pending maps"),
];

/// The help's lines for a box `width` wide: one per binding, its text
/// wrapped under itself; then what the focused view's and the
/// inspector's abbreviations and symbols stand for.
fn help_lines(app: &App, width: u16) -> Vec<Line<'static>> {
    let mut entries = help_entries();
    let symbols: Vec<(String, String)> = [
        "T_m", "T_s", "F_e", "F_o", "A_o", "D", "x_star", "beta", "t_fair", "t_batch",
    ]
    .iter()
    .filter_map(|k| {
        let shown = match *k {
            "x_star" => "x*",
            "beta" => "β",
            k => k,
        };
        meaning(k).map(|m| (shown.to_string(), m.to_string()))
    })
    .collect();
    let glossary = view_glossary(app.view);
    if !glossary.is_empty() {
        entries.push((String::new(), String::new()));
        entries.push((
            String::new(),
            format!("On the {} view:", app.view_name(app.view)),
        ));
        entries.extend(glossary.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    }
    entries.push((String::new(), String::new()));
    entries.push((String::new(), "In the inspector (i):".into()));
    entries.extend(
        INSPECTOR_GLOSSARY
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string())),
    );
    entries.extend(symbols);
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
pub fn help_scrolls(app: &App, area: Rect) -> bool {
    help_lines(app, 76u16.min(area.width)).len() + 2 > area.height.saturating_sub(1) as usize
}

pub fn help(app: &App, f: &mut Frame) {
    let width = 76u16.min(f.area().width);
    let all = help_lines(app, width);
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
        Paragraph::new(lines).block(frame_block(
            " Keys and abbreviations (? or esc closes) ".into(),
        )),
        area,
    );
}

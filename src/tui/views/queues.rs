//! The Pools view on a YARN cluster: each queue as the ResourceManager's
//! scheduler page shows it. What its containers hold of memory and vcores
//! against its fair share (yarn-fair) or guaranteed capacity
//! (yarn-capacity), its dominant share where the scheduler orders by it,
//! what its ApplicationMasters hold; then its minimum and maximum, what its
//! applications still ask for and the nodes reserved for them, each
//! reservation named with the application holding it.
//!
//! The numbers come from the policy's inspection, read back typed by
//! `sched::yarn::show`, and from the world (what each queue holds).

use super::super::app::{count, App};
use super::super::theme;
use super::{bar, first_fit, fit, fit_mid, panel};
use crate::model::Resource;
use crate::sched::yarn::show::{queues, QueueBasis, QueueView, Reservation};
use crate::sched::yarn::Ask;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

/// Memory in GB as the YARN views write it: one decimal below 100 GB
/// (below 10 GB when `tight`), whole GB above, so a column stays narrow.
pub fn gb(mb: i64, tight: bool) -> String {
    let g = mb as f64 / 1024.0;
    let whole = if tight { 10.0 } else { 100.0 };
    if g.abs() >= whole {
        format!("{g:.0}")
    } else {
        format!("{g:.1}")
    }
}

/// An amount of memory and vcores with their units: `12.0 GB, 3 vcores`
/// (`12 GB, 3 vc` when `tight`).
pub fn amount(r: Resource, tight: bool) -> String {
    let vc = match (tight, r.vcores()) {
        (true, _) => "vc",
        (false, 1) => "vcore",
        (false, _) => "vcores",
    };
    format!("{} GB, {} {vc}", gb(r.mb(), tight), r.vcores())
}

/// A reservation as the views name it: the node, the application holding
/// it, and the container that did not fit:
/// `node 0 for B (queue B, a map of 1.0 GB, 3 vcores)`.
pub fn reservation_text(r: &Reservation) -> String {
    let what = match r.ask {
        Ask::Am => "an AM",
        Ask::Reduce => "a reduce",
        Ask::Map => "a map",
    };
    format!(
        "node {} for {} (queue {}, {what} of {})",
        r.node,
        r.app,
        r.queue,
        amount(r.container, false)
    )
}

/// A percent of a fraction, whole: `67%`.
fn pct(x: f64) -> String {
    format!("{:.0}%", x * 100.0)
}

/// One column of a table: its header and a cell per queue.
struct Column {
    head: String,
    cells: Vec<Span<'static>>,
    right: bool,
}

impl Column {
    fn new(head: &str, cells: Vec<String>, right: bool) -> Column {
        Column {
            head: head.to_string(),
            cells: cells.into_iter().map(Span::raw).collect(),
            right,
        }
    }

    fn width(&self) -> usize {
        self.cells
            .iter()
            .map(|c| c.content.chars().count())
            .fold(self.head.chars().count(), usize::max)
    }
}

/// The table's lines: a bold header, then a row per queue, columns one
/// space apart and as wide as their widest cell.
fn table_lines(cols: &[Column], rows: usize) -> Vec<Line<'static>> {
    let widths: Vec<usize> = cols.iter().map(Column::width).collect();
    let pad = |s: &str, w: usize, right: bool| {
        if right {
            format!("{s:>w$}")
        } else {
            format!("{s:<w$}")
        }
    };
    let mut head = Vec::new();
    for (i, c) in cols.iter().enumerate() {
        let sep = if i == 0 { "" } else { " " };
        head.push(format!("{sep}{}", pad(&c.head, widths[i], c.right)));
    }
    let mut lines = vec![Line::from(Span::styled(
        head.concat(),
        Style::default().add_modifier(Modifier::BOLD),
    ))];
    for r in 0..rows {
        let mut spans = Vec::new();
        for (i, c) in cols.iter().enumerate() {
            if i > 0 {
                spans.push(Span::raw(" "));
            }
            let cell = &c.cells[r];
            spans.push(Span::styled(
                pad(&cell.content, widths[i], c.right),
                cell.style,
            ));
        }
        lines.push(Line::from(spans));
    }
    lines
}

fn total_width(cols: &[Column]) -> usize {
    cols.iter()
        .map(|c| c.width() + 1)
        .sum::<usize>()
        .saturating_sub(1)
}

/// What the share column is called for this basis.
fn share_word(basis: QueueBasis) -> &'static str {
    match basis {
        QueueBasis::FairShare => "fair share",
        QueueBasis::Capacity => "capacity",
        QueueBasis::None => "",
    }
}

/// `used/share` for one resource (`-` for a share the scheduler does not
/// compute), or `used` when the scheduler gives queues no share.
fn used_of(used: String, share: Option<String>, basis: QueueBasis, unit: &str) -> String {
    match (basis, share) {
        (QueueBasis::None, _) => format!("{used}{unit}"),
        (_, Some(s)) => format!("{used}/{s}{unit}"),
        (_, None) => format!("{used}/-{unit}"),
    }
}

/// A bar of `used` over `share`, or blanks where there is no share.
fn share_bar(used: i64, share: Option<i64>, bw: usize) -> Span<'static> {
    match share {
        Some(s) if s > 0 => Span::styled(
            bar(used as f64 / s as f64, bw),
            Style::default().fg(theme::OK),
        ),
        Some(_) => Span::styled(bar(if used > 0 { 1.0 } else { 0.0 }, bw), theme::dim()),
        None => Span::raw(" ".repeat(bw)),
    }
}

/// Whether the scheduler computes vcore shares (fair shares under drf,
/// capacities): a vcore bar needs one.
fn vcore_shares(qs: &[QueueView]) -> bool {
    qs.iter().any(|q| q.share_vcores.is_some())
}

/// The first table: what each queue holds against its share, with bars
/// `bw` wide (none when 0); `tight` for the short headers and units.
fn held_columns(
    qs: &[QueueView],
    basis: QueueBasis,
    (tight, nums): (bool, bool),
    bw: usize,
) -> Vec<Column> {
    let mut cols = vec![name_column(qs)];
    if basis == QueueBasis::Capacity {
        let cells = qs
            .iter()
            .map(|q| q.capacity_pct.map_or("-".into(), |p| format!("{p:.0}%")));
        cols.push(Column::new(
            if tight { "cap" } else { "capacity" },
            cells.collect(),
            true,
        ));
    } else if basis == QueueBasis::FairShare {
        let cells = qs.iter().map(|q| format!("{:.2}", q.weight));
        cols.push(Column::new("weight", cells.collect(), true));
    }
    cols.push(Column::new(
        "apps",
        qs.iter().map(|q| q.apps.to_string()).collect(),
        true,
    ));
    let word = share_word(basis);
    let head = |what: &str| {
        if tight || basis == QueueBasis::None {
            what.to_string()
        } else {
            format!("{what} used/{word}")
        }
    };
    let bars = bw > 0 && basis != QueueBasis::None;
    let vcore_bar = bars && vcore_shares(qs);
    cols.push(Column::new(
        &head("memory"),
        qs.iter()
            .map(|q| {
                let share = q.share_mb.map(|s| gb(s, nums));
                used_of(gb(q.used.mb(), nums), share, basis, " GB")
            })
            .collect(),
        true,
    ));
    if bars {
        cols.push(Column {
            head: String::new(),
            cells: qs
                .iter()
                .map(|q| share_bar(q.used.mb(), q.share_mb, bw))
                .collect(),
            right: false,
        });
    }
    cols.push(Column::new(
        &head("vcores"),
        qs.iter()
            .map(|q| {
                let share = q.share_vcores.map(|s| s.to_string());
                used_of(q.used.vcores().to_string(), share, basis, "")
            })
            .collect(),
        true,
    ));
    if vcore_bar {
        cols.push(Column {
            head: String::new(),
            cells: qs
                .iter()
                .map(|q| share_bar(q.used.vcores(), q.share_vcores, bw))
                .collect(),
            right: false,
        });
    }
    if qs.iter().any(|q| q.dominant) {
        cols.push(Column::new(
            if tight { "dom" } else { "dominant share" },
            qs.iter().map(|q| pct(q.dominant_share)).collect(),
            true,
        ));
    }
    cols.push(Column::new(
        if tight { "AMs" } else { "AMs (memory)" },
        qs.iter()
            .map(|q| {
                if q.ams == 0 {
                    "0".to_string()
                } else {
                    format!("{} ({} GB)", q.ams, gb(q.am_used.mb(), nums))
                }
            })
            .collect(),
        true,
    ));
    cols
}

/// The first table laid out for `width`: full headers when they fit, else
/// short ones, then shorter numbers; bars as wide as the room left (4 to
/// 20 cells), none when even 4 do not fit.
fn held_table(qs: &[QueueView], basis: QueueBasis, width: usize) -> Vec<Line<'static>> {
    let bars = match basis {
        QueueBasis::None => 0,
        _ if vcore_shares(qs) => 2,
        _ => 1,
    };
    for tight in [(false, false), (true, false), (true, true)] {
        let bare = total_width(&held_columns(qs, basis, tight, 0));
        if bars == 0 && bare <= width {
            return table_lines(&held_columns(qs, basis, tight, 0), qs.len());
        }
        let bw = (width.saturating_sub(bare + bars) / bars.max(1)).min(20);
        if bars > 0 && bw >= 4 {
            return table_lines(&held_columns(qs, basis, tight, bw), qs.len());
        }
    }
    let cols = held_columns(qs, basis, (true, true), 0);
    cut(table_lines(&cols, qs.len()), width)
}

/// Lines cut to `width` (the last resort of a screen too narrow).
fn cut(lines: Vec<Line<'static>>, width: usize) -> Vec<Line<'static>> {
    lines
        .into_iter()
        .map(|l| {
            let text: String = l.spans.iter().map(|s| s.content.as_ref()).collect();
            Line::from(fit(&text, width))
        })
        .collect()
}

/// The queues' names, the first column of both tables.
fn name_column(qs: &[QueueView]) -> Column {
    Column {
        head: "queue".into(),
        cells: qs
            .iter()
            .map(|q| Span::styled(fit_mid(&q.name, 16), theme::title()))
            .collect(),
        right: false,
    }
}

/// The second table: each queue's minimum and maximum (or capacity and
/// maximum capacity), what its applications wait for, the nodes reserved
/// for them.
fn limits_columns(qs: &[QueueView], basis: QueueBasis, tight: bool) -> Vec<Column> {
    let mut cols = vec![name_column(qs)];
    let or_dash = |r: Option<Resource>| r.map_or("-".to_string(), |r| amount(r, tight));
    match basis {
        QueueBasis::FairShare => {
            cols.push(Column::new(
                "min share",
                qs.iter().map(|q| or_dash(q.min)).collect(),
                false,
            ));
            cols.push(Column::new(
                "max share",
                qs.iter()
                    .map(|q| q.max.map_or("∞".to_string(), |r| amount(r, tight)))
                    .collect(),
                false,
            ));
        }
        QueueBasis::Capacity => {
            let with_pct = |p: Option<f64>, r: Option<Resource>| match (p, r) {
                (Some(p), Some(r)) => format!("{p:.0}%: {}", amount(r, tight)),
                (Some(p), None) => format!("{p:.0}%"),
                _ => "-".to_string(),
            };
            cols.push(Column::new(
                "capacity",
                qs.iter()
                    .map(|q| {
                        let r = q
                            .share_mb
                            .zip(q.share_vcores)
                            .map(|(m, c)| Resource::memory(m, c));
                        with_pct(q.capacity_pct, r)
                    })
                    .collect(),
                false,
            ));
            cols.push(Column::new(
                "max capacity",
                qs.iter()
                    .map(|q| with_pct(q.max_capacity_pct, q.max))
                    .collect(),
                false,
            ));
        }
        QueueBasis::None => {}
    }
    cols.push(Column::new(
        if tight {
            "pending"
        } else {
            "pending containers"
        },
        qs.iter()
            .map(|q| {
                if q.pending_containers == 0 {
                    "0".to_string()
                } else {
                    format!("{} ({})", q.pending_containers, amount(q.pending, tight))
                }
            })
            .collect(),
        false,
    ));
    cols.push(Column::new(
        "reserved",
        qs.iter()
            .map(|q| match q.reserved.len() {
                0 => "-".to_string(),
                n => count(n as u64, "node"),
            })
            .collect(),
        false,
    ));
    cols
}

fn limits_table(qs: &[QueueView], basis: QueueBasis, width: usize) -> Vec<Line<'static>> {
    for tight in [false, true] {
        let cols = limits_columns(qs, basis, tight);
        if total_width(&cols) <= width {
            return table_lines(&cols, qs.len());
        }
    }
    cut(
        table_lines(&limits_columns(qs, basis, true), qs.len()),
        width,
    )
}

/// What the columns mean, as many of the notes as fit on `max_lines`
/// lines `width` wide (whole notes, never cut).
fn notes(
    qs: &[QueueView],
    basis: QueueBasis,
    width: usize,
    max_lines: usize,
) -> Vec<Line<'static>> {
    let mut items: Vec<&str> = Vec::new();
    match basis {
        QueueBasis::FairShare => {
            items.push("fair share: the instantaneous one, among queues with applications")
        }
        QueueBasis::Capacity => items.push("capacity: guaranteed, of the live cluster"),
        QueueBasis::None => items.push("this scheduler gives queues no share"),
    }
    if basis == QueueBasis::FairShare && qs.iter().any(|q| q.share_vcores.is_none()) {
        items.push("vcores /-: the fair policy shares memory only");
    }
    if qs.iter().any(|q| q.dominant) {
        items.push("dominant share (dom): the larger of a queue's shares of memory and vcores");
    }
    items.push("AMs: ApplicationMaster containers");
    items.push("pending: containers asked for, not yet granted");
    let mut lines: Vec<String> = Vec::new();
    for it in items {
        let n = lines.len();
        match lines.last_mut() {
            Some(l) if l.chars().count() + 3 + it.chars().count() <= width => {
                l.push_str(" · ");
                l.push_str(it);
            }
            _ if n < max_lines && it.chars().count() <= width => lines.push(it.into()),
            _ => {}
        }
    }
    lines
        .into_iter()
        .map(|l| Line::from(Span::styled(l, theme::dim())))
        .collect()
}

/// The reservations, one a line, as many as `room` lines hold (the last
/// saying how many more there are).
fn reservation_lines(qs: &[QueueView], width: usize, room: usize) -> Vec<Line<'static>> {
    let all: Vec<&Reservation> = qs.iter().flat_map(|q| q.reserved.iter()).collect();
    let mut sorted = all;
    sorted.sort_by_key(|r| r.node);
    if sorted.is_empty() || room == 0 {
        return Vec::new();
    }
    let shown = if sorted.len() <= room {
        sorted.len()
    } else {
        room - 1
    };
    let mut lines: Vec<Line> = sorted
        .iter()
        .take(shown)
        .map(|r| {
            Line::from(vec![
                Span::styled(
                    format!("{} reserved: ", theme::RESERVED),
                    Style::default().fg(theme::WARN),
                ),
                Span::raw(fit(&reservation_text(r), width.saturating_sub(12))),
            ])
        })
        .collect();
    if shown < sorted.len() {
        lines.push(Line::from(Span::styled(
            format!(
                "… {}",
                count((sorted.len() - shown) as u64, "more reserved node")
            ),
            theme::dim(),
        )));
    }
    lines
}

/// The view: the title, the two tables, the reservations and the notes.
pub fn render(app: &App, f: &mut Frame, area: Rect) {
    let w = app.sim().view();
    let qs = queues(w, &app.pane().values);
    let basis = qs
        .iter()
        .map(|q| q.basis)
        .find(|b| *b != QueueBasis::None)
        .unwrap_or(QueueBasis::None);
    let inner_w = area.width.saturating_sub(2) as usize;
    let inner_h = area.height.saturating_sub(2) as usize;
    let mut lines = held_table(&qs, basis, inner_w);
    lines.push(Line::from(""));
    lines.extend(limits_table(&qs, basis, inner_w));
    // The reservations under the tables, leaving two lines of notes at
    // the foot of the panel; the notes take what room is left (4 lines
    // at most).
    let room = inner_h.saturating_sub(lines.len() + 1 + 3);
    let resv = reservation_lines(&qs, inner_w, room);
    if !resv.is_empty() {
        lines.push(Line::from(""));
        lines.extend(resv);
    }
    let free = inner_h.saturating_sub(lines.len() + 1);
    let note_lines = notes(&qs, basis, inner_w, free.min(4));
    while lines.len() + note_lines.len() < inner_h {
        lines.push(Line::from(""));
    }
    lines.extend(note_lines);
    let label = app.sim().policy_label();
    let title = match basis {
        QueueBasis::FairShare => vec![
            format!(" Queues ({label}): memory and vcores held against each queue's fair share "),
            " Queues: held against fair share ".into(),
            " Queues ".into(),
        ],
        QueueBasis::Capacity => vec![
            format!(" Queues ({label}): memory and vcores held against each queue's capacity "),
            " Queues: held against capacity ".into(),
            " Queues ".into(),
        ],
        QueueBasis::None => vec![
            format!(" Queues ({label} gives queues no share): memory and vcores held "),
            " Queues: memory and vcores held ".into(),
            " Queues ".into(),
        ],
    };
    let title = first_fit(&title, area.width);
    f.render_widget(Paragraph::new(lines).block(panel(title)), area);
}

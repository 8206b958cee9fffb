//! The Cluster view: every node's slots, grouped by datacenter and rack,
//! coloured by the job running there. Drawn as: a summary line, the racks
//! (scrolling when they do not fit), the job legend, and with room to spare
//! a bar per rack.

use super::super::app::{count, noun, App, Hit, Page, Target};
use super::super::theme;
use super::slot::slot;
use super::yarn_nodes::Yarn;
use crate::model::Gauge;
use crate::sim::RunView;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

pub fn render(app: &App, f: &mut Frame, area: Rect) {
    let lines = panel_lines(app, area, true);
    f.render_widget(Paragraph::new(lines).block(super::panel(" Cluster ")), area);
}

/// The view's height when what it holds takes less than `area` and looks
/// the same in less: a small cluster's racks leave the rest of the screen
/// to the log.
pub fn height(app: &App, area: Rect) -> Option<u16> {
    let full = panel_lines(app, area, false);
    let want = (full.len() + 2) as u16;
    if want >= area.height {
        return None;
    }
    let less = Rect {
        height: want,
        ..area
    };
    (panel_lines(app, less, false) == full).then_some(want)
}

/// The panel's lines for `area`; its clickable places recorded when
/// `record` (drawing, not measuring).
fn panel_lines(app: &App, area: Rect, record: bool) -> Vec<Line<'static>> {
    let w = app.sim().view();
    let inner_w = area.width.saturating_sub(2) as usize;
    let inner_h = area.height.saturating_sub(2) as usize;
    let yarn = (w.capacity().gauge() == Gauge::Memory).then(|| Yarn::of(app));
    let mut lines = summary(w, area, yarn.as_ref(), app.mono);
    // Room for racks: below the summary, above the selected node and the
    // job legend (3 lines).
    let room = inner_h.saturating_sub(lines.len() + 3);
    let (by_pool, on_screen) = racks(
        app,
        &mut lines,
        (inner_w, room, record),
        (area.x + 1, area.y + 1),
        yarn.as_ref(),
    );
    lines.push(match &yarn {
        Some(y) => y.selected_line(app, inner_w),
        None => selected_line(app, inner_w),
    });
    lines.push(Line::from(""));
    lines.push(legend(w, inner_w, by_pool, &on_screen, app.mono));
    // With room to spare, a line per rack: how busy it is and with what.
    if inner_h >= lines.len() + 1 + w.cluster().racks.len() {
        lines.push(Line::from(""));
        match &yarn {
            Some(y) => y.rack_bars(w, &mut lines, inner_w),
            None => rack_bars(w, &mut lines, inner_w),
        }
    }
    lines
}

/// The summary (nodes, slots in use, pending maps) and the glyph key, on
/// one line or two.
fn summary(w: RunView<'_>, area: Rect, yarn: Option<&Yarn>, mono: bool) -> Vec<Line<'static>> {
    let c = &w.cluster();
    let mut lines: Vec<Line> = Vec::new();
    let (rm, rr): (u32, u32) = c.nodes.iter().fold((0, 0), |(a, b), n| {
        (a + n.running_maps, b + n.running_reduces)
    });
    let pending: u32 = w.active().iter().map(|&j| w.job(j).maps_pending).sum();
    // Running tasks by kind against slots by type; a slot-borrowing
    // policy (DynamicMR) can run more maps than there are map slots.
    let borrowed = |n: u32, what: &str| {
        if n > 0 {
            format!(" · {n} {what}")
        } else {
            String::new()
        }
    };
    let slots = match c.capacity.gauge() {
        Gauge::TypedSlots => format!(
            "maps {rm}/{} · reduces {rr}/{}{}{}",
            c.total_map_slots,
            c.total_reduce_slots,
            borrowed(c.reduces_in_map_slots, "reduces in map slots"),
            borrowed(c.maps_in_reduce_slots, "maps in reduce slots"),
        ),
        Gauge::Containers => format!(
            "containers {}/{} ({}, {})",
            rm + rr,
            c.total_slots(),
            count(rm.into(), "map"),
            count(rr.into(), "reduce")
        ),
        Gauge::Memory => format!(
            "memory {:.1}/{:.1} GB · vcores {}/{} ({}, {}, {})",
            c.used.mb() as f64 / 1024.0,
            c.live.mb() as f64 / 1024.0,
            c.used.vcores(),
            c.live.vcores(),
            count(w.running_ams() as u64, "AM"),
            count(rm.into(), "map"),
            count(rr.into(), "reduce")
        ),
    };
    let reserved = match yarn {
        Some(y) if !y.reservations.is_empty() => {
            format!(" · {} reserved", count(y.reservations.len() as u64, "node"))
        }
        _ => String::new(),
    };
    let summary = format!(
        " {} · {slots} · {} pending{reserved}   ",
        count(c.nodes.len() as u64, "node"),
        count(pending.into(), "map")
    );
    let mut key = if mono {
        vec![
            Span::styled("A map ", theme::dim()),
            Span::styled("a reduce (shuffle underlined) ", theme::dim()),
        ]
    } else {
        vec![
            Span::styled(format!("{} map ", theme::MAP), theme::dim()),
            Span::styled(format!("{} shuffle ", theme::SHUFFLE), theme::dim()),
            Span::styled(format!("{} reduce ", theme::REDUCE), theme::dim()),
        ]
    };
    key.push(Span::styled(format!("{} free ", theme::FREE), theme::dim()));
    key.push(Span::styled(format!("{} dead", theme::DEAD), theme::dim()));
    if yarn.is_some() {
        // A node is its memory, then its vcores; AMs and reservations
        // have glyphs of their own.
        key.insert(0, Span::styled(format!("{} AM ", theme::AM), theme::dim()));
        key.insert(
            key.len() - 1,
            Span::styled(
                format!("{} reserved ", theme::RESERVED),
                Style::default().fg(theme::WARN),
            ),
        );
        key.push(Span::styled(
            format!(" · memory{}vcores", theme::SPLIT),
            theme::dim(),
        ));
    }
    // The key and some room to spare (on slots, 48 as it always was).
    let key_w = match yarn {
        None if !mono => 48,
        _ => key.iter().map(|k| k.content.chars().count()).sum(),
    };
    let inner_w = area.width.saturating_sub(2) as usize;
    let narrow = summary.chars().count() + key_w > inner_w;
    if narrow && yarn.is_some() {
        // YARN's summary is long: wrapped between its items, never in one.
        for l in super::wrap_items(summary.trim_end(), inner_w) {
            lines.push(Line::from(l));
        }
    } else if narrow {
        lines.push(Line::from(summary.clone()));
    }
    let mut line = vec![Span::raw(if narrow { " ".to_string() } else { summary })];
    line.extend(key);
    lines.push(Line::from(line));
    lines
}

/// The selected node: where it is, what runs there, the keys for it.
fn selected_line(app: &App, inner_w: usize) -> Line<'static> {
    let w = app.sim().view();
    let n = &w.cluster().nodes[app.sel_node as usize];
    let state = if n.alive {
        format!(
            "{} map, {} reduce running on {} slots · f fails it",
            n.running_maps,
            n.running_reduces,
            n.lanes.len()
        )
    } else {
        "dead · r recovers it".to_string()
    };
    let mut text = format!(" ▶ node {} (rack r{}): {state} · ←→↑↓ select", n.id, n.rack);
    if text.chars().count() > inner_w {
        text = format!(" ▶ node {} (rack r{}): {state}", n.id, n.rack);
    }
    Line::from(Span::styled(super::fit(&text, inner_w), theme::dim()))
}

/// The racks that fit in `room` lines from the scroll position: labelled
/// cells (" 12 ██··") when every rack fits so, else compact ones (" ██··");
/// if even those do not fit, the racks scroll with a "more racks" line.
/// Slots are coloured by job, or by pool when the jobs on screen are too
/// many for the legend's line (returned: true).
fn racks(
    app: &App,
    lines: &mut Vec<Line<'static>>,
    (inner_w, room, record): (usize, usize, bool),
    origin: (u16, u16),
    yarn: Option<&Yarn>,
) -> (bool, Vec<u32>) {
    let w = app.sim().view();
    let c = &w.cluster();
    let multi_dc = c.dcs.len() > 1;
    let label_w = 4;
    // A node's cells: one per slot, or on YARN its memory's and its
    // vcores' with a mark between.
    let lanes = match yarn {
        Some(y) => c.nodes.iter().map(|n| y.width(n)).max().unwrap_or(0),
        None => c.nodes.first().map_or(0, |n| n.lanes.len()),
    };
    // Lines each rack takes (with its datacenter's name above its first
    // rack) with node cells of `cell_w` characters.
    let rack_lines = |cell_w: usize| -> Vec<usize> {
        let per_line = ((inner_w - label_w.min(inner_w)) / cell_w).max(1);
        let mut v = vec![0; c.racks.len()];
        for dc in &c.dcs {
            for (i, &r) in dc.racks.iter().enumerate() {
                v[r as usize] = c.racks[r as usize].nodes.len().div_ceil(per_line)
                    + usize::from(multi_dc && i == 0);
            }
        }
        v
    };
    let labelled = rack_lines(lanes + 5).iter().sum::<usize>() + 2 <= room;
    let heights = rack_lines(if labelled { lanes + 5 } else { lanes + 1 });
    let order: Vec<u32> = c.dcs.iter().flat_map(|d| d.racks.iter().copied()).collect();
    let all_fit = heights.iter().sum::<usize>() <= room;
    // With a "more racks" line, the last rack that fits from each start.
    // (A datacenter's name may also head the first rack shown.)
    let avail = if all_fit {
        room
    } else {
        room.saturating_sub(1 + usize::from(multi_dc))
    };
    let fits_from = |f: usize| -> usize {
        let mut used = 0;
        let mut end = f;
        while end < order.len() && used + heights[order[end] as usize] <= avail {
            used += heights[order[end] as usize];
            end += 1;
        }
        end.max((f + 1).min(order.len()))
    };
    let max_first = if all_fit {
        0
    } else {
        (0..order.len())
            .find(|&f| fits_from(f) == order.len())
            .unwrap_or(order.len().saturating_sub(1))
    };
    let first = app.cluster_row.min(max_first);
    let end = if all_fit {
        order.len()
    } else {
        fits_from(first)
    };
    if record {
        let mut pages = app.pages.get();
        pages.cluster = Page {
            first,
            rows: (end - first).max(1),
            max: max_first,
        };
        app.pages.set(pages);
    }
    // The jobs on the racks shown, for the legend: too many for its line,
    // and slots are coloured by pool instead.
    let mut on_screen: Vec<u32> = order[first..end]
        .iter()
        .flat_map(|&r| c.racks[r as usize].nodes.iter())
        .flat_map(|&n| c.nodes[n as usize].lanes.iter().flatten())
        .map(|&a| w.attempts()[a as usize].job)
        .collect();
    // YARN: the AMs' jobs too.
    if let Some(y) = yarn {
        for &r in &order[first..end] {
            for &n in &c.racks[r as usize].nodes {
                let ams = y.ams.get(n as usize).map_or(&[][..], Vec::as_slice);
                on_screen.extend(ams.iter().map(|&(j, _)| j));
            }
        }
    }
    on_screen.sort_unstable();
    on_screen.dedup();
    let legend_w: usize = 7 + on_screen
        .iter()
        .map(|&j| w.job(j).name.chars().count() + 3)
        .sum::<usize>();
    let by_pool = legend_w > inner_w;
    let mut hits = Vec::new();
    for (k, &r) in order.iter().enumerate().take(end).skip(first) {
        let dc = c.racks[r as usize].dc as usize;
        if multi_dc && (k == first || c.dcs[dc].racks.first() == Some(&r)) {
            lines.push(Line::from(Span::styled(
                format!(" {} ", c.dcs[dc].name),
                theme::title(),
            )));
        }
        let look = Look {
            labelled,
            inner_w,
            by_pool,
            sel: app.sel_node,
            origin,
            yarn,
            mono: app.mono,
        };
        rack(w, r, &look, lines, &mut hits);
    }
    if record {
        app.hits.borrow_mut().extend(hits);
    }
    if !all_fit {
        let mut parts = Vec::new();
        if first > 0 {
            parts.push(format!("↑ {}", count(first as u64, "rack")));
        }
        let below = order.len() - end;
        if below > 0 {
            parts.push(format!("… {below} more {}", noun(below as u64, "rack")));
        }
        lines.push(Line::from(Span::styled(
            format!(" {} · PgUp PgDn scroll", parts.join(" · ")),
            theme::dim(),
        )));
    }
    (by_pool, on_screen)
}

/// How racks are drawn: node numbers or not, the width, slots coloured by
/// pool or job, the selected node, and where the panel's text starts.
struct Look<'a> {
    labelled: bool,
    inner_w: usize,
    by_pool: bool,
    sel: u32,
    origin: (u16, u16),
    /// On YARN: containers by memory and vcores, AMs, reservations.
    yarn: Option<&'a Yarn>,
    /// No colours: slots drawn as their jobs' letters.
    mono: bool,
}

/// Rack `r`'s nodes, wrapped at the panel's width; the selected node's
/// cell reversed, every cell recorded for clicks.
fn rack(w: RunView<'_>, r: u32, look: &Look, lines: &mut Vec<Line<'static>>, hits: &mut Vec<Hit>) {
    let c = &w.cluster();
    let label = format!(" r{r:<2}");
    let mut cur: Vec<Span> = vec![Span::styled(label.clone(), theme::dim())];
    let mut cur_w = label.chars().count();
    for &nid in &c.racks[r as usize].nodes {
        let n = &c.nodes[nid as usize];
        let sel = nid == look.sel;
        let reserved = look.yarn.is_some_and(|y| y.reserved(nid));
        // A reserved node's mark takes the space before its cells.
        let mark = if reserved {
            Span::styled(
                theme::RESERVED.to_string(),
                Style::default().fg(theme::WARN),
            )
        } else {
            Span::raw(" ")
        };
        let style = if sel { theme::cursor() } else { theme::dim() };
        let mut cell: Vec<Span> = match (look.labelled, look.yarn) {
            (true, None) => vec![Span::styled(format!(" {nid:>3} "), style)],
            (false, None) => vec![Span::raw(" ")],
            (true, Some(_)) => vec![Span::styled(format!(" {nid:>3}"), style), mark],
            (false, Some(_)) => vec![mark],
        };
        let cells = match look.yarn {
            Some(y) => y.cells(w, n, look.by_pool),
            None => n
                .lanes
                .iter()
                .map(|lane| slot(w, n, *lane, look.by_pool, look.mono))
                .collect(),
        };
        cell.extend(cells.into_iter().map(|s| {
            if sel {
                Span::styled(s.content, s.style.patch(theme::cursor()))
            } else {
                s
            }
        }));
        let cw: usize = cell.iter().map(|s| s.content.chars().count()).sum();
        if cur_w + cw > look.inner_w && cur.len() > 1 {
            lines.push(Line::from(std::mem::take(&mut cur)));
            cur.push(Span::raw(" ".repeat(label.chars().count())));
            cur_w = label.chars().count();
        }
        hits.push(Hit {
            area: Rect::new(
                look.origin.0 + cur_w as u16 + 1,
                look.origin.1 + lines.len() as u16,
                cw.saturating_sub(1) as u16,
                1,
            ),
            target: Target::Node(nid),
        });
        cur.extend(cell);
        cur_w += cw;
    }
    lines.push(Line::from(cur));
}

/// The colours on screen: the jobs running on the racks shown (or, when they are too many for
/// the line, the pools, which then colour the slots). Never cut: what does
/// not fit is counted.
pub(super) fn legend(
    w: RunView<'_>,
    inner_w: usize,
    by_pool: bool,
    on_screen: &[u32],
    mono: bool,
) -> Line<'static> {
    let items: Vec<(u32, String)> = if by_pool {
        w.pools()
            .iter()
            .enumerate()
            .map(|(p, spec)| (p as u32, spec.name.clone()))
            .collect()
    } else {
        on_screen
            .iter()
            .map(|&j| (j, w.job(j).name.to_string()))
            .collect()
    };
    let head = if by_pool {
        " pools (too many jobs to list): "
    } else {
        " jobs: "
    };
    let mut legend: Vec<Span> = vec![Span::styled(head, theme::dim())];
    let mut lw = head.chars().count();
    for (i, (id, name)) in items.iter().enumerate() {
        let item = format!("{name} ");
        let rest = items.len() - i;
        let more = format!("+{rest} more");
        let need = item.chars().count() + 2 + if rest > 1 { more.len() + 1 } else { 0 };
        if lw + need > inner_w && lw + more.len() <= inner_w {
            legend.push(Span::styled(more, theme::dim()));
            break;
        }
        lw += item.chars().count() + 2;
        legend.push(if mono {
            Span::raw(format!("{} ", theme::job_letter(*id, false)))
        } else {
            Span::styled("■ ", Style::default().fg(theme::job_color(*id)))
        });
        legend.push(Span::raw(item));
    }
    Line::from(legend)
}

/// A line per rack: how busy it is and with what.
fn rack_bars(w: RunView<'_>, lines: &mut Vec<Line<'static>>, inner_w: usize) {
    let bar_w = inner_w.saturating_sub(40).clamp(10, 40);
    for (r, rack) in w.cluster().racks.iter().enumerate() {
        let (mut slots, mut maps, mut reds, mut dead) = (0u32, 0u32, 0u32, 0u32);
        for &n in &rack.nodes {
            let node = w.node(n);
            slots += node.map_slots + node.reduce_slots;
            maps += node.running_maps;
            reds += node.running_reduces;
            dead += u32::from(!node.alive);
        }
        let busy = maps + reds;
        let frac = if slots > 0 {
            busy as f64 / slots as f64
        } else {
            0.0
        };
        let mut spans = vec![
            Span::styled(format!(" r{r:<3}"), theme::dim()),
            Span::styled(super::bar(frac, bar_w), Style::default().fg(theme::OK)),
            Span::raw(format!(
                " {busy:>4}/{slots:<4} {maps:>4} {:<4} {reds:>4} {}",
                noun(maps.into(), "map"),
                noun(reds.into(), "reduce")
            )),
        ];
        if dead > 0 {
            spans.push(Span::styled(
                format!("  {dead} dead"),
                Style::default().fg(theme::WARN),
            ));
        }
        lines.push(Line::from(spans));
    }
}

//! The Overview: the whole cluster on one screen, as btop or k9s show a
//! machine. Nodes as a grid of cells grouped by rack (one cell per node,
//! or per few nodes on a large cluster), how busy each is and with which
//! job; the job queue with progress; each pool's running tasks against its
//! share; utilisation and queue sparklines; and the busiest disks and
//! links. The other tabs show each of these in detail.

use super::super::app::{count, overview_jobs, App, Hit, Target};
use super::super::index;
use super::super::theme;
use super::{bar, fit, fit_mid, panel};
use crate::model::{Capacity, Gauge, NetworkModel};
use crate::sim::cluster::Node;
use crate::sim::RunView;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Sparkline};
use ratatui::Frame;

/// Glyphs for a node's busy fraction: idle, then quarters.
const LEVELS: [char; 5] = ['·', '▂', '▄', '▆', '█'];

pub fn render(app: &App, f: &mut Frame, area: Rect) {
    let needs = Needs::of(app, area.width, area.height);
    if is_wide(area) {
        let [left, right] = columns(area);
        let [nodes_a, trend_a] = match needs {
            // Nodes as tall as their grid, the busiest links below.
            Some(n) if n.nodes + TRENDS <= left.height => {
                Layout::vertical([Constraint::Length(n.nodes), Constraint::Min(TRENDS)]).areas(left)
            }
            _ => Layout::vertical([Constraint::Min(5), Constraint::Length(6)]).areas(left),
        };
        let [jobs_a, pools_a] = match needs {
            // Pools as tall as their rows, the jobs' list takes the rest.
            Some(n) if n.jobs + n.pools <= right.height => {
                Layout::vertical([Constraint::Min(n.jobs), Constraint::Length(n.pools)])
                    .areas(right)
            }
            _ => Layout::vertical([Constraint::Percentage(55), Constraint::Percentage(45)])
                .areas(right),
        };
        nodes(app, f, nodes_a);
        trends(app, f, trend_a);
        jobs(app, f, jobs_a);
        pools(app, f, pools_a);
    } else {
        let [top, bottom] = match needs {
            Some(n) if n.top() + n.bottom() <= area.height => {
                Layout::vertical([Constraint::Min(n.top()), Constraint::Length(n.bottom())])
                    .areas(area)
            }
            _ => Layout::vertical([Constraint::Percentage(58), Constraint::Percentage(42)])
                .areas(area),
        };
        let [nodes_a, jobs_a] =
            Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(top);
        let [pools_a, trend_a] =
            Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)])
                .areas(bottom);
        nodes(app, f, nodes_a);
        jobs(app, f, jobs_a);
        pools(app, f, pools_a);
        trends(app, f, trend_a);
    }
}

/// Rows of the trends panel by default: busy, queue and two links.
const TRENDS: u16 = 6;

/// Rows from which a screen 100 wide draws the panels in two columns.
const WIDE_MIN_H: u16 = 16;

fn is_wide(area: Rect) -> bool {
    area.width >= 100 && area.height >= WIDE_MIN_H
}

/// The wide layout's columns: nodes and trends left, jobs and pools right.
fn columns(area: Rect) -> [Rect; 2] {
    Layout::horizontal([Constraint::Percentage(55), Constraint::Percentage(45)]).areas(area)
}

/// The rows (borders included) each panel needs to show everything it
/// holds, known when every node has a cell of its own: a small cluster's
/// Overview is then only as tall as its panels, and the log below takes
/// the rest of the screen.
#[derive(Clone, Copy)]
struct Needs {
    nodes: u16,
    jobs: u16,
    pools: u16,
}

impl Needs {
    fn of(app: &App, width: u16, height: u16) -> Option<Needs> {
        let area = Rect::new(0, 0, width, height);
        let nodes_w = if is_wide(area) {
            columns(area)[0].width
        } else {
            Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)])
                .areas::<2>(area)[0]
                .width
        };
        let nodes = nodes_need(app.sim().view(), nodes_w.saturating_sub(2) as usize)?;
        let jobs = overview_jobs(app.sim().view()).len().max(1);
        let rows = |n: usize| (n + 2).min(u16::MAX as usize) as u16;
        Some(Needs {
            nodes: rows(nodes),
            jobs: rows(jobs),
            pools: rows(pool_rows(app).max(1)),
        })
    }

    /// The narrow layout's rows: nodes beside jobs, pools beside trends.
    fn top(self) -> u16 {
        self.nodes.max(self.jobs)
    }

    fn bottom(self) -> u16 {
        self.pools.max(TRENDS - 1)
    }
}

/// The Overview's height when its panels need less than `height`, for a
/// screen `width` wide: None when they need it all. A wide screen keeps
/// its two columns (at least [`WIDE_MIN_H`] rows).
pub fn height(app: &App, width: u16, height: u16) -> Option<u16> {
    let n = Needs::of(app, width, height)?;
    let want = if is_wide(Rect::new(0, 0, width, height)) {
        (n.nodes + TRENDS).max(n.jobs + n.pools).max(WIDE_MIN_H)
    } else {
        n.top() + n.bottom()
    };
    (want < height).then_some(want)
}

/// Lines the node grid takes `inner_w` wide with a cell per node (the
/// grid, the selected node, the legend), or None when the cells must be
/// packed.
fn nodes_need(w: RunView<'_>, inner_w: usize) -> Option<usize> {
    let per_line = inner_w.saturating_sub(NODE_LABEL_W).max(1);
    let rack_lines = rack_lines(w, per_line);
    // Small clusters only: a large one's grid takes the screen.
    if rack_lines > 8 {
        return None;
    }
    let mut legend_lines = Vec::new();
    legend(&mut legend_lines, 1, inner_w, usize::MAX);
    Some(rack_lines + 1 + legend_lines.len())
}

const NODE_LABEL_W: usize = 5;

/// Lines the racks take at a cell per node, `per_line` cells a line.
fn rack_lines(w: RunView<'_>, per_line: usize) -> usize {
    w.cluster()
        .racks
        .iter()
        .map(|r| r.nodes.len().div_ceil(per_line).max(1))
        .sum()
}

/// Busy slots of a node over its slots (YARN: memory held over memory),
/// 0 for a dead node.
fn busy(cap: &Capacity, n: &Node) -> f64 {
    let slots = n.lanes.len();
    if slots == 0 || !n.alive {
        return 0.0;
    }
    // YARN: the memory its containers (its AMs' too) hold.
    if cap.gauge() == Gauge::Memory {
        return n.used.mb() as f64 / n.capacity.mb() as f64;
    }
    n.lanes.iter().filter(|l| l.is_some()).count() as f64 / slots as f64
}

/// The glyph level of a busy fraction: the nearest quarter, at least ¼
/// when anything runs and full only when full (1 of 3 slots is ¼, not ½).
fn busy_level(frac: f64) -> usize {
    if frac <= 0.0 {
        0
    } else if frac >= 1.0 {
        4
    } else {
        ((frac * 4.0).round() as usize).clamp(1, 3)
    }
}

/// One cell for a group of nodes: the mean busy fraction's
/// glyph, `✗` when all are dead; coloured by the job with the most
/// attempts there (by the lowest job id on ties), dim when idle.
fn cell(w: RunView<'_>, nodes: &[&Node]) -> Span<'static> {
    if nodes.iter().all(|n| !n.alive) {
        return Span::styled(theme::DEAD.to_string(), Style::default().fg(theme::WARN));
    }
    let frac = nodes.iter().map(|n| busy(w.capacity(), n)).sum::<f64>() / nodes.len() as f64;
    let level = busy_level(frac);
    let glyph = LEVELS[level].to_string();
    if level == 0 {
        return Span::styled(glyph, theme::dim());
    }
    match top_job(w, nodes) {
        Some(j) => Span::styled(glyph, Style::default().fg(theme::job_color(j))),
        None => Span::raw(glyph),
    }
}

/// The job with the most attempts on `nodes` (the lowest id on ties).
fn top_job(w: RunView<'_>, nodes: &[&Node]) -> Option<u32> {
    let mut counts: Vec<(u32, u32)> = Vec::new();
    for n in nodes {
        for a in n.lanes.iter().flatten() {
            let j = w.attempts()[*a as usize].job;
            match counts.iter_mut().find(|c| c.0 == j) {
                Some(c) => c.1 += 1,
                None => counts.push((j, 1)),
            }
        }
    }
    counts
        .iter()
        .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
        .map(|c| c.0)
}

/// Every node as a cell, rack by rack; when that does not fit, `k` nodes
/// per cell, the racks still labelled and flowing side by side. The
/// selected node's cell is drawn reversed and described under the grid.
fn nodes(app: &App, f: &mut Frame, area: Rect) {
    let w = app.sim().view();
    let inner_w = area.width.saturating_sub(2) as usize;
    let inner_h = area.height.saturating_sub(2) as usize;
    let title = nodes_title(w, area.width);
    let mut grid = Grid {
        w,
        sel: app.sel_node,
        mono: app.mono,
        x0: area.x + 1,
        y0: area.y + 1,
        lines: Vec::new(),
        hits: Vec::new(),
    };
    // A line for the selected node and the legend below the grid.
    let rows = inner_h.saturating_sub(2).max(1);
    let label_w = NODE_LABEL_W;
    let per_line = inner_w.saturating_sub(label_w).max(1);
    let k = if rack_lines(w, per_line) <= rows {
        grid.by_rack(label_w, per_line);
        1
    } else {
        grid.packed(inner_w, rows)
    };
    let Grid {
        mut lines, hits, ..
    } = grid;
    if lines.len() < inner_h {
        lines.push(selected_node(w, app.sel_node, inner_w));
    }
    legend(&mut lines, k, inner_w, inner_h);
    app.hits.borrow_mut().extend(hits);
    f.render_widget(Paragraph::new(lines).block(panel(title)), area);
}

fn gb(mb: i64) -> f64 {
    mb as f64 / 1024.0
}

/// The nodes panel's title: the nodes, what runs on them against what
/// they hold, the dead; the longest that fits `width`. Typeless
/// containers are one pool of slots: maps and reduces together against
/// all of them (a map may take what a typed cluster would call a reduce
/// slot).
fn nodes_title(w: RunView<'_>, width: u16) -> String {
    let c = &w.cluster();
    let (rm, rr): (u32, u32) = c.nodes.iter().fold((0, 0), |(a, b), n| {
        (a + n.running_maps, b + n.running_reduces)
    });
    let dead = c.nodes.iter().filter(|n| !n.alive).count();
    let dead_s = if dead > 0 {
        format!(" · {dead} dead")
    } else {
        String::new()
    };
    let (n, ms, rs) = (c.nodes.len(), c.total_map_slots, c.total_reduce_slots);
    if c.capacity.gauge() == Gauge::Memory {
        let ams = w.running_ams();
        super::first_fit(
            &[
                format!(
                    " Nodes {n} · memory {:.1}/{:.1} GB · vcores {}/{} · {ams} AMs, {rm} maps, {rr} reduces{dead_s} ",
                    gb(c.used.mb()),
                    gb(c.live.mb()),
                    c.used.vcores(),
                    c.live.vcores()
                ),
                format!(
                    " Nodes {n} · {:.1}/{:.1} GB · {ams} AMs, {rm} maps, {rr} reds{dead_s} ",
                    gb(c.used.mb()),
                    gb(c.live.mb())
                ),
                format!(" Nodes {n} · {:.1}/{:.1} GB{dead_s} ", gb(c.used.mb()), gb(c.live.mb())),
                format!(" {n} nodes{dead_s} "),
            ],
            width,
        )
    } else if c.capacity.gauge() == Gauge::Containers {
        super::first_fit(
            &[
                format!(
                    " Nodes {n} · containers {}/{} ({rm} maps, {rr} reduces){dead_s} ",
                    rm + rr,
                    ms + rs
                ),
                format!(" Nodes {n} · containers {}/{}{dead_s} ", rm + rr, ms + rs),
                format!(" {n} nodes{dead_s} "),
            ],
            width,
        )
    } else {
        super::first_fit(
            &[
                format!(" Nodes {n} · maps {rm}/{ms} · reduces {rr}/{rs}{dead_s} "),
                format!(" Nodes {n} · maps {rm}/{ms} · reds {rr}/{rs}{dead_s} "),
                format!(" {n} nodes{dead_s} "),
            ],
            width,
        )
    }
}

/// The node grid as it is drawn: its lines from (`x0`, `y0`) and a hit
/// per cell.
struct Grid<'a> {
    w: RunView<'a>,
    sel: u32,
    /// No colours: cells say their top job's letter where they have room.
    mono: bool,
    x0: u16,
    y0: u16,
    lines: Vec<Line<'static>>,
    hits: Vec<Hit>,
}

impl Grid<'_> {
    /// A group of nodes' cell, reversed when it holds the selected node.
    fn styled(&self, group: &[&Node]) -> Span<'static> {
        let s = cell(self.w, group);
        if group.iter().any(|n| n.id == self.sel) {
            Span::styled(s.content, s.style.patch(theme::cursor()))
        } else {
            s
        }
    }

    /// Rack by rack, one cell per node, `per_line` nodes a line after a
    /// label `label_w` wide.
    fn by_rack(&mut self, label_w: usize, per_line: usize) {
        let c = self.w.cluster();
        // Cells as wide as the widest rack allows (up to 4 characters with
        // a space between cells), so a small cluster reads easily.
        let widest = c
            .racks
            .iter()
            .map(|r| r.nodes.len())
            .max()
            .unwrap_or(1)
            .max(1);
        let cw = (per_line / widest).clamp(1, 4);
        let per_line = if cw > 1 { per_line / cw } else { per_line };
        for (ri, rack) in c.racks.iter().enumerate() {
            let nodes: Vec<&Node> = rack.nodes.iter().map(|&n| &c.nodes[n as usize]).collect();
            for (li, chunk) in nodes.chunks(per_line.max(1)).enumerate() {
                let label = if li == 0 {
                    fit(&format!("r{ri}"), label_w - 1)
                } else {
                    " ".repeat(label_w - 1)
                };
                let y = self.y0 + self.lines.len() as u16;
                let mut x = self.x0 + label_w as u16;
                let mut spans = vec![Span::styled(format!("{label} "), theme::dim())];
                for n in chunk {
                    let s = self.styled(std::slice::from_ref(n));
                    // cw characters a cell: the glyph cw − 1 times and a space.
                    let gw = if cw > 1 { cw - 1 } else { 1 };
                    self.hits.push(Hit {
                        area: Rect::new(x, y, gw as u16, 1),
                        target: Target::Node(n.id),
                    });
                    x += cw as u16;
                    // No colours: the cell starts with its top job's letter.
                    let top = top_job(self.w, std::slice::from_ref(n)).filter(|_| self.mono);
                    spans.push(match top {
                        Some(j) if gw > 1 => Span::styled(
                            format!(
                                "{}{}",
                                theme::job_letter(j, false),
                                s.content.repeat(gw - 1)
                            ),
                            s.style,
                        ),
                        _ => Span::styled(s.content.repeat(gw), s.style),
                    });
                    if cw > 1 {
                        spans.push(Span::raw(" "));
                    }
                }
                self.lines.push(Line::from(spans));
            }
        }
    }

    /// Packed: k nodes per cell, each rack labelled, racks side by side
    /// over at most `rows` lines `width` wide. Returns k.
    fn packed(&mut self, width: usize, rows: usize) -> usize {
        let c = self.w.cluster();
        let racks: Vec<(String, &[u32])> = c
            .racks
            .iter()
            .enumerate()
            .map(|(ri, r)| (format!("r{ri} "), r.nodes.as_slice()))
            .collect();
        let (k, flowed) = flow_racks(&racks, width.max(1), rows);
        for line in flowed.iter().take(rows) {
            let y = self.y0 + self.lines.len() as u16;
            let mut x = self.x0;
            let mut spans: Vec<Span> = Vec::new();
            for seg in line {
                match seg {
                    Seg::Label(t) => {
                        x += t.chars().count() as u16;
                        spans.push(Span::styled(t.clone(), theme::dim()));
                    }
                    Seg::Cells(r, from, to) => {
                        let ids = racks[*r].1;
                        for g in ids[*from..*to].chunks(k) {
                            let group: Vec<&Node> =
                                g.iter().map(|&n| &c.nodes[n as usize]).collect();
                            self.hits.push(Hit {
                                area: Rect::new(x, y, 1, 1),
                                target: Target::Node(g[0]),
                            });
                            x += 1;
                            spans.push(self.styled(&group));
                        }
                    }
                }
            }
            self.lines.push(Line::from(spans));
        }
        k
    }
}

/// The selected node: what it holds and how to fail or recover it; a
/// shorter line when that does not fit `width`.
fn selected_node(w: RunView<'_>, sel: u32, width: usize) -> Line<'static> {
    let c = &w.cluster();
    let n = &c.nodes[sel as usize];
    let ams = w
        .job_tasks()
        .iter()
        .filter(|t| t.node == sel && t.end.is_none())
        .count();
    let state = if !n.alive {
        "dead · r recovers it".to_string()
    } else if c.capacity.gauge() == Gauge::Memory {
        format!(
            "{:.1}/{:.1} GB, {}/{} vcores held ({} AM{}) · f fails it",
            gb(n.used.mb()),
            gb(n.capacity.mb()),
            n.used.vcores(),
            n.capacity.vcores(),
            ams,
            if ams == 1 { "" } else { "s" }
        )
    } else if n.alive {
        format!(
            "{}/{} slots busy · f fails it",
            n.lanes.iter().filter(|l| l.is_some()).count(),
            n.lanes.len()
        )
    } else {
        "dead · r recovers it".to_string()
    };
    let busy = n.lanes.iter().filter(|l| l.is_some()).count();
    let short = if n.alive && c.capacity.gauge() == Gauge::Memory {
        format!(
            "▶ node {sel} (r{}) {:.1}/{:.1} GB",
            n.rack,
            gb(n.used.mb()),
            gb(n.capacity.mb())
        )
    } else if n.alive {
        format!("▶ node {sel} (r{}) {busy}/{} busy", n.rack, n.lanes.len())
    } else {
        format!("▶ node {sel} (r{}) dead", n.rack)
    };
    let long = format!("▶ node {sel} (r{}): {state}", n.rack);
    let text = if long.chars().count() <= width {
        long
    } else {
        short
    };
    Line::from(Span::styled(fit(&text, width), theme::dim()))
}

/// The glyphs' legend (and the nodes a cell stands for, `k`), wrapped at
/// items over the lines left of `height`.
fn legend(lines: &mut Vec<Line<'static>>, k: usize, width: usize, height: usize) {
    let mut items: Vec<String> = Vec::new();
    if k > 1 {
        items.push(format!("1 cell = {k} nodes"));
    }
    let legend = format!(
        "{} idle  {} ¼  {} ½  {} ¾  {} full  {} dead",
        LEVELS[0],
        LEVELS[1],
        LEVELS[2],
        LEVELS[3],
        LEVELS[4],
        theme::DEAD
    );
    items.extend(legend.split("  ").map(str::to_string));
    let mut cur = String::new();
    for it in items {
        if lines.len() >= height {
            break;
        }
        if !cur.is_empty() && cur.chars().count() + 2 + it.chars().count() > width {
            lines.push(Line::from(Span::styled(
                std::mem::take(&mut cur),
                theme::dim(),
            )));
        }
        if !cur.is_empty() {
            cur.push_str("  ");
        }
        cur.push_str(&it);
    }
    if !cur.is_empty() && lines.len() < height {
        lines.push(Line::from(Span::styled(fit(&cur, width), theme::dim())));
    }
}

/// A piece of a packed grid line: a rack's label, or cells for its nodes
/// `from..to` (rack index into the list given).
enum Seg {
    Label(String),
    Cells(usize, usize, usize),
}

/// Lays racks out side by side, `k` nodes per cell, for the smallest `k`
/// whose lines fit `rows`: a rack that fits on the rest of a line goes
/// there, a longer one starts a line and wraps under its label.
fn flow_racks(racks: &[(String, &[u32])], width: usize, rows: usize) -> (usize, Vec<Vec<Seg>>) {
    let lay = |k: usize| -> Vec<Vec<Seg>> {
        let mut out: Vec<Vec<Seg>> = vec![Vec::new()];
        let mut used = 0usize;
        for (ri, (label, nodes)) in racks.iter().enumerate() {
            let lw = label.chars().count();
            let cells = nodes.len().div_ceil(k);
            let gap = usize::from(used > 0);
            if used > 0 && used + gap + lw + cells > width {
                out.push(Vec::new());
                used = 0;
            }
            let line = out.last_mut().expect("a line");
            if used > 0 {
                line.push(Seg::Label(" ".into()));
                used += 1;
            }
            line.push(Seg::Label(label.clone()));
            used += lw;
            let mut from = 0;
            while from < nodes.len() {
                let room = width.saturating_sub(used).max(1);
                let to = (from + room * k).min(nodes.len());
                out.last_mut()
                    .expect("a line")
                    .push(Seg::Cells(ri, from, to));
                used += (to - from).div_ceil(k);
                from = to;
                if from < nodes.len() {
                    out.push(vec![Seg::Label(" ".repeat(lw))]);
                    used = lw;
                }
            }
        }
        out
    };
    let most = racks.iter().map(|r| r.1.len()).sum::<usize>().max(1);
    let mut k = 1;
    loop {
        let l = lay(k);
        if l.len() <= rows || k >= most {
            return (k, l);
        }
        k += 1;
    }
}

/// Runnable jobs, the ones with tasks running first, then queued, each
/// with its progress (half maps, half reduces).
fn jobs(app: &App, f: &mut Frame, area: Rect) {
    let w = app.sim().view();
    let inner_w = area.width.saturating_sub(2) as usize;
    let inner_h = area.height.saturating_sub(2) as usize;
    let active = overview_jobs(w);
    let running = active
        .iter()
        .filter(|&&j| w.job(j).maps_running + w.job(j).reduces_running > 0)
        .count();
    let title = format!(
        " Jobs {running} running · {} queued · {} done ",
        active.len() - running + w.waiting().len(),
        w.finished_jobs()
    );
    let name_w = (inner_w / 3).clamp(8, 24);
    let bar_w = inner_w.saturating_sub(name_w + 15).clamp(4, 30);
    let mut lines: Vec<Line> = Vec::new();
    if active.is_empty() {
        lines.push(Line::from(Span::styled(
            "no job runnable now",
            theme::dim(),
        )));
    }
    let more = active.len().saturating_sub(inner_h);
    let shown = if more > 0 {
        inner_h.saturating_sub(1)
    } else {
        inner_h
    };
    // The selected job stays on screen: the list starts after it if need be.
    let skip = app
        .sel_job
        .and_then(|s| active.iter().position(|&j| j == s))
        .map_or(0, |i| (i + 1).saturating_sub(shown));
    let mut hits = app.hits.borrow_mut();
    for (i, &j) in active.iter().skip(skip).take(shown).enumerate() {
        let job = w.job(j);
        hits.push(Hit {
            area: Rect::new(area.x + 1, area.y + 1 + i as u16, inner_w as u16, 1),
            target: Target::Job(j),
        });
        let selected = app.sel_job == Some(j);
        let maps = job.maps_done as f64 / job.n_maps().max(1) as f64;
        let prog = if job.n_reduces() == 0 {
            maps
        } else {
            (maps + job.reduces_done as f64 / job.n_reduces() as f64) / 2.0
        };
        let mut style = if job.maps_running + job.reduces_running > 0 {
            Style::default().fg(theme::job_color(j))
        } else {
            theme::dim()
        };
        if selected {
            style = style.patch(theme::cursor());
        }
        let name = if app.mono {
            format!("{} {}", theme::job_letter(j, false), job.name)
        } else {
            job.name.to_string()
        };
        lines.push(Line::from(vec![
            Span::styled(format!("{:<name_w$} ", fit_mid(&name, name_w)), style),
            Span::raw(bar(prog, bar_w)),
            Span::styled(
                format!(
                    " {:>3.0}% {:>3} run",
                    prog * 100.0,
                    job.maps_running + job.reduces_running
                ),
                theme::dim(),
            ),
        ]));
    }
    drop(hits);
    if more > 0 {
        lines.push(Line::from(Span::styled(
            format!("… {} more (Jobs tab)", count(more as u64, "job")),
            theme::dim(),
        )));
    }
    f.render_widget(Paragraph::new(lines).block(panel(title)), area);
}

/// Each pool's running tasks against the share the policy gives it.
fn pools(app: &App, f: &mut Frame, area: Rect) {
    let inner_h = area.height.saturating_sub(2) as usize;
    let (title, mut lines) = pool_lines(app, area.width);
    if lines.len() > inner_h {
        let more = lines.len() - inner_h + 1;
        lines.truncate(inner_h.saturating_sub(1));
        lines.push(Line::from(Span::styled(
            format!("… {more} more rows (Pools tab)"),
            theme::dim(),
        )));
    }
    f.render_widget(Paragraph::new(lines).block(panel(title)), area);
}

/// How many rows [`pool_lines`] draws, counted without drawing them (or
/// asking a YARN scheduler for its queues): a row per pool, two (maps and
/// reduces) where the policy shares typed slots.
fn pool_rows(app: &App) -> usize {
    match &app.pane().shares {
        Some(sh) if sh.basis != crate::sim::policy::ShareBasis::Containers => 2 * sh.pools.len(),
        Some(sh) => sh.pools.len(),
        None => app.sim().view().pools().len(),
    }
}

/// The pools panel's title (the longest that fits `width`) and its rows.
fn pool_lines(app: &App, width: u16) -> (String, Vec<Line<'static>>) {
    let w = app.sim().view();
    let inner_w = width.saturating_sub(2) as usize;
    let name_w = (inner_w / 3).clamp(8, 16);
    let bar_w = inner_w.saturating_sub(name_w + 14).clamp(4, 30);
    let mut lines: Vec<Line> = Vec::new();
    let row = |name: &str, run: u32, share: Option<f64>| -> Line<'static> {
        let frac = match share {
            Some(s) if s > 0.0 => run as f64 / s,
            _ => 0.0,
        };
        let share = share.map_or("-".to_string(), |s| format!("{s:.1}"));
        Line::from(vec![
            Span::styled(
                format!("{:<name_w$} ", fit_mid(name, name_w)),
                theme::title(),
            ),
            Span::raw(bar(frac, bar_w)),
            Span::styled(format!(" {run}/{share}"), theme::dim()),
        ])
    };
    let title = match &app.pane().shares {
        // YARN: what each queue holds, by what the scheduler divides by.
        None if w.capacity().gauge() == Gauge::Memory => {
            let values = app.sim().policy().inspect(w, app.sel_node);
            queue_rows(w, &values, inner_w, &mut lines)
        }
        Some(shares) => {
            let typed = shares.basis != crate::sim::policy::ShareBasis::Containers;
            for p in &shares.pools {
                if typed {
                    lines.push(row(
                        &format!("{} m", p.name),
                        p.running_maps,
                        Some(p.share_map),
                    ));
                    lines.push(row(
                        &format!("{} r", p.name),
                        p.running_reduces,
                        Some(p.share_reduce),
                    ));
                } else {
                    lines.push(row(
                        &p.name,
                        p.running_maps + p.running_reduces,
                        Some(p.share_map),
                    ));
                }
            }
            let cands: Vec<String> = if typed {
                vec![
                    " Pools: m maps, r reduces, running/share ".into(),
                    " Pools m/r: running/share ".into(),
                    " Pools: running/share ".into(),
                    " Pools ".into(),
                ]
            } else {
                vec![
                    " Pools: containers running/share ".into(),
                    " Pools: running/share ".into(),
                    " Pools ".into(),
                ]
            };
            super::first_fit(&cands, width)
        }
        None => {
            for (p, spec) in w.pools().iter().enumerate() {
                let st = &w.pool_stats()[p];
                lines.push(row(&spec.name, st.running_maps + st.running_reduces, None));
            }
            super::first_fit(
                &[" Pools: running (no shares) ".into(), " Pools ".into()],
                width,
            )
        }
    };
    (title, lines)
}

/// YARN's queues, a line each, and the panel's title (the longest that
/// fits `width`). Where the scheduler orders queues by dominant share
/// (drf, the dominant resource calculator) the bar is the queue's dominant
/// share of the cluster, so a queue holding little memory but most vcores
/// shows as large as it is; else its memory against its fair share or
/// capacity, or of the cluster where it has none. Memory and vcores are
/// written out either way.
fn queue_rows(
    w: RunView<'_>,
    values: &crate::sim::policy::Inspection,
    inner_w: usize,
    lines: &mut Vec<Line<'static>>,
) -> String {
    use crate::sched::yarn::show::{queues, QueueBasis};
    let qs = queues(w, values);
    let dominant = qs.iter().any(|q| q.dominant);
    let basis = qs
        .iter()
        .map(|q| q.basis)
        .find(|b| *b != QueueBasis::None)
        .unwrap_or(QueueBasis::None);
    let cluster_mb = w.cluster().live.mb().max(1) as f64;
    let gb = super::queues::gb;
    // Each queue's bar fraction and text, with numbers `tight` or not;
    // the text's parts (dominant share, memory, vcores) line up in
    // columns.
    let texts = |tight: bool| -> Vec<(String, f64)> {
        let rows: Vec<(Vec<String>, f64)> = qs
            .iter()
            .map(|q| {
                let (mb, vc) = (q.used.mb(), q.used.vcores());
                let vc = format!("{vc} vc");
                match (q.basis, q.share_mb) {
                    _ if dominant => {
                        let share = format!("{:.0}%", q.dominant_share * 100.0);
                        (
                            vec![share, format!("{} GB", gb(mb, tight)), vc],
                            q.dominant_share,
                        )
                    }
                    (QueueBasis::FairShare | QueueBasis::Capacity, Some(s)) => {
                        let frac = if s > 0 { mb as f64 / s as f64 } else { 0.0 };
                        (
                            vec![format!("{}/{} GB", gb(mb, tight), gb(s, tight)), vc],
                            frac,
                        )
                    }
                    _ => (
                        vec![format!("{} GB", gb(mb, tight)), vc],
                        mb as f64 / cluster_mb,
                    ),
                }
            })
            .collect();
        let cols = rows.iter().map(|r| r.0.len()).max().unwrap_or(0);
        let widths: Vec<usize> = (0..cols)
            .map(|c| {
                rows.iter()
                    .filter_map(|r| r.0.get(c))
                    .map(|x| x.chars().count())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        rows.into_iter()
            .map(|(parts, frac)| {
                let cells: Vec<String> = parts
                    .iter()
                    .zip(&widths)
                    .map(|(p, &w)| format!("{p:>w$}"))
                    .collect();
                (cells.join(" · "), frac)
            })
            .collect()
    };
    let name_w = qs
        .iter()
        .map(|q| q.name.chars().count())
        .max()
        .unwrap_or(4)
        .clamp(4, (inner_w / 3).clamp(4, 16));
    // The bar takes what the name and the widest text leave (a space
    // each side of the bar, one at the end): precise numbers while the
    // bar keeps 6 cells.
    let fitted = |tight: bool| {
        let t = texts(tight);
        let text_w = t.iter().map(|x| x.0.chars().count()).max().unwrap_or(0);
        let bar_w = inner_w.saturating_sub(name_w + text_w + 3);
        (t, text_w, bar_w)
    };
    let (t, _, bar_w) = match fitted(false) {
        (_, _, b) if b < 6 => fitted(true),
        precise => precise,
    };
    let bar_w = bar_w.clamp(4, 30);
    for (q, (text, frac)) in qs.iter().zip(t) {
        lines.push(Line::from(vec![
            Span::styled(
                format!("{:<name_w$} ", fit_mid(&q.name, name_w)),
                theme::title(),
            ),
            Span::raw(bar(frac, bar_w)),
            Span::styled(format!(" {text}"), theme::dim()),
        ]));
    }
    let share = match basis {
        QueueBasis::Capacity => "capacity",
        QueueBasis::FairShare | QueueBasis::None => "fair share",
    };
    let cands: Vec<String> = if dominant {
        vec![
            " Queues: dominant share of the cluster, memory, vcores ".into(),
            " Queues: dominant share, memory, vcores ".into(),
            " Queues: dominant share ".into(),
            " Queues ".into(),
        ]
    } else if basis == QueueBasis::None {
        vec![
            " Queues: memory held, of the cluster's, and vcores ".into(),
            " Queues: memory held, vcores ".into(),
            " Queues ".into(),
        ]
    } else {
        vec![
            format!(" Queues: memory held/{share}, vcores held "),
            format!(" Queues: memory/{share}, vcores "),
            " Queues ".into(),
        ]
    };
    super::first_fit(&cands, (inner_w + 2) as u16)
}

/// Utilisation and queue over the run, and the busiest disks and links now.
fn trends(app: &App, f: &mut Frame, area: Rect) {
    let w = app.sim().view();
    let block = panel(if w.capacity().gauge() == Gauge::Memory {
        " Memory held, queue, busiest links "
    } else {
        " Busy slots, queue, busiest links "
    });
    let inner = block.inner(area);
    f.render_widget(block, area);
    if inner.height == 0 || inner.width < 12 {
        return;
    }
    // "queue 1234 ": the numbers keep a blank before their bars.
    let label_w = 11u16;
    let rows: Vec<Rect> = Layout::vertical(vec![Constraint::Length(1); inner.height as usize])
        .split(inner)
        .to_vec();
    let cols = inner.width.saturating_sub(label_w) as usize;
    let step = super::timeline_step(w.now(), cols.max(1));
    let values = app.pane().index.history.columns(step, cols.max(1), w);
    let cur = index::state(w);
    let util: Vec<u64> = values
        .iter()
        .map(|v| (v.0 * 100.0).round() as u64)
        .collect();
    let queue: Vec<u64> = values.iter().map(|v| v.1.round() as u64).collect();
    let spark = |f: &mut Frame, r: Rect, label: String, data: &[u64], max: Option<u64>, c| {
        let [l, s] = Layout::horizontal([Constraint::Length(label_w), Constraint::Min(1)]).areas(r);
        f.render_widget(Paragraph::new(Span::styled(label, theme::dim())), l);
        let mut sp = Sparkline::default()
            .data(data)
            .style(Style::default().fg(c));
        if let Some(m) = max {
            sp = sp.max(m);
        }
        f.render_widget(sp, s);
    };
    spark(
        f,
        rows[0],
        format!("busy {:>3}% ", (cur.0 * 100.0).round() as u64),
        &util,
        Some(100),
        theme::OK,
    );
    if rows.len() > 1 {
        spark(
            f,
            rows[1],
            format!("queue {:>4} ", cur.1 as u64),
            &queue,
            None,
            theme::ACCENT,
        );
    }
    // The busiest disks and links now.
    let mut lines: Vec<Line> = Vec::new();
    if w.net_spec().model == NetworkModel::Fixed {
        lines.push(Line::from(Span::styled(
            "fixed network: transfers share nothing",
            theme::dim(),
        )));
    } else {
        let n_links = w.links().count() as usize;
        let mut hot: Vec<(f64, usize)> = w.net().resources[..n_links]
            .iter()
            .enumerate()
            .filter(|(_, r)| r.flow_count() > 0 && r.load > 0.0)
            .map(|(i, r)| (r.load / r.capacity, i))
            .collect();
        hot.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        if hot.is_empty() {
            lines.push(Line::from(Span::styled("no transfer now", theme::dim())));
        }
        let bar_w = (inner.width as usize)
            .saturating_sub(label_w as usize + 8)
            .clamp(4, 30);
        for &(u, r) in hot.iter().take(rows.len().saturating_sub(2)) {
            let style = if u >= 0.999 {
                Style::default().fg(theme::WARN)
            } else {
                Style::default().fg(theme::OK)
            };
            lines.push(Line::from(vec![
                Span::styled(
                    format!(
                        "{:<w$}",
                        fit(&w.links().name(r as u32), label_w as usize - 1),
                        w = label_w as usize
                    ),
                    theme::dim(),
                ),
                Span::styled(bar(u, bar_w), style),
                Span::styled(format!(" {:>3.0}%", u * 100.0), theme::dim()),
            ]));
        }
    }
    for (line, r) in lines.into_iter().zip(rows.iter().skip(2)) {
        f.render_widget(Paragraph::new(line), *r);
    }
}

#[cfg(test)]
mod level_tests {
    use super::busy_level;

    #[test]
    fn busy_levels_are_the_nearest_quarter_and_full_only_when_full() {
        assert_eq!(busy_level(0.0), 0);
        assert_eq!(busy_level(0.05), 1);
        assert_eq!(busy_level(1.0 / 3.0), 1);
        assert_eq!(busy_level(0.5), 2);
        assert_eq!(busy_level(2.0 / 3.0), 3);
        assert_eq!(busy_level(0.95), 3);
        assert_eq!(busy_level(1.0), 4);
    }
}

//! How the Cluster view draws a YARN node: its containers sized by what
//! they hold, memory cells then vcore cells (`◆◆████··│◆███····`), each
//! container in its job's colour, ApplicationMasters with a glyph of their
//! own, and the nodes the scheduler has reserved for an application's
//! container marked `R`. On slots a node's lanes are its slots; on YARN a
//! container may take several cells (a 4 GB map on 1 GB cells takes four)
//! and AMs hold containers no lane shows, so the lanes do not say what a
//! node holds.

use super::super::app::{count, App};
use super::super::theme;
use super::queues::{gb, reservation_text};
use super::{bar, fit};
use crate::model::{JobId, Resource};
use crate::sched::yarn::show::{reservations, Reservation};
use crate::sim::cluster::Node;
use crate::sim::jobtask::JobTaskKind;
use crate::sim::{Kind, RunView};
use ratatui::style::Style;
use ratatui::text::{Line, Span};

/// At most this many cells for each resource of the largest node: a
/// larger node's cells stand for several minimum allocations each.
const MAX_CELLS: i64 = 24;

fn div_ceil(a: i64, b: i64) -> i64 {
    if b <= 0 {
        0
    } else {
        (a.max(0) + b - 1) / b
    }
}

/// What the Cluster view needs of a YARN run, gathered once a frame.
pub struct Yarn {
    /// What one cell stands for: the smallest container (YARN's minimum
    /// allocation), or a multiple of it on large nodes.
    unit: Resource,
    /// By node: the AMs it holds, with their containers.
    pub ams: Vec<Vec<(JobId, Resource)>>,
    /// The reserved nodes, ascending, and what each is held for.
    pub reservations: Vec<Reservation>,
    /// No colours: containers drawn as their jobs' letters.
    mono: bool,
}

impl Yarn {
    /// The AMs from the world, the reservations from the policy.
    pub fn of(app: &App) -> Yarn {
        let w = app.sim().view();
        let base = w.capacity().slot_ask(Kind::Map);
        let big = w.cluster().largest;
        let (bm, bv) = (base.mb().max(1), base.vcores().max(1));
        let unit = Resource::memory(
            bm * div_ceil(big.mb(), bm * MAX_CELLS).max(1),
            bv * div_ceil(big.vcores(), bv * MAX_CELLS).max(1),
        );
        let mut ams = vec![Vec::new(); w.cluster().nodes.len()];
        for t in w
            .job_tasks()
            .iter()
            .filter(|t| t.kind == JobTaskKind::Am && t.end.is_none())
        {
            if let Some(on) = ams.get_mut(t.node as usize) {
                on.push((t.job, t.ask));
            }
        }
        let values = app.sim().policy().inspect(w, app.sel_node);
        Yarn {
            unit,
            ams,
            reservations: reservations(&values),
            mono: app.mono,
        }
    }

    fn mem_cells(&self, n: &Node) -> usize {
        div_ceil(n.capacity.mb(), self.unit.mb()) as usize
    }

    fn vcore_cells(&self, n: &Node) -> usize {
        div_ceil(n.capacity.vcores(), self.unit.vcores()) as usize
    }

    /// A node's cells: its memory's, the mark, its vcores'.
    pub fn width(&self, n: &Node) -> usize {
        self.mem_cells(n) + 1 + self.vcore_cells(n)
    }

    pub fn reserved(&self, node: u32) -> bool {
        self.reservations.iter().any(|r| r.node == node)
    }

    /// Node `n`'s cells: its AMs' and attempts' containers over its memory,
    /// then over its vcores, each taking the cells its size comes to
    /// ([`fill`]).
    pub fn cells(&self, w: RunView<'_>, n: &Node, by_pool: bool) -> Vec<Span<'static>> {
        if !n.alive {
            let dead = Span::styled(theme::DEAD.to_string(), Style::default().fg(theme::WARN));
            return vec![dead; self.width(n)];
        }
        let colour = |j: JobId| {
            if by_pool {
                theme::job_color(w.job(j).pool)
            } else {
                theme::job_color(j)
            }
        };
        let mono = self.mono;
        let ams = self.ams.get(n.id as usize).map_or(&[][..], Vec::as_slice);
        let mut held: Vec<(Resource, Span<'static>)> = ams
            .iter()
            .map(|&(j, r)| {
                let s = Span::styled(theme::AM.to_string(), Style::default().fg(colour(j)));
                (r, s)
            })
            .collect();
        for &a in n.lanes.iter().flatten() {
            let at = &w.attempts()[a as usize];
            held.push((at.ask, super::slot::slot(w, n, Some(a), by_pool, mono)));
        }
        let mem: Vec<(i64, Span)> = held.iter().map(|(r, s)| (r.mb(), s.clone())).collect();
        let vc: Vec<(i64, Span)> = held.iter().map(|(r, s)| (r.vcores(), s.clone())).collect();
        let mut out = fill(
            self.mem_cells(n),
            self.unit.mb(),
            &mem,
            n.used.mb() > n.capacity.mb(),
        );
        out.push(Span::styled(theme::SPLIT.to_string(), theme::dim()));
        out.extend(fill(
            self.vcore_cells(n),
            self.unit.vcores(),
            &vc,
            n.used.vcores() > n.capacity.vcores(),
        ));
        out
    }

    /// The selected node: its containers by kind, memory and vcores held,
    /// its reservation; the longest line that fits `width`.
    pub fn selected_line(&self, app: &App, width: usize) -> Line<'static> {
        let w = app.sim().view();
        let n = &w.cluster().nodes[app.sel_node as usize];
        let at = format!(" ▶ node {} (rack r{})", n.id, n.rack);
        if !n.alive {
            let text = format!("{at}: dead · r recovers it");
            return Line::from(Span::styled(fit(&text, width), theme::dim()));
        }
        let ams = self.ams.get(n.id as usize).map_or(0, Vec::len) as u64;
        let (maps, reds) = (u64::from(n.running_maps), u64::from(n.running_reduces));
        let kinds: Vec<String> = [(ams, "AM"), (maps, "map"), (reds, "reduce")]
            .iter()
            .filter(|(k, _)| *k > 0)
            .map(|&(k, what)| count(k, what))
            .collect();
        let containers = count(ams + maps + reds, "container");
        let held = format!(
            "{}/{} GB, {}/{} vcores",
            gb(n.used.mb(), false),
            gb(n.capacity.mb(), false),
            n.used.vcores(),
            n.capacity.vcores()
        );
        let of_kinds = if kinds.is_empty() {
            containers.clone()
        } else {
            format!("{containers} ({})", kinds.join(", "))
        };
        let resv = self.reservations.iter().find(|r| r.node == n.id);
        let long_resv = resv.map_or(String::new(), |r| {
            let text = reservation_text(r);
            // "node 3 for B (…)": the node is named already.
            let rest = text.split_once(" for ").map_or(text.as_str(), |x| x.1);
            format!(" · reserved for {rest}")
        });
        let short_resv = resv.map_or(String::new(), |r| format!(" · reserved for {}", r.app));
        let candidates = [
            format!("{at}: {of_kinds}, {held}{long_resv} · f fails it · ←→↑↓ select"),
            format!("{at}: {of_kinds}, {held}{long_resv} · f fails it"),
            format!("{at}: {of_kinds}, {held}{short_resv} · f fails it"),
            format!("{at}: {of_kinds}, {held}{short_resv}"),
            format!(" ▶ node {}: {of_kinds}, {held}{short_resv}", n.id),
            format!(" ▶ node {}: {}, {held}{short_resv}", n.id, kinds.join(", ")),
            format!(" ▶ node {}: {containers}, {held}{short_resv}", n.id),
            format!(" ▶ node {}: {held}", n.id),
        ];
        let text = candidates
            .iter()
            .find(|c| c.chars().count() <= width)
            .cloned()
            .unwrap_or_else(|| fit(&candidates[candidates.len() - 1], width));
        Line::from(Span::styled(text, theme::dim()))
    }

    /// A line per rack: memory and vcores held of what its live nodes
    /// offer, each with a bar, and its containers by kind.
    pub fn rack_bars(&self, w: RunView<'_>, lines: &mut Vec<Line<'static>>, inner_w: usize) {
        struct Rack {
            used: Resource,
            live: Resource,
            ams: u64,
            maps: u64,
            reds: u64,
            dead: u32,
        }
        let racks: Vec<Rack> = w
            .cluster()
            .racks
            .iter()
            .map(|rack| {
                let mut r = Rack {
                    used: Resource::ZERO,
                    live: Resource::ZERO,
                    ams: 0,
                    maps: 0,
                    reds: 0,
                    dead: 0,
                };
                for &n in &rack.nodes {
                    let node = w.node(n);
                    r.used += node.used;
                    if node.alive {
                        r.live += node.capacity;
                    } else {
                        r.dead += 1;
                    }
                    r.ams += self.ams.get(n as usize).map_or(0, Vec::len) as u64;
                    r.maps += u64::from(node.running_maps);
                    r.reds += u64::from(node.running_reduces);
                }
                r
            })
            .collect();
        let mems: Vec<String> = racks
            .iter()
            .map(|r| format!("{}/{} GB", gb(r.used.mb(), false), gb(r.live.mb(), false)))
            .collect();
        let vcs: Vec<String> = racks
            .iter()
            .map(|r| format!("{}/{} vcores", r.used.vcores(), r.live.vcores()))
            .collect();
        let kinds: Vec<String> = racks
            .iter()
            .map(|r| {
                format!(
                    "{}, {}, {}",
                    count(r.ams, "AM"),
                    count(r.maps, "map"),
                    count(r.reds, "reduce")
                )
            })
            .collect();
        let widest = |v: &[String]| v.iter().map(|s| s.chars().count()).max().unwrap_or(0);
        let (mem_w, vc_w, kinds_w) = (widest(&mems), widest(&vcs), widest(&kinds));
        // " r0  " bar " mem  " bar " vcores  " kinds: the kinds give way
        // before the bars go below 4 cells.
        let fixed = 5 + 1 + mem_w + 2 + 1 + vc_w;
        let with_kinds = inner_w.saturating_sub(fixed + 2 + kinds_w) / 2;
        let (bw, show_kinds) = if with_kinds >= 4 {
            (with_kinds.min(20), true)
        } else {
            ((inner_w.saturating_sub(fixed) / 2).clamp(4, 20), false)
        };
        for (i, r) in racks.iter().enumerate() {
            let frac = |u: i64, of: i64| if of > 0 { u as f64 / of as f64 } else { 0.0 };
            let ok = Style::default().fg(theme::OK);
            let mut spans = vec![
                Span::styled(format!(" r{i:<3}"), theme::dim()),
                Span::styled(bar(frac(r.used.mb(), r.live.mb()), bw), ok),
                Span::raw(format!(" {:>mem_w$}  ", mems[i])),
                Span::styled(bar(frac(r.used.vcores(), r.live.vcores()), bw), ok),
                Span::raw(format!(" {:>vc_w$}", vcs[i])),
            ];
            if show_kinds {
                spans.push(Span::raw(format!("  {}", kinds[i])));
            }
            if r.dead > 0 {
                spans.push(Span::styled(
                    format!("  {} dead", r.dead),
                    Style::default().fg(theme::WARN),
                ));
            }
            lines.push(Line::from(spans));
        }
    }
}

/// `cells` cells of `unit` each, filled by `parts` (an amount and a glyph
/// each) laid end to end: each part ends at the cell its running total
/// rounds to, and takes one cell at least, so every container shows even
/// where a cell stands for more than the smallest one; free cells `·`, and
/// the last cell `+` when the parts overcommit the node (vcores under a
/// memory-only calculator).
fn fill(cells: usize, unit: i64, parts: &[(i64, Span<'static>)], over: bool) -> Vec<Span<'static>> {
    let mut out: Vec<Span<'static>> = Vec::with_capacity(cells);
    let mut total = 0i64;
    for (size, glyph) in parts.iter().filter(|p| p.0 > 0) {
        total = total.saturating_add(*size);
        let end = usize::try_from((2 * total + unit) / (2 * unit.max(1))).unwrap_or(usize::MAX);
        let n = end.saturating_sub(out.len()).max(1);
        let n = n.min(cells - out.len());
        out.extend(std::iter::repeat_n(glyph.clone(), n));
    }
    let free = Span::styled(theme::FREE.to_string(), theme::dim());
    out.resize(cells, free);
    if over {
        if let Some(last) = out.last_mut() {
            *last = Span::styled("+", Style::default().fg(theme::WARN));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn containers_take_the_cells_their_size_covers_one_at_least() {
        let a = Span::raw("a");
        let b = Span::raw("b");
        let text = |v: Vec<Span>| v.iter().map(|s| s.content.to_string()).collect::<String>();
        // 4 GB and 1 GB on 1 GB cells of an 8 GB node.
        let parts = [(4096, a.clone()), (1024, b.clone())];
        assert_eq!(text(fill(8, 1024, &parts, false)), "aaaab···");
        // On 2 GB cells the 1 GB container still shows.
        assert_eq!(text(fill(4, 2048, &parts, false)), "aab·");
        let small = [(1024, a.clone()), (1024, b.clone()), (1024, a.clone())];
        assert_eq!(text(fill(4, 3072, &small, false)), "aba·");
        assert_eq!(text(fill(3, 1, &[(5, a)], true)), "aa+");
        assert_eq!(text(fill(2, 1, &[(0, b)], false)), "··");
    }
}

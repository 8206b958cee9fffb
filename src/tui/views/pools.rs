//! The Pools view: per pool, running tasks against the policy's share,
//! min share and max, with weights. The share is what the policy divides
//! the cluster by: containers on a unified cluster where it counts them
//! (fresh, omo's fair base), map and reduce slots where it counts those
//! (fair), queue capacities under capacity, and allocations under
//! adaptive-fair, whose pools are its own (the user pools less the jobs it
//! moved to its shared pool, plus that pool).

use super::super::app::App;
use super::super::theme;
use super::{bar, fit_mid};
use crate::model::Gauge;
use crate::sim::policy::ShareBasis;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::Span;
use ratatui::widgets::{Cell, Row};
use ratatui::Frame;

fn max_str(x: u32) -> String {
    if x == u32::MAX {
        "∞".into()
    } else {
        x.to_string()
    }
}

pub fn render(app: &App, f: &mut Frame, area: Rect) {
    // YARN's queues hold memory and vcores, not slots: the scheduler page.
    if app.sim().view().capacity().gauge() == Gauge::Memory {
        return super::queues::render(app, f, area);
    }
    let basis = app.pane().shares.as_ref().map(|s| s.basis);
    let containers = basis == Some(ShareBasis::Containers);
    let wide = area.width >= 110;
    let mut t = PoolTable {
        basis,
        capacity: basis == Some(ShareBasis::Capacity),
        adaptive: basis == Some(ShareBasis::Allocation),
        containers,
        wide,
        narrow: area.width < 80,
        bw: match (wide, containers) {
            (false, _) => 6,
            (true, true) => 20,
            (true, false) => 16,
        },
    };
    // Lengths that add up past the panel would leave the layout to pick
    // which to shrink, and its pick is not the same in every process:
    // the bars narrow first, then the last columns go, whole.
    let room = area.width.saturating_sub(2);
    let total = |w: &[Constraint]| -> u16 {
        w.iter()
            .map(|c| match c {
                Constraint::Length(n) => *n + 1,
                _ => 1,
            })
            .sum::<u16>()
            .saturating_sub(1)
    };
    while t.bw > 6 && total(&t.header().1) > room {
        t.bw -= 1;
    }
    let rows: Vec<Row> = pool_lines(app).iter().map(|p| t.row(p)).collect();
    let (mut header, mut widths) = t.header();
    while total(&widths) > room && widths.len() > 3 {
        widths.pop();
        header.pop();
    }
    let table = super::table(rows, widths, Row::new(header), super::panel(t.title()));
    f.render_widget(table, area);
}

/// A pool as the table shows it.
struct PoolLine<'a> {
    name: String,
    weight: f64,
    jobs: usize,
    running_maps: u32,
    running_reduces: u32,
    /// The policy's share of maps (or containers) and of reduces.
    share: Option<(f64, f64)>,
    /// Capacity percent.
    capacity_pct: Option<f64>,
    /// The scenario's pool, if there is one.
    spec: Option<&'a crate::model::PoolSpec>,
}

/// The policy's pools with their shares, or, when it gives pools no
/// share, the scenario's.
fn pool_lines(app: &App) -> Vec<PoolLine<'_>> {
    let w = app.sim().view();
    match &app.pane().shares {
        Some(shares) => shares
            .pools
            .iter()
            .map(|p| PoolLine {
                name: p.name.clone(),
                weight: p.weight,
                jobs: p.jobs,
                running_maps: p.running_maps,
                running_reduces: p.running_reduces,
                share: Some((p.share_map, p.share_reduce)),
                capacity_pct: p.capacity_pct,
                spec: w.pools().iter().find(|s| s.name == p.name),
            })
            .collect(),
        None => w
            .pools()
            .iter()
            .enumerate()
            .map(|(p, spec)| {
                let st = &w.pool_stats()[p];
                let jobs = w
                    .active()
                    .iter()
                    .filter(|&&j| w.job(j).pool as usize == p)
                    .count();
                PoolLine {
                    name: spec.name.clone(),
                    weight: spec.weight,
                    jobs,
                    running_maps: st.running_maps,
                    running_reduces: st.running_reduces,
                    share: None,
                    capacity_pct: None,
                    spec: Some(spec),
                }
            })
            .collect(),
    }
}

/// The table's shape: what the share is (`basis`), and bars `bw` wide.
struct PoolTable {
    basis: Option<ShareBasis>,
    capacity: bool,
    adaptive: bool,
    containers: bool,
    wide: bool,
    bw: usize,
    /// Narrower than 80 columns (a pane side by side): the pool and
    /// weight columns take less.
    narrow: bool,
}

impl PoolTable {
    fn row(&self, p: &PoolLine) -> Row<'static> {
        let fmt = |x: Option<f64>| x.map_or("-".to_string(), |x| format!("{x:.1}"));
        let frac = |run: u32, share: Option<f64>| match share {
            Some(s) if s > 0.0 => run as f64 / s,
            _ => 0.0,
        };
        let (run_m, run_r) = (p.running_maps, p.running_reduces);
        let mut cells = vec![
            Cell::from(Span::styled(fit_mid(&p.name, 12), theme::title())),
            Cell::from(format!("{:.2}", p.weight)),
            Cell::from(p.jobs.to_string()),
        ];
        if self.containers {
            let run = run_m + run_r;
            let share = p.share.map(|s| s.0);
            cells.push(Cell::from(format!("{run}/{}", fmt(share))));
            cells.push(Cell::from(bar(frac(run, share), self.bw)));
            cells.push(Cell::from(run_m.to_string()));
            cells.push(Cell::from(run_r.to_string()));
        } else {
            let (share_m, share_r) = (p.share.map(|s| s.0), p.share.map(|s| s.1));
            cells.push(Cell::from(format!("{run_m}/{}", fmt(share_m))));
            cells.push(Cell::from(bar(frac(run_m, share_m), self.bw)));
            cells.push(Cell::from(format!("{run_r}/{}", fmt(share_r))));
            cells.push(Cell::from(bar(frac(run_r, share_r), self.bw)));
        }
        if self.capacity {
            cells.push(Cell::from(
                p.capacity_pct.map_or("-".into(), |p| format!("{p:.0}%")),
            ));
        } else if let Some(spec) = p.spec {
            cells.push(Cell::from(format!(
                "{}/{}",
                spec.min_maps, spec.min_reduces
            )));
            cells.push(Cell::from(format!(
                "{}/{}",
                max_str(spec.max_maps),
                max_str(spec.max_reduces)
            )));
        } else {
            cells.push(Cell::from("-"));
            cells.push(Cell::from("-"));
        }
        Row::new(cells).height(1)
    }

    /// The header and the columns' widths.
    fn header(&self) -> (Vec<String>, Vec<Constraint>) {
        let (wide, bw) = (self.wide, self.bw);
        let share = if self.capacity {
            "capacity"
        } else if self.adaptive {
            "alloc"
        } else {
            "fair share"
        };
        let mut header: Vec<String> = vec!["pool".into(), "weight".into(), "jobs".into()];
        let mut widths = vec![
            Constraint::Length(if self.narrow { 8 } else { 12 }),
            Constraint::Length(if self.narrow { 4 } else { 6 }),
            Constraint::Length(4),
        ];
        let col_w = if wide { 25 } else { 10 };
        if self.containers {
            header.push(if wide {
                format!("containers run/{share}")
            } else {
                "containers".into()
            });
            header.push(String::new());
            header.push("maps".into());
            header.push("reduces".into());
            widths.extend([
                Constraint::Length(col_w),
                Constraint::Length(bw as u16),
                Constraint::Length(5),
                Constraint::Length(7),
            ]);
        } else {
            for kind in ["maps", "reds"] {
                header.push(if wide && self.basis.is_some() {
                    format!("{kind} run/{share}")
                } else if wide {
                    format!("{kind} running")
                } else if kind == "maps" {
                    "maps".into()
                } else {
                    "reduces".into()
                });
                header.push(String::new());
                widths.push(Constraint::Length(if wide { 19 } else { 9 }));
                widths.push(Constraint::Length(bw as u16));
            }
        }
        if self.capacity {
            header.push("cap%".into());
            widths.push(Constraint::Length(5));
        } else {
            header.push("min m/r".into());
            header.push("max m/r".into());
            widths.push(Constraint::Length(8));
            widths.push(Constraint::Length(9));
        }
        (header, widths)
    }

    fn title(&self) -> &'static str {
        if self.containers {
            " Pools: running containers against each pool's fair share "
        } else if self.capacity {
            " Pools: running tasks against each queue's capacity "
        } else if self.adaptive {
            " Pools: running tasks against each pool's allocation "
        } else if self.basis == Some(ShareBasis::FairShare) {
            " Pools: running tasks against each pool's fair share "
        } else {
            " Pools (this policy gives pools no share) "
        }
    }
}

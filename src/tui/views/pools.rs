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
    let w = &app.sim.w;
    let basis = app.shares.as_ref().map(|s| s.basis);
    let capacity = basis == Some(ShareBasis::Capacity);
    let adaptive = basis == Some(ShareBasis::Allocation);
    let containers = basis == Some(ShareBasis::Containers);
    let wide = area.width >= 110;
    let bw = match (wide, containers) {
        (false, _) => 6,
        (true, true) => 20,
        (true, false) => 16,
    };
    let fmt = |x: Option<f64>| x.map_or("-".to_string(), |x| format!("{x:.1}"));
    let frac = |run: u32, share: Option<f64>| match share {
        Some(s) if s > 0.0 => run as f64 / s,
        _ => 0.0,
    };
    // (name, weight, jobs, running maps, running reduces, the policy's
    // share of maps (or containers) and of reduces, capacity percent, the
    // scenario's pool if there is one).
    type Src<'a> = (
        String,
        f64,
        usize,
        u32,
        u32,
        Option<(f64, f64)>,
        Option<f64>,
        Option<&'a crate::model::PoolSpec>,
    );
    let src: Vec<Src> = match &app.shares {
        Some(shares) => shares
            .pools
            .iter()
            .map(|p| {
                (
                    p.name.clone(),
                    p.weight,
                    p.jobs,
                    p.running_maps,
                    p.running_reduces,
                    Some((p.share_map, p.share_reduce)),
                    p.capacity_pct,
                    w.pools.iter().find(|s| s.name == p.name),
                )
            })
            .collect(),
        None => w
            .pools
            .iter()
            .enumerate()
            .map(|(p, spec)| {
                let st = &w.pool_stats[p];
                let jobs = w
                    .active
                    .iter()
                    .filter(|&&j| w.job(j).pool as usize == p)
                    .count();
                (
                    spec.name.clone(),
                    spec.weight,
                    jobs,
                    st.running_maps,
                    st.running_reduces,
                    None,
                    None,
                    Some(spec),
                )
            })
            .collect(),
    };
    let mut rows = Vec::new();
    for (name, weight, jobs, run_m, run_r, share, cap_pct, spec) in src {
        let mut cells = vec![
            Cell::from(Span::styled(fit_mid(&name, 12), theme::title())),
            Cell::from(format!("{weight:.2}")),
            Cell::from(jobs.to_string()),
        ];
        if containers {
            let run = run_m + run_r;
            let share = share.map(|s| s.0);
            cells.push(Cell::from(format!("{run}/{}", fmt(share))));
            cells.push(Cell::from(bar(frac(run, share), bw)));
            cells.push(Cell::from(run_m.to_string()));
            cells.push(Cell::from(run_r.to_string()));
        } else {
            let (share_m, share_r) = (share.map(|s| s.0), share.map(|s| s.1));
            cells.push(Cell::from(format!("{run_m}/{}", fmt(share_m))));
            cells.push(Cell::from(bar(frac(run_m, share_m), bw)));
            cells.push(Cell::from(format!("{run_r}/{}", fmt(share_r))));
            cells.push(Cell::from(bar(frac(run_r, share_r), bw)));
        }
        if capacity {
            cells.push(Cell::from(
                cap_pct.map_or("-".into(), |p| format!("{p:.0}%")),
            ));
        } else if let Some(spec) = spec {
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
        rows.push(Row::new(cells).height(1));
    }
    let share = if capacity {
        "capacity"
    } else if adaptive {
        "alloc"
    } else {
        "fair share"
    };
    let mut header: Vec<String> = vec!["pool".into(), "weight".into(), "jobs".into()];
    let mut widths = vec![
        Constraint::Length(12),
        Constraint::Length(6),
        Constraint::Length(4),
    ];
    let col_w = if wide { 25 } else { 10 };
    if containers {
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
            header.push(if wide && basis.is_some() {
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
    if capacity {
        header.push("cap%".into());
        widths.push(Constraint::Length(5));
    } else {
        header.push("min m/r".into());
        header.push("max m/r".into());
        widths.push(Constraint::Length(8));
        widths.push(Constraint::Length(9));
    }
    let title = if containers {
        " Pools: running containers against each pool's fair share "
    } else if capacity {
        " Pools: running tasks against each queue's capacity "
    } else if adaptive {
        " Pools: running tasks against each pool's allocation "
    } else if basis == Some(ShareBasis::FairShare) {
        " Pools: running tasks against each pool's fair share "
    } else {
        " Pools (this policy gives pools no share) "
    };
    let table = super::table(rows, widths, Row::new(header), super::panel(title));
    f.render_widget(table, area);
}

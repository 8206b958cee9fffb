//! `--plot DIR`: SVG figures of a run, drawn with plotters (its SVG
//! backend writes text as `<text>`, so no font is needed and the bytes
//! depend only on the data). `turnaround_cdf.svg`: the distribution of job
//! turnarounds, one curve per policy; `utilization.svg`: map and reduce
//! tasks running over time; `gantt.svg`: every slot over time, coloured by
//! job (map slots above reduce slots; every k-th slot when there are too
//! many to draw); `links.svg`: the five busiest disks and links'
//! utilisation over time (from [`LinkSampler`]'s samples). Each legend
//! has a column of its own right of its chart, so none covers data.

use super::summary::{cut_mid, Summary};
use crate::sim::{Kind, Sim};
use plotters::prelude::*;

const SIZE: (u32, u32) = (900, 540);
/// At most this many slot rows and bars in the Gantt chart.
const GANTT_ROWS: usize = 200;
const GANTT_BARS: usize = 60_000;

/// Twelve colours that stay apart, for policies and jobs.
const PALETTE: [RGBColor; 12] = [
    RGBColor(0x4e, 0x79, 0xa7),
    RGBColor(0xf2, 0x8e, 0x2b),
    RGBColor(0xe1, 0x57, 0x59),
    RGBColor(0x76, 0xb7, 0xb2),
    RGBColor(0x59, 0xa1, 0x4f),
    RGBColor(0xed, 0xc9, 0x48),
    RGBColor(0xb0, 0x7a, 0xa1),
    RGBColor(0xff, 0x9d, 0xa7),
    RGBColor(0x9c, 0x75, 0x5f),
    RGBColor(0xba, 0xb0, 0xac),
    RGBColor(0x1f, 0x77, 0xb4),
    RGBColor(0x8c, 0x56, 0x4b),
];

/// A figure plotters could not draw (its SVG backend writes to a string,
/// so this is not expected; it is reported, not unwrapped).
#[derive(Debug, thiserror::Error)]
#[error("cannot draw: {0}")]
pub struct PlotError(String);

fn err(e: impl std::fmt::Display) -> PlotError {
    PlotError(e.to_string())
}

/// The legend's column, right of the chart, so that no legend covers data.
const LEGEND_W: u32 = 220;
/// At most this many jobs named in the Gantt chart's legend.
const LEGEND_JOBS: usize = 24;

type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;

/// A legend entry: a text and the colour of its line (or, `thick`, of its
/// bar).
struct Entry {
    text: String,
    color: RGBColor,
    thick: bool,
}

fn entry(text: impl Into<String>, color: RGBColor) -> Entry {
    Entry {
        text: text.into(),
        color,
        thick: false,
    }
}

/// The chart's area and the legend's, side by side.
fn split<'a>(root: &Area<'a>) -> (Area<'a>, Area<'a>) {
    root.split_horizontally(SIZE.0 - LEGEND_W)
}

/// Draws `entries` down the legend column, under `notes` (plain lines).
fn legend(area: &Area<'_>, entries: &[Entry], notes: &[String]) -> Result<(), PlotError> {
    let style = ("sans-serif", 13).into_font().color(&BLACK);
    let mut y = 48;
    for e in entries {
        let w = if e.thick { 8 } else { 2 };
        area.draw(&PathElement::new(
            vec![(6, y), (26, y)],
            e.color.stroke_width(w),
        ))
        .map_err(err)?;
        let text = cut_mid(&e.text, LEGEND_CHARS);
        area.draw(&Text::new(text, (32, y - 7), style.clone()))
            .map_err(err)?;
        y += 18;
    }
    for n in notes {
        area.draw(&Text::new(n.clone(), (6, y - 7), style.clone()))
            .map_err(err)?;
        y += 18;
    }
    Ok(())
}

/// The characters of a legend line that fit the legend's column.
const LEGEND_CHARS: usize = 30;

/// A legend line: `label` shortened in its middle so that `suffix` (a
/// count such as " (12 jobs)") always fits after it.
fn legend_line(label: &str, suffix: &str) -> String {
    let room = LEGEND_CHARS.saturating_sub(suffix.chars().count()).max(8);
    format!("{}{suffix}", cut_mid(label, room))
}

/// Tick labels for a count: whole numbers only.
fn whole(v: &f64) -> String {
    format!("{v:.0}")
}

/// Tick labels for seconds: whole ones unless the axis is short.
fn seconds(span: f64) -> impl Fn(&f64) -> String {
    move |v: &f64| {
        if span >= 20.0 {
            format!("{v:.0}")
        } else {
            format!("{v:.1}")
        }
    }
}

/// The turnaround CDF: for each (label, summaries of its seeds), the
/// fraction of finished jobs with turnaround ≤ x.
pub fn turnaround_cdf(series: &[(String, Vec<&Summary>)]) -> Result<String, PlotError> {
    let curves: Vec<(String, Vec<f64>)> = series
        .iter()
        .map(|(label, sums)| {
            let mut t: Vec<f64> = sums
                .iter()
                .flat_map(|s| s.jobs.iter().filter_map(|j| j.turnaround_s))
                .collect();
            t.sort_by(f64::total_cmp);
            (label.clone(), t)
        })
        .collect();
    let max = curves
        .iter()
        .filter_map(|(_, t)| t.last().copied())
        .fold(1.0f64, f64::max);
    let caption = format!("Job turnaround, cumulative{}", runs_of(series));
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let (plot, side) = split(&root);
        let mut chart = ChartBuilder::on(&plot)
            .caption(caption, ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(50)
            .build_cartesian_2d(0f64..max * 1.02, 0f64..1.0f64)
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc("turnaround (s)")
            .y_desc("fraction of finished jobs")
            .x_label_formatter(&seconds(max))
            .draw()
            .map_err(err)?;
        let mut entries = Vec::new();
        let mut notes = Vec::new();
        let k = curves.len();
        for (i, (label, t)) in curves.iter().enumerate() {
            let color = PALETTE[i % PALETTE.len()];
            let n = t.len().max(1) as f64;
            // Each curve narrower than the one before, so one that runs
            // along another (two policies giving the same turnarounds)
            // shows inside it rather than hiding it; the legend says so.
            let width = 2 + 2 * (k - 1 - i) as u32;
            let same = curves[..i].iter().find(|(_, u)| u == t).map(|(l, _)| l);
            let mut pts = vec![(0.0, 0.0)];
            for (k, &x) in t.iter().enumerate() {
                pts.push((x, k as f64 / n));
                pts.push((x, (k + 1) as f64 / n));
            }
            chart
                .draw_series(LineSeries::new(pts, color.stroke_width(width)))
                .map_err(err)?;
            if let Some(l) = same {
                if notes.is_empty() {
                    notes.push("the same curve, drawn inside:".to_string());
                }
                notes.push(cut_mid(&format!("{label} = {l}"), LEGEND_CHARS));
            }
            entries.push(entry(
                legend_line(label, &format!(" ({} jobs)", t.len())),
                color,
            ));
        }
        legend(&side, &entries, &notes)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}

/// What the curves are runs of, for a title: ` · quickstart, seeds 1–3`,
/// ` · fig45, seed 7` (nothing when there are none).
fn runs_of(series: &[(String, Vec<&Summary>)]) -> String {
    let mut names: Vec<&str> = Vec::new();
    let mut seeds: Vec<u64> = Vec::new();
    for s in series.iter().flat_map(|(_, v)| v.iter()) {
        if !names.contains(&s.scenario.as_str()) {
            names.push(&s.scenario);
        }
        seeds.push(s.seed);
    }
    seeds.sort_unstable();
    seeds.dedup();
    let seeds = match seeds.as_slice() {
        [] => return String::new(),
        [one] => format!("seed {one}"),
        [a, .., b] if (b - a) as usize + 1 == seeds.len() => format!("seeds {a}–{b}"),
        many => format!("{} seeds", many.len()),
    };
    format!(" · {}, {seeds}", names.join(", "))
}

/// Map and reduce attempts running over the run, against the slots.
pub fn utilization(sim: &Sim) -> Result<String, PlotError> {
    let w = sim.view();
    let end = w.now().max(1);
    // +1 at a start, −1 at an end, by kind; swept in time order.
    let mut ev: Vec<(u64, bool, i64)> = Vec::with_capacity(w.attempts().len() * 2);
    for a in w.attempts() {
        let map = a.kind == Kind::Map;
        ev.push((a.start, map, 1));
        ev.push((a.end().unwrap_or(end), map, -1));
    }
    ev.sort_unstable();
    let (mut maps, mut reds) = (0i64, 0i64);
    let mut m_pts = vec![(0.0, 0.0)];
    let mut r_pts = vec![(0.0, 0.0)];
    for (t, map, d) in ev {
        let x = t as f64 / 1000.0;
        if map {
            m_pts.push((x, maps as f64));
            maps += d;
            m_pts.push((x, maps as f64));
        } else {
            r_pts.push((x, reds as f64));
            reds += d;
            r_pts.push((x, reds as f64));
        }
    }
    let c = w.cluster();
    let gauge = w.capacity().gauge();
    // What the tasks run against, in the cluster model's own terms.
    let (slots, against) = match gauge {
        crate::model::Gauge::TypedSlots => (
            f64::from(c.total_map_slots.max(c.total_reduce_slots)),
            format!(
                "{} map slots, {} reduce slots",
                c.total_map_slots, c.total_reduce_slots
            ),
        ),
        crate::model::Gauge::Containers => (
            f64::from(c.total_slots()),
            format!("{} containers", c.total_slots()),
        ),
        crate::model::Gauge::Memory => {
            let (mb, vc) = c.nodes.iter().fold((0i64, 0i64), |(m, v), n| {
                (m + n.capacity.mb(), v + n.capacity.vcores())
            });
            (
                0.0,
                format!(
                    "{} nodes: {:.0} GB, {vc} vcores",
                    c.nodes.len(),
                    mb as f64 / 1024.0
                ),
            )
        }
    };
    let top = m_pts
        .iter()
        .chain(&r_pts)
        .map(|p| p.1)
        .fold(slots, f64::max)
        .max(1.0);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let (plot, side) = split(&root);
        let mut chart = ChartBuilder::on(&plot)
            .caption(format!("Tasks running ({against})"), ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(50)
            .build_cartesian_2d(0f64..end as f64 / 1000.0, 0f64..top * 1.05)
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc("time (s)")
            .y_desc("tasks running")
            .x_label_formatter(&seconds(end as f64 / 1000.0))
            .y_labels((top as usize + 1).min(11))
            .y_label_formatter(&whole)
            .draw()
            .map_err(err)?;
        let mut entries = Vec::new();
        for (label, pts, color) in [("maps", m_pts, PALETTE[0]), ("reduces", r_pts, PALETTE[1])] {
            chart
                .draw_series(LineSeries::new(pts, color.stroke_width(1)))
                .map_err(err)?;
            entries.push(entry(label, color));
        }
        legend(&side, &entries, &[])?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}

/// Every slot (node, lane) over time, an attempt a bar in its job's
/// colour, with a legend naming the jobs. On typed slots the map slots sit
/// above a line and the reduce slots below it; on unified containers a
/// reduce's bar is lighter. Every k-th slot when there are more than
/// `GANTT_ROWS`.
pub fn gantt(sim: &Sim) -> Result<String, PlotError> {
    let w = sim.view();
    let end = w.now().max(1);
    let typed = !w.capacity().kinds_share();
    // (is a map slot, node, lane): reduce slots first, so they sit at the
    // bottom (rows count upward).
    let mut lanes: Vec<(bool, u32, u16)> = w
        .cluster()
        .nodes
        .iter()
        .flat_map(|n| {
            let maps = n.map_slots as u16;
            (0..n.lanes.len() as u16).map(move |l| (!typed || l < maps, n.id, l))
        })
        .collect();
    lanes.sort_unstable();
    let k = lanes.len().div_ceil(GANTT_ROWS).max(1);
    let rows: Vec<(bool, u32, u16)> = lanes.into_iter().step_by(k).collect();
    let reduce_rows = rows.iter().filter(|r| !r.0).count();
    let row_of = |node: u32, slot: u16| rows.iter().position(|&(_, n, l)| n == node && l == slot);
    let mut bars: Vec<(usize, f64, f64, u32, bool)> = w
        .attempts()
        .iter()
        .filter_map(|a| {
            let r = row_of(a.node, a.slot)?;
            Some((
                r,
                a.start as f64 / 1000.0,
                a.end().unwrap_or(end) as f64 / 1000.0,
                a.job,
                a.kind == Kind::Map,
            ))
        })
        .collect();
    let bk = bars.len().div_ceil(GANTT_BARS).max(1);
    if bk > 1 {
        bars = bars.into_iter().step_by(bk).collect();
    }
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let (plot, side) = split(&root);
        let title = if k > 1 {
            format!("Slots over time, coloured by job (every {k}th slot)")
        } else {
            "Slots over time, coloured by job".to_string()
        };
        let n_rows = rows.len().max(1);
        let mut chart = ChartBuilder::on(&plot)
            .caption(title, ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(50)
            .build_cartesian_2d(0f64..end as f64 / 1000.0, 0f64..n_rows as f64)
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc("time (s)")
            .y_desc(if typed {
                "slot (reduce slots below the line)"
            } else {
                "container"
            })
            .x_label_formatter(&seconds(end as f64 / 1000.0))
            .y_labels(n_rows.min(10) + 1)
            .y_label_formatter(&whole)
            .disable_y_mesh()
            .draw()
            .map_err(err)?;
        chart
            .draw_series(bars.iter().map(|&(r, s, e, j, map)| {
                let c = PALETTE[j as usize % PALETTE.len()];
                let style = if map || typed {
                    c.filled()
                } else {
                    c.mix(0.45).filled()
                };
                Rectangle::new([(s, r as f64 + 0.1), (e, r as f64 + 0.9)], style)
            }))
            .map_err(err)?;
        if typed && reduce_rows > 0 && reduce_rows < rows.len() {
            let y = reduce_rows as f64;
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![(0.0, y), (end as f64 / 1000.0, y)],
                    BLACK.stroke_width(1),
                )))
                .map_err(err)?;
        }
        // The jobs that ran, in id order, each in its colour.
        let mut jobs: Vec<u32> = bars.iter().map(|b| b.3).collect();
        jobs.sort_unstable();
        jobs.dedup();
        let entries: Vec<Entry> = jobs
            .iter()
            .take(LEGEND_JOBS)
            .map(|&j| Entry {
                text: w.job(j).name.to_string(),
                color: PALETTE[j as usize % PALETTE.len()],
                thick: true,
            })
            .collect();
        let mut notes = Vec::new();
        if jobs.len() > LEGEND_JOBS {
            notes.push(format!("… {} more jobs", jobs.len() - LEGEND_JOBS));
        }
        if jobs.len() > PALETTE.len() {
            notes.push(format!("(colours repeat every {} jobs)", PALETTE.len()));
        }
        if !typed {
            notes.push("lighter bars: reduces".to_string());
        }
        legend(&side, &entries, &notes)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}

/// Samples of every disk and link's cumulative load (MB moved) at instants
/// of a run, to plot utilisation over time. Cumulative values make thinning
/// exact: past `MAX` samples every other one is dropped.
#[derive(Default)]
pub struct LinkSampler {
    times: Vec<u64>,
    areas: Vec<Vec<f64>>,
}

impl LinkSampler {
    /// The most samples kept (thinned by halves beyond).
    pub const MAX: usize = 512;

    /// The instants sampled, in order.
    pub fn times(&self) -> &[u64] {
        &self.times
    }

    /// Each sample's cumulative load of every disk and link (MB), as
    /// `Resource::area_at` gives it.
    pub fn areas(&self) -> &[Vec<f64>] {
        &self.areas
    }

    pub fn sample(&mut self, sim: &Sim) {
        let w = sim.view();
        if self.times.last() == Some(&w.now()) {
            return;
        }
        let n = w.links().count() as usize;
        self.times.push(w.now());
        self.areas.push(
            w.net().resources[..n]
                .iter()
                .map(|r| r.area_at(w.now()))
                .collect(),
        );
        if self.times.len() > Self::MAX {
            let keep = |v: usize| v.is_multiple_of(2) || v + 1 == self.times.len();
            let times: Vec<u64> = (0..self.times.len())
                .filter(|&i| keep(i))
                .map(|i| self.times[i])
                .collect();
            let areas: Vec<Vec<f64>> = (0..self.areas.len())
                .filter(|&i| keep(i))
                .map(|i| std::mem::take(&mut self.areas[i]))
                .collect();
            self.times = times;
            self.areas = areas;
        }
    }

    /// The five busiest resources' utilisation between samples.
    pub fn svg(&self, sim: &Sim) -> Result<String, PlotError> {
        let w = sim.view();
        let mut svg = String::new();
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let (plot, side) = split(&root);
        let (Some(first), Some(last)) = (self.areas.first(), self.areas.last()) else {
            root.present().map_err(err)?;
            drop((plot, side, root));
            return Ok(svg);
        };
        let span = (self.times[self.times.len() - 1] - self.times[0]).max(1) as f64 / 1000.0;
        let mut busiest: Vec<(f64, usize)> = (0..first.len())
            .map(|r| {
                (
                    (last[r] - first[r]) / w.net().resources[r].capacity / span,
                    r,
                )
            })
            .filter(|(u, _)| *u > 0.0)
            .collect();
        busiest.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        busiest.truncate(5);
        let end = *self.times.last().unwrap_or(&1) as f64 / 1000.0;
        let mut chart = ChartBuilder::on(&plot)
            .caption("The busiest disks and links", ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(50)
            .build_cartesian_2d(0f64..end.max(0.001), 0f64..1.05f64)
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc("time (s)")
            .y_desc("utilisation")
            .x_label_formatter(&seconds(end))
            .draw()
            .map_err(err)?;
        let mut entries = Vec::new();
        for (i, &(mean, r)) in busiest.iter().enumerate() {
            let color = PALETTE[i % PALETTE.len()];
            let cap = w.net().resources[r].capacity;
            let mut pts = Vec::new();
            for k in 1..self.times.len() {
                let dt = (self.times[k] - self.times[k - 1]) as f64 / 1000.0;
                if dt <= 0.0 {
                    continue;
                }
                let u = (self.areas[k][r] - self.areas[k - 1][r]) / cap / dt;
                pts.push((self.times[k - 1] as f64 / 1000.0, u));
                pts.push((self.times[k] as f64 / 1000.0, u));
            }
            chart
                .draw_series(LineSeries::new(pts, color.stroke_width(1)))
                .map_err(err)?;
            entries.push(entry(
                format!("{} (mean {:.0} %)", w.links().name(r as u32), mean * 100.0),
                color,
            ));
        }
        legend(&side, &entries, &[])?;
        root.present().map_err(err)?;
        drop(chart);
        drop((plot, side, root));
        Ok(svg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legend_lines_keep_their_count_and_both_ends_of_a_long_label() {
        let a = legend_line(
            "external:python3 clients/python/examples/mypol.py --alpha 0.5",
            " (12 jobs)",
        );
        let b = legend_line(
            "external:python3 clients/python/examples/mypol.py --alpha 0.9",
            " (12 jobs)",
        );
        assert_ne!(a, b);
        assert!(a.ends_with("0.5 (12 jobs)"), "{a}");
        assert!(a.starts_with("external:"), "{a}");
        assert!(a.contains('…'), "{a}");
        assert_eq!(a.chars().count(), LEGEND_CHARS);
        assert_eq!(legend_line("fair", " (3 jobs)"), "fair (3 jobs)");
        // The count survives even a label as long as the column.
        let c = legend_line(&"x".repeat(40), " (123456 jobs)");
        assert!(c.ends_with(" (123456 jobs)"), "{c}");
    }
}

//! The Network view: what the disks and links carry now. Bytes moved by
//! kind of flow; the busiest disks and links with a gauge of their load
//! against capacity; and the busiest nodes' disk and NIC loads. Under the
//! `fixed` model transfers share nothing, so only the bytes show.

use super::super::app::{count, App};
use super::super::theme;
use super::{bar, fit_mid};
use crate::model::NetworkModel;
use crate::sim::flows::FlowKind;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

/// Gigabytes, one decimal.
fn gb(mb: f64) -> String {
    format!("{:.1} GB", mb / 1024.0)
}

pub fn render(app: &App, f: &mut Frame, area: Rect) {
    let w = app.sim().view();
    let inner_w = area.width.saturating_sub(2) as usize;
    let mut head: Vec<Line> = Vec::new();
    let moved: Vec<String> = FlowKind::ALL
        .iter()
        .enumerate()
        .map(|(i, k)| format!("{} {}", k.as_str(), gb(w.net_mb()[i])))
        .collect();
    let model = match w.net_spec().model {
        NetworkModel::Shared => "shared (max-min)",
        NetworkModel::Coarse => "coarse (max-min, approximate)",
        NetworkModel::Fixed => "fixed (per transfer)",
    };
    let mut first = vec![
        Span::styled(" model ", theme::dim()),
        Span::raw(model.to_string()),
        Span::styled("   flows ", theme::dim()),
        Span::raw(w.net().active_flows().to_string()),
    ];
    let moved = moved.join(" · ");
    let width: usize = first.iter().map(|s| s.width()).sum();
    if width + "   moved ".len() + moved.chars().count() <= inner_w {
        first.push(Span::styled("   moved ", theme::dim()));
        first.push(Span::raw(moved));
        head.push(Line::from(first));
    } else {
        // Too narrow for one line: the bytes moved below, by kind,
        // never cut within a kind.
        head.push(Line::from(first));
        let lines = super::wrap_items(&format!("moved {moved}"), inner_w);
        for (i, l) in lines.into_iter().enumerate() {
            head.push(match l.strip_prefix(" moved ") {
                Some(rest) if i == 0 => Line::from(vec![
                    Span::styled(" moved ", theme::dim()),
                    Span::raw(rest.to_string()),
                ]),
                _ => Line::from(Span::raw(l)),
            });
        }
    }
    if w.net_spec().model == NetworkModel::Fixed {
        let note = "Under the fixed model each transfer runs alone at its class bandwidth: no disk or link is shared.";
        for l in super::overlays::wrap_words(note, inner_w.saturating_sub(1)) {
            head.push(Line::from(Span::styled(format!(" {l}"), theme::dim())));
        }
        f.render_widget(Paragraph::new(head).block(super::panel(" Network ")), area);
        return;
    }
    let [top, links_area, nodes_area] = Layout::vertical([
        Constraint::Length(head.len() as u16 + 2),
        Constraint::Percentage(50),
        Constraint::Min(3),
    ])
    .areas(area);
    f.render_widget(Paragraph::new(head).block(super::panel(" Network ")), top);
    render_links(app, f, links_area, inner_w);
    render_nodes(app, f, nodes_area, inner_w);
}

/// The busiest disks and links now, each with a gauge of load against capacity.
fn render_links(app: &App, f: &mut Frame, links_area: Rect, inner_w: usize) {
    let w = app.sim().view();
    let n_links = w.links().count() as usize;
    let mut busy: Vec<(f64, usize)> = w.net().resources[..n_links]
        .iter()
        .enumerate()
        .filter(|(_, r)| r.flow_count() > 0 && r.load > 0.0)
        .map(|(i, r)| (r.load / r.capacity, i))
        .collect();
    busy.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let rows = links_area.height.saturating_sub(2) as usize;
    let bar_w = inner_w.saturating_sub(40).clamp(6, 40);
    let mut lines: Vec<Line> = Vec::new();
    if busy.is_empty() {
        lines.push(Line::from(Span::styled(" nothing moves now", theme::dim())));
    }
    for &(u, r) in busy.iter().take(rows) {
        let res = &w.net().resources[r];
        let style = if u >= 0.999 {
            Style::default().fg(theme::WARN)
        } else {
            Style::default().fg(theme::OK)
        };
        lines.push(Line::from(vec![
            Span::styled(format!(" {:<10}", w.links().name(r as u32)), theme::title()),
            Span::styled(bar(u.min(1.0), bar_w), style),
            Span::raw(format!(
                " {:>5.0}/{:<5.0} MB/s {:>3} {}",
                res.load,
                res.capacity,
                res.flow_count(),
                if res.flow_count() == 1 {
                    "flow"
                } else {
                    "flows"
                }
            )),
        ]));
    }
    let title = format!(
        " Busiest disks and links now ({} busy) ",
        count(busy.len() as u64, "resource")
    );
    f.render_widget(
        Paragraph::new(lines).block(super::panel(&title)),
        links_area,
    );
}

/// Nodes by their busiest resource: disk, NIC up, NIC down.
fn render_nodes(app: &App, f: &mut Frame, nodes_area: Rect, inner_w: usize) {
    let w = app.sim().view();
    let mut nodes: Vec<(f64, usize, [f64; 3])> = (0..w.cluster().nodes.len())
        .map(|n| {
            let u = |k: usize| {
                let r = &w.net().resources[3 * n + k];
                (r.load / r.capacity).max(0.0)
            };
            let us = [u(0), u(1), u(2)];
            (us.iter().cloned().fold(0.0, f64::max), n, us)
        })
        .collect();
    nodes.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let rows = nodes_area.height.saturating_sub(3) as usize;
    let gw = ((inner_w.saturating_sub(8)) / 3)
        .saturating_sub(6)
        .clamp(3, 20);
    let mut lines = vec![Line::from(Span::styled(
        format!(
            " {:<6}{:<w$}{:<w$}{:<w$}",
            "node",
            "disk",
            "NIC up",
            "NIC down",
            w = gw + 6
        ),
        theme::dim(),
    ))];
    for &(_, n, us) in nodes.iter().take(rows) {
        let mut spans = vec![Span::styled(
            format!(" {:<6}", fit_mid(&n.to_string(), 6)),
            theme::title(),
        )];
        for u in us {
            spans.push(Span::styled(
                bar(u.min(1.0), gw),
                Style::default().fg(if u >= 0.999 { theme::WARN } else { theme::OK }),
            ));
            spans.push(Span::raw(format!(" {:>3.0}% ", u * 100.0)));
        }
        lines.push(Line::from(spans));
    }
    f.render_widget(
        Paragraph::new(lines).block(super::panel(" Nodes by load ")),
        nodes_area,
    );
}

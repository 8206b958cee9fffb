//! A job's detail (Enter on a job): every map and reduce task with its
//! state, the node of its latest attempt, that attempt's phase and times.

use super::super::super::app::{clock, count, dur, App, Page};
use super::super::theme;
use super::super::{fit, fit_mid};
use super::{centered, frame_block};
use crate::model::JobId;
use crate::sim::job::{Outcome, TaskState};
use crate::sim::{Kind, RunView};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};
use ratatui::Frame;

pub fn detail(app: &App, f: &mut Frame, job: JobId, row: usize) {
    let w = app.sim().view();
    let a = f.area();
    let area = centered(
        f,
        a.width.saturating_sub(4).min(100),
        a.height.saturating_sub(2),
    );
    f.render_widget(Clear, area);
    let inner_w = area.width.saturating_sub(2) as usize;
    let inner_h = area.height.saturating_sub(2) as usize;
    let j = w.job(job);
    let latest = latest_attempts(w, job);
    let room = inner_w as u16 + 2;
    let mut lines: Vec<Line> = vec![
        Line::from(Span::styled(job_line(w, job, room), theme::title())),
        Line::from(Span::styled(
            super::super::first_fit(
                &[
                    "m map, r reduce · the latest attempt's node, phase and times (×N: N attempts) · ran: so far".into(),
                    "the latest attempt's node, phase and times · ×N: N attempts · ran: so far".into(),
                    "latest attempt · ×N: N attempts".into(),
                ],
                room,
            ),
            theme::dim(),
        )),
    ];
    let wide = inner_w >= 72;
    let header = if wide {
        format!(
            "{:<8} {:<8} {:>5} {:<8} {:>10} {:>10} {:>7}",
            "task", "state", "node", "phase", "started", "ended", "ran"
        )
    } else {
        format!(
            "{:<8} {:<8} {:>5} {:<8} {:>7}",
            "task", "state", "node", "phase", "ran"
        )
    };
    lines.push(Line::from(Span::styled(
        header,
        Style::default().add_modifier(Modifier::BOLD),
    )));
    let total = latest.len();
    let room = inner_h.saturating_sub(lines.len());
    let rows = if total <= room {
        total
    } else {
        room.saturating_sub(1).max(1)
    };
    let max = total.saturating_sub(rows);
    let first = row.min(max);
    let mut pages = app.pages.get();
    pages.detail = Page { first, rows, max };
    app.pages.set(pages);
    for (k, at) in latest.iter().enumerate().skip(first).take(rows) {
        lines.push(task_line(w, job, k, *at, wide, inner_w));
    }
    if let Some(note) = super::super::scroll_note(first, rows, total) {
        lines.push(Line::from(Span::styled(note, theme::dim())));
    }
    f.render_widget(
        Paragraph::new(lines).block(frame_block(format!(
            " Tasks of {} (esc closes) ",
            fit_mid(&j.name, 40)
        ))),
        area,
    );
}

/// Each task's latest attempt (maps first, then reduces), if it has one.
fn latest_attempts(w: RunView<'_>, job: JobId) -> Vec<Option<usize>> {
    let j = w.job(job);
    let n_maps = j.maps.len();
    let mut latest: Vec<Option<usize>> = vec![None; n_maps + j.reduces.len()];
    for (i, at) in w
        .attempts()
        .iter()
        .enumerate()
        .filter(|(_, at)| at.job == job)
    {
        let k = match at.kind {
            Kind::Map => at.task as usize,
            Kind::Reduce => n_maps + at.task as usize,
        };
        if let Some(slot) = latest.get_mut(k) {
            // A running attempt wins over a finished one (a speculative
            // copy may have started later and been killed).
            let better = match *slot {
                None => true,
                Some(p) => {
                    at.outcome == Outcome::Running || w.attempts()[p].outcome != Outcome::Running
                }
            };
            if better {
                *slot = Some(i);
            }
        }
    }
    latest
}

/// The job's line: its pool, submission, tasks and finish; shorter forms
/// where the full line does not fit `room` (words are dropped, never cut).
fn job_line(w: RunView<'_>, job: JobId, room: u16) -> String {
    let j = w.job(job);
    let head = format!(
        "{} · {} {} · submitted {} · {} ({} done) · {} ({} done){}",
        j.name,
        crate::tui::app::pool_word(w),
        w.pool_name(job),
        clock(j.submit),
        count(j.n_maps().into(), "map"),
        j.maps_done,
        count(j.n_reduces().into(), "reduce"),
        j.reduces_done,
        j.finished_at
            .map(|t| format!(" · finished {} in {}", clock(t), dur(t - j.submit)))
            .unwrap_or_default()
    );
    let done = j
        .finished_at
        .map(|t| format!(" · done in {}", dur(t - j.submit)))
        .unwrap_or_default();
    let short = format!(
        "{} · {} · maps {}/{} · reduces {}/{}{done}",
        j.name,
        w.pool_name(job),
        j.maps_done,
        j.n_maps(),
        j.reduces_done,
        j.n_reduces()
    );
    let shortest = format!(
        "{} · maps {}/{} · reds {}/{}",
        j.name,
        j.maps_done,
        j.n_maps(),
        j.reduces_done,
        j.n_reduces()
    );
    super::super::first_fit(&[head, short, shortest], room)
}

/// Task `k` (maps first, then reduces) and its latest attempt `at`: its
/// state, node, phase and times (started and ended only when `wide`).
fn task_line(
    w: RunView<'_>,
    job: JobId,
    k: usize,
    at: Option<usize>,
    wide: bool,
    width: usize,
) -> Line<'static> {
    let j = w.job(job);
    let n_maps = j.maps.len();
    let (kind, task) = if k < n_maps {
        ('m', k)
    } else {
        ('r', k - n_maps)
    };
    let (state, tries) = if k < n_maps {
        (j.maps[task].state, j.maps[task].attempts)
    } else {
        (j.reduces[task].state, j.reduces[task].attempts)
    };
    let state_s = match state {
        TaskState::Pending => "pending",
        TaskState::Running => "running",
        TaskState::Done => "done",
    };
    let name = if tries > 1 {
        format!("{kind}{task} ×{tries}")
    } else {
        format!("{kind}{task}")
    };
    let (node, phase, start, end, ran) = match at.map(|i| &w.attempts()[i]) {
        None => ("-".into(), "-".into(), "-".into(), "-".into(), "-".into()),
        Some(at) => {
            let phase = match at.outcome {
                Outcome::Running => at.phase.as_str().to_string(),
                Outcome::Succeeded => "done".into(),
                Outcome::Killed => "killed".into(),
                Outcome::Failed => "failed".into(),
            };
            (
                format!("n{}", at.node),
                phase,
                clock(at.start),
                at.end().map(clock).unwrap_or_else(|| "-".into()),
                dur(at.end().unwrap_or(w.now()).saturating_sub(at.start)),
            )
        }
    };
    let text = if wide {
        format!(
            "{:<8} {:<8} {:>5} {:<8} {:>10} {:>10} {:>7}",
            fit_mid(&name, 8),
            state_s,
            node,
            phase,
            start,
            end,
            ran
        )
    } else {
        format!(
            "{:<8} {:<8} {:>5} {:<8} {:>7}",
            fit_mid(&name, 8),
            state_s,
            node,
            phase,
            ran
        )
    };
    let style = match state {
        TaskState::Running => Style::default().fg(theme::job_color(job)),
        TaskState::Pending => theme::dim(),
        TaskState::Done => Style::default(),
    };
    Line::from(Span::styled(fit(&text, width), style))
}

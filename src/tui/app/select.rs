//! The selected node and job: how the arrows, clicks and Enter move them,
//! the job lists they move in (the Overview's and the Jobs view's, with its
//! filter and sort), a job's detail, and failing or recovering the
//! selected node through the command API.

use super::{clock, scrolled, Action, App, Overlay, View};
use crate::model::{JobId, NodeId};
use crate::sim::job::Job;
use crate::sim::policy::Inspection;
use crate::sim::RunView;
use ratatui::layout::Rect;

/// A job's state as the Jobs view names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JobState {
    /// Runnable with tasks running.
    Running,
    /// Runnable, nothing running yet (or just now).
    Queued,
    /// Held back by its pool's `max_running_jobs`.
    Waiting,
    /// Waiting for or running its set-up task.
    SetUp,
    /// Past its last task: its clean-up task, or a replay's commit.
    Finishing,
    Done,
}

/// The Jobs view's order: `o` cycles it, `O` reverses it, a click on a
/// column's header sorts by that column (again: reversed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sort {
    /// Runnable jobs by submission, then waiting ones, then the finished
    /// (newest first).
    Submit,
    /// Most progress first.
    Progress,
    /// By name, numbers by value.
    Name,
    Pool,
    /// Running, queued, set-up, clean-up, waiting, done.
    State,
    /// Most maps (reduces) pending and running first.
    Maps,
    Reds,
    /// By submission time alone.
    Submitted,
    /// Finished first, by finish time; unfinished last.
    Finished,
    /// The current policy's value column, largest first.
    Value,
}

impl Sort {
    pub const ALL: [Sort; 10] = [
        Sort::Submit,
        Sort::Progress,
        Sort::Name,
        Sort::Pool,
        Sort::State,
        Sort::Maps,
        Sort::Reds,
        Sort::Submitted,
        Sort::Finished,
        Sort::Value,
    ];

    pub fn next(self) -> Sort {
        let i = Sort::ALL.iter().position(|&s| s == self).unwrap_or(0);
        Sort::ALL[(i + 1) % Sort::ALL.len()]
    }

    pub fn label(self) -> &'static str {
        match self {
            Sort::Submit => "submit",
            Sort::Progress => "progress",
            Sort::Name => "name",
            Sort::Pool => "pool",
            Sort::State => "state",
            Sort::Maps => "maps",
            Sort::Reds => "reduces",
            Sort::Submitted => "submitted",
            Sort::Finished => "finished",
            Sort::Value => "policy value",
        }
    }
}

/// Progress as Hadoop reports a job's: half maps, half reduces (all maps
/// when there are no reduces). Full only once everything is done.
pub fn job_progress(job: &Job) -> f64 {
    let maps = job.maps_done as f64 / job.n_maps().max(1) as f64;
    if job.n_reduces() == 0 {
        return maps;
    }
    let reds = job.reduces_done as f64 / job.n_reduces() as f64;
    (maps + reds) / 2.0
}

fn state(job: &Job, waiting: bool) -> JobState {
    if job.is_done() {
        JobState::Done
    } else if waiting {
        JobState::Waiting
    } else if job.maps_running + job.reduces_running > 0 {
        JobState::Running
    } else {
        JobState::Queued
    }
}

/// The Overview's job list: runnable jobs, the ones with tasks running
/// first, each group by submission.
pub fn overview_jobs(w: RunView<'_>) -> Vec<JobId> {
    let mut active: Vec<JobId> = w.active().to_vec();
    let (setup, finishing) = w.settling();
    active.extend(setup.into_iter().chain(finishing));
    active.sort_by_key(|&j| {
        let job = w.job(j);
        (job.maps_running + job.reduces_running == 0, job.submit, j)
    });
    active
}

/// The Jobs view's rows: filtered by the filter (or the draft being
/// typed) on job name or pool, in the chosen order.
pub fn job_rows(app: &App) -> Vec<(JobId, JobState)> {
    let w = app.sim().view();
    let mut order: Vec<(JobId, JobState)> = w
        .active()
        .iter()
        .map(|&j| (j, state(w.job(j), false)))
        .collect();
    let (setup, finishing) = w.settling();
    order.extend(setup.into_iter().map(|j| (j, JobState::SetUp)));
    order.extend(finishing.into_iter().map(|j| (j, JobState::Finishing)));
    order.extend(w.waiting().iter().map(|&j| (j, JobState::Waiting)));
    let mut done: Vec<JobId> = w
        .jobs()
        .iter()
        .filter(|j| j.is_done())
        .map(|j| j.id)
        .collect();
    done.sort_by_key(|&j| std::cmp::Reverse((w.job(j).finished_at, j)));
    order.extend(done.into_iter().map(|j| (j, JobState::Done)));
    let filter = match &app.overlay {
        Overlay::Filter { draft } => draft.as_str(),
        _ => app.jobs_filter.as_str(),
    }
    .to_lowercase();
    if !filter.is_empty() {
        order.retain(|&(j, _)| {
            w.job(j).name.to_lowercase().contains(&filter)
                || w.pool_name(j).to_lowercase().contains(&filter)
        });
    }
    let rank = |s: JobState| match s {
        JobState::Running => 0,
        JobState::Queued => 1,
        JobState::SetUp => 2,
        JobState::Finishing => 3,
        JobState::Waiting => 4,
        JobState::Done => 5,
    };
    let key = value_key(&app.pane().values).map(|(k, _)| k);
    let value = |j: JobId| {
        key.and_then(|k| value_number(&app.pane().values, k, &w.job(j).name))
            .unwrap_or(f64::NEG_INFINITY)
    };
    let job = |j: JobId| w.job(j);
    let cmp = |a: &(JobId, JobState), b: &(JobId, JobState)| -> std::cmp::Ordering {
        let (ja, jb) = (job(a.0), job(b.0));
        match app.jobs_sort {
            Sort::Submit => std::cmp::Ordering::Equal,
            Sort::Progress => job_progress(jb).total_cmp(&job_progress(ja)),
            Sort::Name => natural_cmp(&ja.name, &jb.name),
            Sort::Pool => natural_cmp(w.pool_name(a.0), w.pool_name(b.0)),
            Sort::State => rank(a.1).cmp(&rank(b.1)),
            Sort::Maps => {
                (jb.maps_pending + jb.maps_running).cmp(&(ja.maps_pending + ja.maps_running))
            }
            Sort::Reds => (jb.reduces_pending + jb.reduces_running)
                .cmp(&(ja.reduces_pending + ja.reduces_running)),
            Sort::Submitted => ja.submit.cmp(&jb.submit),
            Sort::Finished => match (ja.finished_at, jb.finished_at) {
                (Some(x), Some(y)) => x.cmp(&y),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (None, None) => std::cmp::Ordering::Equal,
            },
            Sort::Value => value(b.0).total_cmp(&value(a.0)),
        }
    };
    // A stable sort: ties keep the default order. Reversed, the whole
    // list is read from the other end.
    if app.jobs_sort != Sort::Submit {
        order.sort_by(cmp);
    }
    if app.jobs_reversed {
        order.reverse();
    }
    order
}

/// The policy values the Jobs view shows, by policy family: the first key
/// the policy's inspection has among these, with the column's header.
/// YARN's: the walk's order (yarn-fifo, yarn-capacity), an application's
/// fair share of memory (yarn-fair's `fair` queues), its dominant share
/// (yarn-fair's `drf` queues, which order applications by it).
pub const VALUE_KEYS: &[(&str, &str)] = &[
    ("order", "order"),
    ("fair_share_containers", "share"),
    ("fair_share_map", "share m"),
    ("x_star", "x*"),
    ("priority_value", "prio"),
    ("missed_opportunities", "missed"),
    ("fair_share_mb", "fair sh"),
    ("dominant_share", "dom sh"),
];

/// The Jobs view's policy column: the first of [`VALUE_KEYS`] any job's
/// values have, and its header. One key for the whole column, so a job
/// the policy says nothing of in it (a YARN application not yet in the
/// walk) shows nothing rather than another value under its header.
pub fn value_key(values: &Inspection) -> Option<(&'static str, &'static str)> {
    VALUE_KEYS
        .iter()
        .copied()
        .find(|(k, _)| values.jobs.values().any(|v| v.contains_key(k)))
}

/// Job `name`'s value of `key` as a number, for sorting by it.
fn value_number(values: &Inspection, key: &str, name: &str) -> Option<f64> {
    match values.jobs.get(name)?.get(key)? {
        crate::sim::policy::Value::Int(i) => Some(*i as f64),
        crate::sim::policy::Value::Num(f) => Some(*f),
        _ => None,
    }
}

/// The job's policy value (the Jobs view's column) as a number, for
/// sorting by it.
pub fn policy_number(app: &App, name: &str) -> Option<f64> {
    let (key, _) = value_key(&app.pane().values)?;
    value_number(&app.pane().values, key, name)
}

/// What a drawn cell stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// A node cell (on a packed grid, the first node of the cell).
    Node(NodeId),
    /// A job's row.
    Job(JobId),
    /// A view's tab in the header.
    View(usize),
    /// A column header of the Jobs view: sort by it.
    Sort(Sort),
}

/// A rectangle the last frame drew something clickable in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hit {
    pub area: Rect,
    pub target: Target,
}

impl App {
    /// What a click at column `x`, row `y` of the last frame means.
    pub fn click_at(&self, x: u16, y: u16) -> Option<Action> {
        let hits = self.hits.borrow();
        let pos = ratatui::layout::Position { x, y };
        hits.iter()
            .rev()
            .find(|h| h.area.contains(pos))
            .map(|h| match h.target {
                Target::Node(n) => Action::SelectNode(n),
                Target::Job(j) => Action::SelectJob(j),
                Target::View(i) => Action::GotoView(i),
                Target::Sort(s) => Action::SortBy(s),
            })
    }

    /// Every node in the order the Cluster view draws them (datacenter,
    /// rack, node).
    fn node_order(&self) -> Vec<NodeId> {
        let c = self.sim().view().cluster();
        c.dcs
            .iter()
            .flat_map(|d| d.racks.iter())
            .flat_map(|&r| c.racks[r as usize].nodes.iter().copied())
            .collect()
    }

    pub(super) fn select_node(&mut self, n: NodeId) {
        if (n as usize) >= self.sim().view().cluster().nodes.len() {
            return;
        }
        self.sel_node = n;
        for p in self.panes() {
            if let Ok(mut r) = p.ring.lock() {
                r.select(n);
            }
        }
        if let Overlay::Inspector { back, .. } = &mut self.overlay {
            *back = 0;
        }
        self.keep_selected_rack_in_view();
    }

    /// The arrows and paging keys in a view: they move the selection where
    /// the view has a list or grid, and scroll where it does not.
    pub(super) fn navigate(&mut self, a: Action) {
        match (self.view, &a) {
            (View::Overview | View::Cluster, Action::Left | Action::Right) => {
                let order = self.node_order();
                let i = order.iter().position(|&n| n == self.sel_node).unwrap_or(0);
                let i = if a == Action::Left {
                    i.saturating_sub(1)
                } else {
                    (i + 1).min(order.len().saturating_sub(1))
                };
                self.select_node(order[i]);
            }
            (View::Cluster, Action::Up | Action::Down) => {
                // The node at the same place in the previous / next rack.
                let c = self.sim().view().cluster();
                let racks: Vec<u32> = c.dcs.iter().flat_map(|d| d.racks.iter().copied()).collect();
                let node = &c.nodes[self.sel_node as usize];
                let k = racks.iter().position(|&r| r == node.rack).unwrap_or(0);
                let pos = c.racks[node.rack as usize]
                    .nodes
                    .iter()
                    .position(|&n| n == self.sel_node)
                    .unwrap_or(0);
                let k = if a == Action::Up {
                    k.saturating_sub(1)
                } else {
                    (k + 1).min(racks.len().saturating_sub(1))
                };
                let nodes = &c.racks[racks[k] as usize].nodes;
                if let Some(&n) = nodes.get(pos.min(nodes.len().saturating_sub(1))) {
                    self.select_node(n);
                }
            }
            (View::Overview, _) => {
                let list = overview_jobs(self.sim().view());
                self.move_job(&list, &a, list.len().max(1));
            }
            (View::Jobs, _) => {
                let list: Vec<JobId> = job_rows(self).into_iter().map(|r| r.0).collect();
                let page = self.pages.get().jobs.rows.max(1);
                self.move_job(&list, &a, page);
                self.keep_selected_job_in_view();
            }
            (_, Action::Left | Action::Right) => {}
            _ => self.scroll(a),
        }
    }

    /// Moves the selected job in `list` (from none: to the first).
    fn move_job(&mut self, list: &[JobId], a: &Action, page: usize) {
        if list.is_empty() {
            return;
        }
        let last = list.len() - 1;
        let Some(i) = self.sel_job.and_then(|j| list.iter().position(|&x| x == j)) else {
            self.sel_job = Some(list[if *a == Action::End { last } else { 0 }]);
            return;
        };
        let i = match a {
            Action::Up => i.saturating_sub(1),
            Action::Down => (i + 1).min(last),
            Action::PageUp => i.saturating_sub(page),
            Action::PageDown => (i + page).min(last),
            Action::Home => 0,
            Action::End => last,
            _ => i,
        };
        self.sel_job = Some(list[i]);
    }

    /// Scrolls the Jobs view so that the selected job is on screen.
    pub(super) fn keep_selected_job_in_view(&mut self) {
        let Some(j) = self.sel_job else { return };
        let rows = job_rows(self);
        let Some(i) = rows.iter().position(|r| r.0 == j) else {
            return;
        };
        let page = self.pages.get().jobs.rows.max(1);
        if i < self.jobs_row {
            self.jobs_row = i;
        } else if i >= self.jobs_row + page {
            self.jobs_row = i + 1 - page;
        }
    }

    /// Scrolls the Cluster view so that the selected node's rack is shown.
    fn keep_selected_rack_in_view(&mut self) {
        let c = self.sim().view().cluster();
        let rack = c.nodes[self.sel_node as usize].rack;
        let racks: Vec<u32> = c.dcs.iter().flat_map(|d| d.racks.iter().copied()).collect();
        let Some(k) = racks.iter().position(|&r| r == rack) else {
            return;
        };
        let p = self.pages.get().cluster;
        let shown = p.rows.max(1);
        let first = self
            .cluster_row
            .min(if p.rows == 0 { usize::MAX } else { p.max });
        if k < first {
            self.cluster_row = k;
        } else if k >= first + shown {
            self.cluster_row = k + 1 - shown;
        } else {
            self.cluster_row = first;
        }
    }

    /// Enter in a view: the selected job's tasks.
    pub(super) fn open_detail(&mut self) {
        if !matches!(self.view, View::Overview | View::Jobs) {
            return;
        }
        match self.sel_job {
            Some(job) => self.overlay = Overlay::Detail { job, row: 0 },
            None => self.status = Some("select a job with ↑/↓ (or a click) first".into()),
        }
    }

    pub(super) fn update_detail(&mut self, a: Action) {
        let p = self.pages.get().detail;
        let Overlay::Detail { row, .. } = &mut self.overlay else {
            return;
        };
        match a {
            Action::Up
            | Action::Down
            | Action::PageUp
            | Action::PageDown
            | Action::Home
            | Action::End => *row = scrolled(*row, &a, p, usize::MAX),
            Action::Char('k') => *row = scrolled(*row, &Action::Up, p, usize::MAX),
            Action::Char('j') => *row = scrolled(*row, &Action::Down, p, usize::MAX),
            Action::Close | Action::Enter => self.overlay = Overlay::None,
            Action::TogglePause => {
                self.paused = !self.paused;
                self.carry = 0.0;
            }
            _ => {}
        }
    }

    pub(super) fn update_filter(&mut self, a: Action) {
        let Overlay::Filter { draft } = &mut self.overlay else {
            return;
        };
        match a {
            Action::Char(c) => draft.push(c),
            Action::Backspace => {
                draft.pop();
            }
            Action::Enter => {
                self.jobs_filter = draft.trim().to_string();
                self.overlay = Overlay::None;
            }
            Action::Close => {
                self.jobs_filter.clear();
                self.overlay = Overlay::None;
            }
            _ => {}
        }
        self.jobs_row = 0;
        self.keep_selected_job_in_view();
    }

    /// `f` / `r`: the selected node fails or recovers, as a scripted
    /// `fail_node` / `recover_node` event would.
    pub(super) fn fail_or_recover(&mut self, fail: bool) {
        let n = self.sel_node;
        let alive = self.sim().view().cluster().nodes[n as usize].alive;
        if fail != alive {
            self.status = Some(if fail {
                format!("node {n} is already dead (r recovers it)")
            } else {
                format!("node {n} is alive (f fails it)")
            });
            return;
        }
        let action = if fail {
            crate::model::Action::FailNode(n)
        } else {
            crate::model::Action::RecoverNode(n)
        };
        let what = if fail { "failed" } else { "recovered" };
        self.status = Some(match self.act(action) {
            Ok(()) => format!("node {n} {what} at {}", clock(self.sim().view().now())),
            Err(e) => format!("cannot change node {n}: {e}"),
        });
    }
}

/// Names as people order them: runs of digits by their value, so
/// `w0-grep-11` comes before `w0-grep-102`.
pub fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let (mut x, mut y) = (a.as_bytes(), b.as_bytes());
    loop {
        match (x.first(), y.first()) {
            (None, None) => return a.cmp(b),
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(c), Some(d)) if c.is_ascii_digit() && d.is_ascii_digit() => {
                let n = x.iter().take_while(|c| c.is_ascii_digit()).count();
                let m = y.iter().take_while(|c| c.is_ascii_digit()).count();
                let (p, q) = (&x[..n], &y[..m]);
                // Without leading zeros, the longer run is the larger.
                let trim = |s: &[u8]| -> usize { s.iter().take_while(|&&c| c == b'0').count() };
                let (p2, q2) = (&p[trim(p)..], &q[trim(q)..]);
                let o = p2.len().cmp(&q2.len()).then(p2.cmp(q2));
                if o != Ordering::Equal {
                    return o;
                }
                x = &x[n..];
                y = &y[m..];
            }
            (Some(c), Some(d)) => {
                if c != d {
                    return c.cmp(d);
                }
                x = &x[1..];
                y = &y[1..];
            }
        }
    }
}

#[cfg(test)]
mod natural_tests {
    use super::natural_cmp;

    #[test]
    fn digits_order_by_value() {
        let mut v = vec![
            "w0-grep-102",
            "w0-grep-11",
            "w0-grep-2",
            "a",
            "w0-grep-011",
            "b1",
        ];
        v.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(
            v,
            [
                "a",
                "b1",
                "w0-grep-2",
                "w0-grep-011",
                "w0-grep-11",
                "w0-grep-102"
            ]
        );
    }
}

//! The TUI in the Elm shape: [`App`] is the state, [`Action`] what can
//! happen, [`App::update`] the only place state changes, and `views::render`
//! draws a state. Nothing here knows about terminals, so every behaviour is
//! testable without one, and the recorder drives the same code offscreen.

mod advance;
mod jobact;
mod log;
mod logview;
mod pane;
mod seek;
mod select;
mod session;
mod submit;

pub use advance::{Pace, Rings};
pub use log::{clock, count, dur, noun};
pub use pane::Pane;
pub use select::{
    job_progress, job_rows, overview_jobs, policy_number, value_key, Hit, JobState, Sort, Target,
    VALUE_KEYS,
};

use crate::model::{JobId, Ms, NodeId, PolicySpec, Scenario};
use crate::sim::{Sim, SimError};

/// A submit form that does not describe a job: what to fix.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct FormError(pub String);

/// Speed steps for `+`/`-`: simulated seconds per wall-clock second.
/// The last, `f64::INFINITY`, runs as fast as the engine goes.
pub const SPEEDS: [f64; 14] = [
    0.1,
    0.25,
    0.5,
    1.0,
    2.0,
    5.0,
    10.0,
    20.0,
    50.0,
    100.0,
    200.0,
    500.0,
    1000.0,
    f64::INFINITY,
];
/// At "max" speed a frame processes at most this many events, so input and
/// drawing stay responsive whatever the scenario.
pub const MAX_EVENTS_PER_FRAME: usize = 20_000;
/// Heartbeats the inspector keeps for stepping back.
pub const INSPECT_RING: usize = 256;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    Overview,
    Cluster,
    Jobs,
    Pools,
    Timeline,
    Network,
}

impl View {
    pub const ALL: [View; 6] = [
        View::Overview,
        View::Cluster,
        View::Jobs,
        View::Pools,
        View::Timeline,
        View::Network,
    ];

    pub fn name(self) -> &'static str {
        match self {
            View::Overview => "Overview",
            View::Cluster => "Cluster",
            View::Jobs => "Jobs",
            View::Pools => "Pools",
            View::Timeline => "Timeline",
            View::Network => "Network",
        }
    }
}

/// "queue" where the cluster is YARN's, whose schedulers have queues;
/// "pool" on MRv1's slots.
pub fn pool_word(w: crate::sim::RunView<'_>) -> &'static str {
    if w.capacity().gauge() == crate::model::Gauge::Memory {
        "queue"
    } else {
        "pool"
    }
}

impl App {
    /// A view's name as the tabs and the header give it: the Pools view
    /// is the Queues view on YARN.
    pub fn view_name(&self, v: View) -> &'static str {
        if v == View::Pools && pool_word(self.sim().view()) == "queue" {
            "Queues"
        } else {
            v.name()
        }
    }

    /// [`pool_word`] of the selected run.
    pub fn pool_word(&self) -> &'static str {
        pool_word(self.sim().view())
    }
}

/// The submit form (`s`).
#[derive(Clone, Debug, PartialEq)]
pub struct SubmitForm {
    pub profile: usize,
    pub input: String,
    pub reduces: String,
    pub pool: usize,
    /// 0 profile, 1 input, 2 reduces, 3 pool.
    pub focus: usize,
    pub error: Option<String>,
}

pub const FORM_FIELDS: usize = 4;

#[derive(Clone, Debug, PartialEq)]
pub enum Overlay {
    None,
    Picker {
        selected: usize,
    },
    Submit(SubmitForm),
    /// `back`: how many heartbeats before the newest one is shown; `row`,
    /// `col`: the first job row and value column shown; `follow`: scroll so
    /// the job the heartbeat assigned to is in view (until ↑/↓ scroll).
    Inspector {
        back: usize,
        row: usize,
        col: usize,
        follow: bool,
    },
    Help,
    /// A job's tasks (Enter on a job): `row` is the first task row shown.
    Detail {
        job: JobId,
        row: usize,
    },
    /// The Jobs view's filter being typed (`/`); the view filters by the
    /// draft as it is typed.
    Filter {
        draft: String,
    },
    /// `K`: kill this job? (y / n).
    ConfirmKill {
        job: JobId,
    },
    /// `m`: the pool to move this job to.
    MovePool {
        job: JobId,
        selected: usize,
    },
    /// `l`: the whole log, searched for `query` (typed as it comes);
    /// `row`: the first match shown, `usize::MAX` following the end.
    Log {
        query: String,
        row: usize,
    },
}

impl Overlay {
    /// Overlays that take typed input or a choice: the simulated clock
    /// stands still while one is open, so what the user submits or
    /// switches lands at the instant they chose.
    pub fn freezes_clock(&self) -> bool {
        matches!(
            self,
            Overlay::Picker { .. }
                | Overlay::Submit(_)
                | Overlay::Filter { .. }
                | Overlay::ConfirmKill { .. }
                | Overlay::MovePool { .. }
        )
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// Wall-clock time passed (ms): advance the simulation by it × speed.
    Tick(u64),
    TogglePause,
    Step,
    SpeedUp,
    SpeedDown,
    NextView,
    PrevView,
    OpenPicker,
    OpenSubmit,
    OpenInspector,
    OpenHelp,
    Close,
    Quit,
    Up,
    Down,
    PageUp,
    PageDown,
    Home,
    End,
    Left,
    Right,
    /// The inspector's value columns: scroll left / right (`[` / `]`).
    ColsLeft,
    ColsRight,
    Enter,
    NextField,
    PrevField,
    Char(char),
    Backspace,
    /// Jump to the view at this index of [`View::ALL`] (keys 1–6).
    GotoView(usize),
    /// Select a node / a job (a mouse click, through the drawn geometry).
    SelectNode(NodeId),
    SelectJob(JobId),
    /// Write the session so far as a scenario (`W`).
    SaveSession,
    /// Side by side: the focus moves to the next run (`n`).
    NextRun,
    /// Fail / recover the selected node through the command API.
    FailNode,
    RecoverNode,
    /// The Jobs view: open the filter, cycle the sort order.
    OpenFilter,
    CycleSort,
    /// Reverse the Jobs view's order (`O`); sort by a column (a click on
    /// its header: again reverses).
    ReverseSort,
    SortBy(Sort),
    /// The whole log and its search (`l`).
    OpenLog,
    /// Seek back / forward over the run (`[` / `]`).
    SeekBack,
    SeekForward,
    /// The selected job: kill it (after a confirmation), raise or lower
    /// its priority a level, move it to another pool (a picker).
    KillJob,
    RaisePriority,
    LowerPriority,
    MoveJob,
}

/// What the last frame showed of a scrollable list: the first row, how
/// many rows fit and the largest first row that still fills the page. The
/// renderer records it (the one thing drawing writes, like ratatui's
/// stateful widgets) so that scrolling stops at the last full page and
/// pages by what is on screen. `rows == 0`: not drawn yet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Page {
    pub first: usize,
    pub rows: usize,
    pub max: usize,
}

/// [`Page`]s of every scrollable list, as last drawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pages {
    pub jobs: Page,
    pub timeline: Page,
    pub cluster: Page,
    pub inspector_rows: Page,
    pub inspector_cols: Page,
    pub help: Page,
    pub detail: Page,
    pub log: Page,
}

/// A scroll position after a scrolling action. `fallback_max` bounds it
/// when the list has not been drawn yet.
pub fn scrolled(pos: usize, a: &Action, page: Page, fallback_max: usize) -> usize {
    let max = if page.rows == 0 {
        fallback_max
    } else {
        page.max
    };
    let pos = pos.min(max);
    let by = page.rows.max(1);
    match a {
        Action::Up => pos.saturating_sub(1),
        Action::Down => (pos + 1).min(max),
        Action::PageUp => pos.saturating_sub(by),
        Action::PageDown => (pos + by).min(max),
        Action::Home => 0,
        Action::End => max,
        _ => pos,
    }
}

pub struct App {
    /// The runs: one, or two to four side by side (`--policies a,b`),
    /// each with what its views draw from.
    panes: Vec<Pane>,
    /// The run the keys act on (side by side: `n` moves it).
    focus: usize,
    /// While a frame draws the panes side by side, the one being drawn:
    /// views read [`App::sim`] and [`App::pane`], which follow it.
    drawing: std::cell::Cell<Option<usize>>,
    /// The first run's scenario (side by side: each run's is this one
    /// under its own policy, cut to its own `run = N` events).
    pub scenario: Scenario,
    /// Side by side, the session's keyboard actions in order, with the run
    /// each went to alone (`None`: to every run), for `W`.
    side_tape: Vec<(crate::model::EventSpec, Option<usize>)>,
    pub view: View,
    pub overlay: Overlay,
    pub paused: bool,
    pub speed: usize,
    pub quit: bool,
    /// Simulated time the last frame advanced (to guess the next at "max").
    last_advance: Ms,
    /// The run stops at this simulated time (`record --until`).
    pub until: Option<Ms>,
    /// A transient message for the status line.
    pub status: Option<String>,
    /// First timeline row shown.
    pub timeline_row: usize,
    /// First Jobs-view row shown.
    pub jobs_row: usize,
    /// First Cluster-view rack shown.
    pub cluster_row: usize,
    /// First help line shown.
    pub help_row: usize,
    /// Scrollable lists as the last frame drew them.
    pub pages: std::cell::Cell<Pages>,
    /// What the last frame drew where (nodes, jobs, tabs), so a mouse
    /// click can be mapped to an action.
    pub hits: std::cell::RefCell<Vec<Hit>>,
    /// The selected node (Overview grid, Cluster view, inspector, `f`/`r`).
    pub sel_node: NodeId,
    /// The selected job (Overview list, Jobs view, Enter's detail).
    pub sel_job: Option<JobId>,
    /// The Jobs view's filter (matches job name or pool) and sort order.
    pub jobs_filter: String,
    pub jobs_sort: Sort,
    pub jobs_reversed: bool,
    /// Sub-millisecond remainder of simulated time not yet advanced.
    carry: f64,
    submitted: u32,
    /// Live: the wall-clock time a frame may spend advancing the run, so
    /// that keys act and the clock moves however costly the run is; the
    /// offscreen recorder has none (it reads no clock) and is bounded by
    /// [`MAX_EVENTS_PER_FRAME`] alone.
    pub frame_budget: Option<std::time::Duration>,
    /// The speed the run kept over the last second of wall time.
    pub pace: advance::Pace,
    /// A seek under way (`[` / `]`), and the checkpoints seeks back start
    /// from.
    seeking: Option<seek::Seeking>,
    pub checkpoints: seek::Checkpoints,
    /// Colours are not shown (`NO_COLOR`): jobs are told apart by letters
    /// ([`super::theme::job_letter`]) in the slots, legends and lists.
    pub mono: bool,
    /// The overlay the help was opened from (the inspector), for its Esc.
    help_return: Option<Overlay>,
    /// Where `W` writes sessions: the current directory (empty) unless set.
    pub session_dir: std::path::PathBuf,
    /// The scenario file the session runs (`None`: the embedded
    /// quickstart): `W` writes the session beside it, so the paths it
    /// names still resolve.
    pub source: Option<std::path::PathBuf>,
}

impl App {
    /// A single run of `scenario`.
    pub fn new(scenario: Scenario) -> Result<App, SimError> {
        App::side_by_side(vec![scenario])
    }

    /// One run per scenario (the same scenario under each policy of
    /// `--policies`, each cut to its own script by
    /// [`crate::scenario::side_run`]), advanced in lockstep on one clock;
    /// one scenario is a single run.
    pub fn side_by_side(scenarios: Vec<Scenario>) -> Result<App, SimError> {
        let panes = scenarios
            .iter()
            .map(Pane::new)
            .collect::<Result<Vec<_>, _>>()?;
        let scenario = scenarios.into_iter().next().expect("at least one run");
        let mut app = App {
            panes,
            focus: 0,
            drawing: Default::default(),
            side_tape: Vec::new(),
            scenario,
            view: View::Overview,
            overlay: Overlay::None,
            paused: false,
            speed: 3,
            quit: false,
            last_advance: 0,
            frame_budget: None,
            pace: Default::default(),
            seeking: None,
            checkpoints: Default::default(),
            mono: false,
            help_return: None,
            session_dir: Default::default(),
            source: None,
            until: None,
            status: None,
            timeline_row: 0,
            jobs_row: 0,
            cluster_row: 0,
            help_row: 0,
            pages: Default::default(),
            hits: Default::default(),
            sel_node: 0,
            sel_job: None,
            jobs_filter: String::new(),
            jobs_sort: Sort::Submit,
            jobs_reversed: false,
            carry: 0.0,
            submitted: 0,
        };
        app.refresh();
        Ok(app)
    }

    /// The one place state changes.
    pub fn update(&mut self, action: Action) {
        if self.seeking.is_some() && !self.update_seeking(&action) {
            return;
        }
        // A checkpoint costs a few milliseconds (it shares the run's jobs
        // and attempts rather than copying them): the frame that keeps one
        // runs its budget as any other.
        self.update_any(action);
        self.keep_checkpoint();
    }

    /// An action while a seek is under way: frames carry the seek on,
    /// Esc cancels it, `q` cancels it and quits (the outputs are the
    /// session's, not the half-way run's); what would change the run
    /// waits. True: handle the action as usual.
    fn update_seeking(&mut self, a: &Action) -> bool {
        match a {
            Action::Tick(_) => {
                self.seek_frame();
                false
            }
            Action::Quit => {
                self.cancel_seek();
                true
            }
            Action::Close if self.overlay == Overlay::None => {
                self.cancel_seek();
                false
            }
            Action::Step
            | Action::OpenPicker
            | Action::OpenSubmit
            | Action::FailNode
            | Action::RecoverNode
            | Action::KillJob
            | Action::RaisePriority
            | Action::LowerPriority
            | Action::MoveJob
            | Action::SaveSession
                if self.overlay == Overlay::None =>
            {
                self.status = Some("a seek is under way: wait for it, or esc cancels".into());
                false
            }
            _ => true,
        }
    }

    fn update_any(&mut self, action: Action) {
        match (&self.overlay, action.clone()) {
            (_, Action::Quit) => self.quit = true,
            // An overlay that takes input holds the clock (see
            // `Overlay::freezes_clock`).
            (o, Action::Tick(_)) if o.freezes_clock() => {}
            (_, Action::Tick(ms)) => self.tick(ms),
            // Esc with nothing open clears a kept Jobs filter.
            (Overlay::None, Action::Close) if !self.jobs_filter.is_empty() => {
                self.jobs_filter.clear();
                self.jobs_row = 0;
                self.keep_selected_job_in_view();
            }
            (Overlay::Picker { .. }, a) => self.update_picker(a),
            (Overlay::Detail { .. }, a) => self.update_detail(a),
            (Overlay::Filter { .. }, a) => self.update_filter(a),
            (Overlay::ConfirmKill { .. }, a) => self.update_confirm_kill(a),
            (Overlay::MovePool { .. }, a) => self.update_move_pool(a),
            (Overlay::Log { .. }, a) => self.update_log(a),
            (Overlay::Submit(_), a) => self.update_submit(a),
            (Overlay::Inspector { .. }, a) => self.update_inspector(a),
            (Overlay::Help, Action::Close | Action::OpenHelp) => {
                self.overlay = self.help_return.take().unwrap_or(Overlay::None);
                self.help_row = 0;
            }
            (
                Overlay::Help,
                a @ (Action::Up
                | Action::Down
                | Action::PageUp
                | Action::PageDown
                | Action::Home
                | Action::End),
            ) => self.help_row = scrolled(self.help_row, &a, self.pages.get().help, 0),
            (Overlay::Help, Action::Char(c @ ('j' | 'k'))) => {
                let a = if c == 'j' { Action::Down } else { Action::Up };
                self.help_row = scrolled(self.help_row, &a, self.pages.get().help, 0)
            }
            (Overlay::Help, _) => {}
            (Overlay::None, a) => self.update_main(a),
        }
        self.refresh();
    }

    fn update_main(&mut self, a: Action) {
        match a {
            Action::TogglePause => {
                self.paused = !self.paused;
                self.carry = 0.0;
                self.pace.clear();
            }
            Action::Step => self.step_heartbeat(),
            Action::SpeedUp | Action::SpeedDown => self.change_speed(a == Action::SpeedUp),
            Action::NextView | Action::PrevView => {
                let n = View::ALL.len();
                let i = View::ALL.iter().position(|v| *v == self.view).unwrap_or(0);
                let by = if a == Action::NextView { 1 } else { n - 1 };
                self.view = View::ALL[(i + by) % n];
            }
            Action::GotoView(i) => {
                if let Some(v) = View::ALL.get(i) {
                    self.view = *v;
                }
            }
            Action::OpenPicker => {
                let cur = self.sim().policy_spec().name();
                let selected = crate::sched::registry::for_capacity(self.sim().view().capacity())
                    .iter()
                    .position(|p| p.name == cur)
                    .unwrap_or(0);
                self.overlay = Overlay::Picker { selected };
            }
            Action::OpenSubmit => self.overlay = Overlay::Submit(self.default_form()),
            Action::OpenInspector => {
                self.overlay = Overlay::Inspector {
                    back: 0,
                    row: 0,
                    col: 0,
                    follow: true,
                }
            }
            Action::OpenHelp => self.overlay = Overlay::Help,
            Action::Up
            | Action::Down
            | Action::PageUp
            | Action::PageDown
            | Action::Home
            | Action::End
            | Action::Left
            | Action::Right => self.navigate(a),
            Action::SelectNode(n) => self.select_node(n),
            Action::SelectJob(j) => self.sel_job = Some(j),
            Action::Enter => self.open_detail(),
            Action::FailNode | Action::RecoverNode => self.fail_or_recover(a == Action::FailNode),
            Action::SaveSession => self.save_session(),
            Action::NextRun => self.next_run(),
            Action::OpenFilter => {
                self.view = View::Jobs;
                self.overlay = Overlay::Filter {
                    draft: self.jobs_filter.clone(),
                };
            }
            Action::CycleSort => {
                self.view = View::Jobs;
                self.jobs_sort = self.jobs_sort.next();
                self.jobs_reversed = false;
                self.keep_selected_job_in_view();
            }
            Action::ReverseSort => {
                self.view = View::Jobs;
                self.jobs_reversed = !self.jobs_reversed;
                self.keep_selected_job_in_view();
            }
            Action::SortBy(s) => {
                self.jobs_reversed = self.jobs_sort == s && !self.jobs_reversed;
                self.jobs_sort = s;
                self.keep_selected_job_in_view();
            }
            Action::KillJob => self.ask_kill(),
            Action::RaisePriority => self.shift_priority(true),
            Action::LowerPriority => self.shift_priority(false),
            Action::MoveJob => self.open_move_pool(),
            Action::OpenLog => self.open_log(),
            Action::SeekBack | Action::SeekForward => self.seek(a == Action::SeekForward),
            _ => {}
        }
    }

    /// Scrolls the current view's list, stopping at its last full page.
    pub(super) fn scroll(&mut self, a: Action) {
        let pages = self.pages.get();
        let w = self.sim().view();
        match self.view {
            View::Jobs => {
                let n = w.jobs().len().saturating_sub(1);
                self.jobs_row = scrolled(self.jobs_row, &a, pages.jobs, n);
            }
            View::Timeline => {
                let lanes: usize = w.cluster().nodes.iter().map(|n| n.lanes.len()).sum();
                let n = lanes.saturating_sub(1);
                self.timeline_row = scrolled(self.timeline_row, &a, pages.timeline, n);
            }
            View::Cluster => {
                let n = w.cluster().racks.len().saturating_sub(1);
                self.cluster_row = scrolled(self.cluster_row, &a, pages.cluster, n);
            }
            View::Overview | View::Pools | View::Network => {}
        }
    }

    fn update_picker(&mut self, a: Action) {
        if self.sim().halted().is_some() {
            self.overlay = Overlay::None;
            self.note_halt();
            return;
        }
        let policies = crate::sched::registry::for_capacity(self.sim().view().capacity());
        let Overlay::Picker { selected } = &mut self.overlay else {
            return;
        };
        let n = policies.len();
        match a {
            Action::Up | Action::Char('k') => *selected = (*selected + n - 1) % n,
            Action::Down | Action::Char('j') => *selected = (*selected + 1) % n,
            Action::Enter => {
                let name = policies[*selected].name;
                self.overlay = Overlay::None;
                // An external policy runs as last used in this run
                // (`--policy external:CMD`), else as the scenario says.
                let last_external = self
                    .sim()
                    .policy_specs()
                    .iter()
                    .rev()
                    .find(|s| matches!(s, PolicySpec::External(_)));
                let spec = match last_external {
                    Some(s) if s.name() == name => s.clone(),
                    // No command to run (none given, none in the
                    // scenario): a switch would fail when it lands, and a
                    // session written with it would not load.
                    _ if name == crate::model::spec::EXTERNAL
                        && self
                            .scenario
                            .scheduler
                            .get(crate::model::spec::EXTERNAL)
                            .and_then(|t| t.get("command"))
                            .is_none() =>
                    {
                        self.status = Some(
                            "external needs its command: start with --policy \"external:CMD\" (docs/write-a-policy.md)".into(),
                        );
                        return;
                    }
                    _ => PolicySpec::plain(name),
                };
                match self.act(crate::model::Action::SwitchPolicy(spec)) {
                    Ok(()) => {
                        self.status = Some(format!(
                            "switched to {name} at {}",
                            clock(self.sim().view().now())
                        ))
                    }
                    Err(e) => self.status = Some(format!("cannot switch: {e}")),
                }
            }
            Action::Close | Action::OpenPicker => self.overlay = Overlay::None,
            _ => {}
        }
    }

    /// One speed step up or down.
    fn change_speed(&mut self, up: bool) {
        self.speed = if up {
            (self.speed + 1).min(SPEEDS.len() - 1)
        } else {
            self.speed.saturating_sub(1)
        };
        self.pace.clear();
    }

    fn update_inspector(&mut self, a: Action) {
        let len = self.pane().ring.lock().map(|r| r.node.len()).unwrap_or(0);
        let pages = self.pages.get();
        let Overlay::Inspector {
            back,
            row,
            col,
            follow,
        } = &mut self.overlay
        else {
            return;
        };
        match a {
            Action::Left | Action::Char('h') if self.paused => {
                *back = (*back + 1).min(len.saturating_sub(1));
                *follow = true;
            }
            Action::Right | Action::Char('l') if self.paused => {
                *back = back.saturating_sub(1);
                *follow = true;
            }
            Action::Left | Action::Right | Action::Char('h' | 'l') => {
                self.status = Some("pause (space) to step through past heartbeats".into())
            }
            Action::Up
            | Action::Down
            | Action::PageUp
            | Action::PageDown
            | Action::Home
            | Action::End
            | Action::Char('j' | 'k') => {
                let a = match a {
                    Action::Char('k') => Action::Up,
                    Action::Char('j') => Action::Down,
                    a => a,
                };
                // From what is on screen (following may have moved it).
                let p = pages.inspector_rows;
                let from = if p.rows == 0 { *row } else { p.first };
                *row = scrolled(from, &a, p, usize::MAX);
                *follow = false;
            }
            Action::ColsLeft => *col = col.saturating_sub(1),
            Action::ColsRight => {
                let p = pages.inspector_cols;
                *col = (*col + 1).min(if p.rows == 0 { *col } else { p.max });
            }
            Action::TogglePause => {
                self.paused = !self.paused;
                *back = 0;
                *follow = true;
            }
            Action::Step => {
                *back = 0;
                *follow = true;
                self.step_to_selected_node();
            }
            Action::SpeedUp | Action::SpeedDown => self.change_speed(a == Action::SpeedUp),
            // The help, which closes back to the inspector as it was.
            Action::OpenHelp => {
                self.help_return = Some(std::mem::replace(&mut self.overlay, Overlay::Help));
            }
            Action::Close | Action::OpenInspector => self.overlay = Overlay::None,
            _ => {}
        }
    }

    /// Recomputes what the views show from the policy (after every update).
    fn refresh(&mut self) {
        let view = self.view;
        for p in &mut self.panes {
            p.refresh(view);
        }
        self.refresh_log();
    }

    /// The run the views draw: the focused one, or, while a frame draws
    /// the runs side by side, the one whose pane it is drawing.
    pub fn pane(&self) -> &Pane {
        &self.panes[self.drawing.get().unwrap_or(self.focus)]
    }

    /// The focused run.
    pub fn pane_mut(&mut self) -> &mut Pane {
        &mut self.panes[self.focus]
    }

    /// The engine of [`App::pane`].
    pub fn sim(&self) -> &Sim {
        &self.pane().sim
    }

    /// The engine of the focused run.
    pub fn sim_mut(&mut self) -> &mut Sim {
        &mut self.pane_mut().sim
    }

    /// Every run, in the order of `--policies`.
    pub fn panes(&self) -> &[Pane] {
        &self.panes
    }

    pub(crate) fn panes_mut(&mut self) -> &mut [Pane] {
        &mut self.panes
    }

    /// Whether the runs go side by side.
    pub fn is_side_by_side(&self) -> bool {
        self.panes.len() > 1
    }

    /// The focused run's place (0-based).
    pub fn focus(&self) -> usize {
        self.focus
    }

    /// Draws with `draw` as if run `k` were focused (a pane of its own).
    pub fn drawing_pane<R>(&self, k: usize, draw: impl FnOnce() -> R) -> R {
        let before = self.drawing.replace(Some(k));
        let r = draw();
        self.drawing.set(before);
        r
    }

    /// `n`: the keys act on the next run (side by side).
    fn next_run(&mut self) {
        if !self.is_side_by_side() {
            self.status = Some(
                "one run: n moves between runs side by side (slotsim run --policies a,b)".into(),
            );
            return;
        }
        self.focus = (self.focus + 1) % self.panes.len();
        let n = self.sel_node;
        for p in &self.panes {
            if let Ok(mut r) = p.ring.lock() {
                r.select(n);
            }
        }
        self.status = Some(format!(
            "run {}: {} has the keys (p and i act on it; n for the next)",
            self.focus + 1,
            self.sim().policy_label()
        ));
    }

    /// The one clock: side by side, the latest of the runs' (a run that
    /// has finished stays at its end).
    pub fn now(&self) -> Ms {
        self.panes
            .iter()
            .map(|p| p.sim.view().now())
            .max()
            .unwrap_or(0)
    }

    /// The session is over: each run's policy is told why (finished, or
    /// stopped where it stood).
    pub fn end_runs(&mut self) {
        for p in &mut self.panes {
            let why = p.sim.ended_by(None);
            p.sim.end(why);
        }
    }

    /// Whether every run has finished.
    pub fn all_finished(&self) -> bool {
        self.panes.iter().all(|p| p.sim.is_finished())
    }
}

//! Acting on the selected job, as `hadoop job -kill` and `-set-priority`
//! and the fair scheduler's pool move do: each goes through the command
//! API as a scripted event at the next millisecond (`App::act`), so `W`
//! writes it into the saved session and a headless run replays it.

use super::{clock, Action, App, Overlay};
use crate::model::{Action as SimAction, JobId, Priority};

const LEVELS: [Priority; 5] = [
    Priority::VeryHigh,
    Priority::High,
    Priority::Normal,
    Priority::Low,
    Priority::VeryLow,
];

impl App {
    /// The selected job if it can still be acted on; else says why.
    fn actionable_job(&mut self) -> Option<JobId> {
        let Some(j) = self
            .sel_job
            .filter(|&j| (j as usize) < self.sim().view().jobs().len())
        else {
            self.status = Some("select a job first (↑/↓ in Overview or Jobs)".into());
            return None;
        };
        let job = self.sim().view().job(j);
        if job.is_done() {
            self.status = Some(format!("{} has already finished", job.name));
            return None;
        }
        Some(j)
    }

    /// `K`: asks before killing.
    pub(super) fn ask_kill(&mut self) {
        if let Some(job) = self.actionable_job() {
            self.overlay = Overlay::ConfirmKill { job };
        }
    }

    pub(super) fn update_confirm_kill(&mut self, a: Action) {
        let Overlay::ConfirmKill { job } = self.overlay else {
            return;
        };
        match a {
            Action::Char('y' | 'Y') | Action::Enter => {
                self.overlay = Overlay::None;
                let name = self.sim().view().job(job).name.clone();
                self.status = Some(match self.act(SimAction::KillJob(name.to_string())) {
                    Ok(()) => format!("killed {name} at {}", clock(self.sim().view().now())),
                    Err(e) => format!("cannot kill {name}: {e}"),
                });
            }
            Action::Char('n' | 'N') | Action::Close | Action::KillJob => {
                self.overlay = Overlay::None;
            }
            _ => {}
        }
    }

    /// `>` / `<`: the selected job's priority one level up or down.
    pub(super) fn shift_priority(&mut self, up: bool) {
        let Some(j) = self.actionable_job() else {
            return;
        };
        let job = self.sim().view().job(j);
        let i = LEVELS.iter().position(|&p| p == job.priority).unwrap_or(2);
        let to = match (up, i) {
            (true, 0) | (false, 4) => {
                self.status = Some(format!(
                    "{} is already at priority {}",
                    job.name,
                    job.priority.as_str()
                ));
                return;
            }
            (true, i) => LEVELS[i - 1],
            (false, i) => LEVELS[i + 1],
        };
        let name = job.name.clone();
        self.status = Some(
            match self.act(SimAction::SetPriority(name.to_string(), to)) {
                Ok(()) => format!("{name} now at priority {}", to.as_str()),
                Err(e) => format!("cannot change {name}'s priority: {e}"),
            },
        );
    }

    /// `m`: the pool picker, at the job's pool.
    pub(super) fn open_move_pool(&mut self) {
        if let Some(job) = self.actionable_job() {
            let selected = self.sim().view().job(job).pool as usize;
            self.overlay = Overlay::MovePool { job, selected };
        }
    }

    pub(super) fn update_move_pool(&mut self, a: Action) {
        let n = self.sim().view().pools().len();
        let Overlay::MovePool { job, selected } = &mut self.overlay else {
            return;
        };
        match a {
            Action::Up | Action::Char('k') => *selected = (*selected + n - 1) % n,
            Action::Down | Action::Char('j') => *selected = (*selected + 1) % n,
            Action::Enter => {
                let (job, to) = (*job, *selected);
                self.overlay = Overlay::None;
                let name = self.sim().view().job(job).name.clone();
                let pool = self.sim().view().pools()[to].name.clone();
                if self.sim().view().job(job).pool as usize == to {
                    self.status = Some(format!("{name} is in pool {pool} already"));
                    return;
                }
                self.status = Some(
                    match self.act(SimAction::MoveJob(name.to_string(), pool.clone())) {
                        Ok(()) => {
                            format!(
                                "moved {name} to pool {pool} at {}",
                                clock(self.sim().view().now())
                            )
                        }
                        Err(e) => format!("cannot move {name}: {e}"),
                    },
                );
            }
            Action::Close | Action::MoveJob => self.overlay = Overlay::None,
            _ => {}
        }
    }
}

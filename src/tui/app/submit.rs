//! The submit form (`s`): its defaults, its keys, and the job it describes.

use super::{clock, Action, App, FormError, Overlay, SubmitForm, FORM_FIELDS};
use crate::model::{JobSpec, Priority};
use crate::scenario::profiles;
use crate::units::parse_size_mb;

impl App {
    pub(super) fn default_form(&self) -> SubmitForm {
        SubmitForm {
            profile: 0,
            input: "4GB".into(),
            reduces: "2".into(),
            pool: 0,
            focus: 0,
            error: None,
        }
    }

    pub(super) fn update_submit(&mut self, a: Action) {
        let n_profiles = profiles::all().len();
        let n_pools = self.scenario.pools.len();
        let Overlay::Submit(form) = &mut self.overlay else {
            return;
        };
        let cycle = |i: &mut usize, n: usize, up: bool| {
            *i = if up { (*i + 1) % n } else { (*i + n - 1) % n };
        };
        match a {
            Action::Close => self.overlay = Overlay::None,
            Action::NextField | Action::Down => form.focus = (form.focus + 1) % FORM_FIELDS,
            Action::PrevField | Action::Up => {
                form.focus = (form.focus + FORM_FIELDS - 1) % FORM_FIELDS
            }
            Action::Left | Action::Right => {
                let up = a == Action::Right;
                form.error = None;
                match form.focus {
                    0 => cycle(&mut form.profile, n_profiles, up),
                    3 => cycle(&mut form.pool, n_pools, up),
                    _ => {}
                }
            }
            // An edit clears the last error: it was about the old value.
            Action::Char(c) => match form.focus {
                1 => {
                    form.input.push(c);
                    form.error = None;
                }
                2 => {
                    form.reduces.push(c);
                    form.error = None;
                }
                _ => {}
            },
            Action::Backspace => match form.focus {
                1 => {
                    form.input.pop();
                    form.error = None;
                }
                2 => {
                    form.reduces.pop();
                    form.error = None;
                }
                _ => {}
            },
            Action::Enter => {
                let form = form.clone();
                match self.job_from_form(&form) {
                    Ok(spec) => {
                        let name = spec.name.clone();
                        match self.act(crate::model::Action::Submit(Box::new(spec))) {
                            Ok(()) => {
                                self.submitted += 1;
                                self.overlay = Overlay::None;
                                self.status =
                                    Some(format!("submitted {name} at {}", clock(self.acts_at())));
                            }
                            Err(e) => self.form_error(e.to_string()),
                        }
                    }
                    Err(e) => self.form_error(e.to_string()),
                }
            }
            _ => {}
        }
    }

    fn form_error(&mut self, e: String) {
        if let Overlay::Submit(f) = &mut self.overlay {
            f.error = Some(e);
        }
    }

    /// Validates the form into a job; every problem is a message, never a panic.
    pub fn job_from_form(&self, f: &SubmitForm) -> Result<JobSpec, FormError> {
        let err = |m: &str| FormError(m.to_string());
        let profile = profiles::all()
            .get(f.profile)
            .cloned()
            .ok_or_else(|| err("choose a profile"))?;
        let input_mb = parse_size_mb(&f.input).map_err(|e| FormError(e.to_string()))?;
        if input_mb <= 0.0 {
            return Err(err("input must be larger than 0, like \"4GB\""));
        }
        let reduces: u32 =
            f.reduces.trim().parse().map_err(|_| {
                FormError(format!("reduces \"{}\" is not a whole number", f.reduces))
            })?;
        if reduces > 10_000 {
            return Err(err("reduces must be at most 10000"));
        }
        let block = self.scenario.hdfs.block_mb;
        let maps = (input_mb / block).ceil() as u64;
        if maps > 1_000_000 {
            return Err(err("input too large: more than 1,000,000 maps"));
        }
        let pool = self
            .scenario
            .pools
            .get(f.pool)
            .ok_or_else(|| err("choose a pool"))?
            .name
            .clone();
        let mut k = self.submitted + 1;
        let name = loop {
            let n = format!("tui-{}-{k}", profile.name);
            if !self.sim().view().jobs().iter().any(|j| *j.name == *n) {
                break n;
            }
            k += 1;
        };
        Ok(JobSpec {
            name,
            fp: profile.fp,
            profile,
            input_mb,
            maps: maps.max(1) as u32,
            reduces,
            submit: self.acts_at(),
            pool,
            user: "tui".into(),
            priority: Priority::Normal,
            map_time: None,
            reduce_time: None,
            blocks: None,
            recorded: None,
            writer: None,
            output_replication: None,
            map_container: None,
            reduce_container: None,
        })
    }
}

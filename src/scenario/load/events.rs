//! `[[events]]`: the script of a run, lowered to the engine's actions,
//! and the checks that the jobs and pools its job actions name exist.

use std::collections::BTreeSet;
use std::ops::Range;

use super::jobs::JobEnv;
use super::scheduler::check_policy;
use super::{duplicate_job, Cx, R};
use crate::model::{Action, EventSpec, SideRun};
use crate::scenario::schema::{EventDef, JobRef};
use crate::scenario::MAX_SIDE_RUNS;

impl JobEnv<'_> {
    pub(super) fn event(
        &self,
        e: &EventDef,
        raw_scheduler: &toml::Table,
        ctx: &crate::sim::policy::BuildCtx,
        names: &mut BTreeSet<String>,
    ) -> R<Vec<EventSpec>> {
        let cx = self.cx;
        let action = e.action.get_ref().as_str();
        let keys = EventKeys { cx, e, action };
        keys.of_other_actions()?;
        let at = e.at.0;
        match action {
            "kill_job" | "set_priority" | "move_job" => {
                keys.no_policy()?;
                keys.no_node()?;
                Ok(vec![EventSpec {
                    at,
                    action: job_action(cx, e, action)?,
                    run: None,
                }])
            }
            "switch_policy" => {
                keys.no_node()?;
                let Some(p) = &e.policy else {
                    return Err(cx.at(
                        &e.action,
                        "switch_policy needs a policy; expected policy = \"NAME\" (see `slotsim policies`)",
                    ));
                };
                let spec = check_policy(p.get_ref(), raw_scheduler, ctx).map_err(|m| cx.at(p, m.0))?;
                let run = match &e.run {
                    None => None,
                    Some(n) => {
                        let v = *n.get_ref();
                        if !(1..=MAX_SIDE_RUNS as i64).contains(&v) {
                            return Err(cx.at(
                                n,
                                format!("run = {v}: a side-by-side session has runs 1 to {MAX_SIDE_RUNS}; expected the N-th spec of --policies"),
                            ));
                        }
                        let err = cx.at(n, "");
                        let (line, col) = err.pos.unwrap_or((1, 1));
                        Some(SideRun {
                            n: v as u8,
                            origin: err.origin,
                            line,
                            col,
                        })
                    }
                };
                Ok(vec![EventSpec {
                    at,
                    action: Action::SwitchPolicy(spec),
                    run,
                }])
            }
            "heartbeat" => {
                keys.no_policy()?;
                let Some(n) = &e.node else {
                    return Err(cx.at(
                        &e.action,
                        "heartbeat needs a node; expected node = ID (0-based)",
                    ));
                };
                Ok(vec![EventSpec {
                    at,
                    action: Action::Heartbeat(self.node(n)?),
                    run: None,
                }])
            }
            "submit" => {
                keys.no_policy()?;
                keys.no_node()?;
                self.submit_event(e, names)
            }
            "fail_node" | "recover_node" => {
                keys.no_policy()?;
                let Some(n) = &e.node else {
                    return Err(cx.at(
                        &e.action,
                        format!("{action} needs a node; expected node = ID (0-based)"),
                    ));
                };
                let node = self.node(n)?;
                Ok(vec![EventSpec {
                    at,
                    action: if action == "fail_node" {
                        Action::FailNode(node)
                    } else {
                        Action::RecoverNode(node)
                    },
                    run: None,
                }])
            }
            other => Err(cx.at(
                &e.action,
                format!(
                    "unknown action \"{other}\"; expected one of: switch_policy, heartbeat, submit, fail_node, recover_node, kill_job, set_priority, move_job"
                ),
            )),
        }
    }

    /// A `submit` event: its job (with no `submit` key of its own), each
    /// copy a submit at the event's time, its name unique.
    fn submit_event(&self, e: &EventDef, names: &mut BTreeSet<String>) -> R<Vec<EventSpec>> {
        let cx = self.cx;
        let job = match &e.job {
            Some(JobRef::Def(job)) => job,
            Some(JobRef::Name(_)) | None => {
                return Err(cx.at(
                    &e.action,
                    "submit needs a job; expected job = { name = \"...\", profile = \"...\", input = \"...\" }",
                ))
            }
        };
        if let Some(s) = &job.submit {
            return Err(cx.at(
                s,
                "a submitted job starts at the event's `at`; expected no submit key inside job",
            ));
        }
        let mut out = Vec::new();
        for spec in self.job(job, e.at.0)? {
            if !names.insert(spec.name.clone()) {
                return Err(cx.at(&job.name, duplicate_job(&spec.name)));
            }
            out.push(EventSpec {
                at: spec.submit,
                action: Action::Submit(Box::new(spec)),
                run: None,
            });
        }
        Ok(out)
    }
}

/// An event's keys against its action: keys that belong to other actions
/// are refused rather than ignored.
struct EventKeys<'a> {
    cx: &'a Cx<'a>,
    e: &'a EventDef,
    action: &'a str,
}

impl EventKeys<'_> {
    /// An error if `key` (of action `owner`) is set, at `span`.
    fn only(&self, key: &str, owner: &str, span: Option<Range<usize>>) -> R<()> {
        match span {
            Some(s) => Err(self.cx.at_span(
                &s,
                format!(
                    "{key} is only used by action = \"{owner}\", not by \"{}\"",
                    self.action
                ),
            )),
            None => Ok(()),
        }
    }

    /// `priority`, `pool` and `job` outside the actions that take them.
    fn of_other_actions(&self) -> R<()> {
        let (e, action) = (self.e, self.action);
        if action != "set_priority" {
            self.only(
                "priority",
                "set_priority",
                e.priority.as_ref().map(|p| p.span()),
            )?;
        }
        if action != "move_job" {
            self.only("pool", "move_job", e.pool.as_ref().map(|p| p.span()))?;
        }
        if action != "switch_policy" {
            self.only("run", "switch_policy", e.run.as_ref().map(|r| r.span()))?;
        }
        let is_job_action = matches!(action, "kill_job" | "set_priority" | "move_job");
        if action != "submit" && !is_job_action {
            let job_span = match &e.job {
                Some(JobRef::Def(j)) => Some(j.name.span()),
                Some(JobRef::Name(_)) => Some(e.action.span()),
                None => None,
            };
            self.only("job", "submit", job_span)?;
        }
        Ok(())
    }

    fn no_policy(&self) -> R<()> {
        let span = self.e.policy.as_ref().map(|p| p.span());
        self.only("policy", "switch_policy", span)
    }

    fn no_node(&self) -> R<()> {
        let span = self.e.node.as_ref().map(|n| n.span());
        self.only("node", "heartbeat", span)
    }
}

/// The action of a `kill_job`, `set_priority` or `move_job` event: a job
/// by name, and its new priority or pool.
fn job_action(cx: &Cx, e: &EventDef, action: &str) -> R<Action> {
    let name = match &e.job {
        Some(JobRef::Name(n)) => n.clone(),
        Some(JobRef::Def(j)) => {
            return Err(cx.at(
                &j.name,
                format!("{action} names a submitted job; expected job = \"NAME\""),
            ))
        }
        None => {
            return Err(cx.at(
                &e.action,
                format!("{action} needs a job; expected job = \"NAME\""),
            ))
        }
    };
    match action {
        "kill_job" => Ok(Action::KillJob(name)),
        "set_priority" => {
            let Some(p) = &e.priority else {
                return Err(cx.at(
                    &e.action,
                    "set_priority needs a priority; expected priority = \"very_high\" | \"high\" | \"normal\" | \"low\" | \"very_low\"",
                ));
            };
            let prio = super::jobs::priority(cx, p)?;
            Ok(Action::SetPriority(name, prio))
        }
        _ => {
            let Some(pool) = &e.pool else {
                return Err(cx.at(&e.action, "move_job needs a pool; expected pool = \"NAME\""));
            };
            Ok(Action::MoveJob(name, pool.get_ref().clone()))
        }
    }
}

/// The jobs and pools that `kill_job`, `set_priority` and `move_job`
/// events name exist, and each job is submitted by the event's time.
pub(super) fn check_job_actions(
    cx: &Cx,
    defs: &[crate::scenario::schema::EventDef],
    jobs: &[crate::model::JobSpec],
    events: &[crate::model::EventSpec],
    pools: &[crate::model::PoolSpec],
) -> R<()> {
    let submitted = |name: &str| -> Option<crate::model::Ms> {
        jobs.iter()
            .find(|j| j.name == name)
            .map(|j| j.submit)
            .or_else(|| {
                events.iter().find_map(|e| match &e.action {
                    Action::Submit(j) if j.name == name => Some(e.at),
                    _ => None,
                })
            })
    };
    for e in defs {
        let action = e.action.get_ref().as_str();
        if !matches!(action, "kill_job" | "set_priority" | "move_job") {
            continue;
        }
        let Some(crate::scenario::schema::JobRef::Name(name)) = &e.job else {
            continue;
        };
        match submitted(name) {
            None => {
                return Err(cx.at(
                    &e.action,
                    format!("{action} names job \"{name}\", which the scenario does not have"),
                ))
            }
            Some(at) if at > e.at.0 => {
                return Err(cx.at(
                    &e.action,
                    format!(
                        "{action} at {} s names job \"{name}\", submitted only at {} s",
                        e.at.0 as f64 / 1000.0,
                        at as f64 / 1000.0
                    ),
                ))
            }
            Some(_) => {}
        }
        if let Some(pool) = &e.pool {
            if !pools.iter().any(|p| &p.name == pool.get_ref()) {
                let names: Vec<&str> = pools.iter().map(|p| p.name.as_str()).collect();
                return Err(cx.at(
                    pool,
                    format!(
                        "unknown pool \"{}\"{}; the scenario's pools are: {}",
                        pool.get_ref(),
                        crate::error::closest(pool.get_ref(), names.iter().copied())
                            .map(|n| format!("; did you mean \"{n}\"?"))
                            .unwrap_or_default(),
                        names.join(", ")
                    ),
                ));
            }
        }
    }
    Ok(())
}

//! Speculative execution: copies of slow tasks shorten a straggler-heavy
//! run, the first attempt to finish wins and the other is killed, and every
//! task still succeeds exactly once.

mod common;
use common::*;
use slotsim::sim::{Kind, Outcome};

fn with_mode(mode: &str) -> String {
    let text = std::fs::read_to_string(scenario_path("stragglers.toml")).unwrap();
    let out = text.replace(
        "speculation = \"off\"",
        &format!("speculation = \"{mode}\""),
    );
    assert!(mode == "off" || out != text);
    out
}

#[test]
fn speculation_shortens_a_straggler_heavy_run() {
    let (_, off) = run(&load_text(&with_mode("off"), None));
    assert_eq!(off.speculative.launched, 0);
    for mode in ["hadoop", "late"] {
        let (sim, s) = run(&load_text(&with_mode(mode), None));
        assert!(
            s.speculative.launched > 0 && s.speculative.won > 0,
            "{mode}: {:?}",
            s.speculative
        );
        assert!(
            s.makespan_s.unwrap() < off.makespan_s.unwrap(),
            "{mode}: {:?} vs off {:?}",
            s.makespan_s,
            off.makespan_s
        );
        // Every task succeeds exactly once; losers are killed, never left running.
        for job in &sim.w.jobs {
            for (kind, n) in [
                (Kind::Map, job.maps.len()),
                (Kind::Reduce, job.reduces.len()),
            ] {
                for t in 0..n as u32 {
                    let atts: Vec<_> = sim
                        .w
                        .attempts
                        .iter()
                        .filter(|a| a.job == job.id && a.kind == kind && a.task == t)
                        .collect();
                    let won = atts
                        .iter()
                        .filter(|a| a.outcome == Outcome::Succeeded)
                        .count();
                    assert_eq!(won, 1, "{mode}: {} {kind:?} {t}", job.name);
                    assert!(atts.iter().all(|a| a.outcome != Outcome::Running));
                    if atts.len() > 1 {
                        let end = atts
                            .iter()
                            .find(|a| a.outcome == Outcome::Succeeded)
                            .unwrap()
                            .end;
                        for a in atts.iter().filter(|a| a.outcome == Outcome::Killed) {
                            assert_eq!(a.end, end, "the loser dies when the winner finishes");
                        }
                        assert!(atts.iter().any(|a| a.speculative));
                    }
                }
            }
        }
        let rules: Vec<&str> = sim
            .w
            .attempts
            .iter()
            .filter(|a| a.speculative)
            .map(|a| a.rule)
            .collect();
        assert!(
            rules.iter().all(|r| *r == format!("speculate/{mode}")),
            "{rules:?}"
        );
        // A speculative copy never runs on the node of the attempt it copies.
        for a in sim.w.attempts.iter().filter(|a| a.speculative) {
            let orig = sim
                .w
                .attempts
                .iter()
                .find(|b| b.job == a.job && b.kind == a.kind && b.task == a.task && !b.speculative)
                .unwrap();
            assert_ne!(orig.node, a.node);
        }
    }
}

#[test]
fn speculation_is_deterministic() {
    let sc = load_text(&with_mode("late"), None);
    let (a, _) = run(&sc);
    let (b, _) = run(&sc);
    let key = |s: &slotsim::sim::Sim| {
        s.w.attempts
            .iter()
            .map(|a| (a.job, a.task, a.node, a.start, a.end, a.speculative))
            .collect::<Vec<_>>()
    };
    assert_eq!(key(&a), key(&b));
}

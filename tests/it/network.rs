//! The max-min solver against its definition, on random resources and
//! random sequences of flows starting and ending: after every settle no
//! resource is over capacity, each flow has a saturated bottleneck where
//! no other flow is faster (the max-min certificate), the rates equal a
//! from-scratch progressive filling, every flow delivers exactly its bytes,
//! and the same sequence gives the same rates bit for bit.

use proptest::prelude::*;
use slotsim::sim::network::{FlowId, Network};

#[derive(Clone, Debug)]
enum Op {
    Start {
        path: Vec<u32>,
        mb: f64,
        cap: Option<f64>,
    },
    Stop(usize),
    /// Advance to the next flow end (and finish it).
    Next,
}

fn op(n_res: u32) -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (proptest::collection::btree_set(0..n_res, 1..4), 1.0f64..500.0, proptest::option::weighted(0.15, 1.0f64..80.0))
            .prop_map(|(p, mb, cap)| Op::Start { path: p.into_iter().collect(), mb, cap }),
        1 => (0usize..64).prop_map(Op::Stop),
        2 => Just(Op::Next),
    ]
}

/// Progressive filling over every active flow, from scratch.
fn reference(n: &Network) -> Vec<(FlowId, f64)> {
    let flows: Vec<FlowId> = n.active_ids().collect();
    let mut rate = vec![0.0f64; flows.len()];
    let mut frozen = vec![false; flows.len()];
    let caps: Vec<f64> = n.resources.iter().map(|r| r.capacity).collect();
    loop {
        let open: Vec<usize> = (0..flows.len()).filter(|&i| !frozen[i]).collect();
        if open.is_empty() {
            break;
        }
        // The smallest increment that saturates a resource or a cap.
        let mut inc = f64::INFINITY;
        for (r, &c) in caps.iter().enumerate() {
            let used: f64 = (0..flows.len())
                .filter(|&i| n.flow(flows[i]).path().contains(&(r as u32)))
                .map(|i| rate[i])
                .sum();
            let k = open
                .iter()
                .filter(|&&i| n.flow(flows[i]).path().contains(&(r as u32)))
                .count();
            if k > 0 {
                inc = inc.min((c - used) / k as f64);
            }
        }
        for &i in &open {
            inc = inc.min(n.flow(flows[i]).max_rate - rate[i]);
        }
        let inc = inc.max(0.0);
        for &i in &open {
            rate[i] += inc;
        }
        for &i in &open {
            let f = n.flow(flows[i]);
            let at_cap = rate[i] >= f.max_rate * (1.0 - 1e-12);
            let saturated = f.path().iter().any(|&r| {
                let used: f64 = (0..flows.len())
                    .filter(|&j| n.flow(flows[j]).path().contains(&r))
                    .map(|j| rate[j])
                    .sum();
                used >= caps[r as usize] * (1.0 - 1e-12)
            });
            if at_cap || saturated {
                frozen[i] = true;
            }
        }
    }
    flows.into_iter().zip(rate).collect()
}

fn check(n: &Network) -> Result<(), String> {
    let tol = |x: f64| 1e-7 * x.abs().max(1.0);
    let active: Vec<FlowId> = n.active_ids().collect();
    for (r, res) in n.resources.iter().enumerate() {
        let sum: f64 = active
            .iter()
            .filter(|&&f| n.flow(f).path().contains(&(r as u32)))
            .map(|&f| n.flow(f).rate)
            .sum();
        if sum > res.capacity + tol(res.capacity) {
            return Err(format!(
                "resource {r} over capacity: {sum} > {}",
                res.capacity
            ));
        }
        if (sum - res.load).abs() > tol(res.capacity) {
            return Err(format!(
                "resource {r} load {} but flows sum {sum}",
                res.load
            ));
        }
    }
    for &f in &active {
        let fl = n.flow(f);
        if (fl.rate - fl.max_rate).abs() <= tol(fl.max_rate.min(1e12)) {
            continue;
        }
        let bottleneck = fl.path().iter().any(|&r| {
            let res = &n.resources[r as usize];
            let on: Vec<f64> = active
                .iter()
                .filter(|&&g| n.flow(g).path().contains(&r))
                .map(|&g| n.flow(g).rate)
                .collect();
            let sum: f64 = on.iter().sum();
            sum >= res.capacity - tol(res.capacity)
                && on.iter().all(|&x| x <= fl.rate + tol(fl.rate))
        });
        if !bottleneck {
            return Err(format!("flow {f} at {} has no bottleneck", fl.rate));
        }
    }
    for (f, want) in reference(n) {
        let got = n.flow(f).rate;
        if (got - want).abs() > 1e-6 * want.abs().max(1.0) {
            return Err(format!("flow {f}: solver {got}, from scratch {want}"));
        }
    }
    Ok(())
}

/// A finished flow: its id, end, and two byte counts the caller compares.
type Ended = (FlowId, u64, f64, f64);

/// Runs `ops`; returns every flow's (id, end, bytes delivered) and the rates seen.
fn run(caps: &[f64], ops: &[Op]) -> Result<(Vec<Ended>, Vec<u64>), String> {
    let mut n = Network::new();
    for &c in caps {
        n.add_resource(c);
    }
    let mut now = 0u64;
    let mut ended = Vec::new();
    let mut seen = Vec::new();
    let mut wanted = std::collections::BTreeMap::new();
    for op in ops {
        match op {
            Op::Start { path, mb, cap } => {
                let f = n.start(now, path, *mb, cap.unwrap_or(f64::INFINITY), 0);
                wanted.insert(f, *mb);
            }
            Op::Stop(k) => {
                let ids: Vec<FlowId> = n.active_ids().collect();
                if !ids.is_empty() {
                    let f = ids[k % ids.len()];
                    let moved = n.stop(now, f);
                    ended.push((f, now, moved, -1.0));
                    wanted.remove(&f);
                }
            }
            Op::Next => {
                n.flush(now);
                if let Some((t, f)) = n.next_end() {
                    now = t;
                    let moved = n.stop(now, f);
                    let want = wanted.remove(&f).unwrap_or(0.0);
                    ended.push((f, now, moved, want));
                }
            }
        }
        n.flush(now);
        check(&n)?;
        seen.extend(n.active_ids().map(|f| n.flow(f).rate.to_bits()));
    }
    // Drain: every flow delivers what it asked for.
    while let Some((t, f)) = n.next_end() {
        now = t;
        let moved = n.stop(now, f);
        let want = wanted.remove(&f).unwrap_or(0.0);
        ended.push((f, now, moved, want));
        n.flush(now);
        check(&n)?;
    }
    for &(f, _, moved, want) in &ended {
        if want >= 0.0 && (moved - want).abs() > 1e-6 * want.max(1.0) {
            return Err(format!("flow {f} delivered {moved} of {want} MB"));
        }
    }
    Ok((ended, seen))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn max_min_on_random_flows(
        caps in proptest::collection::vec(1.0f64..200.0, 2..10),
        ops in proptest::collection::vec(op(10), 1..60),
    ) {
        let n_res = caps.len() as u32;
        let ops: Vec<Op> = ops
            .into_iter()
            .map(|o| match o {
                Op::Start { path, mb, cap } => Op::Start {
                    path: {
                        let mut p: Vec<u32> = path.into_iter().map(|r| r % n_res).collect();
                        p.sort();
                        p.dedup();
                        p
                    },
                    mb,
                    cap,
                },
                o => o,
            })
            .collect();
        let a = run(&caps, &ops).map_err(TestCaseError::fail)?;
        let b = run(&caps, &ops).map_err(TestCaseError::fail)?;
        prop_assert_eq!(a.1, b.1, "same sequence, same rates");
        prop_assert_eq!(a.0.len(), b.0.len());
    }
}

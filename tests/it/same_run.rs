//! What makes two runs the same run but for the policy that made it: an
//! external policy against the built-in it reproduces.

use serde_json::Value;

/// The summary without what names the policy: its label, the resolved
/// scheduler's `policy` and `external` table, and the labels of switches.
pub fn without_policy(mut v: Value) -> String {
    let o = v.as_object_mut().unwrap();
    o.remove("policy");
    if let Some(s) = o
        .get_mut("config")
        .and_then(|c| c.get_mut("scheduler"))
        .and_then(Value::as_object_mut)
    {
        // Keeping the others' order (`remove` would move the last key).
        s.shift_remove("policy");
        s.shift_remove("external");
    }
    if let Some(Value::Array(sw)) = o.get_mut("policy_switches") {
        for s in sw {
            let s = s.as_object_mut().unwrap();
            s.remove("from");
            s.remove("to");
        }
    }
    serde_json::to_string_pretty(&v).unwrap()
}

/// The trace without the `policy` and `rule` fields.
pub fn trace_without_policy(lines: &[Value]) -> Vec<String> {
    lines
        .iter()
        .map(|l| {
            let mut l = l.clone();
            let o = l.as_object_mut().unwrap();
            o.remove("policy");
            o.remove("rule");
            serde_json::to_string(&l).unwrap()
        })
        .collect()
}

#[track_caller]
pub fn assert_same_run(a: &(Value, Vec<Value>), b: &(Value, Vec<Value>), what: &str) {
    let (x, y) = (without_policy(a.0.clone()), without_policy(b.0.clone()));
    if x != y {
        let line = x
            .lines()
            .zip(y.lines())
            .position(|(p, q)| p != q)
            .unwrap_or(0);
        panic!(
            "{what}: --json differs from line {line}:\n first:  {}\n second: {}",
            x.lines().nth(line).unwrap_or(""),
            y.lines().nth(line).unwrap_or("")
        );
    }
    let (ta, tb) = (trace_without_policy(&a.1), trace_without_policy(&b.1));
    assert_eq!(ta.len(), tb.len(), "{what}: trace lengths");
    for (i, (p, q)) in ta.iter().zip(&tb).enumerate() {
        assert_eq!(p, q, "{what}: trace line {i}");
    }
}

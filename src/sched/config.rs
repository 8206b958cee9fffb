//! The `[scheduler]` table, typed. Scenario loading deserializes it straight
//! from the file (so errors carry spans); policy variants such as
//! `fair[slowstart=0.05]` re-deserialize it from a table with the overrides
//! applied (see [`apply_variant`]).

use crate::model::{Ms, PolicySpec};
use crate::units::de_opt_duration;
use serde::Deserialize;

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SchedulerConfig {
    /// Checked against the registry by the loader.
    pub policy: Option<String>,
    /// `mapred.reduce.slowstart.completed.maps` for every policy that uses it.
    pub slowstart: Option<f64>,
    pub fifo: Option<FifoConfig>,
    pub fair: Option<FairConfig>,
    pub fresh: Option<FairConfig>,
    pub capacity: Option<CapacityConfig>,
    pub omo: Option<OmoConfig>,
    /// `[scheduler.omo-lazy]`: OMO with batch finish off by default.
    #[serde(rename = "omo-lazy")]
    pub omo_lazy: Option<OmoConfig>,
    /// `[scheduler.omo-batch]`: OMO with lazy start off by default.
    #[serde(rename = "omo-batch")]
    pub omo_batch: Option<OmoConfig>,
    pub hybsmrp: Option<HybsmrpConfig>,
    /// `[scheduler.joss-t]`, `[scheduler.joss-j]`.
    #[serde(rename = "joss-t")]
    pub joss_t: Option<SlowstartOnly>,
    #[serde(rename = "joss-j")]
    pub joss_j: Option<SlowstartOnly>,
    /// `[scheduler.adaptive-fair]`: seed 004's modified fair scheduler.
    #[serde(rename = "adaptive-fair")]
    pub adaptive_fair: Option<AdaptiveFairConfig>,
    /// `[scheduler.dhsa-pi]`, `[scheduler.dhsa-pd]`, `[scheduler.dynamicmr]`.
    #[serde(rename = "dhsa-pi")]
    pub dhsa_pi: Option<DhsaConfig>,
    #[serde(rename = "dhsa-pd")]
    pub dhsa_pd: Option<DhsaConfig>,
    pub dynamicmr: Option<DynamicMrConfig>,
}

/// A policy table whose only key is `slowstart`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SlowstartOnly {
    pub slowstart: Option<f64>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FifoConfig {
    pub slowstart: Option<f64>,
    /// JobQueueTaskScheduler's `mapred.jobtracker.taskalloc.capacitypad` (0.01).
    pub capacity_pad: Option<f64>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FairConfig {
    pub slowstart: Option<f64>,
    #[serde(default, deserialize_with = "de_opt_duration")]
    pub node_locality_delay: Option<Ms>,
    #[serde(default, deserialize_with = "de_opt_duration")]
    pub rack_locality_delay: Option<Ms>,
    pub assign_multiple: Option<bool>,
    pub size_based_weight: Option<bool>,
    /// Kill tasks of pools above their fair share for pools starved past
    /// their `min_share_timeout` / `fair_share_timeout` (default false).
    pub preemption: Option<bool>,
    /// View each node's containers as typed slots (`map_slots` for maps,
    /// `reduce_slots` for reduces) even on a `slot_model = "unified"`
    /// cluster; a no-op on typed clusters. This is how one unified
    /// scenario gives OMO's Fair baselines the paper's Hadoop default of
    /// 2 map + 2 reduce containers per node while `fresh` and `omo` use
    /// the same 4 containers dynamically.
    pub typed_slots: Option<bool>,
}

/// `[scheduler.dhsa-pi]` and `[scheduler.dhsa-pd]` (seed 001): DHSA's
/// borrowing limits (DynamicMR's Table 2) and the delay-scheduling settings
/// of the fair base.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DhsaConfig {
    pub slowstart: Option<f64>,
    /// Fraction of the cluster's map slots that reduces may borrow
    /// (`percentageOfBorrowedMapSlots`, 0–1, default 1).
    pub borrow_map_pct: Option<f64>,
    /// Fraction of the cluster's reduce slots that maps may borrow
    /// (`percentageOfBorrowedReduceSlots`, 0–1, default 1).
    pub borrow_reduce_pct: Option<f64>,
    #[serde(default, deserialize_with = "de_opt_duration")]
    pub node_locality_delay: Option<Ms>,
    #[serde(default, deserialize_with = "de_opt_duration")]
    pub rack_locality_delay: Option<Ms>,
}

/// `[scheduler.dynamicmr]`: PD-DHSA's settings plus SEPB's and Slot
/// PreScheduling's.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DynamicMrConfig {
    pub slowstart: Option<f64>,
    pub borrow_map_pct: Option<f64>,
    pub borrow_reduce_pct: Option<f64>,
    #[serde(default, deserialize_with = "de_opt_duration")]
    pub node_locality_delay: Option<Ms>,
    #[serde(default, deserialize_with = "de_opt_duration")]
    pub rack_locality_delay: Option<Ms>,
    /// SEPB: fraction of the running jobs, in fair order, checked for
    /// pending tasks before an idle slot goes to a speculative copy (0–1,
    /// default 1; 0 turns SEPB off).
    pub sepb_check_fraction: Option<f64>,
    /// Slot PreScheduling on or off (default true).
    pub prescheduling: Option<bool>,
    /// PreScheduling's `maximumNumBorrowedReduceSlots`: reduce slots it may
    /// hold with maps at once (default unlimited).
    pub max_borrowed_reduce_slots: Option<u32>,
}

impl DynamicMrConfig {
    /// The PD-DHSA part.
    pub fn dhsa(&self) -> DhsaConfig {
        DhsaConfig {
            slowstart: self.slowstart,
            borrow_map_pct: self.borrow_map_pct,
            borrow_reduce_pct: self.borrow_reduce_pct,
            node_locality_delay: self.node_locality_delay,
            rack_locality_delay: self.rack_locality_delay,
        }
    }
}

/// `[scheduler.omo]` (and `omo-lazy`, `omo-batch`): OMO's predictor and
/// techniques, plus the delay-scheduling settings of its fair base.
/// There is no `slowstart`: OMO decides when reduces start.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OmoConfig {
    /// T_w, the predictor's window (default 10 s).
    #[serde(default, deserialize_with = "de_opt_duration")]
    pub window: Option<Ms>,
    /// Weight of the newest window in the moving averages F_o and A_o
    /// (the paper's β in Section IV-A; default 0.5).
    pub ema: Option<f64>,
    /// Start reduce stages early, when pending maps ≤ x* (default true;
    /// false for `omo-batch`).
    pub lazy_start: Option<bool>,
    /// Give released containers to the trailing maps of jobs whose reduce
    /// stage has started (default true; false for `omo-lazy`).
    pub batch_finish: Option<bool>,
    #[serde(default, deserialize_with = "de_opt_duration")]
    pub node_locality_delay: Option<Ms>,
    #[serde(default, deserialize_with = "de_opt_duration")]
    pub rack_locality_delay: Option<Ms>,
    pub size_based_weight: Option<bool>,
}

/// `[scheduler.hybsmrp]`: the exponents of HybSMRP's dynamic priority
/// (seed 002, Eq. 1), each -1, 0 or 1. The default α = 1, β = γ = 0 is
/// the paper's FCFS setting; α = 0, β = -1, γ = 0 its shortest-job-first.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HybsmrpConfig {
    pub slowstart: Option<f64>,
    /// Exponent of td / avgWaitTime (waiting time).
    pub alpha: Option<i64>,
    /// Exponent of r / avgRunTime (mean map run time).
    pub beta: Option<i64>,
    /// Exponent of n / avgNumTask (remaining tasks).
    pub gamma: Option<i64>,
}

/// `[scheduler.adaptive-fair]`: the adaptive (modified) fair scheduler of
/// seed 004 (ALGORITHMS §8). Every mechanism is on by default; turning
/// all five off leaves Hadoop 1.x's fair scheduler (without fair-share
/// preemption), which is how `tests/adaptive_fair.rs` checks the base.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AdaptiveFairConfig {
    pub slowstart: Option<f64>,
    /// How often classification, allocations, delays and priorities are
    /// refreshed (the paper's 500 ms, Hadoop's `UPDATE_INTERVAL`).
    #[serde(default, deserialize_with = "de_opt_duration")]
    pub update_interval: Option<Ms>,
    /// The delays used until a node-local (rack-local) launch has been
    /// observed; default min(15 s, 1.5 × heartbeat) as in Hadoop.
    #[serde(default, deserialize_with = "de_opt_duration")]
    pub node_locality_delay: Option<Ms>,
    #[serde(default, deserialize_with = "de_opt_duration")]
    pub rack_locality_delay: Option<Ms>,
    /// Fill every free slot of a heartbeat (Hadoop's `assignmultiple`, true).
    pub assign_multiple: Option<bool>,
    /// Mechanism 1: small jobs into the shared pool (default true).
    pub job_classification: Option<bool>,
    /// Mechanism 2: pool allocations by pending tasks (default true).
    pub pool_allocation: Option<bool>,
    /// Mechanism 3: resource-aware job and pool sorting (default true).
    pub job_sorting: Option<bool>,
    /// Mechanism 4: delays from the mean waits of local launches (default true).
    pub delay_adjustment: Option<bool>,
    /// Mechanism 5: Table 3's priority changes (default true).
    pub priority_adjustment: Option<bool>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CapacityConfig {
    pub slowstart: Option<f64>,
}

impl SchedulerConfig {
    /// Checks value ranges that serde cannot. Returns the dotted key and message.
    pub fn check(&self) -> Result<(), (String, String)> {
        let ss = |k: &str, v: Option<f64>| -> Result<(), (String, String)> {
            match v {
                Some(x) if !(0.0..=1.0).contains(&x) => Err((
                    k.to_string(),
                    format!("slowstart must be between 0 and 1, got {x}"),
                )),
                _ => Ok(()),
            }
        };
        ss("scheduler.slowstart", self.slowstart)?;
        if let Some(f) = &self.fifo {
            ss("scheduler.fifo.slowstart", f.slowstart)?;
            if let Some(p) = f.capacity_pad {
                if !(0.0..=1.0).contains(&p) {
                    return Err((
                        "scheduler.fifo.capacity_pad".into(),
                        format!("capacity_pad must be between 0 and 1, got {p}"),
                    ));
                }
            }
        }
        for (name, f) in [("fair", &self.fair), ("fresh", &self.fresh)] {
            if let Some(f) = f {
                ss(&format!("scheduler.{name}.slowstart"), f.slowstart)?;
            }
        }
        if let Some(c) = &self.capacity {
            ss("scheduler.capacity.slowstart", c.slowstart)?;
        }
        for (name, t) in [("joss-t", &self.joss_t), ("joss-j", &self.joss_j)] {
            if let Some(t) = t {
                ss(&format!("scheduler.{name}.slowstart"), t.slowstart)?;
            }
        }
        let frac = |k: String, v: Option<f64>| -> Result<(), (String, String)> {
            match v {
                Some(x) if !(0.0..=1.0).contains(&x) => {
                    let short = k.rsplit('.').next().unwrap_or(&k).to_string();
                    Err((k, format!("{short} must be between 0 and 1, got {x}")))
                }
                _ => Ok(()),
            }
        };
        let dmr = self.dynamicmr.as_ref().map(|d| d.dhsa());
        for (name, d) in [
            ("dhsa-pi", &self.dhsa_pi),
            ("dhsa-pd", &self.dhsa_pd),
            ("dynamicmr", &dmr),
        ] {
            let Some(d) = d else { continue };
            ss(&format!("scheduler.{name}.slowstart"), d.slowstart)?;
            frac(format!("scheduler.{name}.borrow_map_pct"), d.borrow_map_pct)?;
            frac(
                format!("scheduler.{name}.borrow_reduce_pct"),
                d.borrow_reduce_pct,
            )?;
        }
        if let Some(d) = &self.dynamicmr {
            frac(
                "scheduler.dynamicmr.sepb_check_fraction".into(),
                d.sepb_check_fraction,
            )?;
        }
        if let Some(h) = &self.hybsmrp {
            ss("scheduler.hybsmrp.slowstart", h.slowstart)?;
            for (k, v) in [("alpha", h.alpha), ("beta", h.beta), ("gamma", h.gamma)] {
                if let Some(x) = v.filter(|x| !(-1..=1).contains(x)) {
                    return Err((
                        format!("scheduler.hybsmrp.{k}"),
                        format!("{k} must be -1, 0 or 1, got {x}"),
                    ));
                }
            }
        }
        if let Some(a) = &self.adaptive_fair {
            ss("scheduler.adaptive-fair.slowstart", a.slowstart)?;
            if a.update_interval == Some(0) {
                return Err((
                    "scheduler.adaptive-fair.update_interval".into(),
                    "update_interval must be longer than 0 ms, e.g. \"500ms\"".into(),
                ));
            }
        }
        for (name, o) in [
            ("omo", &self.omo),
            ("omo-lazy", &self.omo_lazy),
            ("omo-batch", &self.omo_batch),
        ] {
            let Some(o) = o else { continue };
            if let Some(e) = o.ema {
                if !(e > 0.0 && e <= 1.0) {
                    return Err((
                        format!("scheduler.{name}.ema"),
                        format!("ema must be in (0, 1], got {e}"),
                    ));
                }
            }
            if o.window == Some(0) {
                return Err((
                    format!("scheduler.{name}.window"),
                    "window must be longer than 0 ms, e.g. \"10s\"".into(),
                ));
            }
        }
        Ok(())
    }
}

/// Parses a policy spec `NAME` or `NAME[key=value;key=value]`.
pub fn parse_policy_spec(s: &str) -> Result<PolicySpec, String> {
    let s = s.trim();
    let Some(open) = s.find('[') else {
        if s.is_empty() || s.contains(']') {
            return Err(format!(
                "invalid policy \"{s}\": expected NAME or NAME[key=value;...]"
            ));
        }
        return Ok(PolicySpec::plain(s));
    };
    if !s.ends_with(']') {
        return Err(format!(
            "invalid policy \"{s}\": a variant must end with ']', as in fair[slowstart=0.05]"
        ));
    }
    let name = s[..open].trim();
    if name.is_empty() {
        return Err(format!(
            "invalid policy \"{s}\": missing policy name before '['"
        ));
    }
    let inner = &s[open + 1..s.len() - 1];
    let mut overrides = Vec::new();
    for part in inner.split(';').map(str::trim).filter(|p| !p.is_empty()) {
        let Some((k, v)) = part.split_once('=') else {
            return Err(format!(
                "invalid policy \"{s}\": \"{part}\" is not key=value"
            ));
        };
        let k = k.trim().to_string();
        if overrides.iter().any(|(x, _): &(String, String)| *x == k) {
            return Err(format!(
                "invalid policy \"{s}\": key \"{k}\" is given twice"
            ));
        }
        overrides.push((k, v.trim().to_string()));
    }
    Ok(PolicySpec {
        name: name.to_string(),
        overrides,
    })
}

/// Splits a `--policies` list on commas that are not inside brackets.
pub fn split_policy_list(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut cur = String::new();
    for ch in s.chars() {
        match ch {
            '[' => depth += 1,
            ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(ch);
    }
    out.push(cur);
    out.into_iter()
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .collect()
}

/// Applies a variant's overrides to the `[scheduler]` table: `slowstart`
/// and other keys go into `[scheduler.NAME]` (which every policy table
/// accepts for slowstart, and which takes precedence over `[scheduler]`).
/// Values are read as TOML (numbers, booleans) or else as strings
/// (durations such as `4.5s`).
pub fn apply_variant(table: &toml::Table, spec: &PolicySpec) -> Result<SchedulerConfig, String> {
    let mut t = table.clone();
    t.insert("policy".into(), toml::Value::String(spec.name.clone()));
    if !spec.overrides.is_empty() {
        let sub = t
            .entry(spec.name.clone())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        let Some(sub) = sub.as_table_mut() else {
            return Err(format!("[scheduler.{}] is not a table", spec.name));
        };
        for (k, v) in &spec.overrides {
            let val = parse_scalar(v);
            sub.insert(k.clone(), val);
        }
    }
    let cfg: SchedulerConfig = toml::Value::Table(t)
        .try_into()
        .map_err(|e: toml::de::Error| {
            let msg = crate::scenario::load::user_terms(e.message());
            format!("policy {}: {msg}", spec.label())
        })?;
    cfg.check()
        .map_err(|(k, m)| format!("policy {}: {k}: {m}", spec.label()))?;
    Ok(cfg)
}

fn parse_scalar(v: &str) -> toml::Value {
    let doc = format!("v = {v}");
    if let Ok(t) = doc.parse::<toml::Table>() {
        if let Some(x) = t.get("v") {
            return x.clone();
        }
    }
    toml::Value::String(v.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs() {
        let p = parse_policy_spec("fair[slowstart=0.05;assign_multiple=false]").unwrap();
        assert_eq!(p.name, "fair");
        assert_eq!(p.overrides.len(), 2);
        assert_eq!(p.label(), "fair[slowstart=0.05;assign_multiple=false]");
        assert!(parse_policy_spec("fair[slowstart").is_err());
        assert!(parse_policy_spec("[x=1]").is_err());
        assert!(parse_policy_spec("fair[slowstart=0.5;slowstart=1]").is_err());
        assert_eq!(
            split_policy_list("fair[slowstart=0.05],fair[slowstart=1;assign_multiple=false], fifo"),
            vec![
                "fair[slowstart=0.05]",
                "fair[slowstart=1;assign_multiple=false]",
                "fifo"
            ]
        );
    }

    #[test]
    fn variant_applies_into_policy_table() {
        let t: toml::Table = "policy = \"fifo\"\nslowstart = 0.5\n".parse().unwrap();
        let spec = parse_policy_spec("fair[slowstart=1;node_locality_delay=2s]").unwrap();
        let cfg = apply_variant(&t, &spec).unwrap();
        assert_eq!(cfg.policy.as_deref(), Some("fair"));
        let f = cfg.fair.unwrap();
        assert_eq!(f.slowstart, Some(1.0));
        assert_eq!(f.node_locality_delay, Some(2000));
        let bad = parse_policy_spec("fair[nosuchkey=1]").unwrap();
        assert!(apply_variant(&t, &bad).unwrap_err().contains("nosuchkey"));
        let bad = parse_policy_spec("fair[slowstart=2]").unwrap();
        assert!(apply_variant(&t, &bad).is_err());
    }
}

//! `[[pools]]`.

use toml::Spanned;

use super::{Cx, MAX_SHARE, R};
use crate::model::{PoolMode, PoolSpec, QueuePolicy, Resource};
use crate::scenario::schema::PoolDef;

pub(super) fn compile_pools(cx: &Cx, defs: &[PoolDef], yarn: bool) -> R<Vec<PoolSpec>> {
    let mut pools = Vec::new();
    let mut capacity_total = 0.0;
    for d in defs {
        let mut p = PoolSpec::named(pool_name(cx, d, &pools)?);
        if let Some(w) = &d.weight {
            p.weight = cx.positive(w, "weight")?;
        }
        slot_shares(cx, d, &mut p)?;
        if let Some(c) = &d.capacity {
            p.capacity = Some(capacity(cx, c, &mut capacity_total)?);
        }
        if let Some(m) = &d.scheduling_mode {
            p.scheduling_mode = scheduling_mode(cx, m)?;
        }
        job_limits(cx, d, &mut p)?;
        yarn_resources(cx, d, yarn, &mut p)?;
        if let Some(v) = &d.max_capacity {
            p.max_capacity = Some(max_capacity(cx, v, yarn, p.capacity)?);
        }
        if let Some(v) = &d.scheduling_policy {
            p.scheduling_policy = Some(scheduling_policy(cx, v, yarn)?);
        }
        if !p.min_resources.fits_in(p.max_resources) {
            let at = d
                .min_resources
                .as_ref()
                .expect("a minimum above the default maximum was given");
            return Err(cx.at(
                at,
                format!(
                    "min_resources ({}) exceeds max_resources ({}); expected a minimum within the maximum",
                    describe(p.min_resources),
                    describe(p.max_resources)
                ),
            ));
        }
        pools.push(p);
    }
    if !pools.iter().any(|p| p.name == "default") {
        pools.insert(0, PoolSpec::named("default"));
    }
    Ok(pools)
}

/// A pool's name: not empty, and not one of the pools before it.
fn pool_name<'a>(cx: &Cx, d: &'a PoolDef, pools: &[PoolSpec]) -> R<&'a str> {
    let name = d.name.get_ref().trim();
    if name.is_empty() {
        return Err(cx.at(&d.name, "pool name is empty; expected a name"));
    }
    if pools.iter().any(|p| p.name == name) {
        return Err(cx.at(
            &d.name,
            format!("duplicate pool \"{name}\"; expected each [[pools]] name once"),
        ));
    }
    Ok(name)
}

/// `min_maps`, `min_reduces`, `max_maps`, `max_reduces`: each minimum
/// within its maximum.
fn slot_shares(cx: &Cx, d: &PoolDef, p: &mut PoolSpec) -> R<()> {
    let share = |v: &Option<Spanned<i64>>, key: &str, default: u32| -> R<u32> {
        v.as_ref()
            .map_or(Ok(default), |v| cx.int(v, key, 0, MAX_SHARE))
    };
    p.min_maps = share(&d.min_maps, "min_maps", 0)?;
    p.min_reduces = share(&d.min_reduces, "min_reduces", 0)?;
    p.max_maps = share(&d.max_maps, "max_maps", u32::MAX)?;
    p.max_reduces = share(&d.max_reduces, "max_reduces", u32::MAX)?;
    for (min, max, min_key, max_key, min_v) in [
        (p.min_maps, p.max_maps, "min_maps", "max_maps", &d.min_maps),
        (
            p.min_reduces,
            p.max_reduces,
            "min_reduces",
            "max_reduces",
            &d.min_reduces,
        ),
    ] {
        if let (Some(v), true) = (min_v, min > max) {
            return Err(cx.at(
                v,
                format!(
                    "{min_key} = {min} exceeds {max_key} = {max}; expected {min_key} <= {max_key}"
                ),
            ));
        }
    }
    Ok(())
}

/// `capacity`, a percentage; `total` is the pools' sum so far, which must
/// stay within 100.
fn capacity(cx: &Cx, c: &Spanned<f64>, total: &mut f64) -> R<f64> {
    let pct = *c.get_ref();
    if !(pct.is_finite() && pct > 0.0 && pct <= 100.0) {
        return Err(cx.at(
            c,
            format!("capacity must be a percentage above 0 and at most 100, got {pct}"),
        ));
    }
    *total += pct;
    if *total > 100.0 + 1e-9 {
        return Err(cx.at(
            c,
            format!("pool capacities add up to {total}%; expected a total of at most 100%"),
        ));
    }
    Ok(pct)
}

fn scheduling_mode(cx: &Cx, m: &Spanned<String>) -> R<PoolMode> {
    match m.get_ref().as_str() {
        "fair" => Ok(PoolMode::Fair),
        "fifo" => Ok(PoolMode::Fifo),
        other => Err(cx.at(
            m,
            format!("unknown scheduling_mode \"{other}\"; expected \"fair\" or \"fifo\""),
        )),
    }
}

/// The limits on a pool's jobs and users: `max_running_jobs`, the
/// preemption timeouts, `min_user_limit` and `user_limit_factor`.
fn job_limits(cx: &Cx, d: &PoolDef, p: &mut PoolSpec) -> R<()> {
    if let Some(v) = &d.max_running_jobs {
        p.max_running_jobs = Some(cx.int(v, "max_running_jobs", 1, MAX_SHARE)?);
    }
    p.min_share_timeout = d.min_share_timeout.map(|d| d.0);
    p.fair_share_timeout = d.fair_share_timeout.map(|d| d.0);
    if let Some(v) = &d.min_user_limit {
        let x = *v.get_ref();
        if !(x.is_finite() && x > 0.0 && x <= 100.0) {
            return Err(cx.at(
                v,
                format!("min_user_limit must be a percentage above 0 and at most 100, got {x}"),
            ));
        }
        p.min_user_limit = x;
    }
    if let Some(v) = &d.user_limit_factor {
        p.user_limit_factor = cx.positive(v, "user_limit_factor")?;
    }
    Ok(())
}

/// `min_resources` and `max_resources`, a YARN queue's only.
fn yarn_resources(cx: &Cx, d: &PoolDef, yarn: bool, p: &mut PoolSpec) -> R<()> {
    for (def, key, default) in [
        (&d.min_resources, "min_resources", Resource::ZERO),
        (&d.max_resources, "max_resources", Resource::UNLIMITED),
    ] {
        let Some(def) = def else { continue };
        if !yarn {
            return Err(cx.at(
                def,
                format!("{key} is a YARN queue's; expected slot_model = \"yarn\" in [cluster], or no {key}"),
            ));
        }
        let r = def.get_ref();
        let got = super::yarn::resource(
            cx,
            (&r.memory, &format!("{key}.memory")),
            (&r.vcores, &format!("{key}.vcores")),
            default,
        )?;
        if key == "min_resources" {
            p.min_resources = got;
        } else {
            p.max_resources = got;
        }
    }
    Ok(())
}

/// `max_capacity`, a YARN queue's only: a percentage from the pool's
/// `capacity` to 100.
fn max_capacity(cx: &Cx, v: &Spanned<f64>, yarn: bool, capacity: Option<f64>) -> R<f64> {
    if !yarn {
        return Err(cx.at(
            v,
            "max_capacity is a YARN queue's (yarn-capacity); expected slot_model = \"yarn\" in [cluster], or no max_capacity",
        ));
    }
    let x = *v.get_ref();
    let Some(floor) = capacity else {
        return Err(cx.at(
            v,
            "max_capacity bounds a queue's capacity; expected capacity in the same pool",
        ));
    };
    if !(x.is_finite() && x <= 100.0 && x >= floor) {
        return Err(cx.at(
            v,
            format!("max_capacity must be a percentage from the pool's capacity ({floor}) to 100; got {x}"),
        ));
    }
    Ok(x)
}

/// `scheduling_policy`, a YARN queue's only.
fn scheduling_policy(cx: &Cx, v: &Spanned<String>, yarn: bool) -> R<QueuePolicy> {
    if !yarn {
        return Err(cx.at(
            v,
            "scheduling_policy is a YARN queue's; expected slot_model = \"yarn\" in [cluster] (a Hadoop 1.x pool orders its jobs by scheduling_mode)",
        ));
    }
    match v.get_ref().as_str() {
        "fair" => Ok(QueuePolicy::Fair),
        "drf" => Ok(QueuePolicy::Drf),
        "fifo" => Ok(QueuePolicy::Fifo),
        other => Err(cx.at(
            v,
            format!(
                "unknown scheduling_policy \"{other}\"; expected \"fair\", \"drf\" or \"fifo\""
            ),
        )),
    }
}

/// "2048 MB, 4 vcores", a component left unlimited said so.
fn describe(r: Resource) -> String {
    let part = |x: i64, unit: &str| {
        if x == Resource::UNLIMITED.mb() {
            format!("no limit on {unit}")
        } else {
            format!("{x} {unit}")
        }
    };
    format!("{}, {}", part(r.mb(), "MB"), part(r.vcores(), "vcores"))
}

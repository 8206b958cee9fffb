//! `slot_model = "yarn"`'s keys: node memory and vcores, the
//! ApplicationMaster's container and start-up, and container sizes in
//! `[tasks]` and per job (docs/yarn.md).

use super::{Cx, R};
use crate::model::{max_allocation, Resource};
use crate::scenario::schema::Size;
use toml::Spanned;

/// Whole megabytes up to 4 PB's worth (a u32).
const MAX_MB: i64 = u32::MAX as i64;
/// More vcores than any node has had.
const MAX_VCORES: i64 = 1 << 20;

/// A memory key: whole MB.
pub(super) fn memory(cx: &Cx, v: &Spanned<Size>, key: &str) -> R<i64> {
    let mb = v.get_ref().0;
    if mb.fract() != 0.0 || mb > MAX_MB as f64 {
        return Err(cx.at(
            v,
            format!("{key} must be a whole number of MB up to 4PB, like \"1536MB\" or \"8GB\""),
        ));
    }
    Ok(mb as i64)
}

pub(super) fn vcores(cx: &Cx, v: &Spanned<i64>, key: &str) -> R<i64> {
    cx.int(v, key, 0, MAX_VCORES).map(i64::from)
}

/// A resource from its two optional keys, each defaulting to `default`'s.
pub(super) fn resource(
    cx: &Cx,
    mem: (&Option<Spanned<Size>>, &str),
    vc: (&Option<Spanned<i64>>, &str),
    default: Resource,
) -> R<Resource> {
    Ok(Resource::memory(
        match mem.0 {
            None => default.mb(),
            Some(v) => memory(cx, v, mem.1)?,
        },
        match vc.0 {
            None => default.vcores(),
            Some(v) => vcores(cx, v, vc.1)?,
        },
    ))
}

/// The first of the given keys that is set, for "only under yarn" errors.
pub(super) fn first_set<'a>(
    sizes: &[(&'a str, &Option<Spanned<Size>>)],
    counts: &[(&'a str, &Option<Spanned<i64>>)],
) -> Option<(&'a str, std::ops::Range<usize>)> {
    let s = sizes
        .iter()
        .find_map(|(k, v)| v.as_ref().map(|v| (*k, v.span())));
    s.or_else(|| {
        counts
            .iter()
            .find_map(|(k, v)| v.as_ref().map(|v| (*k, v.span())))
    })
}

/// A container request the RM would refuse (Hadoop kills the job: "capability
/// required is more than the supported max container capability").
pub(super) fn check_container(
    cx: &Cx,
    at: std::ops::Range<usize>,
    what: &str,
    asked: Resource,
    node: Resource,
) -> R<()> {
    let max = max_allocation(node);
    if asked.fits_in(max) {
        return Ok(());
    }
    Err(cx.at_span(
        &at,
        format!(
            "{what} asks for {} MB and {} vcore(s), more than the largest container the cluster grants ({} MB, {} vcore(s): yarn.scheduler.maximum-allocation-*, at most a node); expected a smaller container",
            asked.mb(), asked.vcores(), max.mb(), max.vcores()
        ),
    ))
}

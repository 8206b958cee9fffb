//! Durations and sizes with units, as scenario files and the CLI write them.

/// Simulated time in integer milliseconds. Integer time keeps runs
/// byte-identical across machines and event orders total. (The engine's
/// clock; `model` re-exports it.)
pub type Ms = u64;

/// The longest duration accepted: 10 years of simulated time. Larger
/// values would overflow the engine's integer clock in sums.
pub const MAX_DURATION_MS: Ms = 10 * 365 * 24 * 3_600_000;

/// The largest size accepted: 1 PB (in MB).
pub const MAX_SIZE_MB: f64 = 1024.0 * 1024.0 * 1024.0;

/// A duration or size that cannot be read, with the text as written.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UnitError {
    #[error("invalid duration \"{0}\": expected a number with a unit, like \"500ms\", \"20s\", \"3m\" or \"1h\"")]
    Duration(String),
    #[error("invalid duration \"{0}\": must be a non-negative number with a unit")]
    NegativeDuration(String),
    #[error("duration \"{0}\" is too long; expected at most 10 years (\"87600h\")")]
    LongDuration(String),
    #[error(
        "invalid size \"{0}\": expected a number with a unit, like \"128MB\", \"20GB\" or \"1TB\""
    )]
    Size(String),
    #[error("invalid size \"{0}\": must be a non-negative number with a unit")]
    NegativeSize(String),
    #[error("size \"{0}\" is too large; expected at most \"1PB\"")]
    LargeSize(String),
}

/// Parses `"500ms"`, `"20s"`, `"3m"`, `"1h"`, `"1.5s"` into milliseconds.
/// A bare number is rejected: a unit is part of the contract.
pub fn parse_duration(s: &str) -> Result<Ms, UnitError> {
    let t = s.trim();
    let (num, mult) = if let Some(n) = t.strip_suffix("ms") {
        (n, 1.0)
    } else if let Some(n) = t.strip_suffix('s') {
        (n, 1_000.0)
    } else if let Some(n) = t.strip_suffix('m') {
        (n, 60_000.0)
    } else if let Some(n) = t.strip_suffix('h') {
        (n, 3_600_000.0)
    } else {
        return Err(UnitError::Duration(s.to_string()));
    };
    let v: f64 = num
        .trim()
        .parse()
        .map_err(|_| UnitError::Duration(s.to_string()))?;
    if !v.is_finite() || v < 0.0 {
        return Err(UnitError::NegativeDuration(s.to_string()));
    }
    let ms = (v * mult).round();
    if ms > MAX_DURATION_MS as f64 {
        return Err(UnitError::LongDuration(s.to_string()));
    }
    Ok(ms as Ms)
}

/// Parses `"128MB"`, `"20GB"`, `"1TB"`, `"1PB"`, `"512KB"` into megabytes
/// (binary: 1 GB = 1024 MB, as Hadoop counts; `"20 GiB"`, `"512MiB"` are
/// the same units by their IEC names), at most [`MAX_SIZE_MB`].
pub fn parse_size_mb(s: &str) -> Result<f64, UnitError> {
    let t = s.trim();
    let mut upper = t.to_ascii_uppercase();
    // KiB, MiB, GiB, TiB, PiB: the binary units slotsim already uses.
    if upper.len() >= 3 && upper.ends_with("IB") {
        let cut = upper.len() - 2;
        upper.replace_range(cut..cut + 1, "");
    }
    let (num, mult) = if let Some(n) = upper.strip_suffix("KB") {
        (n.to_string(), 1.0 / 1024.0)
    } else if let Some(n) = upper.strip_suffix("MB") {
        (n.to_string(), 1.0)
    } else if let Some(n) = upper.strip_suffix("GB") {
        (n.to_string(), 1024.0)
    } else if let Some(n) = upper.strip_suffix("TB") {
        (n.to_string(), 1024.0 * 1024.0)
    } else if let Some(n) = upper.strip_suffix("PB") {
        (n.to_string(), 1024.0 * 1024.0 * 1024.0)
    } else {
        return Err(UnitError::Size(s.to_string()));
    };
    let v: f64 = num
        .trim()
        .parse()
        .map_err(|_| UnitError::Size(s.to_string()))?;
    if !v.is_finite() || v < 0.0 {
        return Err(UnitError::NegativeSize(s.to_string()));
    }
    if v * mult > MAX_SIZE_MB {
        return Err(UnitError::LargeSize(s.to_string()));
    }
    Ok(v * mult)
}

/// Formats milliseconds as seconds with up to three decimals, for tables.
pub fn fmt_secs(ms: Ms) -> String {
    if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{:.3}s", ms as f64 / 1000.0)
    }
}

/// A count for people: "850", "12 k", "3.4 M", "1.2 G".
pub fn human_count(x: f64) -> String {
    match x {
        x if x >= 1e9 => format!("{:.1} G", x / 1e9),
        x if x >= 1e6 => format!("{:.1} M", x / 1e6),
        x if x >= 1e3 => format!("{:.0} k", x / 1e3),
        x => format!("{x:.0}"),
    }
}

/// A wall-clock time for people: "under a second", "45 s", "12 min", "2.3 h".
pub fn human_secs(s: f64) -> String {
    match s {
        s if s < 1.0 => "under a second".into(),
        s if s < 120.0 => format!("{s:.0} s"),
        s if s < 7200.0 => format!("{:.0} min", s / 60.0),
        s => format!("{:.1} h", s / 3600.0),
    }
}

/// A duration or size as written: a string, or anything else, which is
/// refused with what was expected (a bare `0` is the usual slip).
#[derive(serde::Deserialize)]
#[serde(untagged)]
enum Written {
    Text(String),
    Other(serde::de::IgnoredAny),
}

fn written<'de, D: serde::Deserializer<'de>>(d: D, what: &str) -> Result<String, D::Error> {
    match serde::Deserialize::deserialize(d)? {
        Written::Text(s) => Ok(s),
        Written::Other(_) => Err(serde::de::Error::custom(format!(
            "expected {what} as a string"
        ))),
    }
}

const DURATION: &str = r#"a duration such as "3s", "500ms" or "0s""#;
const SIZE: &str = r#"a size such as "64MB" or "1GB""#;

/// serde helpers: `#[serde(deserialize_with = "crate::units::de_duration")]`.
/// Errors raised here carry the value's span when read from a TOML file.
pub fn de_duration<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Ms, D::Error> {
    let s = written(d, DURATION)?;
    parse_duration(&s).map_err(serde::de::Error::custom)
}

pub fn de_opt_duration<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Ms>, D::Error> {
    let s = written(d, DURATION)?;
    parse_duration(&s)
        .map(Some)
        .map_err(serde::de::Error::custom)
}

pub fn de_size<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    let s = written(d, SIZE)?;
    parse_size_mb(&s).map_err(serde::de::Error::custom)
}

pub fn de_opt_size<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    let s = written(d, SIZE)?;
    parse_size_mb(&s)
        .map(Some)
        .map_err(serde::de::Error::custom)
}

/// `n` and `word`, with an `s` unless `n` is 1: "1 rack", "2 racks".
pub fn plural(n: u64, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plurals() {
        assert_eq!(plural(1, "rack"), "1 rack");
        assert_eq!(plural(0, "rack"), "0 racks");
        assert_eq!(plural(2, "reduce"), "2 reduces");
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("500ms"), Ok(500));
        assert_eq!(parse_duration("20s"), Ok(20_000));
        assert_eq!(parse_duration("1.5s"), Ok(1_500));
        assert_eq!(parse_duration("3m"), Ok(180_000));
        assert_eq!(parse_duration("1h"), Ok(3_600_000));
        assert!(parse_duration("20").is_err());
        assert!(parse_duration("-1s").is_err());
        assert!(parse_duration("abc s").is_err());
        assert!(parse_duration("1e30h")
            .unwrap_err()
            .to_string()
            .contains("too long"));
        assert_eq!(parse_duration("87600h"), Ok(MAX_DURATION_MS));
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size_mb("128MB"), Ok(128.0));
        assert_eq!(parse_size_mb("20GB"), Ok(20_480.0));
        assert_eq!(parse_size_mb("1tb"), Ok(1_048_576.0));
        assert!(parse_size_mb("12").is_err());
        assert!(parse_size_mb("xGB").is_err());
        // The IEC names of the same binary units.
        assert_eq!(parse_size_mb("20 GiB"), Ok(20_480.0));
        assert_eq!(parse_size_mb("512MiB"), Ok(512.0));
        assert_eq!(parse_size_mb("1 kib"), Ok(1.0 / 1024.0));
        assert!(parse_size_mb("20 iB").is_err());
        assert!(parse_size_mb("1e300TB")
            .unwrap_err()
            .to_string()
            .contains("too large"));
    }
}

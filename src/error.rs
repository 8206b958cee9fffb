//! Input errors: one message, `error: FILE:LINE:COL: what is wrong`, exit status 2.

use std::fmt;

/// A problem with user input (scenario file, CLI argument, trace file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    /// File name as the user gave it, or an argument name like `--policy`.
    pub origin: String,
    /// 1-based line and column, when the problem has a place in a file.
    pub pos: Option<(usize, usize)>,
    pub message: String,
}

impl InputError {
    pub fn new(origin: impl Into<String>, message: impl Into<String>) -> Self {
        InputError {
            origin: origin.into(),
            pos: None,
            message: message.into(),
        }
    }

    /// An error located at byte offset `offset` of `text`.
    pub fn at(
        origin: impl Into<String>,
        text: &str,
        offset: usize,
        message: impl Into<String>,
    ) -> Self {
        InputError {
            origin: origin.into(),
            pos: Some(line_col(text, offset)),
            message: message.into(),
        }
    }
}

/// 1-based (line, column) of a byte offset; columns count characters.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..text.floor_char_boundary_compat(offset)];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

trait FloorBoundary {
    fn floor_char_boundary_compat(&self, i: usize) -> usize;
}

impl FloorBoundary for str {
    fn floor_char_boundary_compat(&self, mut i: usize) -> usize {
        while i > 0 && !self.is_char_boundary(i) {
            i -= 1;
        }
        i
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.pos {
            Some((l, c)) => write!(f, "{}:{}:{}: {}", self.origin, l, c, self.message),
            None => write!(f, "{}: {}", self.origin, self.message),
        }
    }
}

impl std::error::Error for InputError {}

/// A serde/TOML message on one line, in the scenario's terms rather than
/// Rust's (`expected struct ClusterDef` → `expected a table`).
/// The candidate nearest `word` by edit distance, if near enough to be
/// the word meant (at most a third of its letters wrong, or two, and fewer
/// than all):
/// `fare` → `fair`, `nodez` → `nodes`.
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let w: Vec<char> = word.to_lowercase().chars().collect();
    let limit = (w.len() / 3).max(2);
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        let d = edit_distance(&w, &c.to_lowercase().chars().collect::<Vec<_>>());
        if d <= limit && d < w.len() && best.is_none_or(|(b, _)| d < b) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

/// Levenshtein distance, one row at a time.
fn edit_distance(a: &[char], b: &[char]) -> usize {
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// serde's "unknown field `X`, expected one of `a`, `b`" (or variant)
/// with "; did you mean `a`?" when one of them is near.
fn with_suggestion(msg: String) -> String {
    for what in ["unknown field `", "unknown variant `"] {
        let Some(i) = msg.find(what) else { continue };
        let rest = &msg[i + what.len()..];
        let Some(end) = rest.find('`') else { continue };
        let word = &rest[..end];
        let Some(j) = rest.find("expected one of ") else {
            continue;
        };
        let list = &rest[j..];
        let names: Vec<&str> = list.split('`').skip(1).step_by(2).collect();
        if let Some(c) = closest(word, names.iter().copied()) {
            return format!("{msg}; did you mean `{c}`?");
        }
    }
    msg
}

pub fn user_terms(message: &str) -> String {
    let mut msg = message
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("; ")
        .replace("expected i64", "expected a whole number")
        .replace("expected u64", "expected a whole number")
        .replace("expected u32", "expected a whole number")
        .replace("expected f64", "expected a number")
        .replace("expected a tuple of size 2", "expected a [lo, hi] pair")
        .replace("expected a boolean", "expected true or false");
    while let Some(i) = msg.find("struct ") {
        let rest = &msg[i + "struct ".len()..];
        let end = rest
            .find(|c: char| !c.is_alphanumeric() && c != '_')
            .unwrap_or(rest.len());
        msg = format!("{}a table{}", &msg[..i], &rest[end..]);
    }
    with_suggestion(msg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_near_name_is_suggested_and_a_far_one_is_not() {
        let policies = ["fifo", "fair", "fresh", "capacity", "yarn-fair"];
        assert_eq!(closest("fare", policies), Some("fair"));
        assert_eq!(closest("capacty", policies), Some("capacity"));
        assert_eq!(closest("yarn_fair", policies), Some("yarn-fair"));
        assert_eq!(closest("xyz", policies), None);
        assert_eq!(closest("f", policies), None);
        let m = user_terms("unknown field `nodez`, expected one of `nodes`, `racks`");
        assert!(m.ends_with("did you mean `nodes`?"), "{m}");
        let m = user_terms("unknown field `zzzzz`, expected one of `nodes`, `racks`");
        assert!(!m.contains("did you mean"), "{m}");
    }

    #[test]
    fn positions() {
        let t = "a = 1\nbb = 2\n";
        assert_eq!(line_col(t, 0), (1, 1));
        assert_eq!(line_col(t, 6), (2, 1));
        assert_eq!(line_col(t, 8), (2, 3));
        let e = InputError::at("x.toml", t, 8, "bad");
        assert_eq!(e.to_string(), "x.toml:2:3: bad");
    }
}

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
    msg
}

#[cfg(test)]
mod tests {
    use super::*;

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

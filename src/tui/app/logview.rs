//! `l`: the whole run's log, searched as you type. Lines are formatted
//! once, as they come (a day-long replay logs hundreds of thousands), and
//! the matches of the search are kept and extended rather than found
//! again at every frame.

use super::{scrolled, Action, App, Overlay};
use crate::model::Ms;

/// The log's lines formatted so far, and the lines matching `query`.
#[derive(Default)]
pub struct LogCache {
    pub lines: Vec<(Ms, String)>,
    /// Lower-cased, for the search.
    lower: Vec<String>,
    query: String,
    /// Indices into `lines` of the lines containing the query.
    pub matches: Vec<usize>,
    matched_upto: usize,
}

impl LogCache {
    /// Its first `n` lines (all of them if fewer), searched afresh.
    pub(super) fn prefix(&self, n: usize) -> LogCache {
        LogCache {
            lines: self.lines[..n.min(self.lines.len())].to_vec(),
            ..LogCache::default()
        }
    }

    /// A line the run logged at `t`, formatted as it came.
    pub(super) fn push(&mut self, t: Ms, text: String) {
        self.lines.push((t, text));
    }

    /// Matches the lines not matched yet against `query` (all of them
    /// again when it changed).
    fn catch_up(&mut self, query: &str) {
        for (_, text) in &self.lines[self.lower.len()..] {
            self.lower.push(text.to_lowercase());
        }
        let q = query.to_lowercase();
        if q != self.query {
            self.query = q;
            self.matches.clear();
            self.matched_upto = 0;
        }
        for i in self.matched_upto..self.lines.len() {
            if self.query.is_empty() || self.lower[i].contains(&self.query) {
                self.matches.push(i);
            }
        }
        self.matched_upto = self.lines.len();
    }
}

impl App {
    /// `l`: opens the log at its end.
    pub(super) fn open_log(&mut self) {
        self.overlay = Overlay::Log {
            query: String::new(),
            row: usize::MAX,
        };
        self.refresh_log();
    }

    /// Brings the log's lines and matches up to the run.
    pub(super) fn refresh_log(&mut self) {
        if let Overlay::Log { query, .. } = &self.overlay {
            self.panes[self.focus].log.get_mut().catch_up(query);
        }
    }

    pub(super) fn update_log(&mut self, a: Action) {
        let page = self.pages.get().log;
        let n = self.pane_mut().log.get_mut().matches.len();
        let Overlay::Log { query, row } = &mut self.overlay else {
            return;
        };
        let last = n.saturating_sub(page.rows.max(1));
        match a {
            Action::Char(c) => {
                query.push(c);
                *row = usize::MAX;
            }
            Action::Backspace => {
                query.pop();
                *row = usize::MAX;
            }
            Action::Close | Action::Enter => self.overlay = Overlay::None,
            a @ (Action::Up
            | Action::Down
            | Action::PageUp
            | Action::PageDown
            | Action::Home
            | Action::End) => {
                // usize::MAX follows the end as lines come.
                let at = (*row).min(last);
                let to = scrolled(at, &a, page, last);
                *row = if to >= last { usize::MAX } else { to };
            }
            _ => {}
        }
        self.refresh_log();
    }
}

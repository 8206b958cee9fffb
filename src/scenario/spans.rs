//! Where a dotted key's value sits in the file.
//!
//! Most positions come from `toml::Spanned` fields in `schema`, but some
//! checks run on types this module does not own (`SchedulerConfig::check`
//! names the offending key as `scheduler.fair.slowstart`), and TOML tables
//! declared implicitly (`[scheduler.fair]` with no `[scheduler]`, dotted
//! keys) have no span of their own. This module reads the document once
//! more with `toml_edit`, whose parsed document keeps every key's and
//! value's byte range, into a tree of spans (none where a table is
//! implicit).

use std::ops::Range;

use toml_edit::{ImDocument, Item, Key, Table, Value};

/// One TOML value and, when known, its byte range (and that of its key).
#[derive(Debug, Default)]
pub struct SpanNode {
    pub span: Option<Range<usize>>,
    /// The key's byte range, for a table entry whose key has one.
    pub key: Option<Range<usize>>,
    pub kind: Kind,
}

#[derive(Debug, Default)]
pub enum Kind {
    Table(Vec<(String, SpanNode)>),
    Array(Vec<SpanNode>),
    #[default]
    Leaf,
}

impl SpanNode {
    /// Parses `text`; `None` if it is not TOML (the caller has reported that already).
    pub fn parse(text: &str) -> Option<SpanNode> {
        let doc = ImDocument::parse(text).ok()?;
        Some(table(doc.as_table()))
    }

    /// The span of the value at `path`, or of the deepest ancestor that has
    /// one, so an error still lands near its cause.
    pub fn find(&self, path: &[&str]) -> Option<Range<usize>> {
        let mut node = self;
        let mut best = self.span.clone();
        for key in path {
            let child = match &node.kind {
                Kind::Table(entries) => entries.iter().find(|(k, _)| k == key).map(|e| &e.1),
                // A number picks an element of an array.
                Kind::Array(items) => key.parse::<usize>().ok().and_then(|i| items.get(i)),
                Kind::Leaf => None,
            };
            let Some(child) = child else {
                break;
            };
            node = child;
            if node.span.is_some() {
                best = node.span.clone();
            }
        }
        best
    }

    /// The span of the key at the end of `path` if it has one, else as
    /// [`SpanNode::find`]: where an error about the key itself (an unknown
    /// key) belongs.
    pub fn find_key(&self, path: &[&str]) -> Option<Range<usize>> {
        let mut node = self;
        for key in path {
            let Kind::Table(entries) = &node.kind else {
                return self.find(path);
            };
            let Some((_, child)) = entries.iter().find(|(k, _)| k == key) else {
                return self.find(path);
            };
            node = child;
        }
        node.key.clone().or_else(|| self.find(path))
    }
}

/// A table's node: its span (a header's; none when implicit) and each
/// entry's, key and value.
fn table(t: &Table) -> SpanNode {
    let entries = t
        .iter()
        .filter_map(|(k, _)| t.get_key_value(k))
        .map(|(k, item)| (k.get().to_string(), entry(k, item_node(item))))
        .collect();
    SpanNode {
        span: t.span(),
        key: None,
        kind: Kind::Table(entries),
    }
}

fn entry(k: &Key, mut node: SpanNode) -> SpanNode {
    node.key = k.span();
    node
}

fn item_node(item: &Item) -> SpanNode {
    match item {
        Item::None => SpanNode::default(),
        Item::Value(v) => value_node(v),
        Item::Table(t) => table(t),
        Item::ArrayOfTables(a) => SpanNode {
            span: a.span(),
            key: None,
            kind: Kind::Array(a.iter().map(table).collect()),
        },
    }
}

fn value_node(v: &Value) -> SpanNode {
    let kind = match v {
        Value::Array(a) => Kind::Array(a.iter().map(value_node).collect()),
        Value::InlineTable(t) => Kind::Table(
            t.iter()
                .filter_map(|(k, _)| t.get_key_value(k))
                .map(|(k, v)| (k.get().to_string(), entry(k, item_node(v))))
                .collect(),
        ),
        _ => Kind::Leaf,
    };
    SpanNode {
        span: v.span(),
        key: None,
        kind,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_values_in_implicit_tables() {
        let text = "[scheduler.fair]\nslowstart = 2.0\n[[jobs]]\nname = \"a\"\n";
        let tree = SpanNode::parse(text).expect("parses");
        let span = tree
            .find(&["scheduler", "fair", "slowstart"])
            .expect("has a span");
        assert_eq!(&text[span], "2.0");
        // A missing key falls back to its nearest ancestor with a span.
        let span = tree
            .find(&["scheduler", "fair", "nosuch"])
            .expect("ancestor");
        assert!(text[span].starts_with("[scheduler.fair]"));
    }

    #[test]
    fn finds_keys() {
        let text = "[scheduler.fair]\nslowstrat = 2.0\n";
        let tree = SpanNode::parse(text).expect("parses");
        let span = tree
            .find_key(&["scheduler", "fair", "slowstrat"])
            .expect("has a span");
        assert_eq!(&text[span], "slowstrat");
    }

    #[test]
    fn dotted_keys() {
        let text = "scheduler.policy = \"fifo\"\n";
        let tree = SpanNode::parse(text).expect("parses");
        let span = tree.find(&["scheduler", "policy"]).expect("has a span");
        assert_eq!(&text[span], "\"fifo\"");
    }
}

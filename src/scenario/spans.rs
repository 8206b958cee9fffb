//! Where a dotted key's value sits in the file.
//!
//! Most positions come from `toml::Spanned` fields in `schema`, but some
//! checks run on types this module does not own (`SchedulerConfig::check`
//! names the offending key as `scheduler.fair.slowstart`), and TOML tables
//! declared implicitly (`[scheduler.fair]` with no `[scheduler]`, dotted keys)
//! have no span, so `Spanned<Table>` cannot be used for them. This module
//! reads the document once more into a tree that records every value's span
//! when the deserializer offers one and degrades to "no span" otherwise.
//!
//! It speaks the `toml::Spanned` protocol by hand (a struct with magic field
//! names) because the plain `Spanned<T>` type fails outright on span-less
//! tables; if the protocol ever changes, lookups return `None` and callers
//! fall back to a coarser position rather than failing.

use std::fmt;
use std::ops::Range;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

const SPANNED_NAME: &str = "$__serde_spanned_private_Spanned";
const SPANNED_START: &str = "$__serde_spanned_private_start";
const SPANNED_END: &str = "$__serde_spanned_private_end";
const SPANNED_VALUE: &str = "$__serde_spanned_private_value";
static SPANNED_FIELDS: [&str; 3] = [SPANNED_START, SPANNED_END, SPANNED_VALUE];

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
        let de = toml::Deserializer::new(text);
        NodeSeed { spanned: false }.deserialize(de).ok()
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

/// A table key with its span when the deserializer offers one.
struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = (String, Option<Range<usize>>);
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_struct(SPANNED_NAME, &SPANNED_FIELDS, KeyVisitor)
    }
}

struct KeyVisitor;

impl<'de> Visitor<'de> for KeyVisitor {
    type Value = (String, Option<Range<usize>>);

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a TOML key")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok((v.to_string(), None))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let (mut start, mut end, mut key) = (None, None, None);
        while let Some(k) = map.next_key::<String>()? {
            match k.as_str() {
                SPANNED_START => start = Some(map.next_value::<usize>()?),
                SPANNED_END => end = Some(map.next_value::<usize>()?),
                _ => key = Some(map.next_value::<String>()?),
            }
        }
        let key = key.ok_or_else(|| de::Error::custom("a key without a name"))?;
        Ok((key, start.zip(end).map(|(s, e)| s..e)))
    }
}

/// `spanned: true` asks the deserializer for a span first (the
/// `toml::Spanned` protocol); the wrapped value itself is then read with
/// `spanned: false` so the request is not repeated forever.
#[derive(Clone, Copy)]
struct NodeSeed {
    spanned: bool,
}

impl<'de> DeserializeSeed<'de> for NodeSeed {
    type Value = SpanNode;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<SpanNode, D::Error> {
        if self.spanned {
            d.deserialize_struct(SPANNED_NAME, &SPANNED_FIELDS, NodeVisitor)
        } else {
            d.deserialize_any(NodeVisitor)
        }
    }
}

struct NodeVisitor;

impl NodeVisitor {
    fn leaf<E>() -> Result<SpanNode, E> {
        Ok(SpanNode::default())
    }
}

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = SpanNode;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any TOML value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<SpanNode, E> {
        Self::leaf()
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<SpanNode, E> {
        Self::leaf()
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<SpanNode, E> {
        Self::leaf()
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<SpanNode, E> {
        Self::leaf()
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<SpanNode, E> {
        Self::leaf()
    }
    fn visit_unit<E: de::Error>(self) -> Result<SpanNode, E> {
        Self::leaf()
    }
    fn visit_none<E: de::Error>(self) -> Result<SpanNode, E> {
        Self::leaf()
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<SpanNode, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(NodeSeed { spanned: true })? {
            items.push(item);
        }
        Ok(SpanNode {
            span: None,
            key: None,
            kind: Kind::Array(items),
        })
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<SpanNode, A::Error> {
        let mut entries = Vec::new();
        let mut start = None;
        let mut end = None;
        while let Some((key, key_span)) = map.next_key_seed(KeySeed)? {
            match key.as_str() {
                SPANNED_START => start = Some(map.next_value::<usize>()?),
                SPANNED_END => end = Some(map.next_value::<usize>()?),
                SPANNED_VALUE => {
                    let mut inner = map.next_value_seed(NodeSeed { spanned: false })?;
                    if let (Some(s), Some(e)) = (start, end) {
                        inner.span = Some(s..e);
                    }
                    return Ok(inner);
                }
                _ => {
                    let mut value = map.next_value_seed(NodeSeed { spanned: true })?;
                    value.key = key_span;
                    entries.push((key, value));
                }
            }
        }
        Ok(SpanNode {
            span: None,
            key: None,
            kind: Kind::Table(entries),
        })
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

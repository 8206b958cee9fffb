//! The layers of docs/architecture.md, read from the source: no shipped
//! code imports a layer above its own. Test modules (after a file's
//! `#[cfg(test)]`) may build fixtures from above; shipped code may not.

use std::fs;
use std::path::Path;

/// Each layer and the top-level modules above it, as docs/architecture.md
/// draws them.
const ABOVE: &[(&str, &[&str])] = &[
    (
        "model",
        &[
            "sim", "sched", "scenario", "runs", "report", "sweep", "tui", "cli",
        ],
    ),
    (
        "sim",
        &["sched", "scenario", "runs", "report", "sweep", "tui", "cli"],
    ),
    (
        "sched",
        &["scenario", "runs", "report", "sweep", "tui", "cli"],
    ),
    ("scenario", &["runs", "report", "sweep", "tui", "cli"]),
    ("report", &["runs", "sweep", "tui", "cli"]),
    ("runs", &["sweep", "tui", "cli"]),
];

/// Every `.rs` file under `dir`, sorted.
fn files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The lines of `text` (1-based, with their text) before its first
/// `#[cfg(test)]` that name a module in `above`.
fn upward_in<'a>(text: &'a str, above: &[&str]) -> Vec<(usize, &'a str)> {
    let mut found = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.starts_with("#[cfg(test)]") {
            break;
        }
        if line.starts_with("//") {
            continue;
        }
        let names = |up: &str| {
            [
                format!("crate::{up}::"),
                format!("crate::{up};"),
                format!("crate::{up}}}"),
                format!("crate::{{{up}"),
            ]
        };
        if above
            .iter()
            .any(|up| names(up).iter().any(|u| line.contains(u.as_str())))
        {
            found.push((i + 1, line));
        }
    }
    found
}

/// The upward imports in shipped code: `file:line: text` for each.
fn upward() -> Vec<String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    for (layer, above) in ABOVE {
        let mut fs_ = Vec::new();
        let dir = src.join(layer);
        files(&dir, &mut fs_);
        if let Some(single) = Some(src.join(format!("{layer}.rs"))).filter(|p| p.exists()) {
            fs_.push(single);
        }
        for f in fs_ {
            let text = fs::read_to_string(&f).unwrap();
            for (line, use_) in upward_in(&text, above) {
                found.push(format!("{}:{line}: {use_}", f.display()));
            }
        }
    }
    found
}

#[test]
fn no_shipped_code_imports_a_layer_above_its_own() {
    let found = upward();
    assert!(found.is_empty(), "upward imports:\n{}", found.join("\n"));
}

#[test]
fn the_layer_check_sees_an_upward_import_and_spares_tests() {
    let text = "use crate::model::Resource;\n\
                // crate::tui:: in a comment\n\
                use crate::scenario::load_str;\n\
                fn f() { crate::runs::build_sim(); }\n\
                #[cfg(test)]\n\
                mod tests { use crate::scenario::load_str; }\n";
    let found = upward_in(text, &["scenario", "runs", "tui"]);
    assert_eq!(
        found,
        vec![
            (3, "use crate::scenario::load_str;"),
            (4, "fn f() { crate::runs::build_sim(); }")
        ]
    );
    // The one fixture that loads scenario text from inside `sched` sits
    // after its file's `#[cfg(test)]`.
    let f = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/sched/yarn/capacity/mod.rs");
    let text = fs::read_to_string(f).unwrap();
    assert!(text.contains("crate::scenario::load_str"));
    assert!(upward_in(&text, &["scenario"]).is_empty());
}

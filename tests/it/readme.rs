//! The README's and docs/'s examples are true: every ```sh block holding a single
//! `slotsim` command (continuation lines joined), directly followed by a
//! ```text block, prints exactly that text, where a line `...` stands for
//! any number of lines (its indentation is ignored). (Stderr is compared when the command prints
//! nothing on stdout: the error examples.) Blocks whose command writes
//! files or opens the TUI have no text block after them and are not run.
//!
//! A command that prints a Markdown table (`slotsim merge DIR --table …`)
//! may be followed by the table itself instead of a text block: the table's
//! rows, a blank line and the one paragraph under it are what it prints.
//! A `slotsim merge DIR` whose DIR a `slotsim sweep PLAN --out DIR` block
//! of the same page writes reads the sweep's committed results instead:
//! `docs/reproductions/results/STEM/` for `PLAN` = `…/STEM.plan.toml`,
//! every cell's line cut to the metrics `merge` reads ([`lean`]). They are
//! checked against the sweep itself: every ninth cell (`--shard 1/9`,
//! which reaches every scenario × policy × variant and every seed) is run
//! afresh and must give its committed line exactly, so a change of the
//! model that moves a page's numbers fails here. With
//! `SLOTSIM_PAGES=full` every cell is run and checked; with
//! `SLOTSIM_BLESS=1` every cell is run and the committed results are
//! rewritten from it, as are the pages' outputs. `SLOTSIM_PAGE=TEXT`
//! keeps to the pages whose path contains TEXT (to bless one page).

use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use std::process::Command;

struct Example {
    line: usize,
    command: String,
    expected: String,
    /// The lines of the page the expected output takes, `[from, to)`.
    span: (usize, usize),
}

/// Pairs of (sh command, text output) in `md`.
fn examples(md: &str) -> Vec<Example> {
    let lines: Vec<&str> = md.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim() != "```sh" {
            i += 1;
            continue;
        }
        let start = i + 1;
        let mut j = start;
        while j < lines.len() && lines[j].trim() != "```" {
            j += 1;
        }
        let body: Vec<&str> = lines[start..j].to_vec();
        // The next non-blank line must open a text block.
        let mut k = j + 1;
        while k < lines.len() && lines[k].trim().is_empty() {
            k += 1;
        }
        let joined = body.join("\n").replace("\\\n", " ");
        let single: Vec<&str> = joined
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        if k < lines.len() && lines[k].starts_with('|') {
            // A table, a blank line, one paragraph.
            let mut e = k;
            while e < lines.len() && lines[e].starts_with('|') {
                e += 1;
            }
            if e + 1 < lines.len() && lines[e].trim().is_empty() && !lines[e + 1].trim().is_empty()
            {
                e += 1;
                while e < lines.len() && !lines[e].trim().is_empty() {
                    e += 1;
                }
            }
            if single.len() == 1 && single[0].starts_with("slotsim ") {
                out.push(Example {
                    line: start,
                    command: single[0].to_string(),
                    expected: lines[k..e].join("\n"),
                    span: (k, e),
                });
            }
            i = e;
        } else if k < lines.len() && lines[k].trim() == "```text" {
            let mut e = k + 1;
            while e < lines.len() && lines[e].trim() != "```" {
                e += 1;
            }
            let joined = body.join("\n").replace("\\\n", " ");
            let cmds: Vec<&str> = joined
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .collect();
            if cmds.len() == 1 && cmds[0].starts_with("slotsim ") {
                out.push(Example {
                    line: start,
                    command: cmds[0].to_string(),
                    expected: lines[k + 1..e].join("\n"),
                    span: (k + 1, e),
                });
            }
            i = e + 1;
        } else {
            i = j + 1;
        }
    }
    out
}

/// Every single-command `slotsim sweep PLAN --out DIR` of `md`, as
/// (DIR, words).
fn sweeps(md: &str) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    let mut in_sh = false;
    let mut body = String::new();
    for l in md.lines() {
        match (in_sh, l.trim()) {
            (false, "```sh") => {
                in_sh = true;
                body.clear();
            }
            (true, "```") => {
                in_sh = false;
                let joined = body.replace("\\\n", " ");
                for cmd in joined.lines().map(str::trim) {
                    let w = words(cmd);
                    if w.len() > 2 && w[0] == "slotsim" && w[1] == "sweep" {
                        if let Some(i) = w.iter().position(|x| x == "--out") {
                            if let Some(dir) = w.get(i + 1) {
                                out.push((dir.clone(), w.clone()));
                            }
                        }
                    }
                }
            }
            (true, _) => {
                body.push_str(l);
                body.push('\n');
            }
            _ => {}
        }
    }
    out
}

/// Splits a command line as a POSIX shell would for these examples:
/// whitespace, single quotes, and a trailing `# comment` (also the
/// scenario files' header commands).
pub fn words(cmd: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut any = false;
    for c in cmd.chars() {
        match c {
            '\'' => {
                quoted = !quoted;
                any = true;
            }
            '#' if !quoted && cur.is_empty() => break,
            c if c.is_whitespace() && !quoted => {
                if any {
                    out.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            c => {
                cur.push(c);
                any = true;
            }
        }
    }
    if any {
        out.push(cur);
    }
    out
}

/// Line glob: `want` equals `got` where each `...` line in `want` (however
/// indented) matches any run of lines, possibly none.
fn matches(want: &[&str], got: &[&str]) -> bool {
    match want.split_first() {
        None => got.is_empty(),
        Some((w, rest)) if w.trim() == "..." => (0..=got.len()).any(|k| matches(rest, &got[k..])),
        Some((w, rest)) => got
            .split_first()
            .is_some_and(|(g, grest)| g == w && matches(rest, grest)),
    }
}

/// Where the results of `sweep` (`slotsim sweep PLAN --out DIR`) are
/// committed, for a plan named `STEM.plan.toml` (a reproduction page's):
/// `results/STEM/` beside it.
fn committed_results(root: &Path, sweep: &[String]) -> Option<PathBuf> {
    let plan = Path::new(&sweep[2]);
    let stem = plan.file_name()?.to_str()?.strip_suffix(".plan.toml")?;
    Some(root.join(plan.parent()?).join("results").join(stem))
}

/// A sweep line cut to what `slotsim merge` reads: the cell, the plan and
/// version it belongs to, and every metric `merge` tabulates (the per-job
/// rows and the predictor's windows, most of a line's size, go).
fn lean(v: &Value) -> Value {
    let mut out = Map::new();
    for k in ["scenario", "policy", "seed", "cell", "plan", "version"] {
        out.insert(k.to_string(), v[k].clone());
    }
    for (_, path) in slotsim::sweep::merge::METRICS {
        let Some(x) = path.iter().try_fold(v, |v, k| v.get(*k)) else {
            continue;
        };
        let mut at = &mut out;
        for k in &path[..path.len() - 1] {
            at = at
                .entry(k.to_string())
                .or_insert_with(|| Value::Object(Map::new()))
                .as_object_mut()
                .unwrap();
        }
        at.insert(path[path.len() - 1].to_string(), x.clone());
    }
    Value::Object(out)
}

/// Every line of the shard files in `dir`, lean, by cell index.
fn lean_lines(dir: &Path) -> Vec<(u64, Value)> {
    let mut out = Vec::new();
    for f in std::fs::read_dir(dir).unwrap() {
        let text = std::fs::read_to_string(f.unwrap().path()).unwrap();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let v: Value = serde_json::from_str(line).unwrap();
            out.push((v["cell"]["index"].as_u64().unwrap(), lean(&v)));
        }
    }
    out.sort_by_key(|(i, _)| *i);
    out
}

fn write_results(dir: &Path, lines: &[(u64, Value)]) {
    std::fs::create_dir_all(dir).unwrap();
    for f in std::fs::read_dir(dir).unwrap() {
        std::fs::remove_file(f.unwrap().path()).unwrap();
    }
    let mut text = String::new();
    for (_, v) in lines {
        text.push_str(&serde_json::to_string(v).unwrap());
        text.push('\n');
    }
    std::fs::write(dir.join("shard-1-of-1.jsonl"), text).unwrap();
}

/// Each fresh cell's lean line equals the committed one of its index.
fn check_results(dir: &Path, fresh: &[(u64, Value)]) -> Result<(), String> {
    let stale = "re-run every page with `SLOTSIM_BLESS=1 cargo test --release --test it readme::` and review `git diff docs/`";
    if !dir.is_dir() {
        return Err(format!(
            "no committed results at {}; {stale}",
            dir.display()
        ));
    }
    let committed: std::collections::BTreeMap<u64, Value> = lean_lines(dir).into_iter().collect();
    for (i, v) in fresh {
        match committed.get(i) {
            Some(c) if c == v => {}
            Some(c) => {
                return Err(format!(
                    "the committed results in {} are stale: cell {i} now gives\n{v}\nwhere they hold\n{c}\n{stale}",
                    dir.display()
                ))
            }
            None => {
                return Err(format!(
                    "cell {i} is missing from the committed results in {}; {stale}",
                    dir.display()
                ))
            }
        }
    }
    Ok(())
}

/// README.md and every Markdown file under docs/, as (path relative to the
/// repository, text), in a fixed order.
fn pages(root: &Path) -> Vec<(String, String)> {
    fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "md") {
                out.push(p);
            }
        }
    }
    let mut files = vec![root.join("README.md")];
    walk(&root.join("docs"), &mut files);
    files
        .into_iter()
        .map(|p| {
            let rel = p.strip_prefix(root).unwrap().display().to_string();
            (rel, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

/// With `SLOTSIM_BLESS=1`, a page's examples that print something else
/// are rewritten with what they print (those with `...` lines are left to
/// a person): after a change of the model, `SLOTSIM_BLESS=1 cargo test
/// --release --test it readme::` re-runs every page and rewrites its outputs;
/// `git diff docs/` then shows every number that moved, and the prose
/// around each table is checked by hand.
/// Whether `python3` imports numpy (and SLOTSIM_REQUIRE_GYM=1 makes it
/// required: then true, and the examples fail without it).
fn python_has_numpy() -> bool {
    std::env::var("SLOTSIM_REQUIRE_GYM").is_ok_and(|v| v == "1")
        || Command::new("python3")
            .args(["-c", "import numpy"])
            .output()
            .is_ok_and(|o| o.status.success())
}

#[test]
fn every_documented_example_prints_what_the_page_says() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bless = std::env::var_os("SLOTSIM_BLESS").is_some();
    let full = std::env::var("SLOTSIM_PAGES").is_ok_and(|v| v == "full");
    let mut failures = Vec::new();
    let mut total = 0;
    let scratch = tempfile::tempdir().unwrap();
    let mut sweeps_run = 0;
    let only = std::env::var("SLOTSIM_PAGE").ok();
    for (page, md) in pages(root) {
        if only.as_ref().is_some_and(|o| !page.contains(o.as_str())) {
            continue;
        }
        let ex = examples(&md);
        let mut rewrites: Vec<((usize, usize), String)> = Vec::new();
        total += ex.len();
        let page_sweeps = sweeps(&md);
        // DIR as the page writes it → the fresh directory standing in.
        let mut swept: Vec<(String, String)> = Vec::new();
        for e in &ex {
            // A command running the Gymnasium examples needs numpy: skipped
            // where python3 has none (never under SLOTSIM_REQUIRE_GYM=1).
            if e.command.contains("clients/python/examples/gym/") && !python_has_numpy() {
                eprintln!("{page}:{}: skipped (python3 has no numpy)", e.line);
                continue;
            }
            let mut w = words(&e.command);
            if w.get(1).map(String::as_str) == Some("merge") {
                for arg in w.iter_mut().skip(2) {
                    let Some((dir, sweep)) = page_sweeps.iter().find(|(d, _)| d == arg) else {
                        continue;
                    };
                    if let Some((_, tmp)) = swept.iter().find(|(d, _)| d == dir) {
                        *arg = tmp.clone();
                        continue;
                    }
                    let committed = committed_results(root, sweep);
                    let tmp = scratch.path().join(format!("sweep-{sweeps_run}"));
                    let mut sw = sweep.clone();
                    let i = sw.iter().position(|x| x == "--out").unwrap();
                    sw[i + 1] = tmp.display().to_string();
                    if committed.is_some() && !(bless || full) {
                        sw.extend(["--shard".to_string(), "1/9".to_string()]);
                    }
                    let out = Command::new(env!("CARGO_BIN_EXE_slotsim"))
                        .current_dir(root)
                        .args(&sw[1..])
                        .output()
                        .unwrap();
                    assert!(
                        out.status.success(),
                        "{page}: `{}` failed:\n{}",
                        sw.join(" "),
                        String::from_utf8_lossy(&out.stderr)
                    );
                    sweeps_run += 1;
                    // A sweep without committed results (a small example
                    // plan) is merged from its fresh run.
                    let dir_arg = match committed {
                        None => tmp,
                        Some(committed) => {
                            let fresh = lean_lines(&tmp);
                            if bless {
                                write_results(&committed, &fresh);
                            } else if let Err(why) = check_results(&committed, &fresh) {
                                failures.push(format!("{page}: `{}`: {why}", sweep.join(" ")));
                            }
                            committed
                        }
                    };
                    let dir_arg = dir_arg.display().to_string();
                    swept.push((dir.clone(), dir_arg.clone()));
                    *arg = dir_arg;
                }
            }
            let out = Command::new(env!("CARGO_BIN_EXE_slotsim"))
                .current_dir(root)
                .args(&w[1..])
                .output()
                .unwrap();
            let got = if out.stdout.is_empty() {
                String::from_utf8_lossy(&out.stderr)
            } else {
                String::from_utf8_lossy(&out.stdout)
            };
            let want = e.expected.trim_end();
            let ok = matches(
                &want.lines().collect::<Vec<_>>(),
                &got.trim_end().lines().collect::<Vec<_>>(),
            );
            if !ok && bless && !want.lines().any(|l| l.trim() == "...") {
                rewrites.push((e.span, got.trim_end().to_string()));
            } else if !ok {
                failures.push(format!(
                    "{page}:{}: `{}`\n--- {page} ---\n{}\n--- actual ---\n{}\n",
                    e.line, e.command, want, got
                ));
            }
        }
        // A page edited while its examples ran is not overwritten with
        // the text it had before: bless it again.
        let now = std::fs::read_to_string(root.join(&page)).unwrap();
        if !rewrites.is_empty() && now != md {
            failures.push(format!(
                "{page} changed while its examples ran; its outputs were not rewritten: bless again"
            ));
        } else if !rewrites.is_empty() {
            let mut lines: Vec<String> = md.lines().map(str::to_string).collect();
            for ((from, to), text) in rewrites.into_iter().rev() {
                lines.splice(from..to, text.lines().map(str::to_string));
            }
            let mut text = lines.join("\n");
            text.push('\n');
            std::fs::write(root.join(&page), text).unwrap();
        }
    }
    assert!(only.is_some() || total >= 10, "found only {total} examples");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_example_parser_reads_continuations_quotes_and_comments() {
    let md = "```sh\nslotsim compare a.toml \\\n  --policies 'x[a=1;b=2],y'   # note\n```\n\n```text\nhello\n```\n```sh\nslotsim run b.toml --out x.cast\n```\n";
    let ex = examples(md);
    assert_eq!(ex.len(), 1);
    assert_eq!(ex[0].expected, "hello");
    assert_eq!(
        words(&ex[0].command),
        ["slotsim", "compare", "a.toml", "--policies", "x[a=1;b=2],y"]
    );
    assert!(matches(&["a", "...", "d"], &["a", "b", "c", "d"]));
    assert!(matches(&["a", "..."], &["a"]));
    assert!(matches(&["a", "  ..."], &["a", "x", "y"]));
    assert!(!matches(&["a", "...", "d"], &["a", "b", "c"]));
    assert!(!matches(&["a", "b"], &["a", "c"]));
}

#[test]
fn a_table_after_a_command_is_its_expected_output() {
    let md = "```sh\nslotsim sweep p.toml --out results/x\n```\n\n```sh\nslotsim merge results/x --table makespan_s\n```\n\n| a | b |\n|---|---:|\n| 1 | 2 |\n\nmakespan_s, mean ± sd\nover 3 seeds\n\nMore prose.\n";
    let ex = examples(md);
    assert_eq!(ex.len(), 1);
    assert_eq!(
        ex[0].expected,
        "| a | b |\n|---|---:|\n| 1 | 2 |\n\nmakespan_s, mean ± sd\nover 3 seeds"
    );
    let sw = sweeps(md);
    assert_eq!(sw.len(), 1);
    assert_eq!(sw[0].0, "results/x");
}

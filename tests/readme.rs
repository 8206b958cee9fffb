//! The README's and docs/'s examples are true: every ```sh block holding a single
//! `slotsim` command (continuation lines joined), directly followed by a
//! ```text block, prints exactly that text, where a line `...` stands for
//! any number of lines (its indentation is ignored). (Stderr is compared when the command prints
//! nothing on stdout: the error examples.) Blocks whose command writes
//! files or opens the TUI have no text block after them and are not run.

use std::path::Path;
use std::process::Command;

struct Example {
    line: usize,
    command: String,
    expected: String,
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
        if k < lines.len() && lines[k].trim() == "```text" {
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
                });
            }
            i = e + 1;
        } else {
            i = j + 1;
        }
    }
    out
}

/// Splits a command line as a POSIX shell would for these examples:
/// whitespace, single quotes, and a trailing `# comment`.
fn words(cmd: &str) -> Vec<String> {
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

#[test]
fn every_documented_example_prints_what_the_page_says() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut failures = Vec::new();
    let mut total = 0;
    for (page, md) in pages(root) {
        let ex = examples(&md);
        total += ex.len();
        for e in &ex {
            let w = words(&e.command);
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
            if !ok {
                failures.push(format!(
                    "{page}:{}: `{}`\n--- {page} ---\n{}\n--- actual ---\n{}\n",
                    e.line, e.command, want, got
                ));
            }
        }
    }
    assert!(total >= 10, "found only {total} examples");
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

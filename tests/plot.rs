//! `--plot DIR`: the SVG figures exist, are SVG, show the run's data, and
//! are the same bytes on a second run.

use std::process::Command;

fn slotsim(args: &[&str]) {
    let out = Command::new(env!("CARGO_BIN_EXE_slotsim"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn run_and_compare_write_deterministic_svgs() {
    let d = tempfile::tempdir().unwrap();
    let (a, b) = (d.path().join("a"), d.path().join("b"));
    for dir in [&a, &b] {
        slotsim(&[
            "run",
            "scenarios/fig45-fifo-vs-fair.toml",
            "--headless",
            "--plot",
            dir.to_str().unwrap(),
        ]);
    }
    for name in [
        "turnaround_cdf.svg",
        "utilization.svg",
        "gantt.svg",
        "links.svg",
    ] {
        let x = std::fs::read_to_string(a.join(name)).unwrap();
        assert!(
            x.starts_with("<svg") && x.trim_end().ends_with("</svg>"),
            "{name}"
        );
        assert_eq!(
            x,
            std::fs::read_to_string(b.join(name)).unwrap(),
            "{name} differs"
        );
    }
    // Three jobs under fifo: the CDF's legend counts them; 9 slots, 18 attempts.
    let cdf = std::fs::read_to_string(a.join("turnaround_cdf.svg")).unwrap();
    assert!(cdf.contains("fifo (3 jobs)"), "{cdf}");
    let gantt = std::fs::read_to_string(a.join("gantt.svg")).unwrap();
    assert_eq!(
        gantt.matches("<rect").count(),
        1 + 18,
        "background and 18 bars"
    );
    let c = d.path().join("c");
    slotsim(&[
        "compare",
        "scenarios/fig45-fifo-vs-fair.toml",
        "--policies",
        "fifo,fair",
        "--seeds",
        "2",
        "--plot",
        c.to_str().unwrap(),
    ]);
    let cdf = std::fs::read_to_string(c.join("turnaround_cdf.svg")).unwrap();
    assert!(
        cdf.contains("fifo (6 jobs)") && cdf.contains("fair (6 jobs)"),
        "{cdf}"
    );
}

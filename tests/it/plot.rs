//! `--plot DIR`: the SVG figures exist, parse as XML, have labelled axes
//! and one series per policy, show the run's data, and are the same bytes
//! on a second run.

use std::process::Command;

/// The SVG parsed (it must be well-formed XML): its texts, and the
/// colours its lines are stroked with (black, the axes', left out).
fn svg(text: &str) -> (Vec<String>, Vec<String>) {
    let doc = roxmltree::Document::parse(text).expect("the SVG is well-formed XML");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    let texts = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text().map(|t| t.trim().to_string()))
        .collect();
    let mut strokes: Vec<String> = doc
        .descendants()
        .filter(|n| n.has_tag_name("polyline") || n.has_tag_name("path"))
        .filter_map(|n| n.attribute("stroke").map(str::to_string))
        .filter(|c| c != "#000000" && c != "none")
        .collect();
    strokes.sort();
    strokes.dedup();
    (texts, strokes)
}

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
        let (texts, _) = svg(&x);
        assert!(
            texts.len() >= 3,
            "{name}: a title and axis labels: {texts:?}"
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
    // The Gantt chart names its jobs; counts are whole numbers; no
    // legend sits on the chart (every legend text right of the plot).
    let (texts, _) = svg(&gantt);
    for j in ["job1", "job2", "job3"] {
        assert!(texts.iter().any(|t| t == j), "{j}: {texts:?}");
    }
    let util = std::fs::read_to_string(a.join("utilization.svg")).unwrap();
    let (texts, _) = svg(&util);
    let ticks: Vec<&String> = texts.iter().filter(|t| t.parse::<f64>().is_ok()).collect();
    assert!(
        ticks.len() > 3 && ticks.iter().all(|t| !t.contains('.')),
        "{ticks:?}"
    );
    let doc = roxmltree::Document::parse(&util).unwrap();
    let legend_x: Vec<f64> = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter(|n| matches!(n.text().map(str::trim), Some("maps" | "reduces")))
        .filter_map(|n| n.attribute("x")?.parse().ok())
        .collect();
    assert_eq!(legend_x.len(), 2);
    assert!(
        legend_x.iter().all(|&x| x > 680.0),
        "the legend's column: {legend_x:?}"
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
    // Labelled axes, and one curve (one colour) per policy.
    let (texts, strokes) = svg(&cdf);
    for label in ["turnaround (s)", "fraction of finished jobs"] {
        assert!(texts.iter().any(|t| t == label), "{label}: {texts:?}");
    }
    assert_eq!(strokes.len(), 2, "one series per policy: {strokes:?}");
}

/// Thinning keeps at most `MAX` samples, in time order, the last one
/// last, and loses nothing of the cumulative loads: the utilisation over
/// the whole run from the thinned samples is the exact one.
#[test]
fn link_samples_thin_without_losing_load() {
    use slotsim::report::plot::LinkSampler;
    let sc = slotsim::scenario::load_default(None, None).unwrap();
    let mut sim = slotsim::runs::build_sim(&sc).unwrap();
    let mut s = LinkSampler::default();
    s.sample(&sim);
    let mut t = 0;
    while !sim.is_finished() {
        t += 100;
        sim.run_until(Some(t));
        s.sample(&sim);
    }
    assert!(
        s.times().len() <= LinkSampler::MAX + 1,
        "{}",
        s.times().len()
    );
    assert!(s.times().windows(2).all(|w| w[0] < w[1]));
    assert_eq!(*s.times().last().unwrap(), sim.view().now());
    let n = sim.view().links().count() as usize;
    let last = s.areas().last().unwrap();
    for (r, (res, got)) in sim.view().net().resources[..n].iter().zip(last).enumerate() {
        let exact = res.area_at(sim.view().now());
        assert!((got - exact).abs() <= 1e-9 * exact.max(1.0), "resource {r}");
    }
    assert!(
        s.svg(&sim).unwrap().contains("mean"),
        "a curve with its legend"
    );
}

/// `--plot DIR` writes into a directory that exists (the figures are
/// replaced) and refuses a file with one clear error, exit 2, before any
/// run.
#[test]
fn plot_into_an_existing_directory_and_not_into_a_file() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().join("figs");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("gantt.svg"), "old").unwrap();
    let args = [
        "run",
        "scenarios/fig45-fifo-vs-fair.toml",
        "--headless",
        "--plot",
    ];
    let mut a = args.to_vec();
    a.push(dir.to_str().unwrap());
    slotsim(&a);
    assert!(std::fs::read_to_string(dir.join("gantt.svg"))
        .unwrap()
        .starts_with("<svg"));
    let file = d.path().join("figs.svg");
    std::fs::write(&file, "").unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_slotsim"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .arg(&file)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(
        err.trim(),
        format!(
            "error: --plot: {} is a file; expected a directory for the SVG figures (created if missing)",
            file.display()
        )
    );
}

/// A plot says what it is of: the CDF's title names the scenario and the
/// seeds, two policies with the same turnarounds are said to draw one
/// curve (the later drawn inside the earlier), and on YARN the tasks run
/// against the cluster's memory and vcores, not slots it does not have.
#[test]
fn plots_name_their_runs_and_their_cluster_model() {
    let d = tempfile::tempdir().unwrap();
    let cmp = d.path().join("cmp");
    slotsim(&[
        "compare",
        "scenarios/yarn-quickstart.toml",
        "--policies",
        "yarn-fair,yarn-fair[scheduling_policy=drf],yarn-fifo",
        "--seeds",
        "2",
        "--plot",
        cmp.to_str().unwrap(),
    ]);
    let (texts, _) = svg(&std::fs::read_to_string(cmp.join("turnaround_cdf.svg")).unwrap());
    assert!(
        texts
            .iter()
            .any(|t| t.ends_with("· yarn-quickstart, seeds 1–2")),
        "{texts:?}"
    );
    // yarn-fifo's curve is another: only the DRF variant is noted.
    let same: Vec<&String> = texts.iter().filter(|t| t.contains(" = ")).collect();
    assert_eq!(same.len(), 1, "{texts:?}");
    assert!(same[0].ends_with("= yarn-fair"), "{same:?}");
    let run = d.path().join("run");
    slotsim(&[
        "run",
        "scenarios/yarn-quickstart.toml",
        "--headless",
        "--plot",
        run.to_str().unwrap(),
    ]);
    let (texts, _) = svg(&std::fs::read_to_string(run.join("utilization.svg")).unwrap());
    let title = texts
        .iter()
        .find(|t| t.starts_with("Tasks running"))
        .expect("a title");
    assert!(!title.contains("slots"), "{title}");
    assert!(title.contains("vcores") && title.contains("GB"), "{title}");
}

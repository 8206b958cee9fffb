//! The real terminal is restored however the TUI ends: by `q`, or by a
//! signal from outside (SIGTERM, SIGINT, SIGHUP), run in a pseudo-terminal
//! as a user's shell would run it. After the process exits, the terminal's
//! modes are those it started with (line editing and echo back on) and the
//! output left the alternate screen.
#![cfg(unix)]

use nix::fcntl::{fcntl, FcntlArg, FdFlag};
use nix::pty::{openpty, OpenptyResult, Winsize};
use nix::sys::signal::{kill, Signal};
use nix::sys::termios::{tcgetattr, LocalFlags};
use nix::unistd::Pid;
use std::io::{Read, Write};
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const ENTER_ALT: &[u8] = b"\x1b[?1049h";
const LEAVE_ALT: &[u8] = b"\x1b[?1049l";

struct Session {
    child: Child,
    master: std::fs::File,
    slave: OwnedFd,
    out: Arc<Mutex<Vec<u8>>>,
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

fn start() -> Session {
    start_with(&[])
}

fn start_with(args: &[&str]) -> Session {
    start_with_env(args, &[])
}

/// A 100×30 pseudo-terminal whose ends the other tests' children do not
/// inherit (one would keep a terminal alive after its test closed it).
fn pty() -> OpenptyResult {
    let ws = Winsize {
        ws_row: 30,
        ws_col: 100,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    let pty = openpty(Some(&ws), None).expect("a pseudo-terminal");
    for fd in [&pty.master, &pty.slave] {
        fcntl(fd.as_raw_fd(), FcntlArg::F_SETFD(FdFlag::FD_CLOEXEC)).unwrap();
    }
    pty
}

/// slotsim with `args` in the terminal whose slave end is `slave`.
fn spawn_in(slave: &OwnedFd, args: &[&str], env: &[(&str, &str)]) -> Child {
    let stdio = |fd: &OwnedFd| Stdio::from(fd.try_clone().unwrap());
    Command::new(env!("CARGO_BIN_EXE_slotsim"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .envs(env.iter().copied())
        .env("TERM", "xterm-256color")
        .stdin(stdio(slave))
        .stdout(stdio(slave))
        .stderr(stdio(slave))
        .spawn()
        .unwrap()
}

fn start_with_env(args: &[&str], env: &[(&str, &str)]) -> Session {
    let pty = pty();
    let child = spawn_in(&pty.slave, args, env);
    let master = std::fs::File::from(pty.master);
    let out = Arc::new(Mutex::new(Vec::new()));
    let (mut reader, sink) = (master.try_clone().unwrap(), out.clone());
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = reader.read(&mut buf) {
            if n == 0 {
                break;
            }
            sink.lock().unwrap().extend_from_slice(&buf[..n]);
        }
    });
    let s = Session {
        child,
        master,
        slave: pty.slave,
        out,
    };
    // Wait for the first frame: the alternate screen and the header.
    let t0 = Instant::now();
    loop {
        {
            let o = s.out.lock().unwrap();
            if contains(&o, ENTER_ALT) && contains(&o, b"policy:") {
                break;
            }
        }
        assert!(
            t0.elapsed() < Duration::from_secs(20),
            "the TUI did not draw: {:?}",
            String::from_utf8_lossy(&s.out.lock().unwrap())
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    s
}

/// Waits for the process to exit and returns its status code and output.
fn finish(mut s: Session) -> (Option<i32>, Vec<u8>, OwnedFd) {
    let t0 = Instant::now();
    let status = loop {
        if let Some(st) = s.child.try_wait().unwrap() {
            break st;
        }
        if t0.elapsed() > Duration::from_secs(20) {
            let _ = s.child.kill();
            panic!("the TUI did not exit");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    // Let the reader drain what the process wrote last.
    std::thread::sleep(Duration::from_millis(200));
    let out = s.out.lock().unwrap().clone();
    (status.code(), out, s.slave)
}

const MOUSE_ON: &[u8] = b"\x1b[?1000h";
const MOUSE_OFF: &[u8] = b"\x1b[?1000l";

fn assert_restored(out: &[u8], slave: &OwnedFd) {
    let on = out.windows(MOUSE_ON.len()).position(|w| w == MOUSE_ON);
    let off = out.windows(MOUSE_OFF.len()).rposition(|w| w == MOUSE_OFF);
    assert!(
        matches!((on, off), (Some(a), Some(b)) if b > a),
        "mouse capture turned on, then off again"
    );
    let enter = out.windows(ENTER_ALT.len()).position(|w| w == ENTER_ALT);
    let leave = out.windows(LEAVE_ALT.len()).rposition(|w| w == LEAVE_ALT);
    assert!(
        matches!((enter, leave), (Some(e), Some(l)) if l > e),
        "left the alternate screen after entering it"
    );
    let t = tcgetattr(slave.as_fd()).unwrap();
    assert!(
        t.local_flags
            .contains(LocalFlags::ICANON | LocalFlags::ECHO),
        "line editing and echo are back: {:?}",
        t.local_flags
    );
}

#[test]
fn q_quits_with_status_0_and_restores_the_terminal() {
    let mut s = start();
    s.master.write_all(b"q").unwrap();
    let (code, out, slave) = finish(s);
    assert_eq!(code, Some(0));
    assert_restored(&out, &slave);
}

#[test]
fn a_signal_stops_the_tui_and_restores_the_terminal() {
    for sig in [Signal::SIGTERM, Signal::SIGINT, Signal::SIGHUP] {
        let s = start();
        // In raw mode the terminal sends no signal on Ctrl-C: this is a
        // signal from outside (kill, a closing terminal, a supervisor).
        kill(Pid::from_raw(s.child.id() as i32), sig).unwrap();
        let (code, out, slave) = finish(s);
        assert_eq!(
            code,
            Some(130),
            "{sig}: exit status 130, as headless, not killed"
        );
        assert_restored(&out, &slave);
        let text = String::from_utf8_lossy(&out);
        assert!(
            text.contains(&format!("stopped by {sig}")),
            "{sig}: says why it stopped"
        );
    }
}

/// `--json` and `--trace` with the TUI: written when the session ends, by
/// `q` or by a signal, with what was submitted from the keyboard.
#[test]
fn the_tui_writes_json_and_trace_when_the_session_ends() {
    let dir = tempfile::tempdir().unwrap();
    for sig in [None, Some(Signal::SIGTERM)] {
        let json = dir.path().join("s.json");
        let trace = dir.path().join("t.jsonl");
        let mut s = start_with(&[
            "run",
            "--json",
            json.to_str().unwrap(),
            "--trace",
            trace.to_str().unwrap(),
        ]);
        // Submit a job from the form, and let it start.
        s.master.write_all(b"s").unwrap();
        std::thread::sleep(Duration::from_millis(300));
        s.master.write_all(b"\r").unwrap();
        std::thread::sleep(Duration::from_millis(1500));
        match sig {
            None => s.master.write_all(b"q").unwrap(),
            Some(sig) => kill(Pid::from_raw(s.child.id() as i32), sig).unwrap(),
        }
        let (code, out, slave) = finish(s);
        assert_eq!(code, Some(if sig.is_none() { 0 } else { 130 }));
        assert_restored(&out, &slave);
        let sum: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        assert!(
            sum.to_string().contains("tui-"),
            "the keyboard submission is in the summary: {sum}"
        );
        let t = std::fs::read_to_string(&trace).unwrap();
        assert!(t.lines().count() > 0, "the trace has the attempts so far");
        assert!(t
            .lines()
            .all(|l| serde_json::from_str::<serde_json::Value>(l).is_ok()));
    }
}

/// The terminal goes away under a running TUI (a closed tmux pane, a
/// dropped ssh connection): its writes fail, and the session still leaves
/// its `--json`, partial, rather than an empty file.
#[test]
fn a_vanished_terminal_still_gets_the_sessions_json() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("s.json");
    let pty = pty();
    let json_arg = json.to_str().unwrap();
    let args = ["run", "scenarios/scale-400.toml", "--json", json_arg];
    let mut child = spawn_in(&pty.slave, &args, &[]);
    drop(pty.slave);
    std::thread::sleep(Duration::from_millis(1500));
    // The only master closes: the terminal is gone.
    drop(pty.master);
    let t0 = Instant::now();
    while child.try_wait().unwrap().is_none() {
        assert!(
            t0.elapsed() < Duration::from_secs(20),
            "the TUI did not exit"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let sum: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(sum["partial"], true);
    assert!(sum["stopped_at_s"].as_f64().is_some());
}

#[test]
fn a_panic_restores_the_terminal_and_reports_the_bug() {
    let s = start_with_env(&[], &[("SLOTSIM_TEST_PANIC", "1")]);
    let (code, out, slave) = finish(s);
    assert_eq!(code, Some(1));
    assert_restored(&out, &slave);
    let text = String::from_utf8_lossy(&out);
    assert!(text.contains("internal error"), "{text}");
    // The message comes after the screen is put back, so it stays readable.
    let leave = text.rfind("\x1b[?1049l").unwrap();
    assert!(text.rfind("internal error").unwrap() > leave);
}

/// A recording stopped by a signal ends there with its file complete (a
/// GIF with its trailer, a cast with its last event) and exits 130.
#[test]
fn a_signal_ends_a_recording_with_its_file_complete() {
    let d = tempfile::tempdir().unwrap();
    for (signal, name, out) in [
        (Signal::SIGINT, "SIGINT", "r.gif"),
        (Signal::SIGTERM, "SIGTERM", "r.cast"),
    ] {
        let out = d.path().join(out);
        let child = Command::new(env!("CARGO_BIN_EXE_slotsim"))
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args([
                "record",
                "scenarios/scale-400.toml",
                "--until",
                "30m",
                "--out",
            ])
            .arg(&out)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(1500));
        kill(Pid::from_raw(child.id() as i32), signal).unwrap();
        let o = child.wait_with_output().unwrap();
        assert_eq!(o.status.code(), Some(130), "{name}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(&format!("stopped by {name}: wrote ")), "{err}");
        let bytes = std::fs::read(&out).unwrap();
        if out.extension().is_some_and(|e| e == "gif") {
            assert!(
                bytes.starts_with(b"GIF89a") && bytes.ends_with(b";"),
                "a whole GIF"
            );
        } else {
            let text = String::from_utf8(bytes).unwrap();
            assert!(
                text.lines().last().unwrap().contains("\\u001b[?25h"),
                "the cast's end"
            );
        }
    }
}

/// A headless run stopped by a signal still writes what it was asked for,
/// up to that instant, marked partial, and exits 130; `--plot` into a
/// folder that cannot be made is refused before any simulation.
#[test]
fn a_signal_stops_a_headless_run_with_partial_outputs() {
    let d = tempfile::tempdir().unwrap();
    let json = d.path().join("s.json");
    let trace = d.path().join("t.jsonl");
    for (signal, name) in [(Signal::SIGINT, "SIGINT"), (Signal::SIGTERM, "SIGTERM")] {
        let child = Command::new(env!("CARGO_BIN_EXE_slotsim"))
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(["run", "scenarios/scale-400.toml", "--headless", "--json"])
            .arg(&json)
            .arg("--trace")
            .arg(&trace)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Long enough to be running (scale-400 takes minutes).
        std::thread::sleep(Duration::from_millis(1500));
        kill(Pid::from_raw(child.id() as i32), signal).unwrap();
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(130), "{name}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(&format!("stopped by {name}")), "{err}");
        assert!(String::from_utf8_lossy(&out.stdout).contains("jobs "));
        let sum: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        assert_eq!(sum["partial"], true);
        let at = sum["stopped_at_s"].as_f64().unwrap();
        assert!(at > 0.0 && sum["jobs_finished"].as_u64() < sum["jobs_submitted"].as_u64());
        let lines = std::fs::read_to_string(&trace).unwrap().lines().count();
        assert!(lines > 0);
    }
    let o = Command::new(env!("CARGO_BIN_EXE_slotsim"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "run",
            "scenarios/scale-400.toml",
            "--headless",
            "--plot",
            "/proc/nope/plots",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).starts_with("error: --plot: cannot create"));
}

/// `q` leaves a built-in policy's session to the operating system to free
/// (a big run's records take a quarter of a second), but a policy in
/// another process is still told `end` and waited for.
#[test]
fn q_still_ends_an_external_policy() {
    let dir = tempfile::tempdir().unwrap();
    let (started, ended) = (dir.path().join("started"), dir.path().join("ended"));
    let policy = dir.path().join("pol.py");
    let minimal = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("clients/python/examples/minimal.py"),
    )
    .unwrap();
    // minimal.py, saying when it has heard `start` and `end`.
    let minimal = minimal.replace(
        "        slowstart, unified",
        &format!(
            "        open({:?}, \"w\")\n        slowstart, unified",
            started.to_str().unwrap()
        ),
    );
    std::fs::write(
        &policy,
        format!(
            "{minimal}    elif m[\"type\"] == \"end\":\n        open({:?}, \"w\").write(str(m[\"time_ms\"]))\n",
            ended.to_str().unwrap()
        ),
    )
    .unwrap();
    let spec = format!("external:python3 {}", policy.display());
    let mut s = start_with(&["run", "--policy", &spec]);
    // The engine starts the policy at its first heartbeat with work.
    let t0 = Instant::now();
    while !started.exists() {
        assert!(
            t0.elapsed() < Duration::from_secs(20),
            "the policy never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    s.master.write_all(b"q").unwrap();
    let (code, out, slave) = finish(s);
    assert_eq!(code, Some(0), "{}", String::from_utf8_lossy(&out));
    assert_restored(&out, &slave);
    let said = std::fs::read_to_string(&ended).unwrap_or_else(|e| {
        panic!(
            "the policy was not told `end` ({e}): {}",
            String::from_utf8_lossy(&out)
        )
    });
    assert!(said.parse::<u64>().is_ok(), "{said}");
}

//! The policy's process: started on first use, fed JSON lines on its stdin,
//! its reply lines read by a thread of their own so that a wait for one can
//! time out, and stopped when the policy is dropped (a switch, the run's
//! end): `end`, stdin closed, then killed if it lingers past the timeout.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How many of the process's last stderr lines an error quotes when its
/// stderr is kept rather than passed through.
const STDERR_TAIL: usize = 12;

/// Whether policy processes started from now on keep their stderr (for
/// the TUI, where it would scribble over the screen) instead of passing it
/// through to slotsim's.
static KEEP_STDERR: AtomicBool = AtomicBool::new(false);

/// Policy processes started from now on keep their stderr: its last lines
/// go into the error that stops a run.
pub fn keep_stderr(keep: bool) {
    KEEP_STDERR.store(keep, Ordering::Relaxed);
}

/// Why a wait for a reply ended without one.
pub enum NoReply {
    Timeout,
    /// The process closed its stdout: it exited (its status, if known).
    Exited(String),
}

pub struct Process {
    child: Child,
    stdin: Option<BufWriter<ChildStdin>>,
    replies: Receiver<String>,
    stderr: Option<Arc<Mutex<VecDeque<String>>>>,
}

impl Process {
    pub fn start(argv: &[String]) -> std::io::Result<Process> {
        let keep = KEEP_STDERR.load(Ordering::Relaxed);
        let mut child = Command::new(&argv[0])
            .args(&argv[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(if keep {
                Stdio::piped()
            } else {
                Stdio::inherit()
            })
            .spawn()?;
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, replies) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr = child.stderr.take().map(|err| {
            let tail = Arc::new(Mutex::new(VecDeque::new()));
            let t = tail.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(err).lines() {
                    let Ok(line) = line else { break };
                    if let Ok(mut q) = t.lock() {
                        if q.len() == STDERR_TAIL {
                            q.pop_front();
                        }
                        q.push_back(line);
                    }
                }
            });
            tail
        });
        let stdin = child.stdin.take().map(|s| BufWriter::with_capacity(1 << 16, s));
        Ok(Process {
            child,
            stdin,
            replies,
            stderr,
        })
    }

    /// Queues one line for the process (written when the buffer fills or
    /// at the next [`Process::ask`]).
    pub fn send(&mut self, line: &str) -> std::io::Result<()> {
        let w = self.stdin.as_mut().ok_or(std::io::ErrorKind::BrokenPipe)?;
        w.write_all(line.as_bytes())?;
        w.write_all(b"\n")
    }

    /// Sends `line` and waits up to `timeout` for the reply line.
    pub fn ask(&mut self, line: &str, timeout: Duration) -> Result<String, AskError> {
        // A reply the process wrote unasked is a reply to the wrong message.
        if let Ok(extra) = self.replies.try_recv() {
            return Err(AskError::Unasked(extra));
        }
        let sent = self.send(line).and_then(|_| {
            self.stdin
                .as_mut()
                .ok_or(std::io::ErrorKind::BrokenPipe.into())
                .and_then(|w| w.flush())
        });
        if sent.is_err() {
            return Err(AskError::NoReply(self.gone()));
        }
        match self.replies.recv_timeout(timeout) {
            Ok(reply) => Ok(reply),
            Err(RecvTimeoutError::Timeout) => {
                let _ = self.child.kill();
                Err(AskError::NoReply(NoReply::Timeout))
            }
            Err(RecvTimeoutError::Disconnected) => Err(AskError::NoReply(self.gone())),
        }
    }

    /// The process closed its end: how it exited.
    fn gone(&mut self) -> NoReply {
        let deadline = Instant::now() + Duration::from_secs(2);
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return NoReply::Exited(describe(status)),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(5))
                }
                _ => {
                    let _ = self.child.kill();
                    return NoReply::Exited("it closed its output".into());
                }
            }
        }
    }

    /// The last lines the process wrote on its stderr, when kept.
    pub fn stderr_tail(&self) -> Vec<String> {
        // The reader thread may still be taking the last lines in.
        std::thread::sleep(Duration::from_millis(20));
        self.stderr
            .as_ref()
            .and_then(|t| t.lock().ok().map(|q| q.iter().cloned().collect()))
            .unwrap_or_default()
    }

    /// Sends `end`, closes stdin and waits up to `timeout` for the process
    /// to exit; kills it after that.
    pub fn finish(&mut self, end: &str, timeout: Duration) {
        if let Some(mut w) = self.stdin.take() {
            let _ = w.write_all(end.as_bytes());
            let _ = w.write_all(b"\n");
            let _ = w.flush();
        }
        let deadline = Instant::now() + timeout;
        loop {
            match self.child.try_wait() {
                Ok(Some(_)) => return,
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(2))
                }
                _ => {
                    let _ = self.child.kill();
                    let _ = self.child.wait();
                    return;
                }
            }
        }
    }

    /// Stops the process at once (the run stopped on its fault).
    pub fn kill(&mut self) {
        self.stdin = None;
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub enum AskError {
    NoReply(NoReply),
    /// A line that came before it was asked for.
    Unasked(String),
}

fn describe(status: std::process::ExitStatus) -> String {
    match status.code() {
        Some(c) => format!("the process exited with status {c}"),
        None => format!("the process was stopped ({status})"),
    }
}

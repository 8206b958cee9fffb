//! The policy's process: started on first use, fed JSON lines on its stdin,
//! each reply line awaited up to the timeout (on unix by polling the pipe
//! itself; elsewhere through a reader thread), and stopped when the policy
//! is dropped (a switch, the run's end): `end`, stdin closed, then killed if
//! it lingers past the timeout.
//!
//! Under `slotsim serve` the policy is the caller instead (the command
//! `-`): the same lines go to slotsim's own stdout and the replies come
//! from its stdin, which the caller also sends its resets on ([`Caller`]).

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How many of the process's last stderr lines an error quotes when its
/// stderr is kept rather than passed through.
const STDERR_TAIL: usize = 12;

/// How many kept stderr lines wait for the log at most: a policy that
/// writes faster than the run shows loses the oldest (and the log says how
/// many).
const STDERR_FRESH: usize = 256;

/// A process's stderr, kept: its last lines (for an error) and the lines
/// the log has not shown yet.
#[derive(Default)]
struct Stderr {
    tail: VecDeque<String>,
    fresh: VecDeque<String>,
    dropped: u64,
}

impl Stderr {
    fn push(&mut self, line: String) {
        if self.tail.len() == STDERR_TAIL {
            self.tail.pop_front();
        }
        self.tail.push_back(line.clone());
        if self.fresh.len() == STDERR_FRESH {
            self.fresh.pop_front();
            self.dropped += 1;
        }
        self.fresh.push_back(line);
    }
}

/// Whether policy processes started from now on keep their stderr (for
/// the TUI, where it would scribble over the screen) instead of passing it
/// through to slotsim's.
static KEEP_STDERR: AtomicBool = AtomicBool::new(false);

/// Policy processes started from now on keep their stderr: its last lines
/// go into the error that stops a run.
pub fn keep_stderr(keep: bool) {
    KEEP_STDERR.store(keep, Ordering::Relaxed);
}

/// Whether policy processes started from now on have each line of their
/// stderr passed through with a prefix naming the run (`compare` and
/// `sweep`, whose runs go in parallel and would interleave them).
static PREFIX_STDERR: AtomicBool = AtomicBool::new(false);

/// Policy processes started from now on pass their stderr through line by
/// line, each after the prefix [`Process::start`] is given.
pub fn prefix_stderr(on: bool) {
    PREFIX_STDERR.store(on, Ordering::Relaxed);
}

/// Whether the thread that starts a policy process is pinned, with the
/// process, to the CPU it runs on, until the process ends.
static SHARE_CPU: AtomicBool = AtomicBool::new(false);

/// Policy processes started from now on share one CPU with the run that
/// starts them (Linux). The two take turns, one waiting while the other
/// works, so one CPU loses nothing; and a reply that wakes a thread on the
/// same CPU comes back several times sooner than one that must wake
/// another CPU (docs/performance.md). For a single run (`run`, the TUI),
/// not for parallel ones, whose threads would crowd onto one CPU.
pub fn share_cpu(share: bool) {
    SHARE_CPU.store(share, Ordering::Relaxed);
}

/// The calling thread's CPUs before it was pinned, to give back.
#[cfg(target_os = "linux")]
type Affinity = nix::sched::CpuSet;
#[cfg(not(target_os = "linux"))]
type Affinity = ();

/// Pins the calling thread to the CPU it is on; returns what it had.
#[cfg(target_os = "linux")]
fn pin_here() -> Option<Affinity> {
    use nix::sched::{sched_getaffinity, sched_getcpu, sched_setaffinity, CpuSet};
    use nix::unistd::Pid;
    let before = sched_getaffinity(Pid::from_raw(0)).ok()?;
    let mut one = CpuSet::new();
    one.set(sched_getcpu().ok()?).ok()?;
    sched_setaffinity(Pid::from_raw(0), &one).ok()?;
    Some(before)
}

#[cfg(not(target_os = "linux"))]
fn pin_here() -> Option<Affinity> {
    None
}

#[cfg(target_os = "linux")]
fn unpin(before: &Affinity) {
    let _ = nix::sched::sched_setaffinity(nix::unistd::Pid::from_raw(0), before);
}

#[cfg(not(target_os = "linux"))]
fn unpin(_: &Affinity) {}

/// Why a wait for a reply ended without one.
pub enum NoReply {
    Timeout,
    /// The process closed its stdout: it exited (its status, if known).
    Exited(String),
}

/// The caller of `slotsim serve`: slotsim's own stdin (its resets and its
/// replies) and stdout (the protocol's messages and serve's own lines).
pub struct Caller {
    replies: replies::Replies,
    out: BufWriter<std::io::Stdout>,
}

impl Caller {
    /// The process's own stdin and stdout.
    pub fn stdio() -> std::io::Result<Caller> {
        Ok(Caller {
            replies: replies::Replies::stdin()?,
            out: BufWriter::with_capacity(1 << 16, std::io::stdout()),
        })
    }

    /// The caller's next line, however long it takes; `None` once its
    /// input has closed.
    pub fn next_line(&mut self) -> Option<String> {
        loop {
            match self.replies.next(Duration::from_secs(3600)) {
                Ok(line) => return Some(line),
                Err(replies::Wait::Timeout) => continue,
                Err(_) => return None,
            }
        }
    }

    /// One line to the caller, sent at once.
    pub fn say(&mut self, line: &[u8]) -> std::io::Result<()> {
        self.out.write_all(line)?;
        self.out.write_all(b"\n")?;
        self.out.flush()
    }
}

/// The caller of `slotsim serve`, while it serves: a policy whose command
/// is `-` is the caller.
static CALLER: Mutex<Option<Arc<Mutex<Caller>>>> = Mutex::new(None);

/// From now on the policy `external:-` is `caller` (`slotsim serve`).
pub fn serve_caller(caller: Option<Arc<Mutex<Caller>>>) {
    if let Ok(mut c) = CALLER.lock() {
        *c = caller;
    }
}

/// The other end: a process slotsim started, or the caller of `serve`.
enum Peer {
    Child {
        child: Child,
        stdin: Option<BufWriter<ChildStdin>>,
        replies: replies::Replies,
    },
    Caller(Arc<Mutex<Caller>>),
}

pub struct Process {
    peer: Peer,
    stderr: Option<Arc<Mutex<Stderr>>>,
    /// The run's thread was pinned to the process's CPU: what it had.
    pinned: Option<Affinity>,
}

impl Process {
    /// Starts `argv`; `prefix` names the run on each stderr line where
    /// [`prefix_stderr`] asks for it.
    pub fn start(argv: &[String], prefix: &str) -> std::io::Result<Process> {
        if argv == ["-"] {
            let caller = CALLER.lock().ok().and_then(|c| c.clone()).ok_or_else(|| {
                std::io::Error::other(
                    "the command - is the caller of `slotsim serve`, and this is not a serve; expected a command to run",
                )
            })?;
            return Ok(Process {
                peer: Peer::Caller(caller),
                stderr: None,
                pinned: None,
            });
        }
        let keep = KEEP_STDERR.load(Ordering::Relaxed);
        let prefixed = !keep && PREFIX_STDERR.load(Ordering::Relaxed);
        // The child inherits the thread's CPU at its start.
        let pinned = SHARE_CPU.load(Ordering::Relaxed).then(pin_here).flatten();
        let mut cmd = Command::new(&argv[0]);
        cmd.args(&argv[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(if keep || prefixed {
                Stdio::piped()
            } else {
                Stdio::inherit()
            });
        // A process group of its own: a Ctrl-C or a closed terminal signals
        // the run, which writes its outputs and then ends the policy (`end`,
        // or its stdin closing), rather than kill the policy mid-reply.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let child = cmd.spawn();
        let mut child = match child {
            Ok(c) => c,
            Err(e) => {
                if let Some(p) = &pinned {
                    unpin(p);
                }
                return Err(e);
            }
        };
        let replies = replies::Replies::new(child.stdout.take().expect("piped stdout"))?;
        if prefixed {
            // Passed through whole lines at a time, each named.
            if let Some(err) = child.stderr.take() {
                let prefix = prefix.to_string();
                std::thread::spawn(move || {
                    for line in BufReader::new(err).lines() {
                        let Ok(line) = line else { break };
                        let _ = writeln!(std::io::stderr().lock(), "[{prefix}] {line}");
                    }
                });
            }
        }
        let stderr = child.stderr.take().map(|err| {
            let kept = Arc::new(Mutex::new(Stderr::default()));
            let k = kept.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(err).lines() {
                    let Ok(line) = line else { break };
                    if let Ok(mut k) = k.lock() {
                        k.push(line);
                    }
                }
            });
            kept
        });
        let stdin = child
            .stdin
            .take()
            .map(|s| BufWriter::with_capacity(1 << 16, s));
        Ok(Process {
            peer: Peer::Child {
                child,
                stdin,
                replies,
            },
            stderr,
            pinned,
        })
    }

    /// Queues one line for the process (written when the buffer fills or
    /// at the next [`Process::ask`]).
    pub fn send(&mut self, line: &[u8]) -> std::io::Result<()> {
        match &mut self.peer {
            Peer::Child { stdin, .. } => {
                let w = stdin.as_mut().ok_or(std::io::ErrorKind::BrokenPipe)?;
                w.write_all(line)?;
                w.write_all(b"\n")
            }
            Peer::Caller(c) => {
                let mut c = c.lock().map_err(|_| std::io::ErrorKind::BrokenPipe)?;
                c.out.write_all(line)?;
                c.out.write_all(b"\n")
            }
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match &mut self.peer {
            Peer::Child { stdin, .. } => stdin
                .as_mut()
                .ok_or(std::io::ErrorKind::BrokenPipe)?
                .flush(),
            Peer::Caller(c) => c
                .lock()
                .map_err(|_| std::io::ErrorKind::BrokenPipe)?
                .out
                .flush(),
        }
    }

    fn ready(&mut self) -> Option<String> {
        match &mut self.peer {
            Peer::Child { replies, .. } => replies.ready(),
            Peer::Caller(c) => c.lock().ok()?.replies.ready(),
        }
    }

    fn next(&mut self, timeout: Duration) -> Result<String, replies::Wait> {
        match &mut self.peer {
            Peer::Child { replies, .. } => replies.next(timeout),
            Peer::Caller(c) => match c.lock() {
                Ok(mut c) => c.replies.next(timeout),
                Err(_) => Err(replies::Wait::Closed),
            },
        }
    }

    /// Stops the process slotsim started (none for the caller).
    fn kill_child(&mut self) {
        if let Peer::Child { child, .. } = &mut self.peer {
            let _ = child.kill();
        }
    }

    /// Sends `line` and waits up to `timeout` for the reply line. With
    /// `refuse_early`, a line that came before `line` was sent is refused
    /// as unasked (protocol 1; protocol 2 tells a reply by its sequence
    /// number, so that a line written unasked is refused at the same
    /// message however the pipes' timing falls).
    pub fn ask(
        &mut self,
        line: &[u8],
        timeout: Duration,
        refuse_early: bool,
    ) -> Result<String, AskError> {
        // A reply the process wrote unasked is a reply to the wrong message.
        if refuse_early {
            if let Some(extra) = self.ready() {
                return Err(AskError::Unasked(extra));
            }
        }
        let sent = self.send(line).and_then(|_| self.flush());
        if sent.is_err() {
            return Err(AskError::NoReply(self.gone()));
        }
        match self.next(timeout) {
            Ok(reply) => Ok(reply),
            Err(replies::Wait::Timeout) => {
                self.kill_child();
                Err(AskError::NoReply(NoReply::Timeout))
            }
            Err(replies::Wait::Closed) => Err(AskError::NoReply(self.gone())),
            Err(replies::Wait::TooLong) => {
                self.kill_child();
                Err(AskError::TooLong)
            }
        }
    }

    /// The process closed its end: how it exited.
    fn gone(&mut self) -> NoReply {
        if matches!(self.peer, Peer::Caller(_)) {
            return NoReply::Exited("the caller closed its end (slotsim's stdin)".into());
        }
        match self.exit_within(Duration::from_secs(2)) {
            Some(status) => NoReply::Exited(describe(status)),
            None => NoReply::Exited("it closed its output".into()),
        }
    }

    /// The process's exit status once it has exited, waiting up to
    /// `timeout`; killed (and `None`) if it has not by then.
    fn exit_within(&mut self, timeout: Duration) -> Option<std::process::ExitStatus> {
        let Peer::Child { child, .. } = &mut self.peer else {
            return None;
        };
        let deadline = Instant::now() + timeout;
        loop {
            match child.try_wait() {
                Ok(Some(status)) => return Some(status),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(2))
                }
                _ => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return None;
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
            .and_then(|t| t.lock().ok().map(|k| k.tail.iter().cloned().collect()))
            .unwrap_or_default()
    }

    /// The stderr lines kept since the last call, oldest first.
    pub fn take_new_stderr(&self, out: &mut Vec<String>) {
        if let Some(Ok(mut k)) = self.stderr.as_ref().map(|s| s.lock()) {
            if k.dropped > 0 {
                out.push(format!("({} more lines on stderr not shown)", k.dropped));
                k.dropped = 0;
            }
            out.extend(k.fresh.drain(..));
        }
    }

    /// Sends `end`, closes stdin and waits up to `timeout` for the process
    /// to exit; kills it after that.
    pub fn finish(&mut self, end: &[u8], timeout: Duration) {
        self.release_cpu();
        match &mut self.peer {
            Peer::Child { stdin, .. } => {
                if let Some(mut w) = stdin.take() {
                    let _ = w.write_all(end);
                    let _ = w.write_all(b"\n");
                    let _ = w.flush();
                }
                self.exit_within(timeout);
            }
            // The caller goes on to its next reset.
            Peer::Caller(c) => {
                if let Ok(mut c) = c.lock() {
                    let _ = c.say(end);
                }
            }
        }
    }

    /// The run's thread gets its CPUs back.
    fn release_cpu(&mut self) {
        if let Some(p) = self.pinned.take() {
            unpin(&p);
        }
    }

    /// Stops the process at once (the run stopped on its fault).
    pub fn kill(&mut self) {
        self.release_cpu();
        if let Peer::Child { child, stdin, .. } = &mut self.peer {
            *stdin = None;
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

pub enum AskError {
    NoReply(NoReply),
    /// A reply line longer than `replies::MAX_LINE` bytes.
    TooLong,
    /// A line that came before it was asked for.
    Unasked(String),
}

fn describe(status: std::process::ExitStatus) -> String {
    match status.code() {
        Some(c) => format!("the process exited with status {c}"),
        None => format!("the process was stopped ({status})"),
    }
}

/// The process's reply lines.
mod replies {
    use std::process::ChildStdout;
    use std::time::Duration;

    /// Why no line came.
    pub enum Wait {
        Timeout,
        /// The process closed its stdout.
        Closed,
        /// A line past [`MAX_LINE`] with no end in sight.
        TooLong,
    }

    /// The longest reply line read: a process that writes without ever
    /// ending its line is stopped rather than let fill memory.
    pub const MAX_LINE: usize = 64 << 20;

    /// Reads the pipe itself, waiting in `poll` up to the deadline: the
    /// reply wakes the thread that waits for it, with no thread between.
    #[cfg(unix)]
    pub struct Replies {
        out: std::fs::File,
        buf: Vec<u8>,
        /// Where the next line starts in `buf`.
        start: usize,
        /// No line ends in `buf[start..scanned]`: a long line is searched
        /// once, not again at every read.
        scanned: usize,
        closed: bool,
        /// What one read takes in, kept between reads.
        chunk: Box<[u8]>,
    }

    #[cfg(unix)]
    impl Replies {
        pub fn new(out: ChildStdout) -> std::io::Result<Replies> {
            Ok(Replies::of(std::fs::File::from(
                std::os::fd::OwnedFd::from(out),
            )))
        }

        /// The process's own stdin, read past Rust's buffer (a copy of its
        /// descriptor, which `poll` waits on).
        pub fn stdin() -> std::io::Result<Replies> {
            use std::os::fd::AsFd;
            let fd = std::io::stdin().as_fd().try_clone_to_owned()?;
            Ok(Replies::of(std::fs::File::from(fd)))
        }

        fn of(out: std::fs::File) -> Replies {
            Replies {
                out,
                buf: Vec::new(),
                start: 0,
                scanned: 0,
                closed: false,
                chunk: vec![0; 1 << 16].into_boxed_slice(),
            }
        }

        /// A whole line already read, without waiting.
        pub fn ready(&mut self) -> Option<String> {
            let from = self.scanned.max(self.start);
            let Some(pos) = self.buf[from..].iter().position(|&b| b == b'\n') else {
                self.scanned = self.buf.len();
                return None;
            };
            let end = from + pos;
            let line = String::from_utf8_lossy(&self.buf[self.start..end]).into_owned();
            self.start = end + 1;
            if self.start == self.buf.len() {
                self.buf.clear();
                self.start = 0;
            } else if self.start > 1 << 16 {
                self.buf.drain(..self.start);
                self.start = 0;
            }
            self.scanned = self.start;
            Some(line)
        }

        /// The next line, waiting for it up to `timeout`.
        pub fn next(&mut self, timeout: Duration) -> Result<String, Wait> {
            use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
            use std::io::Read;
            use std::os::fd::AsFd;
            let deadline = std::time::Instant::now() + timeout;
            loop {
                if let Some(line) = self.ready() {
                    return Ok(line);
                }
                if self.closed {
                    return Err(Wait::Closed);
                }
                let left = deadline.saturating_duration_since(std::time::Instant::now());
                if left.is_zero() {
                    return Err(Wait::Timeout);
                }
                let ms = left.as_millis().clamp(1, i32::MAX as u128) as i32;
                let mut fds = [PollFd::new(self.out.as_fd(), PollFlags::POLLIN)];
                match poll(
                    &mut fds,
                    PollTimeout::try_from(ms).unwrap_or(PollTimeout::MAX),
                ) {
                    Ok(0) | Err(nix::errno::Errno::EINTR) => continue,
                    Ok(_) => {}
                    Err(_) => {
                        self.closed = true;
                        continue;
                    }
                }
                if self.buf.len() - self.start > MAX_LINE {
                    return Err(Wait::TooLong);
                }
                match self.out.read(&mut self.chunk) {
                    Ok(0) => self.closed = true,
                    Ok(n) => self.buf.extend_from_slice(&self.chunk[..n]),
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => self.closed = true,
                }
            }
        }
    }

    /// Elsewhere a thread reads the lines into a channel, which is waited
    /// on with a timeout.
    #[cfg(not(unix))]
    pub struct Replies {
        rx: std::sync::mpsc::Receiver<String>,
    }

    #[cfg(not(unix))]
    impl Replies {
        pub fn new(out: ChildStdout) -> std::io::Result<Replies> {
            Ok(Replies::of(out))
        }

        pub fn stdin() -> std::io::Result<Replies> {
            Ok(Replies::of(std::io::stdin()))
        }

        fn of(out: impl std::io::Read + Send + 'static) -> Replies {
            use std::io::BufRead;
            let (tx, rx) = std::sync::mpsc::channel();
            std::thread::spawn(move || {
                for line in std::io::BufReader::new(out).lines() {
                    let Ok(line) = line else { break };
                    if tx.send(line).is_err() {
                        break;
                    }
                }
            });
            Replies { rx }
        }

        pub fn ready(&mut self) -> Option<String> {
            self.rx.try_recv().ok()
        }

        pub fn next(&mut self, timeout: Duration) -> Result<String, Wait> {
            use std::sync::mpsc::RecvTimeoutError;
            self.rx.recv_timeout(timeout).map_err(|e| match e {
                RecvTimeoutError::Timeout => Wait::Timeout,
                RecvTimeoutError::Disconnected => Wait::Closed,
            })
        }
    }
}

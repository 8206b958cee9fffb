//! The interactive loop: a tokio `select!` over crossterm's event stream
//! and a frame tick. Input is handled as it arrives; each tick advances the
//! engine by wall-clock time × speed within a bounded budget and redraws.
//! While paused (or finished) there is no tick, so an idle TUI sleeps.

use super::app::{Action, App};
use super::record::CastWriter;
use super::{keymap, views};
use crossterm::event::{DisableMouseCapture, EnableMouseCapture, Event, EventStream, KeyEventKind};
use futures_util::StreamExt;
use std::io::{self, IsTerminal};
use std::path::Path;
use std::time::{Duration, Instant};

const FRAME: Duration = Duration::from_millis(33);

/// How the loop ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// `q` or Ctrl-C.
    Quit,
    /// A signal asked the process to stop (SIGTERM, SIGHUP, or SIGINT sent
    /// from outside: in raw mode Ctrl-C is a key, not a signal).
    Signal(&'static str),
}

/// Runs the TUI until `q` or a signal; `app` is left as the session ended
/// (for `--json` and `--trace`). The terminal is restored on every
/// exit path: a quit, SIGTERM, SIGHUP or SIGINT (caught, so that the loop
/// ends, a recording is closed and the screen put back before the process
/// exits) and a panic (ratatui's init installs a hook that restores first).
pub fn run(app: &mut App, record: Option<&Path>) -> io::Result<Exit> {
    if !io::stdout().is_terminal() {
        return Err(io::Error::other(
            "the TUI needs a terminal; use --headless to run without one",
        ));
    }
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .enable_io()
        .build()?;
    let mut terminal = ratatui::try_init()?;
    // Clicks select nodes, jobs and views. Mouse capture is turned off
    // again on every way out: here after the loop (a quit or a signal ends
    // it), and by the panic hook below before ratatui's own restores the
    // screen.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let _ = crossterm::execute!(io::stdout(), DisableMouseCapture);
        hook(info);
    }));
    let result = match crossterm::execute!(io::stdout(), EnableMouseCapture) {
        Ok(()) => rt.block_on(event_loop(&mut terminal, app, record)),
        Err(e) => Err(e),
    };
    // Whatever ended the loop, the outputs are the session's.
    app.settle();
    let mouse_off = crossterm::execute!(io::stdout(), DisableMouseCapture);
    let restored = ratatui::try_restore();
    if !matches!(result, Ok(Exit::Quit)) {
        // The terminal may be gone (a closed tmux pane, a dropped ssh):
        // ratatui's drop would report that on a stderr that is gone too,
        // which panics, and the session's outputs would be lost with it.
        std::mem::forget(terminal);
    }
    match result {
        // A signal (a closed terminal's SIGHUP among them) may leave no
        // terminal to restore: that is no reason to lose the session.
        Ok(Exit::Signal(name)) => Ok(Exit::Signal(name)),
        Ok(Exit::Quit) => {
            restored?;
            mouse_off?;
            Ok(Exit::Quit)
        }
        Err(e) => Err(e),
    }
}

/// Resolves when a signal asks the process to stop, with its name.
#[cfg(unix)]
struct Signals {
    term: tokio::signal::unix::Signal,
    hup: tokio::signal::unix::Signal,
    int: tokio::signal::unix::Signal,
}

#[cfg(unix)]
impl Signals {
    fn new() -> io::Result<Signals> {
        use tokio::signal::unix::{signal, SignalKind};
        Ok(Signals {
            term: signal(SignalKind::terminate())?,
            hup: signal(SignalKind::hangup())?,
            int: signal(SignalKind::interrupt())?,
        })
    }

    async fn next(&mut self) -> &'static str {
        tokio::select! {
            _ = self.term.recv() => "SIGTERM",
            _ = self.hup.recv() => "SIGHUP",
            _ = self.int.recv() => "SIGINT",
        }
    }
}

#[cfg(not(unix))]
struct Signals;

#[cfg(not(unix))]
impl Signals {
    fn new() -> io::Result<Signals> {
        Ok(Signals)
    }

    async fn next(&mut self) -> &'static str {
        let _ = tokio::signal::ctrl_c().await;
        "Ctrl-Break"
    }
}

async fn event_loop(
    terminal: &mut ratatui::DefaultTerminal,
    app: &mut App,
    record: Option<&Path>,
) -> io::Result<Exit> {
    let mut signals = Signals::new()?;
    let mut exit = Exit::Quit;
    let mut cast = match record {
        Some(p) => {
            let size = terminal.size()?;
            Some(CastWriter::create(
                p,
                size.width,
                size.height,
                &app.scenario.name,
            )?)
        }
        None => None,
    };
    let started = Instant::now();
    // Two thirds of a frame for the run, the rest to draw and read keys.
    app.frame_budget = Some(FRAME * 2 / 3);
    let mut events = EventStream::new();
    let mut tick = tokio::time::interval(FRAME);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut last = Instant::now();
    // A failpoint for the test that a panic restores the terminal: set,
    // the TUI panics once its first frame is on screen.
    let panic_on_purpose = std::env::var_os("SLOTSIM_TEST_PANIC").is_some();
    let palette = super::palette::Palette::detect();
    app.mono = palette == super::palette::Palette::None;
    loop {
        let completed = terminal.draw(|f| {
            views::render(app, f);
            palette.apply(f.buffer_mut());
        })?;
        if let Some(c) = cast.as_mut() {
            c.frame(started.elapsed().as_secs_f64(), completed.buffer)?;
        }
        if panic_on_purpose {
            panic!("SLOTSIM_TEST_PANIC is set: a panic on purpose");
        }
        let live = app.seeking()
            || (!app.paused && !app.sim().is_finished() && !app.overlay.freezes_clock());
        if !live {
            last = Instant::now();
        }
        tokio::select! {
            ev = events.next() => match ev {
                Some(Ok(Event::Key(k))) if k.kind == KeyEventKind::Press => {
                    if let Some(a) = keymap::action_for(&app.overlay, k) {
                        app.update(a);
                    }
                }
                Some(Ok(Event::Mouse(m))) => {
                    if let Some(a) = keymap::action_for_mouse(app, m) {
                        app.update(a);
                    }
                }
                Some(Ok(_)) => {}
                Some(Err(e)) => return Err(e),
                None => break,
            },
            name = signals.next() => {
                exit = Exit::Signal(name);
                break;
            }
            _ = tick.tick(), if live => {
                let now = Instant::now();
                let dt = now.duration_since(last).as_millis() as u64;
                last = now;
                app.update(Action::Tick(dt));
            }
        }
        if app.quit {
            break;
        }
    }
    if let Some(c) = cast {
        c.finish(started.elapsed().as_secs_f64())?;
    }
    Ok(exit)
}

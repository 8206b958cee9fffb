//! The interactive loop: a tokio `select!` over crossterm's event stream
//! and a frame tick. Input is handled as it arrives; each tick advances the
//! engine by wall-clock time × speed within a bounded budget and redraws.
//! While paused (or finished) there is no tick, so an idle TUI sleeps.

use super::app::{Action, App};
use super::record::CastWriter;
use super::{keymap, views};
use crossterm::event::{Event, EventStream, KeyEventKind};
use futures_util::StreamExt;
use std::io::{self, IsTerminal};
use std::path::Path;
use std::time::{Duration, Instant};

const FRAME: Duration = Duration::from_millis(33);

/// Runs the TUI until `q`. The terminal is restored on every exit path,
/// including a panic (ratatui's init installs a hook that restores first).
pub fn run(app: App, record: Option<&Path>) -> io::Result<()> {
    if !io::stdout().is_terminal() {
        return Err(io::Error::other(
            "the TUI needs a terminal; use --headless to run without one",
        ));
    }
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()?;
    let mut terminal = ratatui::try_init()?;
    let result = rt.block_on(event_loop(&mut terminal, app, record));
    ratatui::try_restore()?;
    result
}

async fn event_loop(
    terminal: &mut ratatui::DefaultTerminal,
    mut app: App,
    record: Option<&Path>,
) -> io::Result<()> {
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
    let mut events = EventStream::new();
    let mut tick = tokio::time::interval(FRAME);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut last = Instant::now();
    loop {
        let completed = terminal.draw(|f| views::render(&app, f))?;
        if let Some(c) = cast.as_mut() {
            c.frame(started.elapsed().as_secs_f64(), completed.buffer)?;
        }
        let live = !app.paused && !app.sim.is_finished();
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
                Some(Ok(_)) => {}
                Some(Err(e)) => return Err(e),
                None => break,
            },
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
    Ok(())
}

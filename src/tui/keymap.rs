//! Keys to actions, in one table. In the submit form every printable
//! character is text (so `q` types a `q` there rather than quitting).

use super::app::{Action, App, Overlay};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};

/// Where a binding applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ctx {
    /// Everywhere.
    Any,
    /// No overlay open.
    Main,
    /// An overlay is open.
    Overlay,
}

/// The bindings: context, key, action, and the help text. An empty help
/// text makes the binding an alternative to the one above it (same
/// context): the help lists them together, `↑/↓ scroll …`.
pub const KEYS: &[(Ctx, KeyCode, Action, &str)] = &[
    (
        Ctx::Any,
        KeyCode::Char('q'),
        Action::Quit,
        "quit (also Ctrl-C; in the submit form q is text)",
    ),
    (
        Ctx::Main,
        KeyCode::Char(' '),
        Action::TogglePause,
        "pause / resume",
    ),
    (
        Ctx::Main,
        KeyCode::Char('.'),
        Action::Step,
        "one heartbeat forward (paused)",
    ),
    (Ctx::Main, KeyCode::Char('+'), Action::SpeedUp, "faster"),
    (Ctx::Main, KeyCode::Char('='), Action::SpeedUp, ""),
    (Ctx::Main, KeyCode::Char('-'), Action::SpeedDown, "slower"),
    (
        Ctx::Main,
        KeyCode::Tab,
        Action::NextView,
        "next / previous view",
    ),
    (Ctx::Main, KeyCode::BackTab, Action::PrevView, ""),
    (
        Ctx::Main,
        KeyCode::Char('p'),
        Action::OpenPicker,
        "policy picker",
    ),
    (
        Ctx::Main,
        KeyCode::Char('s'),
        Action::OpenSubmit,
        "submit a job",
    ),
    (
        Ctx::Main,
        KeyCode::Char('i'),
        Action::OpenInspector,
        "inspector",
    ),
    (Ctx::Main, KeyCode::Char('?'), Action::OpenHelp, "help"),
    (
        Ctx::Main,
        KeyCode::Char('1'),
        Action::GotoView(0),
        "Overview, Cluster, Jobs, Pools, Timeline, Network",
    ),
    (Ctx::Main, KeyCode::Char('2'), Action::GotoView(1), ""),
    (Ctx::Main, KeyCode::Char('3'), Action::GotoView(2), ""),
    (Ctx::Main, KeyCode::Char('4'), Action::GotoView(3), ""),
    (Ctx::Main, KeyCode::Char('5'), Action::GotoView(4), ""),
    (Ctx::Main, KeyCode::Char('6'), Action::GotoView(5), ""),
    (
        Ctx::Main,
        KeyCode::Up,
        Action::Up,
        "select a job (Overview, Jobs), a rack's node (Cluster); scroll the Timeline",
    ),
    (Ctx::Main, KeyCode::Down, Action::Down, ""),
    (
        Ctx::Main,
        KeyCode::Left,
        Action::Left,
        "select the previous / next node (Overview, Cluster)",
    ),
    (Ctx::Main, KeyCode::Right, Action::Right, ""),
    (
        Ctx::Main,
        KeyCode::Enter,
        Action::Enter,
        "the selected job's tasks (Overview, Jobs)",
    ),
    (
        Ctx::Main,
        KeyCode::Char('n'),
        Action::NextRun,
        "side by side: the next run has the keys (p, i)",
    ),
    (
        Ctx::Main,
        KeyCode::Char('W'),
        Action::SaveSession,
        "write the session as a scenario that replays it",
    ),
    (
        Ctx::Main,
        KeyCode::Char('f'),
        Action::FailNode,
        "fail the selected node",
    ),
    (
        Ctx::Main,
        KeyCode::Char('r'),
        Action::RecoverNode,
        "recover the selected node",
    ),
    (
        Ctx::Main,
        KeyCode::Char('/'),
        Action::OpenFilter,
        "filter the Jobs view by job name or pool (Enter keeps, Esc clears)",
    ),
    (
        Ctx::Main,
        KeyCode::Char('o'),
        Action::CycleSort,
        "Jobs view order: submit, progress, name, then every column (a click on a header sorts by it)",
    ),
    (
        Ctx::Main,
        KeyCode::Char('O'),
        Action::ReverseSort,
        "reverse the Jobs view's order",
    ),
    (
        Ctx::Main,
        KeyCode::Char('['),
        Action::SeekBack,
        "seek back / forward a twentieth of the run so far (at least 10 s)",
    ),
    (Ctx::Main, KeyCode::Char(']'), Action::SeekForward, ""),
    (Ctx::Main, KeyCode::Esc, Action::Close, "cancel a seek under way; else clear the Jobs filter"),
    (
        Ctx::Main,
        KeyCode::Char('l'),
        Action::OpenLog,
        "the whole log, searched as you type (esc closes)",
    ),
    (
        Ctx::Main,
        KeyCode::Char('K'),
        Action::KillJob,
        "kill the selected job (asks y / n)",
    ),
    (
        Ctx::Main,
        KeyCode::Char('>'),
        Action::RaisePriority,
        "raise / lower the selected job's priority",
    ),
    (Ctx::Main, KeyCode::Char('<'), Action::LowerPriority, ""),
    (
        Ctx::Main,
        KeyCode::Char('m'),
        Action::MoveJob,
        "move the selected job to another pool",
    ),
    (
        Ctx::Any,
        KeyCode::PageUp,
        Action::PageUp,
        "a page up / down",
    ),
    (Ctx::Any, KeyCode::PageDown, Action::PageDown, ""),
    (Ctx::Any, KeyCode::Home, Action::Home, "first / last rows"),
    (Ctx::Any, KeyCode::End, Action::End, ""),
    (Ctx::Overlay, KeyCode::Esc, Action::Close, "close / cancel"),
    (
        Ctx::Overlay,
        KeyCode::Enter,
        Action::Enter,
        "apply / submit",
    ),
    (
        Ctx::Overlay,
        KeyCode::Up,
        Action::Up,
        "move in the picker and form; scroll the inspector's jobs (also k/j)",
    ),
    (Ctx::Overlay, KeyCode::Down, Action::Down, ""),
    (
        Ctx::Overlay,
        KeyCode::Left,
        Action::Left,
        "previous / next choice; inspector: older / newer heartbeat",
    ),
    (Ctx::Overlay, KeyCode::Right, Action::Right, ""),
    (
        Ctx::Overlay,
        KeyCode::Char('['),
        Action::ColsLeft,
        "inspector: columns left / right",
    ),
    (Ctx::Overlay, KeyCode::Char(']'), Action::ColsRight, ""),
    (
        Ctx::Overlay,
        KeyCode::Tab,
        Action::NextField,
        "form: next / previous field",
    ),
    (Ctx::Overlay, KeyCode::BackTab, Action::PrevField, ""),
    (
        Ctx::Overlay,
        KeyCode::Backspace,
        Action::Backspace,
        "form: delete a character",
    ),
];

/// The action a mouse event means, through what the last frame drew
/// where: a left click selects the node, job or view under it; the wheel
/// moves like ↑/↓.
pub fn action_for_mouse(app: &App, ev: MouseEvent) -> Option<Action> {
    match ev.kind {
        MouseEventKind::Down(MouseButton::Left) if matches!(app.overlay, Overlay::None) => {
            app.click_at(ev.column, ev.row)
        }
        MouseEventKind::ScrollUp => Some(Action::Up),
        MouseEventKind::ScrollDown => Some(Action::Down),
        _ => None,
    }
}

/// A key's name as the help and footer write it.
pub fn key_name(code: KeyCode) -> String {
    match code {
        KeyCode::Char(' ') => "space".into(),
        KeyCode::Char(c) => c.to_string(),
        KeyCode::Tab => "tab".into(),
        KeyCode::BackTab => "⇧tab".into(),
        KeyCode::Esc => "esc".into(),
        KeyCode::Enter => "enter".into(),
        KeyCode::Backspace => "⌫".into(),
        KeyCode::Up => "↑".into(),
        KeyCode::Down => "↓".into(),
        KeyCode::Left => "←".into(),
        KeyCode::Right => "→".into(),
        KeyCode::PageUp => "PgUp".into(),
        KeyCode::PageDown => "PgDn".into(),
        KeyCode::Home => "Home".into(),
        KeyCode::End => "End".into(),
        other => format!("{other:?}"),
    }
}

/// The help's lines from [`KEYS`]: each binding with its alternatives
/// (`↑/↓`), and bindings whose keys read the same in different contexts
/// on one line.
pub fn help_entries() -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut i = 0;
    while i < KEYS.len() {
        let (ctx, code, _, text) = &KEYS[i];
        let mut names = vec![key_name(*code)];
        let mut j = i + 1;
        while j < KEYS.len() && KEYS[j].3.is_empty() && KEYS[j].0 == *ctx {
            names.push(key_name(KEYS[j].1));
            j += 1;
        }
        i = j;
        if text.is_empty() {
            continue;
        }
        let keys = names.join("/");
        match out.iter_mut().find(|e| e.0 == keys) {
            Some(e) => {
                e.1.push_str("; ");
                e.1.push_str(text);
            }
            None => out.push((keys, text.to_string())),
        }
    }
    out
}

/// The action a key means in this state, if any.
pub fn action_for(overlay: &Overlay, key: KeyEvent) -> Option<Action> {
    if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c') {
        return Some(Action::Quit);
    }
    let in_form = matches!(
        overlay,
        Overlay::Submit(_) | Overlay::Filter { .. } | Overlay::Log { .. }
    );
    let ctx = if matches!(overlay, Overlay::None) {
        Ctx::Main
    } else {
        Ctx::Overlay
    };
    // In the form every printable character is text, `q` included: typing
    // must never quit and lose the run (Esc cancels, Ctrl-C still quits).
    // The form decides what a field accepts.
    if in_form
        && !key
            .modifiers
            .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
    {
        if let KeyCode::Char(ch) = key.code {
            return Some(Action::Char(ch));
        }
    }
    for (c, code, action, _) in KEYS {
        if *code == key.code && (*c == Ctx::Any || *c == ctx) {
            return Some(action.clone());
        }
    }
    if ctx == Ctx::Overlay {
        // The overlay's own keys (pause, step and speed in the inspector, ? and i to toggle).
        match key.code {
            KeyCode::Char(' ') if !in_form => return Some(Action::TogglePause),
            KeyCode::Char('.') if !in_form => return Some(Action::Step),
            KeyCode::Char('?') if !in_form => return Some(Action::OpenHelp),
            KeyCode::Char('+' | '=') if !in_form => return Some(Action::SpeedUp),
            KeyCode::Char('-') if !in_form => return Some(Action::SpeedDown),
            KeyCode::Char('i') if !in_form => return Some(Action::OpenInspector),
            KeyCode::Char(ch) => return Some(Action::Char(ch)),
            _ => {}
        }
    }
    None
}

/// Parses a key name as `record --keys` takes them: a single character,
/// or Enter, Esc, Tab, BackTab, Space, Up, Down, Left, Right, Backspace,
/// PageUp, PageDown, Home, End.
pub fn parse_key(name: &str) -> Option<KeyEvent> {
    let code = match name {
        "Enter" => KeyCode::Enter,
        "Esc" => KeyCode::Esc,
        "Tab" => KeyCode::Tab,
        "BackTab" => KeyCode::BackTab,
        "Space" => KeyCode::Char(' '),
        "Up" => KeyCode::Up,
        "Down" => KeyCode::Down,
        "Left" => KeyCode::Left,
        "Right" => KeyCode::Right,
        "Backspace" => KeyCode::Backspace,
        "PageUp" => KeyCode::PageUp,
        "PageDown" => KeyCode::PageDown,
        "Home" => KeyCode::Home,
        "End" => KeyCode::End,
        s if s.chars().count() == 1 => KeyCode::Char(s.chars().next()?),
        _ => return None,
    };
    Some(KeyEvent::new(code, KeyModifiers::NONE))
}

//! asciinema v2 recordings. The same writer serves `run --record` (live,
//! wall-clock timestamps) and `slotsim record` (offscreen, timestamps from
//! the frame count, so the file depends only on scenario, seed and keys).
//!
//! Each frame writes only the rows that changed since the previous one, as
//! cursor moves plus SGR-coloured text.

use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

pub struct CastWriter {
    out: BufWriter<File>,
    prev: Option<Buffer>,
}

impl CastWriter {
    pub fn create(path: &Path, width: u16, height: u16, title: &str) -> io::Result<CastWriter> {
        let mut out = BufWriter::new(File::create(path)?);
        let header = serde_json::json!({
            "version": 2,
            "width": width,
            "height": height,
            "title": title,
            "env": { "TERM": "xterm-256color", "SHELL": "/bin/sh" },
        });
        writeln!(out, "{header}")?;
        Ok(CastWriter { out, prev: None })
    }

    /// Writes `buf` as the screen at `t` seconds from the start.
    pub fn frame(&mut self, t: f64, buf: &Buffer) -> io::Result<()> {
        let mut data = String::new();
        let full = self.prev.as_ref().is_none_or(|p| p.area != buf.area);
        if full {
            data.push_str("\x1b[?25l\x1b[2J");
        }
        for y in 0..buf.area.height {
            let changed = full || self.prev.as_ref().is_some_and(|p| row_differs(p, buf, y));
            if changed {
                data.push_str(&format!("\x1b[{};1H", y + 1));
                data.push_str(&row_ansi(buf, y));
            }
        }
        if !data.is_empty() {
            let ev = serde_json::json!([round3(t), "o", data]);
            writeln!(self.out, "{ev}")?;
        }
        self.prev = Some(buf.clone());
        Ok(())
    }

    pub fn finish(mut self, t: f64) -> io::Result<()> {
        let ev = serde_json::json!([round3(t), "o", "\x1b[0m\x1b[?25h"]);
        writeln!(self.out, "{ev}")?;
        self.out.flush()
    }
}

fn round3(t: f64) -> f64 {
    (t * 1000.0).round() / 1000.0
}

fn row_differs(a: &Buffer, b: &Buffer, y: u16) -> bool {
    (0..b.area.width).any(|x| a.cell((x, y)) != b.cell((x, y)))
}

fn sgr_color(c: Color, fg: bool) -> String {
    let base = if fg { 30 } else { 40 };
    match c {
        Color::Reset => format!("{}", if fg { 39 } else { 49 }),
        Color::Black => format!("{}", base),
        Color::Red => format!("{}", base + 1),
        Color::Green => format!("{}", base + 2),
        Color::Yellow => format!("{}", base + 3),
        Color::Blue => format!("{}", base + 4),
        Color::Magenta => format!("{}", base + 5),
        Color::Cyan => format!("{}", base + 6),
        Color::Gray => format!("{}", base + 7),
        Color::DarkGray => format!("{}", base + 60),
        Color::LightRed => format!("{}", base + 61),
        Color::LightGreen => format!("{}", base + 62),
        Color::LightYellow => format!("{}", base + 63),
        Color::LightBlue => format!("{}", base + 64),
        Color::LightMagenta => format!("{}", base + 65),
        Color::LightCyan => format!("{}", base + 66),
        Color::White => format!("{}", base + 67),
        Color::Rgb(r, g, b) => format!("{};2;{r};{g};{b}", if fg { 38 } else { 48 }),
        Color::Indexed(i) => format!("{};5;{i}", if fg { 38 } else { 48 }),
    }
}

/// One row as text with SGR escapes, starting from a reset.
pub fn row_ansi(buf: &Buffer, y: u16) -> String {
    let mut s = String::from("\x1b[0m");
    let mut cur: Option<(Color, Color, Modifier)> = None;
    for x in 0..buf.area.width {
        let Some(cell) = buf.cell((x, y)) else {
            continue;
        };
        let style = (cell.fg, cell.bg, cell.modifier);
        if cur != Some(style) {
            let mut codes = vec![
                "0".to_string(),
                sgr_color(cell.fg, true),
                sgr_color(cell.bg, false),
            ];
            if cell.modifier.contains(Modifier::BOLD) {
                codes.push("1".into());
            }
            if cell.modifier.contains(Modifier::REVERSED) {
                codes.push("7".into());
            }
            s.push_str(&format!("\x1b[{}m", codes.join(";")));
            cur = Some(style);
        }
        s.push_str(cell.symbol());
    }
    s.push_str("\x1b[0m");
    s
}

/// Plain text of a buffer, one line per row (for tests and snapshots).
pub fn buffer_text(buf: &Buffer) -> String {
    let mut out = String::new();
    for y in 0..buf.area.height {
        let mut line = String::new();
        for x in 0..buf.area.width {
            if let Some(c) = buf.cell((x, y)) {
                line.push_str(c.symbol());
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

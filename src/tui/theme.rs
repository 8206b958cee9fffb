//! The one theme: colours and glyphs, so every view looks like one program.

use ratatui::style::{Color, Modifier, Style};

/// Job colours, picked by job id. Bright enough on dark and light
/// backgrounds, distinct enough for neighbouring ids.
pub const JOB_COLORS: [Color; 12] = [
    Color::Rgb(0x4e, 0x9a, 0xf1),
    Color::Rgb(0xf5, 0x9e, 0x0b),
    Color::Rgb(0x10, 0xb9, 0x81),
    Color::Rgb(0xef, 0x44, 0x44),
    Color::Rgb(0xa8, 0x55, 0xf7),
    Color::Rgb(0x14, 0xb8, 0xa6),
    Color::Rgb(0xec, 0x48, 0x99),
    Color::Rgb(0x84, 0xcc, 0x16),
    Color::Rgb(0xf9, 0x73, 0x16),
    Color::Rgb(0x63, 0x66, 0xf1),
    Color::Rgb(0xea, 0xb3, 0x08),
    Color::Rgb(0x06, 0xb6, 0xd4),
];

pub fn job_color(job: u32) -> Color {
    JOB_COLORS[job as usize % JOB_COLORS.len()]
}

/// A job's letter (or a pool's, when slots are drawn by pool) where
/// colours are not shown (`NO_COLOR`): a capital for a map, a small letter
/// for a reduce. Letters repeat every 26 ids, colours every 12.
pub fn job_letter(id: u32, reduce: bool) -> char {
    let c = (b'A' + (id % 26) as u8) as char;
    if reduce {
        c.to_ascii_lowercase()
    } else {
        c
    }
}

pub const ACCENT: Color = Color::Rgb(0x4e, 0x9a, 0xf1);
pub const DIM: Color = Color::Rgb(0x80, 0x80, 0x80);
pub const WARN: Color = Color::Rgb(0xef, 0x44, 0x44);
pub const OK: Color = Color::Rgb(0x10, 0xb9, 0x81);

pub const MAP: char = '█';
pub const SHUFFLE: char = '▒';
pub const REDUCE: char = '▓';
pub const FREE: char = '·';
pub const DEAD: char = '✗';
/// YARN: an ApplicationMaster's container, a node reserved for an
/// application's container that did not fit, and the mark between a
/// node's memory cells and its vcore cells.
pub const AM: char = '◆';
pub const RESERVED: char = 'R';
pub const SPLIT: char = '│';

pub fn title() -> Style {
    Style::default().fg(ACCENT).add_modifier(Modifier::BOLD)
}

pub fn dim() -> Style {
    Style::default().fg(DIM)
}

pub fn key() -> Style {
    Style::default().fg(Color::Black).bg(ACCENT)
}

pub fn selected() -> Style {
    Style::default()
        .fg(Color::Black)
        .bg(ACCENT)
        .add_modifier(Modifier::BOLD)
}

/// The selected node or job: drawn reversed, whatever its colour.
pub fn cursor() -> Style {
    Style::default().add_modifier(Modifier::REVERSED | Modifier::BOLD)
}

//! How many colours the terminal shows. The theme is written in 24-bit
//! colour; on a terminal that does not say it has that (`COLORTERM` =
//! `truecolor` or `24bit`), each frame's colours are mapped to the nearest
//! of xterm's 256 (or, when `TERM` names no 256-colour terminal, of the 16
//! ANSI ones) before it is drawn, and with `NO_COLOR` set (no-color.org)
//! to none at all: what had a background colour (the selection, the key
//! hints) is drawn reversed instead, so it still stands out.

use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Palette {
    TrueColor,
    Indexed256,
    Ansi16,
    None,
}

impl Palette {
    /// From the environment, as terminal programs read it.
    pub fn detect() -> Palette {
        let var = |k: &str| std::env::var(k).unwrap_or_default();
        Palette::from_env(&var("NO_COLOR"), &var("COLORTERM"), &var("TERM"))
    }

    pub fn from_env(no_color: &str, colorterm: &str, term: &str) -> Palette {
        if !no_color.is_empty() {
            Palette::None
        } else if matches!(colorterm, "truecolor" | "24bit") {
            Palette::TrueColor
        } else if term.contains("256color") || term.is_empty() {
            Palette::Indexed256
        } else if term == "dumb" {
            Palette::None
        } else {
            Palette::Ansi16
        }
    }

    /// Maps every cell of `buf` to this palette.
    pub fn apply(self, buf: &mut Buffer) {
        if self == Palette::TrueColor {
            return;
        }
        for cell in buf.content.iter_mut() {
            if self == Palette::None {
                if !matches!(cell.bg, Color::Reset) {
                    cell.modifier.insert(Modifier::REVERSED);
                }
                cell.fg = Color::Reset;
                cell.bg = Color::Reset;
                continue;
            }
            cell.fg = self.map(cell.fg);
            cell.bg = self.map(cell.bg);
        }
    }

    fn map(self, c: Color) -> Color {
        let Color::Rgb(r, g, b) = c else {
            return c;
        };
        match self {
            Palette::Indexed256 => Color::Indexed(xterm256(r, g, b)),
            Palette::Ansi16 => ansi16(r, g, b),
            Palette::TrueColor | Palette::None => c,
        }
    }
}

/// The levels of xterm's 6×6×6 colour cube.
const CUBE: [u8; 6] = [0, 95, 135, 175, 215, 255];

fn dist(a: (u8, u8, u8), b: (u8, u8, u8)) -> u32 {
    let d = |x: u8, y: u8| (i32::from(x) - i32::from(y)).pow(2) as u32;
    d(a.0, b.0) + d(a.1, b.1) + d(a.2, b.2)
}

/// The nearest of xterm's 256 colours: the nearest cube colour or the
/// nearest of the 24 greys, whichever is closer.
pub fn xterm256(r: u8, g: u8, b: u8) -> u8 {
    let level = |v: u8| {
        (0..6)
            .min_by_key(|&i| (i32::from(CUBE[i]) - i32::from(v)).abs())
            .unwrap_or(0)
    };
    let (ri, gi, bi) = (level(r), level(g), level(b));
    let cube = (CUBE[ri], CUBE[gi], CUBE[bi]);
    let avg = (u32::from(r) + u32::from(g) + u32::from(b)) / 3;
    let gi_ = ((avg.saturating_sub(8) + 5) / 10).min(23) as u8;
    let grey = 8 + 10 * gi_;
    let rgb = (r, g, b);
    if dist(rgb, (grey, grey, grey)) < dist(rgb, cube) {
        232 + gi_
    } else {
        16 + 36 * ri as u8 + 6 * gi as u8 + bi as u8
    }
}

/// The nearest of the 16 ANSI colours (xterm's default values).
fn ansi16(r: u8, g: u8, b: u8) -> Color {
    const ANSI: [(Color, (u8, u8, u8)); 16] = [
        (Color::Black, (0, 0, 0)),
        (Color::Red, (205, 0, 0)),
        (Color::Green, (0, 205, 0)),
        (Color::Yellow, (205, 205, 0)),
        (Color::Blue, (0, 0, 238)),
        (Color::Magenta, (205, 0, 205)),
        (Color::Cyan, (0, 205, 205)),
        (Color::Gray, (229, 229, 229)),
        (Color::DarkGray, (127, 127, 127)),
        (Color::LightRed, (255, 0, 0)),
        (Color::LightGreen, (0, 255, 0)),
        (Color::LightYellow, (255, 255, 0)),
        (Color::LightBlue, (92, 92, 255)),
        (Color::LightMagenta, (255, 0, 255)),
        (Color::LightCyan, (0, 255, 255)),
        (Color::White, (255, 255, 255)),
    ];
    ANSI.iter()
        .min_by_key(|(_, v)| dist((r, g, b), *v))
        .map_or(Color::Reset, |(c, _)| *c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::layout::Rect;
    use ratatui::style::Style;

    #[test]
    fn the_environment_decides_the_palette() {
        assert_eq!(
            Palette::from_env("1", "truecolor", "xterm-256color"),
            Palette::None
        );
        assert_eq!(
            Palette::from_env("", "truecolor", "xterm"),
            Palette::TrueColor
        );
        assert_eq!(
            Palette::from_env("", "", "tmux-256color"),
            Palette::Indexed256
        );
        assert_eq!(Palette::from_env("", "", "linux"), Palette::Ansi16);
        assert_eq!(Palette::from_env("", "", "dumb"), Palette::None);
    }

    #[test]
    fn xterm_256_maps_cube_and_grey_exactly() {
        assert_eq!(xterm256(0, 0, 0), 16);
        assert_eq!(xterm256(255, 255, 255), 231);
        assert_eq!(xterm256(95, 135, 175), 16 + 36 + 2 * 6 + 3);
        assert_eq!(xterm256(0x80, 0x80, 0x80), 244);
        // The theme's accent, a blue, stays a blue.
        let i = xterm256(0x4e, 0x9a, 0xf1) - 16;
        assert!(i % 6 > i / 36, "{i}");
    }

    #[test]
    fn no_color_keeps_what_stood_out_by_reversing_it() {
        let mut buf = Buffer::empty(Rect::new(0, 0, 2, 1));
        buf.set_string(0, 0, "a", Style::default().fg(Color::Rgb(1, 2, 3)));
        buf.set_string(1, 0, "b", Style::default().bg(Color::Rgb(0x4e, 0x9a, 0xf1)));
        Palette::None.apply(&mut buf);
        for c in &buf.content {
            assert_eq!((c.fg, c.bg), (Color::Reset, Color::Reset));
        }
        assert!(!buf.content[0].modifier.contains(Modifier::REVERSED));
        assert!(buf.content[1].modifier.contains(Modifier::REVERSED));
        let mut buf = Buffer::empty(Rect::new(0, 0, 1, 1));
        buf.set_string(0, 0, "c", Style::default().fg(Color::Rgb(0xef, 0x44, 0x44)));
        Palette::Ansi16.apply(&mut buf);
        assert_eq!(buf.content[0].fg, Color::LightRed);
    }
}

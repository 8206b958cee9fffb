//! `slotsim record --out FILE.gif`: the TUI's frames drawn as pixels by
//! slotsim itself, with a monospace font built into the binary (DejaVu
//! Sans Mono, assets/fonts), so that a demo needs no terminal, player or
//! converter. Box-drawing lines, block elements and braille dots are drawn
//! as rectangles, as terminals draw them, so that borders join and bars
//! and charts fill their cells exactly; every other character is the
//! font's glyph, its coverage kept to four levels (so that a frame's
//! colours stay few).
//!
//! The file is small because a frame holds only what changed: a screen
//! equal to the previous one lengthens that one's delay, and a changed one
//! is the rectangle around its changed cells, its unchanged pixels
//! transparent. Nothing depends on anything but the frames, so the same
//! recording gives the same bytes.

use ratatui::buffer::{Buffer, Cell};
use ratatui::style::{Color, Modifier};
use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufWriter};
use std::path::Path;

static FONT: &[u8] = include_bytes!("../../assets/fonts/DejaVuSansMono.ttf");

/// A cell's size in pixels, and the font's size: DejaVu Sans Mono's
/// advance is 0.602 em and its line 1.164 em, so 15 px fill 9 × 18.
const CELL_W: usize = 9;
const CELL_H: usize = 18;
const FONT_PX: f32 = 15.0;
/// The baseline's distance from the cell's top (the font's ascent, 0.928 em).
const BASELINE: i32 = 14;

/// The terminal's default colours (asciinema's player theme), for cells
/// whose colour is `Reset`.
const DEFAULT_FG: Rgb = [0xcc, 0xcc, 0xcc];
const DEFAULT_BG: Rgb = [0x12, 0x13, 0x14];

type Rgb = [u8; 3];

/// A rasterised glyph: coverage 0–3 per pixel, placed relative to the
/// cell's top left.
struct Glyph {
    x: i32,
    y: i32,
    w: usize,
    h: usize,
    cover: Vec<u8>,
}

/// What the GIF shows so far, and the frame waiting for its delay.
pub struct GifWriter {
    enc: gif::Encoder<BufWriter<File>>,
    font: fontdue::Font,
    glyphs: HashMap<(char, bool), Glyph>,
    cols: usize,
    rows: usize,
    prev: Option<Buffer>,
    /// The screen as the frames written so far (and the pending one) draw it.
    shown: Vec<Rgb>,
    pending: Option<Pending>,
}

struct Pending {
    /// Centiseconds from the start.
    at_cs: u64,
    left: u16,
    top: u16,
    width: u16,
    height: u16,
    pixels: Vec<u8>,
    palette: Vec<u8>,
    transparent: Option<u8>,
}

fn gif_err(e: gif::EncodingError) -> io::Error {
    match e {
        gif::EncodingError::Io(e) => e,
        e => io::Error::other(e.to_string()),
    }
}

impl GifWriter {
    pub fn create(path: &Path, cols: u16, rows: u16) -> io::Result<GifWriter> {
        let (w, h) = (cols as usize * CELL_W, rows as usize * CELL_H);
        let font = fontdue::Font::from_bytes(FONT, fontdue::FontSettings::default())
            .map_err(io::Error::other)?;
        let out = BufWriter::new(File::create(path)?);
        let mut enc = gif::Encoder::new(out, w as u16, h as u16, &[]).map_err(gif_err)?;
        enc.set_repeat(gif::Repeat::Infinite).map_err(gif_err)?;
        Ok(GifWriter {
            enc,
            font,
            glyphs: HashMap::new(),
            cols: cols as usize,
            rows: rows as usize,
            prev: None,
            shown: vec![DEFAULT_BG; w * h],
            pending: None,
        })
    }

    fn width_px(&self) -> usize {
        self.cols * CELL_W
    }

    /// `buf` as the screen from `t_ms` on.
    pub fn frame(&mut self, t_ms: u64, buf: &Buffer) -> io::Result<()> {
        let first = self.prev.is_none();
        if self.prev.as_ref() == Some(buf) {
            return Ok(());
        }
        // The changed cells' bounding box.
        let (mut x0, mut y0, mut x1, mut y1) = (usize::MAX, usize::MAX, 0, 0);
        for y in 0..self.rows {
            for x in 0..self.cols {
                let cell = &buf[(x as u16, y as u16)];
                let same = self
                    .prev
                    .as_ref()
                    .is_some_and(|p| &p[(x as u16, y as u16)] == cell);
                if !same {
                    x0 = x0.min(x);
                    y0 = y0.min(y);
                    x1 = x1.max(x + 1);
                    y1 = y1.max(y + 1);
                }
            }
        }
        if x0 == usize::MAX {
            self.prev = Some(buf.clone());
            return Ok(());
        }
        if first {
            (x0, y0, x1, y1) = (0, 0, self.cols, self.rows);
        }
        // The new pixels of the box, drawn cell by cell.
        let (bw, bh) = ((x1 - x0) * CELL_W, (y1 - y0) * CELL_H);
        let mut px = vec![DEFAULT_BG; bw * bh];
        for y in y0..y1 {
            for x in x0..x1 {
                let cell = &buf[(x as u16, y as u16)];
                self.draw_cell(cell, &mut px, bw, (x - x0) * CELL_W, (y - y0) * CELL_H);
            }
        }
        // Indices: unchanged pixels transparent (but in the first frame).
        let full_w = self.width_px();
        let mut colours: HashMap<Rgb, u8> = HashMap::new();
        let mut palette: Vec<u8> = Vec::new();
        let transparent = if first { None } else { Some(0u8) };
        if transparent.is_some() {
            palette.extend_from_slice(&[0, 0, 0]);
        }
        let mut pixels = Vec::with_capacity(bw * bh);
        for (i, c) in px.iter().enumerate() {
            let (dx, dy) = (i % bw, i / bw);
            let at = (y0 * CELL_H + dy) * full_w + x0 * CELL_W + dx;
            if !first && self.shown[at] == *c {
                pixels.push(0);
                continue;
            }
            self.shown[at] = *c;
            let idx = match colours.get(c) {
                Some(&i) => i,
                None if palette.len() < 256 * 3 => {
                    let i = (palette.len() / 3) as u8;
                    palette.extend_from_slice(c);
                    colours.insert(*c, i);
                    i
                }
                // A full palette: the nearest colour it has.
                None => nearest(&palette, transparent.is_some(), *c),
            };
            pixels.push(idx);
        }
        let frame = Pending {
            at_cs: t_ms / 10,
            left: (x0 * CELL_W) as u16,
            top: (y0 * CELL_H) as u16,
            width: bw as u16,
            height: bh as u16,
            pixels,
            palette,
            transparent,
        };
        if let Some(p) = self.pending.replace(frame) {
            let until = self.pending.as_ref().map_or(p.at_cs, |n| n.at_cs);
            self.write(p, until)?;
        }
        self.prev = Some(buf.clone());
        Ok(())
    }

    fn write(&mut self, p: Pending, until_cs: u64) -> io::Result<()> {
        let delay = until_cs.saturating_sub(p.at_cs).clamp(2, u16::MAX as u64) as u16;
        let mut frame = gif::Frame {
            delay,
            dispose: gif::DisposalMethod::Keep,
            transparent: p.transparent,
            left: p.left,
            top: p.top,
            width: p.width,
            height: p.height,
            buffer: std::borrow::Cow::Owned(p.pixels),
            palette: Some(p.palette),
            ..gif::Frame::default()
        };
        // Palettes of 2^k entries, as GIF stores them.
        if let Some(pal) = frame.palette.as_mut() {
            let n = (pal.len() / 3).next_power_of_two().max(2);
            pal.resize(n * 3, 0);
        }
        self.enc.write_frame(&frame).map_err(gif_err)
    }

    /// Writes the last frame, shown until `t_ms` and for at least 2 s (a
    /// GIF loops: its last screen, which says why the run stopped, stays
    /// long enough to read), and the file's end.
    pub fn finish(mut self, t_ms: u64) -> io::Result<()> {
        if let Some(p) = self.pending.take() {
            let until = (t_ms / 10).max(p.at_cs + 200);
            self.write(p, until)?;
        }
        let out = self.enc.into_inner().map_err(gif_err)?;
        out.into_inner().map_err(|e| e.into_error())?;
        Ok(())
    }

    fn draw_cell(&mut self, cell: &Cell, px: &mut [Rgb], stride: usize, ox: usize, oy: usize) {
        let m = cell.modifier;
        let (mut fg, mut bg) = (rgb(cell.fg, DEFAULT_FG), rgb(cell.bg, DEFAULT_BG));
        if m.contains(Modifier::REVERSED) {
            std::mem::swap(&mut fg, &mut bg);
        }
        if m.contains(Modifier::DIM) {
            fg = mix(bg, fg, 2, 4);
        }
        for y in 0..CELL_H {
            px[(oy + y) * stride + ox..(oy + y) * stride + ox + CELL_W].fill(bg);
        }
        let ch = cell.symbol().chars().next().unwrap_or(' ');
        if !m.contains(Modifier::HIDDEN) && ch != ' ' {
            let mut put = |x: usize, y: usize, level: u8| {
                if x < CELL_W && y < CELL_H && level > 0 {
                    let p = &mut px[(oy + y) * stride + ox + x];
                    *p = mix(bg, fg, level as u32, 3);
                }
            };
            if !shape(ch, &mut put) {
                let bold = m.contains(Modifier::BOLD);
                let g = self.glyph(ch, bold);
                for gy in 0..g.h {
                    for gx in 0..g.w {
                        let level = g.cover[gy * g.w + gx];
                        let (x, y) = (g.x + gx as i32, g.y + gy as i32);
                        if x >= 0 && y >= 0 {
                            put(x as usize, y as usize, level);
                        }
                    }
                }
            }
        }
        if m.contains(Modifier::UNDERLINED) {
            let y = oy + BASELINE as usize + 2;
            px[y * stride + ox..y * stride + ox + CELL_W].fill(fg);
        }
    }

    fn glyph(&mut self, ch: char, bold: bool) -> &Glyph {
        let font = &self.font;
        self.glyphs.entry((ch, bold)).or_insert_with(|| {
            // A character the font lacks: its replacement character.
            let ch = if font.lookup_glyph_index(ch) == 0 {
                '\u{FFFD}'
            } else {
                ch
            };
            let (met, bitmap) = font.rasterize(ch, FONT_PX);
            let (w, h) = (met.width, met.height);
            let mut cover: Vec<u8> = bitmap.iter().map(|&a| level(a)).collect();
            // Bold: the glyph and itself one pixel to the right.
            let w = if bold && w > 0 {
                let mut wide = vec![0u8; (w + 1) * h];
                for y in 0..h {
                    for x in 0..w {
                        let c = cover[y * w + x];
                        wide[y * (w + 1) + x] = wide[y * (w + 1) + x].max(c);
                        wide[y * (w + 1) + x + 1] = wide[y * (w + 1) + x + 1].max(c);
                    }
                }
                cover = wide;
                w + 1
            } else {
                w
            };
            Glyph {
                x: met.xmin,
                y: BASELINE - (met.height as i32 + met.ymin),
                w,
                h,
                cover,
            }
        })
    }
}

/// Coverage 0–255 to four levels.
fn level(a: u8) -> u8 {
    ((a as u32 * 3 + 127) / 255) as u8
}

/// `a` moved toward `b` by `n / d`.
fn mix(a: Rgb, b: Rgb, n: u32, d: u32) -> Rgb {
    let f = |x: u8, y: u8| ((x as u32 * (d - n) + y as u32 * n + d / 2) / d) as u8;
    [f(a[0], b[0]), f(a[1], b[1]), f(a[2], b[2])]
}

fn nearest(palette: &[u8], skip_first: bool, c: Rgb) -> u8 {
    let start = usize::from(skip_first);
    let d = |i: usize| {
        let p = &palette[i * 3..i * 3 + 3];
        (0..3)
            .map(|k| (p[k] as i32 - c[k] as i32).pow(2))
            .sum::<i32>()
    };
    (start..palette.len() / 3)
        .min_by_key(|&i| d(i))
        .unwrap_or(0) as u8
}

/// A cell colour as RGB: 24-bit as it is, xterm's 256 and 16 as xterm
/// draws them, `Reset` as the terminal's default.
fn rgb(c: Color, default: Rgb) -> Rgb {
    const ANSI: [Rgb; 16] = [
        [0x00, 0x00, 0x00],
        [0xcd, 0x00, 0x00],
        [0x00, 0xcd, 0x00],
        [0xcd, 0xcd, 0x00],
        [0x00, 0x00, 0xee],
        [0xcd, 0x00, 0xcd],
        [0x00, 0xcd, 0xcd],
        [0xe5, 0xe5, 0xe5],
        [0x7f, 0x7f, 0x7f],
        [0xff, 0x00, 0x00],
        [0x00, 0xff, 0x00],
        [0xff, 0xff, 0x00],
        [0x5c, 0x5c, 0xff],
        [0xff, 0x00, 0xff],
        [0x00, 0xff, 0xff],
        [0xff, 0xff, 0xff],
    ];
    match c {
        Color::Reset => default,
        Color::Rgb(r, g, b) => [r, g, b],
        Color::Indexed(i) => indexed(i, &ANSI),
        Color::Black => ANSI[0],
        Color::Red => ANSI[1],
        Color::Green => ANSI[2],
        Color::Yellow => ANSI[3],
        Color::Blue => ANSI[4],
        Color::Magenta => ANSI[5],
        Color::Cyan => ANSI[6],
        Color::Gray => ANSI[7],
        Color::DarkGray => ANSI[8],
        Color::LightRed => ANSI[9],
        Color::LightGreen => ANSI[10],
        Color::LightYellow => ANSI[11],
        Color::LightBlue => ANSI[12],
        Color::LightMagenta => ANSI[13],
        Color::LightCyan => ANSI[14],
        Color::White => ANSI[15],
    }
}

fn indexed(i: u8, ansi: &[Rgb; 16]) -> Rgb {
    const CUBE: [u8; 6] = [0, 95, 135, 175, 215, 255];
    match i {
        0..=15 => ansi[i as usize],
        16..=231 => {
            let n = i - 16;
            [
                CUBE[(n / 36) as usize],
                CUBE[(n / 6 % 6) as usize],
                CUBE[(n % 6) as usize],
            ]
        }
        _ => {
            let g = 8 + 10 * (i - 232);
            [g, g, g]
        }
    }
}

/// Draws `ch` as rectangles if it is a box-drawing line, a block element
/// or a braille pattern (calling `put(x, y, 3)` for each pixel it
/// covers, or a lower level for shades); false for any other character.
fn shape(ch: char, put: &mut impl FnMut(usize, usize, u8)) -> bool {
    let mut rect = |x0: usize, y0: usize, x1: usize, y1: usize, level: u8| {
        for y in y0..y1 {
            for x in x0..x1 {
                put(x, y, level);
            }
        }
    };
    let (w, h) = (CELL_W, CELL_H);
    let c = ch as u32;
    if let Some([l, r, u, d]) = box_arms(ch) {
        // Each arm from the cell's edge to its centre; 1 light, 2 heavy,
        // 3 double.
        let (cx, cy) = (w / 2, h / 2);
        let thick = |k: u8| if k == 2 { 2 } else { 1 };
        let horizontal =
            |rect: &mut dyn FnMut(usize, usize, usize, usize, u8), k: u8, x0: usize, x1: usize| {
                if k == 3 {
                    rect(x0, cy - 1, x1, cy, 3);
                    rect(x0, cy + 1, x1, cy + 2, 3);
                } else if k > 0 {
                    rect(x0, cy, x1, cy + thick(k), 3);
                }
            };
        let vertical =
            |rect: &mut dyn FnMut(usize, usize, usize, usize, u8), k: u8, y0: usize, y1: usize| {
                if k == 3 {
                    rect(cx - 1, y0, cx, y1, 3);
                    rect(cx + 1, y0, cx + 2, y1, 3);
                } else if k > 0 {
                    rect(cx, y0, cx + thick(k), y1, 3);
                }
            };
        let wide = |k: u8| if k == 0 { 0 } else { 2 };
        horizontal(&mut rect, l, 0, cx + wide(u.max(d)));
        horizontal(&mut rect, r, cx, w);
        vertical(&mut rect, u, 0, cy + wide(l.max(r)));
        vertical(&mut rect, d, cy, h);
        return true;
    }
    match c {
        // ▀ upper half, ▁–█ lower eighths, ▉–▏ left eighths, ▐ right half,
        // ░ ▒ ▓ shades, ▔ upper eighth, ▕ right eighth, quadrants.
        0x2580 => rect(0, 0, w, h / 2, 3),
        0x2581..=0x2588 => {
            let n = (c - 0x2580) as usize;
            rect(0, h - (h * n + 4) / 8, w, h, 3)
        }
        0x2589..=0x258F => {
            let n = (0x2590 - c) as usize;
            rect(0, 0, (w * n + 4) / 8, h, 3)
        }
        0x2590 => rect(w / 2, 0, w, h, 3),
        // Shades as solid blends: ░ a third, ▒ and ▓ two thirds.
        0x2591..=0x2593 => rect(0, 0, w, h, ((c - 0x2590) as u8).min(2)),
        0x2594 => rect(0, 0, w, (h + 4) / 8, 3),
        0x2595 => rect(w - (w + 4) / 8, 0, w, h, 3),
        0x2596..=0x259F => {
            // Bits: upper left, upper right, lower left, lower right.
            let bits = [
                0b0010, 0b0001, 0b1000, 0b1011, 0b1001, 0b1110, 0b1101, 0b0100, 0b0110, 0b0111,
            ];
            let b = bits[(c - 0x2596) as usize];
            let (hw, hh) = (w / 2, h / 2);
            if b & 0b1000 != 0 {
                rect(0, 0, hw, hh, 3);
            }
            if b & 0b0100 != 0 {
                rect(hw, 0, w, hh, 3);
            }
            if b & 0b0010 != 0 {
                rect(0, hh, hw, h, 3);
            }
            if b & 0b0001 != 0 {
                rect(hw, hh, w, h, 3);
            }
        }
        0x2800..=0x28FF => {
            // Dots 1–8: (column, row) of each bit.
            const DOTS: [(usize, usize); 8] = [
                (0, 0),
                (0, 1),
                (0, 2),
                (1, 0),
                (1, 1),
                (1, 2),
                (0, 3),
                (1, 3),
            ];
            let bits = c - 0x2800;
            for (i, (col, row)) in DOTS.iter().enumerate() {
                if bits & (1 << i) != 0 {
                    let x = 2 + col * 4;
                    let y = 1 + row * 4 + row / 2;
                    rect(x, y, x + 2, y + 2, 3);
                }
            }
        }
        _ => return false,
    }
    true
}

/// The arms (left, right, up, down) of a box-drawing character: 0 none,
/// 1 light, 2 heavy, 3 double. Rounded corners are drawn square.
fn box_arms(ch: char) -> Option<[u8; 4]> {
    Some(match ch {
        '─' => [1, 1, 0, 0],
        '━' => [2, 2, 0, 0],
        '│' => [0, 0, 1, 1],
        '┃' => [0, 0, 2, 2],
        '┌' | '╭' => [0, 1, 0, 1],
        '┐' | '╮' => [1, 0, 0, 1],
        '└' | '╰' => [0, 1, 1, 0],
        '┘' | '╯' => [1, 0, 1, 0],
        '┏' => [0, 2, 0, 2],
        '┓' => [2, 0, 0, 2],
        '┗' => [0, 2, 2, 0],
        '┛' => [2, 0, 2, 0],
        '├' => [0, 1, 1, 1],
        '┤' => [1, 0, 1, 1],
        '┬' => [1, 1, 0, 1],
        '┴' => [1, 1, 1, 0],
        '┼' => [1, 1, 1, 1],
        '┣' => [0, 2, 2, 2],
        '┫' => [2, 0, 2, 2],
        '┳' => [2, 2, 0, 2],
        '┻' => [2, 2, 2, 0],
        '╋' => [2, 2, 2, 2],
        '╴' => [1, 0, 0, 0],
        '╵' => [0, 0, 1, 0],
        '╶' => [0, 1, 0, 0],
        '╷' => [0, 0, 0, 1],
        '═' => [3, 3, 0, 0],
        '║' => [0, 0, 3, 3],
        '╔' => [0, 3, 0, 3],
        '╗' => [3, 0, 0, 3],
        '╚' => [0, 3, 3, 0],
        '╝' => [3, 0, 3, 0],
        '╠' => [0, 3, 3, 3],
        '╣' => [3, 0, 3, 3],
        '╦' => [3, 3, 0, 3],
        '╩' => [3, 3, 3, 0],
        '╬' => [3, 3, 3, 3],
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell_pixels(ch: char) -> Vec<bool> {
        let mut on = vec![false; CELL_W * CELL_H];
        assert!(shape(ch, &mut |x, y, l| if l > 0 {
            on[y * CELL_W + x] = true
        }));
        on
    }

    #[test]
    fn box_lines_reach_the_cell_edges_so_that_borders_join() {
        let h = cell_pixels('─');
        let v = cell_pixels('│');
        // A horizontal line touches both side edges on one row; a vertical
        // one the top and bottom on one column.
        let row = (0..CELL_H).find(|&y| h[y * CELL_W]).unwrap();
        assert!(h[row * CELL_W + CELL_W - 1]);
        let col = (0..CELL_W).find(|&x| v[x]).unwrap();
        assert!(v[(CELL_H - 1) * CELL_W + col]);
        // A corner meets both: ┌'s arm reaches the right edge on that row
        // and the bottom edge in that column.
        let c = cell_pixels('┌');
        assert!(c[row * CELL_W + CELL_W - 1] && c[(CELL_H - 1) * CELL_W + col]);
        assert!(!c[row * CELL_W] && !c[col]);
    }

    #[test]
    fn eighths_fill_their_share_and_braille_sets_one_dot_per_bit() {
        let count = |ch| cell_pixels(ch).iter().filter(|&&b| b).count();
        assert_eq!(count('█'), CELL_W * CELL_H);
        assert_eq!(count('▄'), CELL_W * CELL_H / 2);
        assert!(count('▁') < count('▂') && count('▂') < count('▃'));
        assert_eq!(count('⠁'), 4);
        assert_eq!(count('⣿'), 8 * 4);
        assert!(!shape('a', &mut |_, _, _| {}));
    }

    #[test]
    fn colours_resolve_as_xterm_draws_them() {
        assert_eq!(rgb(Color::Indexed(196), DEFAULT_FG), [255, 0, 0]);
        assert_eq!(rgb(Color::Indexed(244), DEFAULT_FG), [128, 128, 128]);
        assert_eq!(rgb(Color::Reset, DEFAULT_BG), DEFAULT_BG);
        assert_eq!(mix([0, 0, 0], [255, 255, 255], 3, 3), [255, 255, 255]);
        assert_eq!(level(0), 0);
        assert_eq!(level(255), 3);
    }

    #[test]
    fn the_font_has_the_tuis_characters() {
        let font = fontdue::Font::from_bytes(FONT, fontdue::FontSettings::default()).unwrap();
        for ch in "▶▸◂▼↑↓←→β∞✗●■•·⌫◆½".chars() {
            assert_ne!(font.lookup_glyph_index(ch), 0, "{ch} is missing");
        }
    }
}

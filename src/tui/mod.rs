//! The live TUI: state and update (`app`), keys (`keymap`), drawing
//! (`views`, `theme`), the terminal loop (`term`) and recordings (`record`,
//! `offscreen`). It reads the engine and changes a run only through the
//! engine's command API.

pub mod app;
pub mod gif;
pub mod index;
pub mod keymap;
pub mod offscreen;
pub mod palette;
pub mod record;
pub mod term;
pub mod theme;
pub mod views;

pub use app::{Action, App};

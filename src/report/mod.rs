//! Outputs: the run summary (table and JSON), the per-attempt trace, the
//! inspect lines, the compare table, and SVG plots. Everything here reads a finished
//! (or stopped) [`Sim`]; nothing changes it.

pub mod compare;
pub mod plot;
pub mod stats;
pub mod summary;
pub mod trace;

pub use summary::{summarize, Summary};

//! Scheduling policies behind one trait.
pub mod config;
pub mod registry;

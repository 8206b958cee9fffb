//! Scenario loading.

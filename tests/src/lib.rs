//! Helpers for the workspace tests: loading `examples/` cases.

//! The postmortem page (skeleton; being filled in).
fn main() {}

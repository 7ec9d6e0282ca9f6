//! Facts: what the agent's commands showed, read once from the timeline
//! and shared by the rules and the report. A build's verdict and product,
//! the GPUs after a kill, and the verification ledger (every check a careful
//! operator makes, passed, failed or not made). Facts read the timeline
//! only; rules and the report read facts, never the other way round.

pub mod build;
pub mod gpus;
pub mod ledger;

use crate::timeline::{Checkpoint, Server, Timeline};

/// The checkpoints that looked at a server: its launch, when its output
/// shows anything, and those after it.
pub fn observers<'t>(
    timeline: &'t Timeline,
    server: &Server,
) -> impl Iterator<Item = &'t Checkpoint> {
    server
        .observed_by
        .iter()
        .filter_map(|&id| timeline.checkpoints.get(id))
}

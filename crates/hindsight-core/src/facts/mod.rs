//! Facts: what the agent's commands showed, read once from the timeline
//! and shared by the rules and the report. A build's verdict and product,
//! the GPUs after a kill, and the verification ledger (every check a careful
//! operator makes, passed, failed or not made). Facts read the timeline
//! only; rules and the report read facts, never the other way round.

pub mod build;
pub mod gpus;
pub mod ledger;
pub mod runs;

use crate::timeline::{Checkpoint, Server, Timeline};

/// The facts of one analysis, read once from its timeline: every
/// checkpoint's ledger (a build's result and product, a kill's GPUs) and
/// every server's, by id. The report shows them as they are.
#[derive(Debug, Clone, Default)]
pub struct Facts {
    pub checkpoints: Vec<Vec<ledger::LedgerEntry>>,
    pub servers: Vec<Vec<ledger::LedgerEntry>>,
    /// The agent's jobs (tests, scripts) whose last run failed.
    pub open_failures: Vec<runs::OpenFailure>,
}

/// Reads the facts of a timeline.
pub fn read(timeline: &Timeline) -> Facts {
    Facts {
        checkpoints: timeline
            .checkpoints
            .iter()
            .map(|c| ledger::for_checkpoint(timeline, c))
            .collect(),
        servers: timeline
            .servers
            .iter()
            .map(|s| ledger::for_server(timeline, s))
            .collect(),
        open_failures: runs::open_failures(timeline),
    }
}

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

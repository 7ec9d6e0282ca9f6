//! An engine's log dialect: how its lines open and where it dumps its
//! settings, declared in that engine's file (`sglang_log.rs`, …) and walked
//! in order by the shared reader ([`super::logline`]), which names no engine
//! itself for these. The engine files depend on this module, never on the
//! reader, so the reader can list them without a cycle.

use crate::engine::Engine;
use crate::settings::ServerSettings;

/// What an engine's line prefix held: its time, rank and where the message starts.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Prefix {
    pub time: Option<String>,
    pub rank: Option<String>,
    pub aux_rank: Option<String>,
    /// Byte offset of the message in the line given.
    pub message: usize,
    /// The engine whose grammar matched.
    pub engine: Option<Engine>,
}

/// What one engine's log lines look like.
pub struct Dialect {
    pub engine: Engine,
    /// Reads the engine's own line prefix (time, rank tags) at the start of
    /// a line; `None` when the line does not open that way.
    pub prefix: fn(&str) -> Option<Prefix>,
    /// Reads the settings the engine dumps at startup from one message;
    /// `None` when the message is not its dump.
    pub settings: fn(&str) -> Option<ServerSettings>,
}

/// For an engine that dumps no settings.
pub fn no_settings(_: &str) -> Option<ServerSettings> {
    None
}

//! What the live guard keeps between two hook calls of one session, under
//! the user's state folder (`$HINDSIGHT_STATE_DIR`, else
//! `$XDG_STATE_HOME/hindsight`, else `~/.local/state/hindsight`):
//!
//! - `sessions/<key>.json`: how far into the transcript it has read (the
//!   offset, the file's identity and a hash of its first bytes), the
//!   condenser's memory, what each finding was already told and how many
//!   times this prompt's stop was blocked;
//! - `sessions/<key>.txt`: the transcript condensed so far, one line per
//!   line of the original, so a call reads only what was appended since
//!   the last one (a 50 MB session condenses to a few MB);
//! - `sessions/<key>.lock`: held while a call reads and writes the two, so
//!   hook processes of one session that run at once (parallel tool calls)
//!   take turns;
//! - `hook.log`: why a call answered nothing (the guard fails open).
//!
//! The folder is 0700 and every file 0600: a transcript holds what the
//! agent saw, credentials included. The JSON state is written to a temporary
//! file and renamed over the old one, so a reader never sees half of it; the
//! text is cut back to the length the state vouches for before anything is
//! appended, so a call killed between the two writes costs only a re-read.

use std::fs::{self, File, OpenOptions};
use std::hash::{Hash, Hasher};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use hindsight_core::Format;
use hindsight_core::condense::Condenser;
use serde::{Deserialize, Serialize};

use crate::Env;

/// Bumped when the saved shape changes: a state of another version is
/// dropped and the transcript read again from the start.
const VERSION: u32 = 1;

/// How many of the transcript's first bytes identify it: a file replaced by
/// another of at least the same size is told apart by them.
const HEAD: u64 = 4096;

/// The state folder, created 0700 if missing.
pub(crate) fn dir(env: &Env) -> Result<PathBuf> {
    let dir = if let Some(dir) = &env.state_dir {
        dir.clone()
    } else if let Some(state) = &env.xdg_state_home {
        state.join("hindsight")
    } else if let Some(home) = &env.home {
        home.join(".local/state/hindsight")
    } else {
        anyhow::bail!("no state folder: none of HINDSIGHT_STATE_DIR, XDG_STATE_HOME, HOME is set");
    };
    create_private_dir(&dir.join("sessions"))?;
    Ok(dir)
}

fn create_private_dir(dir: &Path) -> Result<()> {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder
        .create(dir)
        .with_context(|| format!("cannot create `{}`", dir.display()))
}

/// Opens `path` for reading and writing (created 0600), without truncating.
fn open_private(path: &Path, append: bool) -> Result<File> {
    let mut options = OpenOptions::new();
    options.read(true).create(true);
    if append {
        options.append(true);
    } else {
        options.write(true);
    }
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options
        .open(path)
        .with_context(|| format!("cannot open `{}`", path.display()))
}

/// Appends one line to `hook.log` in the state folder; a log that cannot be
/// written is let go (the hook must still answer).
pub(crate) fn log(dir: &Path, line: &str) {
    if let Ok(mut file) = open_private(&dir.join("hook.log"), true) {
        let seconds = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        let _ = writeln!(file, "{seconds} {}", line.replace('\n', " "));
    }
}

/// How long a session's files are kept after its last hook call.
pub(crate) const KEEP: std::time::Duration = std::time::Duration::from_secs(14 * 24 * 3600);

/// Removes the files of sessions whose state was last written more than
/// `keep` ago, so the folder does not grow with every session ever guarded.
/// Run when a session is first seen, which is rare enough to afford a
/// listing. A state written at every call dates its session; its lock and
/// text go with it.
pub(crate) fn prune(dir: &Path, keep: std::time::Duration) {
    let sessions = dir.join("sessions");
    let Some(cutoff) = std::time::SystemTime::now().checked_sub(keep) else {
        return;
    };
    let Ok(entries) = fs::read_dir(&sessions) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .is_ok_and(|modified| modified < cutoff);
        if old {
            for extension in ["txt", "lock", "json"] {
                let _ = fs::remove_file(path.with_extension(extension));
            }
        }
    }
}

/// A session's files, its lock held while this lives.
pub(crate) struct Session {
    state_path: PathBuf,
    text_path: PathBuf,
    /// The lock file, locked exclusively; unlocked when dropped.
    _lock: File,
}

impl Session {
    /// Locks the session named by `key` (blocking while another hook call
    /// of the same session holds it).
    pub(crate) fn lock(dir: &Path, key: &str) -> Result<Self> {
        let sessions = dir.join("sessions");
        let lock = open_private(&sessions.join(format!("{key}.lock")), false)?;
        lock.lock().context("cannot lock the session state")?;
        Ok(Self {
            state_path: sessions.join(format!("{key}.json")),
            text_path: sessions.join(format!("{key}.txt")),
            _lock: lock,
        })
    }

    /// The saved state, or a fresh one when there is none or it cannot be
    /// read (then the transcript is read again from the start).
    pub(crate) fn load(&self) -> State {
        fs::read(&self.state_path)
            .ok()
            .and_then(|bytes| serde_json::from_slice::<State>(&bytes).ok())
            .filter(|state| state.version == VERSION)
            .unwrap_or_default()
    }

    /// Writes the state atomically: a temporary file renamed over the old.
    pub(crate) fn save(&self, state: &mut State) -> Result<()> {
        state.version = VERSION;
        let temporary = self
            .state_path
            .with_extension(format!("json.{}", std::process::id()));
        {
            let mut file = open_private(&temporary, false)?;
            file.set_len(0)?;
            file.write_all(&serde_json::to_vec(state)?)?;
        }
        fs::rename(&temporary, &self.state_path)
            .with_context(|| format!("cannot replace `{}`", self.state_path.display()))
    }

    /// Brings the condensed text up to date with the transcript at `path`
    /// and returns the whole of it (the original's complete lines, condensed
    /// when the format is). A transcript that shrank, was replaced (another
    /// inode) or whose first bytes changed is read again from the start,
    /// and what was told of the old one is forgotten.
    pub(crate) fn refresh(&self, state: &mut State, path: &Path) -> Result<Transcript> {
        let mut file =
            File::open(path).with_context(|| format!("cannot read `{}`", path.display()))?;
        let meta = file.metadata()?;
        let size = meta.len();
        let identity = identity(&meta);
        let head = head_hash(&mut file, state.offset.min(HEAD))?;
        // A whole-document transcript is rewritten in place or replaced on
        // every message (Gemini CLI): it is read whole anyway, and its
        // identity changing says nothing about the conversation.
        let whole_document = state
            .format
            .is_some_and(|format| Condenser::for_format(format).is_none());
        let same = state.transcript.as_deref() == Some(path.to_string_lossy().as_ref())
            && (whole_document
                || (state.identity == identity && size >= state.offset && head == state.head));
        if !same {
            let blocks = (state.prompt.take(), state.blocks);
            *state = State {
                transcript: Some(path.to_string_lossy().into_owned()),
                identity,
                ..State::default()
            };
            // A replaced transcript is a new conversation as far as findings
            // go, but the same prompt's block count still holds.
            (state.prompt, state.blocks) = blocks;
        }
        if state.format.is_none() {
            let mut start = Vec::new();
            file.seek(SeekFrom::Start(0))?;
            (&mut file).take(64 * 1024).read_to_end(&mut start)?;
            state.format = Some(hindsight_core::parse::detect(&String::from_utf8_lossy(
                &start,
            )));
        }
        let format = state.format.unwrap_or(Format::PastedText);
        if Condenser::for_format(format).is_none() {
            // Whole-document formats (a Gemini CLI session is one JSON
            // document rewritten in place) cannot be read from an offset;
            // they stay small, and are read whole every time.
            let mut bytes = Vec::new();
            file.seek(SeekFrom::Start(0))?;
            file.read_to_end(&mut bytes)?;
            state.offset = 0;
            state.head = 0;
            return Ok(Transcript {
                text: String::from_utf8_lossy(&bytes).into_owned(),
                format,
                condensed: false,
                original_bytes: size,
            });
        }
        let mut condenser = state
            .condenser
            .take()
            .or_else(|| Condenser::for_format(format))
            .context("no condenser")?;
        let mut text_file = open_private(&self.text_path, false)?;
        // Only what the state vouches for: a call that died after appending
        // and before saving left lines the next one condenses again. A state
        // that vouches for more than the file holds is damaged: never grow
        // the file (or a buffer) to a size read from disk.
        state.text_bytes = state.text_bytes.min(text_file.metadata()?.len());
        text_file.set_len(state.text_bytes)?;
        text_file.seek(SeekFrom::End(0))?;
        file.seek(SeekFrom::Start(state.offset))?;
        let mut added = Vec::new();
        file.read_to_end(&mut added)?;
        // A last line without its newline is still being written: it waits
        // for the next call.
        let complete = added
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |at| at + 1);
        let mut out = String::new();
        if complete > 0 {
            let lines = added[..complete]
                .strip_suffix(b"\n")
                .unwrap_or(&added[..complete]);
            for line in lines.split(|&b| b == b'\n') {
                out.push_str(&condenser.line(&String::from_utf8_lossy(line)));
                out.push('\n');
                state.lines = state.lines.saturating_add(1);
            }
        }
        text_file.write_all(out.as_bytes())?;
        state.text_bytes += out.len() as u64;
        let before = state.offset;
        state.offset += complete as u64;
        if before < HEAD {
            // The identifying head is still growing to its full length.
            state.head = head_hash(&mut file, state.offset.min(HEAD))?;
        }
        state.condenser = Some(condenser);
        let mut text = String::with_capacity(usize::try_from(state.text_bytes).unwrap_or(0));
        text_file.seek(SeekFrom::Start(0))?;
        text_file.read_to_string(&mut text)?;
        Ok(Transcript {
            text,
            format,
            condensed: true,
            original_bytes: state.offset,
        })
    }
}

/// The fuzz target's way in: a saved state as [`Session::load`] reads it,
/// and its condenser (if any) going on with `lines`, as
/// [`Session::refresh`] does, without the files.
pub(crate) fn fuzz_state(saved: &[u8], lines: &str) {
    let Ok(state) = serde_json::from_slice::<State>(saved) else {
        return;
    };
    let format = state.format.unwrap_or(Format::PastedText);
    if let Some(mut condenser) = state.condenser.or_else(|| Condenser::for_format(format)) {
        for line in lines.split('\n') {
            let _ = condenser.line(line);
        }
        let _ = condenser.finish();
    }
}

/// The transcript as far as it has been read.
pub(crate) struct Transcript {
    pub(crate) text: String,
    pub(crate) format: Format,
    /// Whether `text` is the condenser's (it then stands for
    /// `original_bytes` of the file).
    pub(crate) condensed: bool,
    pub(crate) original_bytes: u64,
}

/// The device and inode of a file (zero where there are none).
fn identity(meta: &fs::Metadata) -> (u64, u64) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        (meta.dev(), meta.ino())
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        (0, 0)
    }
}

/// A hash of the first `length` bytes of `file`.
fn head_hash(file: &mut File, length: u64) -> Result<u64> {
    let mut bytes = Vec::new();
    file.seek(SeekFrom::Start(0))?;
    file.take(length).read_to_end(&mut bytes)?;
    // SipHash with fixed keys: the same bytes give the same hash in every
    // run of this binary, which is all the state needs.
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    bytes.hash(&mut hasher);
    Ok(hasher.finish())
}

/// What is kept of one session between hook calls.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct State {
    pub(crate) version: u32,
    /// The transcript read.
    pub(crate) transcript: Option<String>,
    /// Its device and inode when it was first read.
    pub(crate) identity: (u64, u64),
    /// How far it has been read (always after a newline).
    pub(crate) offset: u64,
    /// Hash of its first `min(offset, HEAD)` bytes.
    pub(crate) head: u64,
    pub(crate) format: Option<Format>,
    pub(crate) condenser: Option<Condenser>,
    /// Lines condensed so far, and the condensed text's length.
    pub(crate) lines: u32,
    pub(crate) text_bytes: u64,
    /// The line count when the findings were last looked at: checkpoints
    /// on later lines are new.
    pub(crate) analyzed_lines: u32,
    /// Findings already named to the agent after a tool call.
    pub(crate) told: Vec<String>,
    /// Findings a blocked stop already listed.
    pub(crate) blocked_on: Vec<String>,
    /// Findings already named to the user.
    pub(crate) told_user: Vec<String>,
    /// The prompt the block count is for, and the count.
    pub(crate) prompt: Option<String>,
    pub(crate) blocks: u32,
}

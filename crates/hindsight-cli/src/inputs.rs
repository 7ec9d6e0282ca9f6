//! Reading inputs: files, folders (every file under them) and `-` for stdin.
//!
//! Files go through [`read::read_source`], which streams Claude Code
//! sessions through the core's condenser so a huge session never sits in
//! memory whole. Sources are named by file name, not path: the core links a log to the
//! launch that redirected into it by comparing names, and reports quote the
//! name.

use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use hindsight_core::{Format, Source};

use crate::read;

/// Reads every path as one session's sources, in the order given (a folder's
/// files sorted by path).
pub(crate) fn read(
    paths: &[PathBuf],
    format: Option<Format>,
    stdin: &mut dyn Read,
) -> Result<Vec<Source>> {
    let mut sources = Vec::new();
    for path in paths {
        if path.as_os_str() == "-" {
            let source = read::read_source("stdin".to_owned(), &mut *stdin, format)
                .context("cannot read standard input")?;
            sources.push(source);
            continue;
        }
        let files = if path.is_dir() {
            let files = files_under(path)?;
            if files.is_empty() {
                bail!("no files under `{}`", path.display());
            }
            files
        } else {
            vec![path.clone()]
        };
        for file in files {
            sources.push(read_file(&file, format)?);
        }
    }
    Ok(sources)
}

/// One file as a source named by its file name; Claude Code sessions are
/// streamed through the core's condenser (see [`read`]).
pub(crate) fn read_file(path: &Path, format: Option<Format>) -> Result<Source> {
    std::fs::File::open(path)
        .and_then(|file| read::read_source(file_name(path), file, format))
        .with_context(|| format!("cannot read `{}`", path.display()))
}

pub(crate) fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// Whether a directory entry is hidden (`.git`, `.DS_Store`): never read.
pub(crate) fn hidden(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with('.') && n != "." && n != "..")
}

/// Every non-hidden file under `dir`, sorted. Symbolic links to folders are
/// not followed (they can loop); an unreadable subfolder is an error.
pub(crate) fn files_under(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    walk(dir, &mut files, &mut |path, error| {
        Err(error).with_context(|| format!("cannot read `{}`", path.display()))
    })?;
    files.sort();
    Ok(files)
}

/// Walks `dir` depth-first, pushing files; `on_error` decides whether an
/// unreadable folder stops the walk (`analyze`) or is skipped (`scan`).
pub(crate) fn walk(
    dir: &Path,
    files: &mut Vec<PathBuf>,
    on_error: &mut dyn FnMut(&Path, std::io::Error) -> Result<()>,
) -> Result<()> {
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(error) => {
                on_error(&dir, error)?;
                continue;
            }
        };
        for entry in entries {
            let entry = match entry {
                Ok(entry) => entry,
                Err(error) => {
                    on_error(&dir, error)?;
                    continue;
                }
            };
            let path = entry.path();
            if hidden(&path) {
                continue;
            }
            // `file_type` does not follow links: a linked folder is skipped
            // (links can loop), a linked file is read, and a dangling or
            // looping link is kept so reading it reports the problem instead
            // of hiding it. FIFOs, sockets and devices, linked or not, are
            // never opened: reading a FIFO nobody writes would block the
            // walk for ever.
            match entry.file_type() {
                Ok(kind) if kind.is_dir() => stack.push(path),
                Ok(kind) if kind.is_file() => files.push(path),
                Ok(kind) if kind.is_symlink() => match std::fs::metadata(&path) {
                    Ok(target) if target.is_file() => files.push(path),
                    Ok(_) => {}
                    Err(_) => files.push(path),
                },
                Ok(_) => {}
                Err(error) => on_error(&path, error)?,
            }
        }
    }
    Ok(())
}

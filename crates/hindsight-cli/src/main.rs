//! The `hindsight` binary: wires the real process I/O to [`hindsight_cli::run`].

#![forbid(unsafe_code)]

use std::io::IsTerminal;
use std::process::ExitCode;

fn main() -> ExitCode {
    let stdout = std::io::stdout();
    let mut io = hindsight_cli::Io {
        stdin: &mut std::io::stdin().lock(),
        stdout: &mut stdout.lock(),
        // Not locked for the whole run: scan's progress bar draws on stderr
        // from worker threads, which would wait on that lock forever.
        stderr: &mut std::io::stderr(),
        stdout_is_terminal: std::io::stdout().is_terminal(),
        stderr_is_terminal: std::io::stderr().is_terminal(),
        no_color: std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()),
        // Without a current directory (it was deleted), no hindsight.toml is
        // found; `/` would find a stray one at the root.
        current_dir: std::env::current_dir().unwrap_or_default(),
        env: hindsight_cli::Env::from_process(),
    };
    ExitCode::from(hindsight_cli::run(std::env::args_os(), &mut io))
}

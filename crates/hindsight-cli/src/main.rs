//! The `hindsight` binary: wires the real process I/O to [`hindsight_cli::run`].

use std::io::IsTerminal;
use std::process::ExitCode;

fn main() -> ExitCode {
    let stdout = std::io::stdout();
    let mut io = hindsight_cli::Io {
        stdin: &mut std::io::stdin().lock(),
        stdout: &mut stdout.lock(),
        stderr: &mut std::io::stderr().lock(),
        stdout_is_terminal: std::io::stdout().is_terminal(),
        no_color: std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()),
    };
    ExitCode::from(hindsight_cli::run(std::env::args_os(), &mut io))
}

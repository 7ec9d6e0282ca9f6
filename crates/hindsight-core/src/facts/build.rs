//! What a build command showed: whether it builds from source and makes a
//! product (a wheel, a binary, a kernel), its own verdict (`Successfully
//! installed`, an error), the product's names, and the later commands that
//! use or check that product. The build rule and the ledger both read these.

use crate::parse::Signal;
use crate::shell::SimpleCommand;
use crate::timeline::{Checkpoint, SeenLine, Written};

/// Builds from source: `pip install .`/`-e .`/a path, `python setup.py`,
/// `cmake --build`, `make`, `ninja`, `cargo build`.
pub fn builds_from_source(command: &SimpleCommand) -> bool {
    let argv = &command.argv;
    let has = |word: &str| argv.iter().any(|a| a == word);
    match command.program() {
        "make" | "ninja" | "nvcc" => true,
        "cmake" => has("--build"),
        "cargo" => has("build"),
        // The program's own path (`/root/env/bin/pip`) is not a source path.
        "pip" | "pip3" | "uv" => {
            has("install")
                && argv
                    .iter()
                    .skip(1)
                    .any(|a| a == "." || a == "-e" || a.starts_with("./") || a.starts_with('/'))
        }
        program if program.starts_with("python") => {
            argv.iter().skip(1).any(|a| a.ends_with("setup.py"))
                || has("-m")
                    && has("pip")
                    && has("install")
                    && argv
                        .iter()
                        .skip(1)
                        .any(|a| a == "." || a == "-e" || a.starts_with("./"))
        }
        _ => false,
    }
}

/// Builds whose product the ledger follows: builds from source (this
/// rule's), and the JS, JVM, Go and TypeScript builds whose output says
/// how they went (`✓ Compiled`, `BUILD SUCCESSFUL`).
pub fn builds_product(command: &SimpleCommand) -> bool {
    if builds_from_source(command) {
        return true;
    }
    let argv = &command.argv;
    let arg = |i: usize| argv.get(i).map(String::as_str).unwrap_or("");
    let has = |words: &[&str]| argv.iter().skip(1).any(|a| words.contains(&a.as_str()));
    match command.program() {
        "npm" | "pnpm" | "yarn" | "bun" => {
            arg(1) == "build" || arg(1) == "run" && arg(2) == "build"
        }
        "next" | "vite" => arg(1) == "build",
        "npx" => matches!(arg(1), "next" | "vite") && arg(2) == "build" || arg(1) == "tsc",
        "gradle" | "gradlew" => has(&["build", "assemble", "jar", "bootJar", "installDist"]),
        "mvn" | "mvnw" => has(&["package", "install", "verify", "compile"]),
        "go" => matches!(arg(1), "build" | "install"),
        "tsc" => true,
        _ => false,
    }
}

/// A build tool's line that tells how the build went: `Some(true)` for a
/// success line (pip's `Successfully installed`, cargo's `Finished`,
/// `BUILD SUCCESSFUL`, `✓ Compiled`, make's `Nothing to be done`, cmake's
/// `Built target`), `Some(false)` for an error line, `None` otherwise.
pub fn build_line(line: &SeenLine<'_>) -> Option<bool> {
    let text = line.text.trim();
    let has = |needle: &str| text.contains(needle);
    if matches!(line.log.signal, Some(Signal::Failure { .. }))
        || FAILURE_WORDS.iter().any(|w| has(w))
        // pip's notice of dependency conflicts comes before its success.
        || has("ERROR:") && !has("dependency resolver")
        || text.starts_with("error[E")
    {
        return Some(false);
    }
    let success = text.starts_with("Successfully installed ")
        || text.starts_with("Successfully built ")
        || text.starts_with("Finished ") && has(" target(s) in ")
        || has("BUILD SUCCESS")
        || has("Compiled successfully")
        || has("\u{2713} Compiled")
        || has("\u{2713} built in")
        || has(": Nothing to be done for")
        || has("Built target ");
    success.then_some(true)
}

/// Words of a build's error lines, whatever the tool.
const FAILURE_WORDS: &[&str] = &[
    "error:",
    "Error:",
    "fatal error",
    "FAILED",
    "BUILD FAIL",
    "build stopped",
    "Traceback (most recent call last)",
    "subprocess-exited-with-error",
    "Failed to build",
    "Failed building wheel",
    "Failed to compile",
    "Build error occurred",
    "CMake Error",
    "npm ERR!",
    "command not found",
    ": *** ",
];

/// The line that tells how a build went: the build's last success or
/// error line decides (pip prints a conflict notice before its success
/// line; make prints `Built target` lines before it stops on an error),
/// and a failure is cited by its first error line since the last success
/// (the cause, not `build stopped`).
pub fn build_verdict<'t>(build: &'t Checkpoint) -> Option<(SeenLine<'t>, bool)> {
    let mut verdict: Option<(SeenLine<'t>, bool)> = None;
    for line in build.seen.iter() {
        match (build_line(&line), verdict) {
            (Some(false), Some((_, false))) | (None, _) => {}
            (Some(ok), _) => verdict = Some((line, ok)),
        }
    }
    verdict
}

/// The names a build's product goes by, normalised (`sgl-kernel` →
/// `sgl_kernel`): what pip says it built (`Successfully built`, `Running
/// setup.py develop for`, `Building editable for`), else what it installed;
/// the directory the build ran in or the path it installed.
pub fn product_names(build: &Checkpoint, at: usize) -> Vec<String> {
    let mut built = Vec::new();
    let mut installed = Vec::new();
    for line in build.seen.iter() {
        let text = line.text.trim();
        if let Some(rest) = text.strip_prefix("Successfully built ") {
            built.extend(rest.split_whitespace().map(str::to_owned));
        } else if let Some(rest) = text
            .strip_prefix("Running setup.py develop for ")
            .or_else(|| text.strip_prefix("Building editable for "))
            .or_else(|| text.strip_prefix("Building wheel for "))
        {
            built.extend(rest.split_whitespace().next().map(str::to_owned));
        } else if let Some(rest) = text.strip_prefix("Successfully installed ") {
            // `marshmallow-3.13.0`: the name is what comes before the version.
            installed.extend(rest.split_whitespace().map(|p| match p.rfind('-') {
                Some(dash) if p[dash + 1..].starts_with(|c: char| c.is_ascii_digit()) => {
                    p[..dash].to_owned()
                }
                _ => p.to_owned(),
            }));
        }
    }
    let mut names = if built.is_empty() { installed } else { built };
    let from_path = |path: &str| {
        let name = path.trim_end_matches('/').rsplit('/').next().unwrap_or("");
        (!name.is_empty() && name != "." && name != ".." && name != "~")
            .then(|| name.split('[').next().unwrap_or(name).to_owned())
    };
    names.extend(
        build.commands[..at]
            .iter()
            .rev()
            .find(|c| c.program() == "cd")
            .and_then(|c| c.argv.get(1))
            .and_then(|dir| from_path(dir)),
    );
    if let Some(command) = build.commands.get(at) {
        names.extend(
            command
                .argv
                .iter()
                .skip(1)
                .filter(|a| a.starts_with("./") || a.starts_with('/') || a.contains('/'))
                .filter_map(|a| from_path(a)),
        );
    }
    let mut normal: Vec<String> = names
        .iter()
        .map(|n| n.to_ascii_lowercase().replace(['-', '.'], "_"))
        .filter(|n| !n.is_empty())
        .collect();
    normal.sort();
    normal.dedup();
    normal
}

/// How a command uses what a build made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Use {
    /// A check of the product itself: an import, a listing of built
    /// objects, a version or package query. Any failure fails it.
    Check,
    /// A run that loads the product: a script that imports it, a module or
    /// console script of it, a test run, a built binary. It fails only when
    /// the product cannot be found or imported (the run may fail for its
    /// own reasons: a reproduction script raises the bug it reproduces).
    Run,
}

/// Whether a command looks at or runs a build's product (`names`, from
/// [`product_names`]); `writes` are the files written before it, whose
/// imports tell what a `python script.py` loads.
pub fn uses_product(command: &SimpleCommand, names: &[String], writes: &[&Written]) -> Option<Use> {
    if checks_product(command) {
        return Some(Use::Check);
    }
    let argv = &command.argv;
    let program = command.program();
    let arg = |i: usize| argv.get(i).map(String::as_str).unwrap_or("");
    let normal = |name: &str| name.to_ascii_lowercase().replace(['-', '.'], "_");
    let named = |name: &str| {
        let name = normal(name);
        names.contains(&name)
    };
    if program.starts_with("python") {
        if let Some(at) = argv.iter().position(|a| a == "-m") {
            let module = arg(at + 1);
            let top = module.split('.').next().unwrap_or("");
            return (named(top) || matches!(top, "pytest" | "unittest" | "tox" | "nox"))
                .then_some(Use::Run);
        }
        // `python script.py`: a script whose text imports the product.
        let script = argv.iter().skip(1).find(|a| !a.starts_with('-'))?;
        let imports = writes
            .iter()
            .rev()
            .filter(|w| crate::timeline::same_path(&w.path, script))
            .any(|w| w.imports.iter().any(|m| named(m)));
        return imports.then_some(Use::Run);
    }
    let test_run = match program {
        "pytest" | "py.test" | "tox" | "nox" | "ctest" => true,
        "cargo" | "go" => matches!(arg(1), "test" | "run"),
        "npm" | "pnpm" | "yarn" | "bun" => arg(1) == "test" || arg(1) == "run" && arg(2) == "test",
        "make" => matches!(arg(1), "test" | "check"),
        "gradle" | "gradlew" | "mvn" | "mvnw" => argv.iter().any(|a| a == "test"),
        _ => false,
    };
    // The installed console script, or a binary the build made.
    let first = argv.first().map(String::as_str).unwrap_or("");
    let built_binary = [
        "target/release/",
        "target/debug/",
        "build/",
        "dist/",
        "bin/",
    ]
    .iter()
    .any(|dir| first.contains(dir))
        && !first.starts_with("/usr/")
        && !first.starts_with("/bin/");
    let node_build = matches!(program, "node" | "java")
        && argv
            .iter()
            .skip(1)
            .any(|a| a.starts_with("dist/") || a.starts_with("build/") || a.ends_with(".jar"));
    (test_run || named(program) || built_binary || node_build).then_some(Use::Run)
}

/// Whether a run that used the product shows it missing: an import error,
/// a file or command not found.
pub fn product_missing(check: &Checkpoint) -> bool {
    matches!(check.exit_code, Some(126 | 127))
        || check.seen.iter().any(|l| {
            l.text.contains("ModuleNotFoundError")
                || l.text.contains("ImportError")
                || l.text.contains("No module named")
                || l.text.contains("No such file")
                || l.text.contains("command not found")
        })
}

/// Looks at a build's product: an import, a listing of built objects, a
/// version or package query.
pub fn checks_product(command: &SimpleCommand) -> bool {
    let argv = &command.argv;
    let program = command.program();
    let script = argv
        .iter()
        .position(|a| a == "-c")
        .and_then(|i| argv.get(i + 1));
    (program.starts_with("python") && script.is_some_and(|s| s.contains("import")))
        || matches!(program, "find" | "ls") && argv.iter().any(|a| a.contains(".so"))
        || argv.iter().any(|a| a == "--version")
        || matches!(program, "pip" | "pip3") && argv.iter().any(|a| a == "show" || a == "list")
        || matches!(program, "ldd" | "nm" | "readelf" | "file")
}

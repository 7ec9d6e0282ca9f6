//! What a command is (build, kill, launch, verify, wait) and what it observes.
//!
//! This is the only place that knows which programs do what. A tool call with
//! several commands takes the kind of its most consequential one: launching a
//! server matters more than the `sleep` or `tail` around it.

use crate::re::regex;
use serde::Serialize;

use crate::shell::SimpleCommand;

/// The kind of a checkpoint, from most to least consequential.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize,
)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
#[serde(rename_all = "kebab-case")]
pub enum CheckpointKind {
    Launch,
    Kill,
    Build,
    Verify,
    Wait,
    Other,
}

impl CheckpointKind {
    pub fn name(self) -> &'static str {
        match self {
            CheckpointKind::Launch => "launch",
            CheckpointKind::Kill => "kill",
            CheckpointKind::Build => "build",
            CheckpointKind::Verify => "verify",
            CheckpointKind::Wait => "wait",
            CheckpointKind::Other => "other",
        }
    }
}

/// The kind of one simple command.
pub fn kind_of(command: &SimpleCommand) -> CheckpointKind {
    let argv = &command.argv;
    let program = command.program();
    let arg = |i: usize| argv.get(i).map(String::as_str).unwrap_or("");
    if crate::engine::launch_from_argv(argv).is_some()
        || crate::other_servers::launch(command).is_some()
    {
        return CheckpointKind::Launch;
    }
    // `./build/bin/llama-server --version`, `nvcc --version`: a look at
    // what is installed (after a build, whether its product runs).
    if argv.len() == 2 && arg(1) == "--version" {
        return CheckpointKind::Verify;
    }
    match program {
        "docker-compose" => {
            return match compose_subcommand(&argv[1..]) {
                "down" | "stop" | "kill" | "rm" => CheckpointKind::Kill,
                "up" | "start" | "restart" | "run" => CheckpointKind::Launch,
                "build" => CheckpointKind::Build,
                _ => CheckpointKind::Verify,
            };
        }
        "npm" | "pnpm" | "yarn" | "bun"
            if arg(1) == "build"
                || arg(1) == "install"
                || arg(1) == "ci"
                // `npm run build`, `npm run build:prod`, `npm run build-e2e`.
                || arg(1) == "run" && crate::other_servers::script_of_kind(arg(2), "build") =>
        {
            return CheckpointKind::Build;
        }
        "tsc" | "go" if program == "tsc" || arg(1) == "build" => return CheckpointKind::Build,
        "mvn" | "gradle" | "./gradlew" | "gradlew" | "./mvnw" | "mvnw" => {
            return CheckpointKind::Build;
        }
        // `kill -0 PID` sends no signal: it asks whether the process lives.
        "kill" if argv.iter().any(|a| a == "-0") => return CheckpointKind::Verify,
        "kill" | "pkill" | "killall" | "skill" | "taskkill" | "Stop-Process" | "stop-process" => {
            return CheckpointKind::Kill;
        }
        // A downloaded script piped into a shell (`curl -fsSL …/install.sh |
        // sh`, PowerShell's `irm …/install.ps1 | iex`) installs something.
        "sh" | "bash" | "zsh" | "iex" | "Invoke-Expression"
            if command.piped_from_previous && argv[1..].iter().all(|a| a.starts_with('-')) =>
        {
            return CheckpointKind::Build;
        }
        // A background shell stopped by the agent's tool (Claude Code).
        crate::parse::claude_code::KILL_SHELL => return CheckpointKind::Kill,
        // A page loaded by the agent's browser tool: a request.
        crate::parse::claude_code::BROWSER_OPEN => return CheckpointKind::Verify,
        // A look at the output of a shell started before the transcript.
        crate::parse::claude_code::SHELL_OUTPUT => return CheckpointKind::Verify,
        "fuser" if argv.iter().any(|a| a == "-k" || a.starts_with("-k")) => {
            return CheckpointKind::Kill;
        }
        // Windows: `wmic process where "commandline like '%uvicorn%'" delete`.
        "wmic" | "wmic.exe"
            if argv.iter().any(|a| {
                a.eq_ignore_ascii_case("delete") || a.eq_ignore_ascii_case("terminate")
            }) =>
        {
            return CheckpointKind::Kill;
        }
        // The Ollama CLI asks the running server (`ollama list` fails with
        // "could not connect to ollama app" when none answers).
        "ollama"
            if matches!(
                arg(1),
                "list" | "ls" | "ps" | "show" | "run" | "-v" | "--version"
            ) =>
        {
            return CheckpointKind::Verify;
        }
        // `ollama stop MODEL` unloads a model, which is what frees its GPU
        // memory: Ollama's kill.
        "ollama" if arg(1) == "stop" => return CheckpointKind::Kill,
        "systemctl" | "service" => {
            return match (arg(1), arg(2)) {
                ("stop" | "kill", _) | (_, "stop") => CheckpointKind::Kill,
                ("start" | "restart", _) | (_, "start" | "restart") => CheckpointKind::Launch,
                _ => CheckpointKind::Verify,
            };
        }
        "docker" | "podman" if arg(1) == "compose" => {
            return match compose_subcommand(&argv[2..]) {
                "down" | "stop" | "kill" | "rm" => CheckpointKind::Kill,
                "up" | "start" | "restart" | "run" => CheckpointKind::Launch,
                "build" => CheckpointKind::Build,
                _ => CheckpointKind::Verify,
            };
        }
        "docker" | "podman" => {
            return match arg(1) {
                "stop" | "kill" | "rm" => CheckpointKind::Kill,
                "run" | "start" | "restart" => CheckpointKind::Launch,
                "build" => CheckpointKind::Build,
                _ => CheckpointKind::Verify,
            };
        }
        "pip" | "pip3" | "uv" | "conda" | "mamba" | "apt-get" | "apt" | "yum" | "dnf" => {
            return if argv
                .iter()
                .any(|a| a == "install" || a == "wheel" || a == "sync")
            {
                CheckpointKind::Build
            } else {
                CheckpointKind::Verify
            };
        }
        // A toolchain asked its version builds nothing: a look at what is
        // installed (`nvcc --version`, `gcc -v`).
        "make" | "cmake" | "ninja" | "nvcc" | "gcc" | "g++" | "clang" | "maturin" | "bazel"
            if argv.len() == 2 && matches!(arg(1), "--version" | "-v" | "-V" | "--help") =>
        {
            return CheckpointKind::Verify;
        }
        "make" | "cmake" | "ninja" | "nvcc" | "gcc" | "g++" | "maturin" | "bazel" => {
            return CheckpointKind::Build;
        }
        "cargo" if matches!(arg(1), "build" | "install") => return CheckpointKind::Build,
        // Test runs check the code, and often the server the tests call.
        "pytest" | "jest" | "vitest" | "mocha" => return CheckpointKind::Verify,
        "npx" | "bunx" | "pnpx" if matches!(arg(1), "jest" | "vitest" | "mocha" | "playwright") => {
            return CheckpointKind::Verify;
        }
        "npm" | "pnpm" | "yarn" | "bun"
            if arg(1) == "test" || arg(1) == "run" && arg(2).starts_with("test") =>
        {
            return CheckpointKind::Verify;
        }
        "go" | "cargo" if arg(1) == "test" => return CheckpointKind::Verify,
        // Kubernetes and OpenShift reads: pods, logs, descriptions.
        "kubectl" | "oc" if matches!(arg(1), "logs" | "get" | "describe" | "top") => {
            return CheckpointKind::Verify;
        }
        // Clients that ask a database or cache whether it answers.
        _ if service_probe(command).is_some() => return CheckpointKind::Verify,
        "sleep" | "wait" | "watch" => return CheckpointKind::Wait,
        _ => {}
    }
    if program.starts_with("python") {
        let module = argv
            .iter()
            .position(|a| a == "-m")
            .and_then(|i| argv.get(i + 1))
            .map(String::as_str);
        if matches!(module, Some("pip" | "build"))
            && argv.iter().any(|a| a == "install" || a == "wheel")
            || module == Some("build")
            || argv.iter().any(|a| a.ends_with("setup.py"))
        {
            return CheckpointKind::Build;
        }
        if argv.iter().any(|a| a == "-c") || matches!(module, Some("pytest" | "unittest")) {
            return CheckpointKind::Verify;
        }
        if module.is_none() && runs_check_script(argv) {
            return CheckpointKind::Verify;
        }
        return CheckpointKind::Other;
    }
    // The same from a shell or node (`bash /tmp/test-ollama.sh`, `node
    // check-api.js`), or the script run itself (`./smoke_test.sh`).
    let interpreter = matches!(
        program,
        "bash" | "sh" | "zsh" | "dash" | "node" | "bun" | "deno" | "ruby" | "perl" | "pwsh"
    );
    if interpreter && runs_check_script(argv) || argv.first().is_some_and(|a| check_script_name(a))
    {
        return CheckpointKind::Verify;
    }
    // An install or build script run by name (`./install.sh`, `bash
    // build.sh`, `.\install.ps1`).
    let script = if interpreter {
        argv.iter().skip(1).find(|a| !a.starts_with('-'))
    } else {
        argv.first()
    };
    if script.is_some_and(|a| build_script_name(a)) {
        return CheckpointKind::Build;
    }
    if VERIFY_PROGRAMS.contains(&program) || powershell_look(program).is_some() {
        return CheckpointKind::Verify;
    }
    if opened_local_url(argv).is_some() {
        return CheckpointKind::Verify;
    }
    CheckpointKind::Other
}

/// Programs that name a URL without asking it: printing, configuring,
/// fetching code.
const URL_NOT_ASKED: &[&str] = &[
    "echo",
    "printf",
    "export",
    "set",
    "git",
    "npm",
    "pnpm",
    "yarn",
    "pip",
    "pip3",
    "uv",
    "docker",
    "kubectl",
    "ngrok",
    "cloudflared",
    "ssh",
    "scp",
    "rsync",
    "sed",
    "grep",
    "rg",
    "cat",
    "tee",
    "env",
    "source",
    "cd",
    "ls",
    "mkdir",
    "cp",
    "mv",
    "rm",
    "touch",
];

/// A local server's URL given to a program as its own argument (not a
/// flag's value): `chromium --headless --screenshot=a.png
/// http://localhost:3000`, `agent-browser open http://localhost:5175/`,
/// `python smoke.py http://127.0.0.1:8000`: the program asks that server.
fn opened_local_url(argv: &[String]) -> Option<Observation> {
    let program = argv.first()?;
    let program = program.rsplit(['/', '\\']).next().unwrap_or(program);
    if URL_NOT_ASKED.contains(&program) {
        return None;
    }
    argv.iter().enumerate().skip(1).find_map(|(at, word)| {
        let value_of_flag = argv[at - 1].starts_with('-') && !argv[at - 1].contains('=');
        if value_of_flag || !(word.starts_with("http://") || word.starts_with("https://")) {
            return None;
        }
        match http_target(word)? {
            Observation::Http { host, port, url }
                if port.is_some() && (crate::timeline::is_local(&host) || host == "0.0.0.0") =>
            {
                Some(Observation::Http { url, host, port })
            }
            _ => None,
        }
    })
}

/// Whether a path names a script (by its extension) that installs or builds.
fn build_script_name(path: &str) -> bool {
    let name = path
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(path)
        .to_ascii_lowercase();
    [".sh", ".ps1", ".bat", ".cmd"]
        .iter()
        .any(|e| name.ends_with(e))
        && (name.starts_with("install") || name.starts_with("build") || name.starts_with("setup"))
}

/// What a PowerShell command that looks without changing anything looks
/// at, by its cmdlet or alias (case-insensitive, as PowerShell reads them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PowerShellLook {
    /// `Invoke-WebRequest`, `Invoke-RestMethod` (`iwr`, `irm`), `curl.exe`.
    Request,
    /// `Test-NetConnection HOST -Port N` (`tnc`): a TCP connect.
    Connect,
    /// `Get-NetTCPConnection -LocalPort N`: a socket listing.
    Sockets,
    /// `Get-Process`, `tasklist`: a process list.
    Processes,
    /// `Get-Content` (`gc`, `type`), `Select-String`: a file read.
    Read,
}

fn powershell_look(program: &str) -> Option<PowerShellLook> {
    let lower = program.to_ascii_lowercase();
    let lower = lower.strip_suffix(".exe").unwrap_or(&lower);
    Some(match lower {
        "invoke-webrequest" | "iwr" | "invoke-restmethod" | "irm" => PowerShellLook::Request,
        "test-netconnection" | "tnc" => PowerShellLook::Connect,
        "get-nettcpconnection" => PowerShellLook::Sockets,
        "get-process" | "gps" | "tasklist" => PowerShellLook::Processes,
        "get-content" | "gc" | "type" | "select-string" | "sls" => PowerShellLook::Read,
        // `curl.exe` and `wget.exe` are curl and wget (plain `curl` in
        // Windows PowerShell 5 is `Invoke-WebRequest`, read the same).
        "curl" | "wget" if program.len() > lower.len() => PowerShellLook::Request,
        _ => return None,
    })
}

/// A PowerShell command's value for a named parameter (`-Port 8080`,
/// `-Uri http://…`), names matched as PowerShell does, in any case.
fn powershell_param<'a>(argv: &'a [String], names: &[&str]) -> Option<&'a str> {
    argv.iter().enumerate().skip(1).find_map(|(i, a)| {
        let name = a.strip_prefix('-')?;
        names
            .iter()
            .any(|n| n.eq_ignore_ascii_case(name))
            .then(|| argv.get(i + 1).map(String::as_str))
            .flatten()
    })
}

/// Whether an interpreter's first argument that is not an option is a
/// script written to test or check (`e2e_test.py`, `production_smoke_tests.py`,
/// `check_server.py`, `test-ollama.sh`): its run is a check, often of the
/// server the script calls.
fn runs_check_script(argv: &[String]) -> bool {
    argv.iter()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .is_some_and(|a| check_script_name(a))
}

/// Whether a path names a script (by its extension) written to test or
/// check something.
fn check_script_name(path: &str) -> bool {
    const SCRIPTS: &[&str] = &[
        ".py", ".sh", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl", ".ps1",
    ];
    let name = path
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(path)
        .to_ascii_lowercase();
    SCRIPTS.iter().any(|e| name.ends_with(e)) && crate::other_servers::names_a_check(&name)
}

/// A database or cache client asking its server whether it answers, as a
/// request to that server's port: `redis-cli [-h H] [-p P] ping`,
/// `pg_isready [-h H] [-p P]`, `mysqladmin [-h H] [-P P] ping` (each
/// program's default port when none is given; `docker exec` is unwrapped
/// before, so the host is the container's own).
fn service_probe(command: &SimpleCommand) -> Option<Observation> {
    let argv = &command.argv;
    // The Ollama CLI asks its server over HTTP (`OLLAMA_HOST`, else
    // 127.0.0.1:11434): `ollama list` answering, or failing with "could
    // not connect to ollama app", is a request to that server. `-v` only
    // asks when a server answers, and says so otherwise.
    if command.program() == "ollama"
        && matches!(
            argv.get(1).map(String::as_str),
            Some("list" | "ls" | "ps" | "show" | "run" | "pull" | "stop" | "-v" | "--version")
        )
    {
        let (host, port) = crate::engine::ollama_host(&command.env).unwrap_or((None, None));
        let host = host.filter(|h| *h != "0.0.0.0").unwrap_or("127.0.0.1");
        let port = port.unwrap_or(11434);
        return Some(Observation::Http {
            url: format!("http://{host}:{port}/api/tags"),
            host: host.to_owned(),
            port: Some(port),
        });
    }
    let (default_port, port_flag) = match command.program() {
        "redis-cli" | "valkey-cli" if argv.iter().any(|a| a.eq_ignore_ascii_case("ping")) => {
            (6379, "-p")
        }
        "pg_isready" => (5432, "-p"),
        "mysqladmin" | "mariadb-admin" if argv.iter().any(|a| a == "ping") => (3306, "-P"),
        _ => return None,
    };
    let value = |flag: &str, long: &str| {
        argv.iter().enumerate().find_map(|(i, a)| {
            if a == flag || a == long {
                argv.get(i + 1).cloned()
            } else {
                a.strip_prefix(&format!("{long}=")).map(str::to_owned)
            }
        })
    };
    let host = value("-h", "--host").unwrap_or_else(|| "127.0.0.1".to_owned());
    let port = value(port_flag, "--port")
        .and_then(|p| p.parse().ok())
        .unwrap_or(default_port);
    Some(Observation::Http {
        url: format!("{}://{host}:{port}", command.program()),
        host,
        port: Some(port),
    })
}

/// The top-level modules a Python text imports: `import a.b, c as d` → `a`,
/// `c`; `from e.f import g` → `e` (relative imports name none). Read line
/// by line, indented ones too (imports inside functions, `python -c` text
/// joined by `;`).
pub fn python_imports(text: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let mut add = |name: &str| {
        let top = name.trim().split('.').next().unwrap_or("");
        if !top.is_empty()
            && top.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !found.iter().any(|f| f == top)
        {
            found.push(top.to_owned());
        }
    };
    for statement in text.split(['\n', ';']) {
        let statement = statement.trim();
        if let Some(rest) = statement.strip_prefix("import ") {
            for name in rest.split(',') {
                add(name.split_whitespace().next().unwrap_or(""));
            }
        } else if let Some(rest) = statement.strip_prefix("from ")
            && let Some((module, _)) = rest.split_once(" import ")
        {
            add(module);
        }
    }
    found
}

/// The subcommand of `docker compose` / `docker-compose`, past its
/// options (`-f file`, `--env-file f`, `-p name`, `--profile p`).
fn compose_subcommand(args: &[String]) -> &str {
    const VALUED: &[&str] = &[
        "-f",
        "--file",
        "--env-file",
        "-p",
        "--project-name",
        "--profile",
        "--project-directory",
        "--ansi",
        "--parallel",
    ];
    let mut i = 0;
    while let Some(word) = args.get(i) {
        if !word.starts_with('-') {
            return word;
        }
        i += if VALUED.contains(&word.as_str()) {
            2
        } else {
            1
        };
    }
    ""
}

/// Programs that look at state without changing it.
const VERIFY_PROGRAMS: &[&str] = &[
    "curl",
    "wget",
    "http",
    "nc",
    "ncat",
    "ss",
    "netstat",
    "lsof",
    "nvidia-smi",
    "ps",
    "pgrep",
    "tail",
    "head",
    "cat",
    "less",
    "grep",
    "egrep",
    "rg",
    "wc",
    "ls",
    "journalctl",
    "free",
    "df",
    "du",
    "top",
    "htop",
    "nvtop",
    "stat",
    "file",
    "ldd",
    "readelf",
    "nm",
    "find",
    "which",
    "test",
    "awk",
    "sed",
    "sort",
    "uniq",
    "tr",
    "cut",
    "jq",
];

/// What a command lets the agent see.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Observation {
    /// A socket listing filtered for a port (`ss -ltnp | grep 8000`, `lsof -i :8000`).
    PortListing { port: Option<u16> },
    /// An HTTP request (`curl http://127.0.0.1:8000/health`).
    Http {
        url: String,
        host: String,
        port: Option<u16>,
    },
    /// A read of a file, whole or through a window.
    FileRead { path: String, window: Window },
    /// A process list (`ps`, `pgrep`), possibly cut by a piped `head -N`.
    Processes { limit: Option<u32> },
    /// GPU state (`nvidia-smi`).
    Gpus,
    /// A container listing (`docker ps`, `docker compose ps`): the
    /// containers running and the ports each publishes, if any.
    Containers,
}

/// `docker ps`, `docker container ls`, `docker compose ps`,
/// `docker-compose ps` (options before the subcommand skipped).
fn container_listing(argv: &[String]) -> bool {
    let words: Vec<&str> = argv[1..]
        .iter()
        .map(String::as_str)
        .filter(|w| !w.starts_with('-'))
        .collect();
    matches!(
        words.as_slice(),
        ["ps", ..] | ["container", "ls" | "list" | "ps", ..] | ["compose", "ps", ..]
    ) || argv[0].ends_with("compose") && words.first() == Some(&"ps")
}

/// How much of a file a read shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Window {
    All,
    Tail(u32),
    Head(u32),
    Grep {
        pattern: String,
        inverted: bool,
    },
    Count,
    /// Lines `first` to `last` (1-based, inclusive; `None`: to the end), as
    /// `sed -n '100,200p'` prints them.
    Lines {
        first: u32,
        last: Option<u32>,
    },
}

regex!(
    URL,
    r"^(?:(https?)://)?(\[[^\]]+\]|[A-Za-z0-9.-]+)(?-u:(?::(\d+))?)(/[^\t\n\x0B\x0C\r ]*)?$"
);

/// Observations of every command in one tool call (pipelines included:
/// `ss -ltn | grep 8000` is one port listing filtered for 8000).
pub fn observations(commands: &[SimpleCommand]) -> Vec<Observation> {
    let mut found = Vec::new();
    for (i, command) in commands.iter().enumerate() {
        let argv = &command.argv;
        let program = command.program();
        // The rest of this pipeline, for filters such as `| grep 8000`.
        let pipeline_filter = || {
            commands[i + 1..]
                .iter()
                .take_while(|c| c.piped_from_previous)
                .filter(|c| matches!(c.program(), "grep" | "egrep" | "rg" | "findstr"))
                .flat_map(|c| c.argv[1..].iter())
                .find_map(|a| port_in(a))
        };
        match program {
            "ss" | "netstat" => found.push(Observation::PortListing {
                port: argv[1..]
                    .iter()
                    .find_map(|a| port_in(a))
                    .or_else(pipeline_filter),
            }),
            "lsof" => {
                if let Some(at) = argv.iter().position(|a| a.starts_with("-i")) {
                    let spec = if argv[at].len() > 2 {
                        argv[at][2..].to_owned()
                    } else {
                        argv.get(at + 1).cloned().unwrap_or_default()
                    };
                    found.push(Observation::PortListing {
                        port: port_in(&spec).or_else(pipeline_filter),
                    });
                }
            }
            "nc" | "ncat" => {
                let words: Vec<&String> =
                    argv[1..].iter().filter(|a| !a.starts_with('-')).collect();
                if let [host, port, ..] = words.as_slice() {
                    found.push(Observation::Http {
                        url: format!("{host}:{port}"),
                        host: (*host).clone(),
                        port: port.parse().ok(),
                    });
                }
            }
            "curl" | "wget" | "http" | crate::parse::claude_code::BROWSER_OPEN => {
                for word in argv[1..].iter().filter(|a| !a.starts_with('-')) {
                    if let Some(request) = http_target(word) {
                        found.push(request);
                        break;
                    }
                }
            }
            "nvidia-smi" => found.push(Observation::Gpus),
            "docker" | "podman" | "docker-compose" | "podman-compose"
                if container_listing(argv) =>
            {
                found.push(Observation::Containers);
            }
            "redis-cli" | "valkey-cli" | "pg_isready" | "mysqladmin" | "mariadb-admin"
            | "ollama" => {
                found.extend(service_probe(command));
            }
            "ps" | "pgrep" => {
                let limit = commands[i + 1..]
                    .iter()
                    .take_while(|c| c.piped_from_previous)
                    .filter(|c| c.program() == "head")
                    .find_map(|c| match file_read_window(c) {
                        Window::Head(n) => Some(n),
                        _ => None,
                    });
                found.push(Observation::Processes { limit });
            }
            "tail" | "head" | "cat" | "less" | "wc" | "grep" | "egrep" | "rg" => {
                if let Some(read) = file_read(command) {
                    found.push(read);
                }
            }
            "sed" => found.extend(sed_read(command)),
            _ => match powershell_look(program) {
                Some(PowerShellLook::Request) => {
                    let target = powershell_param(argv, &["Uri"])
                        .into_iter()
                        .chain(argv[1..].iter().map(String::as_str))
                        .filter(|a| !a.starts_with('-'))
                        // `(Invoke-RestMethod http://h:8080/v1/models).data.id`:
                        // the URL ends where the expression's bracket closes.
                        .find_map(|a| http_target(a.split(')').next().unwrap_or(a)));
                    found.extend(target);
                }
                Some(PowerShellLook::Connect) => {
                    let host = powershell_param(argv, &["ComputerName", "cn"])
                        .or_else(|| {
                            argv[1..]
                                .iter()
                                .map(String::as_str)
                                .find(|a| !a.starts_with('-'))
                        })
                        .unwrap_or("localhost");
                    if let Some(port) =
                        powershell_param(argv, &["Port"]).and_then(|p| p.parse().ok())
                    {
                        found.push(Observation::Http {
                            url: format!("{host}:{port}"),
                            host: host.to_owned(),
                            port: Some(port),
                        });
                    }
                }
                Some(PowerShellLook::Sockets) => found.push(Observation::PortListing {
                    port: powershell_param(argv, &["LocalPort"])
                        .and_then(|p| p.parse().ok())
                        .or_else(pipeline_filter),
                }),
                Some(PowerShellLook::Processes) => {
                    found.push(Observation::Processes { limit: None })
                }
                Some(PowerShellLook::Read) => {}
                None => found.extend(opened_local_url(argv)),
            },
        }
    }
    found
}

fn http_target(word: &str) -> Option<Observation> {
    let captures = URL.as_ref()?.captures(word)?;
    let scheme = captures.get(1).map(|m| m.as_str());
    let host = captures.get(2)?.as_str();
    let explicit_port = captures.get(3).and_then(|m| m.as_str().parse().ok());
    // A bare word is only a URL when it has a scheme or a port.
    if scheme.is_none() && explicit_port.is_none() {
        return None;
    }
    let port = explicit_port.or(match scheme {
        Some("https") => Some(443),
        Some("http") => Some(80),
        _ => None,
    });
    Some(Observation::Http {
        url: word.to_owned(),
        host: host.to_owned(),
        port,
    })
}

/// The port a filter or address word names (`8000`, `:8000`, `*:8000`, `tcp:8000`).
pub fn port_in(word: &str) -> Option<u16> {
    let digits = word
        .trim_end_matches(['$', '\'', '"', ' ', ')'])
        .rsplit([':', ' ', '('])
        .next()?
        .trim_start_matches(['\\', 'b']);
    (digits.len() >= 2 && digits.chars().all(|c| c.is_ascii_digit()))
        .then(|| digits.parse().ok())
        .flatten()
        .filter(|port| *port > 0)
}

/// The window of a `head`/`tail` used as a filter (no file argument).
fn file_read_window(command: &SimpleCommand) -> Window {
    let mut with_path = command.clone();
    with_path.argv.push("/dev/stdin".to_owned());
    match file_read(&with_path) {
        Some(Observation::FileRead { window, .. }) => window,
        _ => Window::All,
    }
}

/// `sed -n 'A,Bp' FILE` (also `Ap`, `A,$p`): a window of lines by number.
/// Any other sed script edits or filters, and says nothing about a window.
fn sed_read(command: &SimpleCommand) -> Option<Observation> {
    let mut quiet = false;
    let mut script: Option<&str> = None;
    let mut path: Option<&str> = None;
    let mut words = command.argv[1..].iter();
    while let Some(word) = words.next() {
        match word.as_str() {
            "-n" | "--quiet" | "--silent" => quiet = true,
            "-e" => script = words.next().map(String::as_str),
            // `-ne`, `-En`: short flags run together.
            flag if flag.starts_with('-') && !flag.starts_with("--") => {
                quiet |= flag.contains('n');
            }
            _ if word.starts_with("--") => {}
            other if script.is_none() => script = Some(other),
            other => path = Some(other),
        }
    }
    if !quiet {
        return None;
    }
    let range = script?.trim().strip_suffix('p')?;
    let (first, last) = match range.split_once(',') {
        Some((first, "$")) => (first.trim().parse().ok()?, None),
        Some((first, last)) => (first.trim().parse().ok()?, Some(last.trim().parse().ok()?)),
        None => {
            let line = range.trim().parse().ok()?;
            (line, Some(line))
        }
    };
    Some(Observation::FileRead {
        path: path?.to_owned(),
        window: Window::Lines { first, last },
    })
}

fn file_read(command: &SimpleCommand) -> Option<Observation> {
    let argv = &command.argv;
    let program = command.program();
    let mut number: Option<u32> = None;
    let mut path: Option<String> = None;
    let mut pattern: Option<String> = None;
    let mut inverted = false;
    let mut count = false;
    let mut i = 1;
    while let Some(word) = argv.get(i) {
        // `tail -n 5` / `head -c 100`; for grep `-n` is a flag, not a count.
        if matches!(program, "tail" | "head") && (word == "-n" || word == "-c") {
            number = argv
                .get(i + 1)
                .and_then(|n| n.trim_start_matches('+').parse().ok());
            i += 2;
            continue;
        }
        if matches!(program, "grep" | "egrep" | "rg") {
            if word == "-e" {
                pattern = argv.get(i + 1).cloned();
                i += 2;
                continue;
            }
            if let Some(flags) = word.strip_prefix('-') {
                inverted |= flags.contains('v') && !flags.starts_with('-');
                count |= flags.contains('c') && !flags.starts_with('-');
                i += 1;
                continue;
            }
            if pattern.is_none() {
                pattern = Some(word.clone());
            } else {
                path = Some(word.clone());
            }
            i += 1;
            continue;
        }
        if let Some(flags) = word.strip_prefix('-') {
            // `tail -5`, `head -20`, `tail -n5`.
            let digits = flags.trim_start_matches('n');
            if !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()) {
                number = digits.parse().ok();
            }
            i += 1;
            continue;
        }
        path = Some(word.clone());
        i += 1;
    }
    let path = path?;
    let window = match program {
        "tail" => Window::Tail(number.unwrap_or(10)),
        "head" => Window::Head(number.unwrap_or(10)),
        "wc" => Window::Count,
        "grep" | "egrep" | "rg" if count => Window::Count,
        "grep" | "egrep" | "rg" => Window::Grep {
            pattern: pattern.unwrap_or_default(),
            inverted,
        },
        _ => Window::All,
    };
    Some(Observation::FileRead { path, window })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shell::parse;

    /// The most consequential kind among a command line's simple commands.
    fn strongest(line: &str) -> CheckpointKind {
        parse(line)
            .iter()
            .map(kind_of)
            .min()
            .unwrap_or(CheckpointKind::Other)
    }

    #[test]
    fn powershell_looks_and_installers() {
        assert_eq!(strongest("Get-Process llama"), CheckpointKind::Verify);
        assert_eq!(
            strongest("get-nettcpconnection -LocalPort 8080 -State Listen"),
            CheckpointKind::Verify
        );
        assert_eq!(
            strongest("curl.exe -s http://127.0.0.1:11434/api/version"),
            CheckpointKind::Verify
        );
        assert_eq!(
            strongest("irm https://llama.app/install.ps1 | iex"),
            CheckpointKind::Build
        );
        assert_eq!(
            strongest("curl -fsSL https://ollama.com/install.sh | sh"),
            CheckpointKind::Build
        );
        assert_eq!(strongest("./install.sh"), CheckpointKind::Build);
        assert_eq!(strongest("bash build.sh --release"), CheckpointKind::Build);
        assert_eq!(strongest("bash run_server.sh"), CheckpointKind::Other);
        assert_eq!(strongest("gcc --version | head -1"), CheckpointKind::Verify);
        assert_eq!(strongest("nvcc --version"), CheckpointKind::Verify);
        assert_eq!(strongest("nvcc -o k k.cu"), CheckpointKind::Build);
        assert_eq!(strongest("cat notes.txt | bash -n"), CheckpointKind::Build);
        let seen = |line: &str| observations(&parse(line));
        assert_eq!(
            seen("(Invoke-RestMethod http://127.0.0.1:8080/v1/models).data.id"),
            [Observation::Http {
                url: "http://127.0.0.1:8080/v1/models".to_owned(),
                host: "127.0.0.1".to_owned(),
                port: Some(8080)
            }]
        );
        assert_eq!(
            seen("Invoke-WebRequest -Uri http://localhost:8000/health -UseBasicParsing"),
            [Observation::Http {
                url: "http://localhost:8000/health".to_owned(),
                host: "localhost".to_owned(),
                port: Some(8000)
            }]
        );
        assert_eq!(
            seen("Test-NetConnection localhost -Port 11434"),
            [Observation::Http {
                url: "localhost:11434".to_owned(),
                host: "localhost".to_owned(),
                port: Some(11434)
            }]
        );
        assert_eq!(
            seen("Get-NetTCPConnection -LocalPort 8080 -State Listen"),
            [Observation::PortListing { port: Some(8080) }]
        );
        assert_eq!(seen("tasklist"), [Observation::Processes { limit: None }]);
    }

    #[test]
    fn sed_n_ranges_are_windows() {
        let read = |command: &str| {
            parse(command).iter().find_map(sed_read).map(|o| match o {
                Observation::FileRead { path, window } => (path, window),
                _ => unreachable!(),
            })
        };
        assert_eq!(
            read("sed -n '100,200p' /tmp/s.log"),
            Some((
                "/tmp/s.log".to_owned(),
                Window::Lines {
                    first: 100,
                    last: Some(200)
                }
            ))
        );
        assert_eq!(
            read("sed -n '40,$p' x.log"),
            Some((
                "x.log".to_owned(),
                Window::Lines {
                    first: 40,
                    last: None
                }
            ))
        );
        assert_eq!(
            read("sed -ne '7p' x.log"),
            Some((
                "x.log".to_owned(),
                Window::Lines {
                    first: 7,
                    last: Some(7)
                }
            ))
        );
        assert_eq!(read("sed -i 's/a/b/' x.log"), None);
        assert_eq!(
            read("sed '1,5p' x.log"),
            None,
            "without -n every line prints"
        );
    }

    fn kind(input: &str) -> Vec<CheckpointKind> {
        parse(input).iter().map(kind_of).collect()
    }

    #[test]
    fn python_imports_name_top_level_modules() {
        assert_eq!(
            python_imports(
                "import os, numpy as np\nfrom marshmallow.fields import TimeDelta\n  import a.b\nfrom . import x\nx = 'import y'"
            ),
            ["os", "numpy", "marshmallow", "a"]
        );
        assert_eq!(
            python_imports("import sgl_kernel; print(1)"),
            ["sgl_kernel"]
        );
    }

    /// A program opening a local server's URL asks it; naming a URL to
    /// print, configure or tunnel does not.
    #[test]
    fn a_program_opening_a_local_url_asks_it() {
        use CheckpointKind::*;
        assert_eq!(
            kind("chromium --headless --no-sandbox --screenshot=a.png http://localhost:8791/"),
            [Verify]
        );
        assert_eq!(
            kind("d3k agent-browser open 'http://localhost:5175/screen?stage=idle'"),
            [Verify]
        );
        let seen = observations(&parse("vbrt shot http://localhost:8791 --label after"));
        assert!(
            matches!(
                seen.as_slice(),
                [Observation::Http {
                    port: Some(8791),
                    ..
                }]
            ),
            "{seen:?}"
        );
        assert_eq!(kind("echo http://localhost:3000"), [Other]);
        assert_eq!(
            kind("git remote add local http://localhost:3000/r.git"),
            [Other]
        );
        assert_eq!(kind("my-tool --endpoint http://localhost:3000"), [Other]);
        assert_eq!(kind("xdg-open https://example.com:8443/"), [Other]);
    }

    #[test]
    fn url_pattern_compiles() {
        assert!(URL.is_some());
    }

    #[test]
    fn kinds_of_common_commands() {
        use CheckpointKind::*;
        assert_eq!(kind("pip install -e . && make -j8"), [Build, Build]);
        assert_eq!(
            kind("kill -9 123; pkill -f vllm; fuser -k /dev/nvidia*"),
            [Kill, Kill, Kill]
        );
        assert_eq!(kind("systemctl stop vllm"), [Kill]);
        assert_eq!(
            kind("kill -0 4242"),
            [Verify],
            "signal 0 asks, it does not kill"
        );
        assert_eq!(kind("python -m sglang.launch_server --port 1"), [Launch]);
        assert_eq!(
            kind("./build/bin/llama-server --version"),
            [Verify],
            "a built server asked its version is checked, not launched"
        );
        assert_eq!(kind("sleep 30; tail -5 x.log"), [Wait, Verify]);
        assert_eq!(kind("python -c 'import sgl_kernel'"), [Verify]);
        assert_eq!(kind("python3 -m pip install ./x"), [Build]);
        assert_eq!(kind("cd /data"), [Other]);
        assert_eq!(
            kind(r#"wmic process where "commandline like '%uvicorn%'" delete"#),
            [Kill]
        );
        assert_eq!(kind("ollama list; ollama -v"), [Verify, Verify]);
        assert_eq!(kind("ollama serve"), [Launch]);
        assert_eq!(kind("ollama stop gemma3:4b ; date"), [Kill, Other]);
        assert_eq!(
            kind("npm run build:local-e2e; pnpm run build-prod; npm run builder"),
            [Build, Build, Other]
        );
        assert_eq!(
            kind(
                "npx jest tests/a.test.ts; npm test; npm run test:e2e; python -m pytest -q; go test ./...; python3 production_smoke_tests.py; python e2e_test.py --url http://localhost:8080"
            ),
            [Verify, Verify, Verify, Verify, Verify, Verify, Verify]
        );
        assert_eq!(
            kind("REDIS_URL=redis://localhost:6379 npx vitest run"),
            [Verify]
        );
        // Check scripts run by a shell or node, or run themselves.
        assert_eq!(
            kind(
                "bash /tmp/test-ollama.sh 2>&1; ./smoke_test.sh; node scripts/check-api.js; bash deploy.sh; sh -x ./healthcheck.sh"
            ),
            [Verify, Verify, Verify, Other, Verify]
        );
        assert_eq!(
            kind(
                "docker exec app-redis-1 redis-cli -a s ping; pg_isready -h db -p 5433; redis-cli get k"
            ),
            [Verify, Verify, Other]
        );
    }

    #[test]
    fn service_clients_are_requests_to_their_port() {
        let obs = observations(&parse(
            "docker exec app-redis-1 redis-cli ping; pg_isready -h db -p 5433; mysqladmin ping",
        ));
        let ports: Vec<(String, Option<u16>)> = obs
            .iter()
            .filter_map(|o| match o {
                Observation::Http { host, port, .. } => Some((host.clone(), *port)),
                _ => None,
            })
            .collect();
        assert_eq!(
            ports,
            [
                ("127.0.0.1".to_owned(), Some(6379)),
                ("db".to_owned(), Some(5433)),
                ("127.0.0.1".to_owned(), Some(3306))
            ]
        );
    }

    #[test]
    fn port_checks_and_requests() {
        let obs = observations(&parse(
            "ss -ltnp | grep :8000; curl -s http://127.0.0.1:8000/health",
        ));
        assert_eq!(obs[0], Observation::PortListing { port: Some(8000) });
        assert_eq!(
            obs[1],
            Observation::Http {
                url: "http://127.0.0.1:8000/health".into(),
                host: "127.0.0.1".into(),
                port: Some(8000)
            }
        );
        let obs = observations(&parse("lsof -i :30000"));
        assert_eq!(obs[0], Observation::PortListing { port: Some(30000) });
        let obs = observations(&parse("curl -sf localhost:30000/v1/models"));
        assert!(matches!(
            &obs[0],
            Observation::Http {
                port: Some(30000),
                ..
            }
        ));
    }

    #[test]
    fn file_windows() {
        let obs = observations(&parse(
            "wc -l /x.log; tail -5 /x.log; tail -n 20 /x.log | grep -v 'Loading safetensors'; grep -c TP /x.log",
        ));
        assert_eq!(
            obs[0],
            Observation::FileRead {
                path: "/x.log".into(),
                window: Window::Count
            }
        );
        assert_eq!(
            obs[1],
            Observation::FileRead {
                path: "/x.log".into(),
                window: Window::Tail(5)
            }
        );
        assert_eq!(
            obs[2],
            Observation::FileRead {
                path: "/x.log".into(),
                window: Window::Tail(20)
            }
        );
        assert_eq!(
            obs[3],
            Observation::FileRead {
                path: "/x.log".into(),
                window: Window::Count
            }
        );
        let obs = observations(&parse("ps aux | grep sglang | grep -v grep | head -3"));
        assert_eq!(obs[0], Observation::Processes { limit: Some(3) });
    }
}

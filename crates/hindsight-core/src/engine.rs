//! Inference engines and their launch settings.
//!
//! Settings come from two places that must agree on one type: the launch
//! command's flags (what the agent asked for) and the engine's own startup dump
//! in its log (what the engine actually used, e.g. SGLang's `server_args=`).

use serde::Serialize;

use crate::settings::{self, ServerSettings};

/// The inference server program.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, serde::Deserialize,
)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
#[serde(rename_all = "kebab-case")]
pub enum Engine {
    Sglang,
    Vllm,
    Tgi,
    #[serde(rename = "llama.cpp")]
    LlamaCpp,
    Ollama,
    TensorrtLlm,
    #[default]
    Unknown,
}

impl Engine {
    /// The port the engine listens on when no `--port` is given.
    pub fn default_port(self) -> Option<u16> {
        match self {
            Engine::Sglang => Some(30000),
            Engine::Vllm | Engine::TensorrtLlm => Some(8000),
            Engine::Tgi => Some(3000),
            Engine::LlamaCpp => Some(8080),
            Engine::Ollama => Some(11434),
            Engine::Unknown => None,
        }
    }

    /// Whether its command takes the model as its first word (`vllm serve
    /// MODEL`, `trtllm-serve MODEL`).
    pub fn takes_model_first(self) -> bool {
        matches!(self, Engine::Vllm | Engine::TensorrtLlm)
    }

    pub fn name(self) -> &'static str {
        match self {
            Engine::Sglang => "sglang",
            Engine::Vllm => "vllm",
            Engine::Tgi => "tgi",
            Engine::LlamaCpp => "llama.cpp",
            Engine::Ollama => "ollama",
            Engine::TensorrtLlm => "tensorrt-llm",
            Engine::Unknown => "unknown",
        }
    }
}

/// Recognises a launch command and reads its settings.
/// `argv` has wrappers already removed (see [`crate::shell`]); launcher
/// wrappers the shell does not know (`mpirun -n 8 …`, `srun …`, `docker run
/// IMAGE …`) are looked through here.
pub fn launch_from_argv(argv: &[String]) -> Option<(Engine, ServerSettings)> {
    // `llama-server --version`, `vllm serve --help`: the program prints and
    // exits, nothing is served (a build's product checked, not launched).
    if argv
        .iter()
        .skip(1)
        .any(|a| matches!(a.as_str(), "--version" | "--help"))
    {
        return None;
    }
    let (engine, mut settings) = launch_within(argv, 0)?;
    settings.elided = argv.iter().any(|word| is_elision(word));
    Some((engine, settings))
}

/// A word standing for arguments left out of a command as shown: `**`,
/// `...`, `…`, `<other args>`, `[options]`, `$EXTRA_ARGS`.
fn is_elision(word: &str) -> bool {
    matches!(word, "**" | "..." | "…" | "etc" | "etc.")
        || word.starts_with('<') && word.ends_with('>') && word.contains("arg")
        || word.starts_with('[') && word.ends_with(']') && word.contains("option")
        || word.starts_with('$') && word.to_ascii_uppercase().contains("ARGS")
}

/// `depth` counts wrappers looked through; one of each kind is plenty, and
/// the bound keeps hostile input (`mpirun mpirun mpirun …`) linear.
fn launch_within(argv: &[String], depth: u8) -> Option<(Engine, ServerSettings)> {
    let program = argv.first()?.rsplit(['/', '\\']).next().unwrap_or("");
    // Windows names its programs with `.exe` (`llama-server.exe`, `ollama.exe serve`).
    let program = program
        .strip_suffix(".exe")
        .or_else(|| program.strip_suffix(".EXE"))
        .unwrap_or(program);
    if LAUNCHERS.contains(&program) {
        if depth >= 2 {
            return None;
        }
        // The launched program is the first word that is itself a launch;
        // nested launchers are skipped as words, never recursed into.
        let is_launcher =
            |word: &String| LAUNCHERS.contains(&word.rsplit('/').next().unwrap_or(""));
        let (engine, mut settings) = (1..argv.len())
            .filter(|&i| !is_launcher(&argv[i]))
            .find_map(|i| launch_within(&argv[i..], depth + 1))?;
        // `mpirun -n 8 python3 run.py --engine_dir …`: MPI starts one process
        // per rank, so the process count is the world size.
        if matches!(program, "mpirun" | "mpiexec") && settings.world_size.is_none() {
            settings.world_size = argv
                .iter()
                .position(|a| a == "-n" || a == "-np")
                .and_then(|at| argv.get(at + 1))
                .and_then(|n| n.parse().ok());
        }
        return Some((engine, settings));
    }
    if let Some(unit) = started_unit(argv) {
        // `systemctl restart vllm-kimi`: a unit named for its engine.
        return match engine_named_in(unit) {
            Engine::Unknown => None,
            engine => Some((engine, ServerSettings::default())),
        };
    }
    if program == "docker" || program == "podman" {
        return if depth >= 2 {
            None
        } else {
            docker_run(argv, depth)
        };
    }
    // KoboldCpp bundles llama.cpp (`koboldcpp.exe`, `./koboldcpp-linux-x64
    // --model m.gguf --port 5000`, `python koboldcpp.py …`); its default
    // port is 5001.
    let script = argv
        .get(1)
        .filter(|_| program.starts_with("python"))
        .map(|a| a.rsplit(['/', '\\']).next().unwrap_or(""));
    if program.starts_with("koboldcpp") || script.is_some_and(|s| s.starts_with("koboldcpp")) {
        let rest = &argv[1 + usize::from(script.is_some())..];
        let mut settings = settings::from_args(rest, false);
        settings.default_port = Some(5001);
        return Some((Engine::LlamaCpp, settings));
    }
    let (engine, rest): (Engine, &[String]) = if program.starts_with("python") {
        // TensorRT-LLM's example runner: `python3 run.py --engine_dir …`
        // (one process per rank under `mpirun`), offline.
        let script = argv[1..].iter().find(|a| !a.starts_with('-'));
        if script.is_some_and(|s| s.rsplit('/').next() == Some("run.py"))
            && argv
                .iter()
                .any(|a| a == "--engine_dir" || a.starts_with("--engine_dir="))
        {
            let mut settings =
                settings::from_args(&argv[2..], Engine::TensorrtLlm.takes_model_first());
            settings.offline = true;
            return Some((Engine::TensorrtLlm, settings));
        }
        let module_at = argv.iter().position(|a| a == "-m")?;
        let module = argv.get(module_at + 1)?;
        let engine = match module.as_str() {
            "sglang.launch_server" => Engine::Sglang,
            "vllm.entrypoints.openai.api_server" | "vllm.entrypoints.api_server" => Engine::Vllm,
            "sglang" if argv.get(module_at + 2).is_some_and(|a| a == "serve") => Engine::Sglang,
            "vllm.entrypoints.cli.main" | "vllm"
                if argv.get(module_at + 2).is_some_and(|a| a == "serve") =>
            {
                Engine::Vllm
            }
            "tensorrt_llm.commands.serve" => Engine::TensorrtLlm,
            _ => return None,
        };
        let skip = usize::from(argv.get(module_at + 2).is_some_and(|a| a == "serve"));
        (engine, argv.get(module_at + 2 + skip..).unwrap_or(&[]))
    } else {
        match (program, argv.get(1).map(String::as_str)) {
            ("sglang", Some("serve")) => (Engine::Sglang, &argv[2..]),
            ("vllm", Some("serve")) => (Engine::Vllm, &argv[2..]),
            ("text-generation-launcher", _) => (Engine::Tgi, &argv[1..]),
            ("llama-server", _) => (Engine::LlamaCpp, &argv[1..]),
            // llama.cpp's one `llama` program of 2026 (`llama serve --model
            // m.gguf --port 8080`, ggml-org/llama.cpp's installer).
            ("llama", Some("serve" | "server")) => (Engine::LlamaCpp, &argv[2..]),
            ("ollama", Some("serve")) => (Engine::Ollama, &argv[2..]),
            ("trtllm-serve", Some("serve")) => (Engine::TensorrtLlm, &argv[2..]),
            ("trtllm-serve", _) => (Engine::TensorrtLlm, &argv[1..]),
            _ => return None,
        }
    };
    Some((
        engine,
        settings::from_args(rest, engine.takes_model_first()),
    ))
}

/// The unit a `systemctl start|restart UNIT` (or `service UNIT start`)
/// starts, without its `.service` suffix.
pub(crate) fn started_unit(argv: &[String]) -> Option<&str> {
    let program = argv.first()?.rsplit('/').next().unwrap_or("");
    // Asked of every command: most are neither, and end here unallocated.
    if program != "systemctl" && program != "service" {
        return None;
    }
    let words: Vec<&str> = argv[1..]
        .iter()
        .map(String::as_str)
        .filter(|w| !w.starts_with('-'))
        .collect();
    let unit = match (program, words.as_slice()) {
        (
            "systemctl",
            [
                "start" | "restart" | "reload-or-restart" | "try-restart",
                unit,
                ..,
            ],
        ) => *unit,
        ("service", [unit, "start" | "restart", ..]) => *unit,
        _ => return None,
    };
    Some(unit.strip_suffix(".service").unwrap_or(unit))
}

/// The engine a name names: a log's path, a container's or a systemd
/// unit's name (`/var/log/vllm-qwen.log`, `sglang-0`, `vllm-kimi.service`).
pub(crate) fn engine_named_in(name: &str) -> Engine {
    let name = name.to_ascii_lowercase();
    [
        ("sglang", Engine::Sglang),
        ("vllm", Engine::Vllm),
        ("text-generation", Engine::Tgi),
        ("tgi", Engine::Tgi),
        ("llama-server", Engine::LlamaCpp),
        ("llama.cpp", Engine::LlamaCpp),
        ("llama-cpp", Engine::LlamaCpp),
        ("llamacpp", Engine::LlamaCpp),
        ("ollama", Engine::Ollama),
        ("trtllm", Engine::TensorrtLlm),
        ("tensorrt", Engine::TensorrtLlm),
    ]
    .into_iter()
    .find(|(word, _)| name.contains(word))
    .map_or(Engine::Unknown, |(_, engine)| engine)
}

/// Programs that start another program given later on their command line.
const LAUNCHERS: &[&str] = &[
    "mpirun",
    "mpiexec",
    "srun",
    "trtllm-llmapi-launch",
    "numactl",
    "taskset",
    "uv",
    "conda",
    "stdbuf",
];

/// What `docker run [opts] IMAGE [args]` says before its command.
#[derive(Debug, Clone, PartialEq)]
pub struct DockerRun<'a> {
    /// `-p HOST:CONTAINER` mappings, as (host, container).
    pub published: Vec<(u16, u16)>,
    pub entrypoint: Option<String>,
    /// `--network host`: published ports are discarded.
    pub host_network: bool,
    /// `-it`, `-ti` or `-i -t`: a terminal attached.
    pub interactive: bool,
    /// `-e NAME=value` settings of the container's environment.
    pub env: Vec<(String, String)>,
    /// The image, as written.
    pub image: &'a str,
    /// The words after the image: the command, when one is given.
    pub rest: &'a [String],
}

/// Reads `docker run` (or `podman run`) options up to the image; `None`
/// for another command.
pub fn docker_run_parts(argv: &[String]) -> Option<DockerRun<'_>> {
    if !argv
        .first()
        .is_some_and(|p| matches!(p.rsplit('/').next(), Some("docker" | "podman")))
        || argv.get(1).map(String::as_str) != Some("run")
    {
        return None;
    }
    let mut run = DockerRun {
        published: Vec::new(),
        entrypoint: None,
        host_network: false,
        interactive: false,
        env: Vec::new(),
        image: "",
        rest: &[],
    };
    let mut i = 2;
    // Options that take a value, so the image is not mistaken for one.
    const VALUED: &[&str] = &[
        "-p",
        "--publish",
        "-v",
        "--volume",
        "-e",
        "--env",
        "--name",
        "--gpus",
        "--shm-size",
        "--ipc",
        "--network",
        "--net",
        "-w",
        "--workdir",
        "--entrypoint",
        "--env-file",
        "--runtime",
        "--ulimit",
        "-u",
        "--user",
        "--mount",
        "--device",
        "--cpus",
        "-m",
        "--memory",
        "--restart",
        "--label",
        "-l",
        "--platform",
        "--pull",
        "--hostname",
        "-h",
        "--security-opt",
        "--cap-add",
        "--cap-drop",
        "--group-add",
        "--add-host",
        "--dns",
        "--log-driver",
        "--log-opt",
        "--memory-swap",
        "--shm",
        "--cpuset-cpus",
        "--tmpfs",
        "--health-cmd",
        "--health-interval",
        "--health-retries",
        "--health-timeout",
        "--stop-signal",
        "--stop-timeout",
        "--uts",
        "--pid",
        "--userns",
        "--cgroupns",
        "--device-cgroup-rule",
        "--storage-opt",
        "--sysctl",
        "--volumes-from",
        "--link",
        "--network-alias",
        "--ip",
        "--mac-address",
        "--cidfile",
        "--annotation",
        "--pids-limit",
    ];
    while let Some(word) = argv.get(i) {
        // `${HF_TOKEN:+-e HF_TOKEN="$HF_TOKEN"}`: options only when a
        // variable is set, split by the shell into words up to the `}`.
        if word.starts_with("${") && word.contains(":+") {
            while argv.get(i).is_some_and(|w| !w.ends_with('}')) {
                i += 1;
            }
            i += 1;
            continue;
        }
        if !word.starts_with('-') {
            break;
        }
        let (flag, inline) = match word.split_once('=') {
            Some((flag, value)) => (flag, Some(value.to_owned())),
            None => (word.as_str(), None),
        };
        let takes_value = VALUED.contains(&flag) && inline.is_none();
        let value = inline.or_else(|| takes_value.then(|| argv.get(i + 1).cloned()).flatten());
        if matches!(flag, "-p" | "--publish")
            && let Some(mapping) = value.as_deref().and_then(port_mapping)
        {
            run.published.push(mapping);
        }
        if flag == "--entrypoint" {
            run.entrypoint = value.clone();
        }
        if matches!(flag, "-e" | "--env")
            && let Some((name, setting)) = value.as_deref().and_then(|v| v.split_once('='))
        {
            run.env.push((name.to_owned(), setting.to_owned()));
        }
        // Host networking discards published ports (Docker says so): the
        // server is reached on its own port.
        if matches!(flag, "--network" | "--net") && value.as_deref() == Some("host") {
            run.host_network = true;
        }
        // Single-letter flags combine: `-it`, `-ti`, `-dit`; a terminal
        // (`-t`) is what makes the run interactive.
        if !flag.starts_with("--") && !takes_value && flag.len() > 1 {
            let letters = &flag[1..];
            if letters.bytes().all(|b| b.is_ascii_alphabetic()) {
                run.interactive |= letters.contains('t');
            }
        }
        if flag == "--tty" {
            run.interactive = true;
        }
        i += if takes_value { 2 } else { 1 };
    }
    run.image = argv.get(i)?;
    run.rest = argv.get(i + 1..).unwrap_or(&[]);
    Some(run)
}

impl DockerRun<'_> {
    /// Whether the container opens a shell rather than a server: its
    /// command is one (`-it IMAGE bash`), or it is one of NGC's images
    /// (`nvcr.io/nvidia/…`, which start a shell) run with a terminal and no
    /// command. No server runs until one is started inside.
    pub fn opens_shell(&self) -> bool {
        let shell_command = self.rest.len() == 1
            && matches!(
                self.rest[0].rsplit('/').next(),
                Some("bash" | "sh" | "zsh" | "ash" | "fish")
            );
        shell_command
            || self.interactive && self.rest.is_empty() && self.image.starts_with("nvcr.io/nvidia/")
    }
}

/// `docker run [opts] IMAGE [args]`: the engine from the image (or from a
/// launch command given after it), the host port from `-p HOST:CONTAINER`.
fn docker_run(argv: &[String], depth: u8) -> Option<(Engine, ServerSettings)> {
    let run = docker_run_parts(argv)?;
    if run.opens_shell() {
        return None;
    }
    let (published, entrypoint, host_network) = (run.published, run.entrypoint, run.host_network);
    let rest = run.rest;
    let image = run.image.to_ascii_lowercase();
    // `--entrypoint python3 IMAGE -m vllm.entrypoints.openai.api_server …`:
    // the container runs the entrypoint with the words after the image.
    let within = match &entrypoint {
        // `--entrypoint /bin/sh IMAGE -c "sleep infinity"`: the container
        // runs that script, not the image's server; a launch in it is one.
        Some(program)
            if matches!(
                program.rsplit('/').next(),
                Some("sh" | "bash" | "zsh" | "dash" | "ash")
            ) =>
        {
            let script = rest
                .iter()
                .position(|a| a == "-c")
                .and_then(|at| rest.get(at + 1));
            return script.and_then(|script| {
                crate::shell::parse(script)
                    .iter()
                    .find_map(|c| launch_within(&c.argv, depth + 1))
            });
        }
        Some(program) => {
            let mut command = vec![program.clone()];
            command.extend(rest.iter().cloned());
            launch_within(&command, depth + 1)
        }
        None => launch_within(rest, depth + 1),
    };
    let (engine, mut settings) = if let Some(found) = within {
        found
    } else {
        let engine = if image.contains("text-generation-inference") {
            Engine::Tgi
        } else if image.contains("vllm") {
            Engine::Vllm
        } else if image.contains("sglang") {
            Engine::Sglang
        } else if image.contains("llama.cpp") || image.contains("llama-cpp") {
            Engine::LlamaCpp
        } else if image.contains("ollama") {
            Engine::Ollama
        } else if image.contains("tensorrt") || image.contains("trtllm") {
            Engine::TensorrtLlm
        } else {
            return None;
        };
        // vLLM's image takes `serve MODEL`-style or `--model` arguments.
        let rest = match rest.first().map(String::as_str) {
            Some("serve" | "vllm") if engine == Engine::Vllm => {
                let skip = rest
                    .iter()
                    .take(2)
                    .filter(|w| *w == "serve" || *w == "vllm")
                    .count();
                &rest[skip..]
            }
            _ => rest,
        };
        let mut settings = settings::from_args(rest, engine.takes_model_first());
        // Images that wrap the engine in their own start script read the
        // port and model from the environment (`-e PORT=8888 -e
        // MODEL=openai/gpt-oss-120b`), when no flag gives them.
        let env = |names: &[&str]| {
            run.env
                .iter()
                .rev()
                .find(|(name, _)| names.contains(&name.as_str()))
                .map(|(_, value)| value.clone())
        };
        if settings.port.is_none() {
            settings.port = env(&["PORT", "SERVER_PORT"]).and_then(|p| p.trim().parse().ok());
        }
        if settings.model.is_none() {
            settings.model = env(&["MODEL", "MODEL_ID", "MODEL_NAME", "MODEL_PATH"])
                .filter(|m| !m.is_empty() && !m.starts_with('$'));
        }
        (engine, settings)
    };
    // TGI's image listens on 80 inside; the reachable port is the host's.
    let inside = settings.port.or(match engine {
        Engine::Tgi => Some(80),
        _ => engine.default_port(),
    });
    if let Some((host, _)) = published
        .iter()
        .filter(|_| !host_network)
        .find(|(_, container)| Some(*container) == inside)
    {
        settings.container_port = inside;
        settings.port = Some(*host);
    }
    Some((engine, settings))
}

/// `8080:80`, `127.0.0.1:8080:80`, `8080:80/tcp` → (host, container).
fn port_mapping(value: &str) -> Option<(u16, u16)> {
    let value = value.split('/').next().unwrap_or(value);
    let mut parts = value.rsplit(':');
    let container = parts.next()?.parse().ok()?;
    let host = parts.next()?.parse().ok()?;
    Some((host, container))
}

/// A URL's path, without its query, fragment or trailing `/`
/// (`http://h:8000/health/?x=1` → `/health`; a bare `/v1/models` too).
pub fn url_path(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let path = if rest.starts_with('/') {
        rest
    } else {
        rest.find('/').map_or("", |at| &rest[at..])
    };
    path.split(['?', '#'])
        .next()
        .unwrap_or(path)
        .trim_end_matches('/')
}

/// The engine whose own HTTP endpoint a URL asks (`/api/tags` is
/// Ollama's, `/is_sleeping` vLLM's, `/get_server_info` SGLang's, `/slots`
/// llama.cpp's): a request to it tells which server answered. The
/// OpenAI-compatible paths every engine serves tell nothing.
pub fn engine_of_endpoint(url: &str) -> Option<Engine> {
    let path = url_path(url);
    const ENDPOINTS: &[(&str, Engine)] = &[
        ("/api/tags", Engine::Ollama),
        ("/api/generate", Engine::Ollama),
        ("/api/chat", Engine::Ollama),
        ("/api/ps", Engine::Ollama),
        ("/api/version", Engine::Ollama),
        ("/api/pull", Engine::Ollama),
        ("/api/show", Engine::Ollama),
        ("/is_sleeping", Engine::Vllm),
        ("/wake_up", Engine::Vllm),
        ("/sleep", Engine::Vllm),
        ("/get_server_info", Engine::Sglang),
        ("/get_model_info", Engine::Sglang),
        ("/flush_cache", Engine::Sglang),
        ("/health_generate", Engine::Sglang),
        ("/slots", Engine::LlamaCpp),
        ("/props", Engine::LlamaCpp),
        ("/completion", Engine::LlamaCpp),
        ("/generate_stream", Engine::Tgi),
    ];
    ENDPOINTS
        .iter()
        .find(|(endpoint, _)| path == *endpoint)
        .map(|(_, engine)| *engine)
}

/// The host and port `OLLAMA_HOST` names (`0.0.0.0:11500`,
/// `http://10.0.0.5`, `:11435`), for the server and its CLI alike; `None`
/// when the variable is not set. Either part may be missing.
pub fn ollama_host(env: &[(String, String)]) -> Option<(Option<&str>, Option<u16>)> {
    let (_, value) = env.iter().find(|(k, _)| k == "OLLAMA_HOST")?;
    let address = value
        .trim_start_matches("http://")
        .trim_start_matches("https://")
        .trim_end_matches('/');
    let (host, port) = match address.rsplit_once(':') {
        Some((host, port)) => (host, port.parse().ok()),
        None => (address, None),
    };
    Some(((!host.is_empty()).then_some(host), port))
}

/// A launch from a whole simple command: [`launch_from_argv`], plus what
/// the environment says (`OLLAMA_HOST=0.0.0.0:11500 ollama serve`).
pub fn launch_from_command(
    argv: &[String],
    env: &[(String, String)],
) -> Option<(Engine, ServerSettings)> {
    let (engine, mut settings) = launch_from_argv(argv)?;
    if engine == Engine::Ollama
        && let Some((host, port)) = ollama_host(env)
    {
        settings.bind_host = host.map(str::to_owned);
        settings.port = port.or(settings.port);
    }
    if engine == Engine::Tgi
        && settings.port.is_none()
        && let Some((_, port)) = env.iter().find(|(k, _)| k == "PORT")
    {
        settings.port = port.parse().ok();
    }
    Some((engine, settings))
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_container_whose_entrypoint_is_a_shell_runs_its_script() {
        let argv = |s: &str| crate::shell::parse(s).remove(0).argv;
        let idle = argv(
            r#"docker run -d --gpus all --security-opt apparmor=unconfined --entrypoint /bin/sh lazymio/vllm-backport:latest -c "sleep infinity""#,
        );
        assert!(super::launch_from_argv(&idle).is_none());
        let serving = argv(
            r#"docker run -d --entrypoint /bin/bash vllm/vllm-openai -c "vllm serve m --port 8001""#,
        );
        let (engine, settings) = super::launch_from_argv(&serving).expect("the script's launch");
        assert_eq!((engine, settings.port), (super::Engine::Vllm, Some(8001)));
        // An option that takes a value is not the image.
        let opts = argv(
            "docker run -it --security-opt apparmor=unconfined --cap-add SYS_ADMIN lazymio/vllm-backport:latest /m --tensor-parallel-size 8",
        );
        let (engine, settings) = super::launch_from_argv(&opts).expect("the image's server");
        assert_eq!((engine, settings.tp_size), (super::Engine::Vllm, Some(8)));
    }

    #[test]
    fn a_version_or_help_query_is_no_launch() {
        let argv = |s: &str| s.split_whitespace().map(str::to_owned).collect::<Vec<_>>();
        assert!(super::launch_from_argv(&argv("./build/bin/llama-server --version")).is_none());
        assert!(super::launch_from_argv(&argv("vllm serve --help")).is_none());
        assert!(
            super::launch_from_argv(&argv("./build/bin/llama-server -m m.gguf --port 8080"))
                .is_some()
        );
    }

    use super::*;

    #[test]
    fn an_engines_own_endpoint_names_it() {
        for (url, engine) in [
            ("http://localhost:8090/is_sleeping", Some(Engine::Vllm)),
            ("localhost:8090/sleep?level=1", Some(Engine::Vllm)),
            ("http://127.0.0.1:11434/api/tags", Some(Engine::Ollama)),
            ("http://h:30000/get_server_info", Some(Engine::Sglang)),
            ("http://h:8080/slots/", Some(Engine::LlamaCpp)),
            ("http://h:8000/v1/models", None),
            ("http://h:8000/health", None),
            ("http://h:8000/api/tagsx", None),
        ] {
            assert_eq!(engine_of_endpoint(url), engine, "{url}");
        }
    }

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn sglang_flags_in_every_form() {
        let (engine, s) = launch_from_argv(&words(
            "/root/env/bin/python3 -m sglang.launch_server --model-path /m --tp=8 --speculative-algorithm EAGLE3 --speculative-draft /d --mem-fraction-static 0.9 --port 8000",
        ))
        .expect("a launch");
        assert_eq!(engine, Engine::Sglang);
        assert_eq!(s.tp_size, Some(8));
        assert_eq!(s.port, Some(8000));
        assert_eq!(s.draft_model.as_deref(), Some("/d"));
        assert_eq!(s.mem_fraction, Some(0.9));
        assert_eq!(s.ranks_expected(), 8);
        assert!(s.is_speculative());
    }

    #[test]
    fn vllm_positional_model_and_speculative_config() {
        let argv = vec![
            "vllm".to_owned(),
            "serve".to_owned(),
            "Qwen/Qwen3-8B".to_owned(),
            "-tp".to_owned(),
            "4".to_owned(),
            "--speculative-config".to_owned(),
            r#"{"method":"eagle3","model":"/d","num_speculative_tokens":3}"#.to_owned(),
        ];
        let (engine, s) = launch_from_argv(&argv).expect("a launch");
        assert_eq!(engine, Engine::Vllm);
        assert_eq!(s.model.as_deref(), Some("Qwen/Qwen3-8B"));
        assert_eq!(s.tp_size, Some(4));
        assert_eq!(s.speculative_algorithm.as_deref(), Some("eagle3"));
        assert_eq!(s.draft_model.as_deref(), Some("/d"));
        assert_eq!(engine.default_port(), Some(8000));
    }

    #[test]
    fn dp_attention_shares_tp_ranks() {
        let (_, s) = launch_from_argv(&words(
            "python -m sglang.launch_server --tp 8 --dp 8 --enable-dp-attention --port 1",
        ))
        .expect("a launch");
        assert_eq!(s.ranks_expected(), 8);
        assert_eq!(s.port, Some(1));
    }

    fn launch(s: &str) -> (Engine, ServerSettings) {
        launch_from_argv(&words(s)).expect("a launch")
    }

    /// A shell in an engine's container is no launch: one typed inside it is.
    #[test]
    fn a_shell_in_an_engines_container_is_no_launch() {
        for shell in [
            "docker run --ipc host --gpus all -p 8000:8000 -it nvcr.io/nvidia/tensorrt-llm/release",
            "docker run -it --gpus all lmsysorg/sglang:latest bash",
            "docker run -ti --rm vllm/vllm-openai:latest /bin/bash",
        ] {
            assert_eq!(launch_from_argv(&words(shell)), None, "{shell}");
        }
        // NIM's images and a detached engine image do serve.
        assert!(
            launch_from_argv(&words(
                "docker run -d -p 8000:8000 vllm/vllm-openai --model m"
            ))
            .is_some()
        );
        assert!(
            launch_from_argv(&words(
                "docker run -it --gpus all -p 8000:8000 nvcr.io/nvidia/tensorrt-llm/release trtllm-serve m"
            ))
            .is_some()
        );
    }

    #[test]
    fn every_engine_and_form() {
        let (e, s) = launch("sglang serve --model-path /m --tp-size=2 --port=31000");
        assert_eq!(
            (e, s.tp_size, s.port),
            (Engine::Sglang, Some(2), Some(31000))
        );
        let (e, s) = launch(
            "python3 -m vllm.entrypoints.openai.api_server --model /m --tensor-parallel-size 4 --speculative-model /d --gpu-memory-utilization 0.85",
        );
        assert_eq!((e, s.tp_size), (Engine::Vllm, Some(4)));
        assert_eq!(s.draft_model.as_deref(), Some("/d"));
        assert_eq!(s.mem_fraction, Some(0.85));
        let (e, s) =
            launch("text-generation-launcher --model-id meta-llama/L --num-shard 4 --port 8081");
        assert_eq!((e, s.tp_size, s.port), (Engine::Tgi, Some(4), Some(8081)));
        assert_eq!(s.model.as_deref(), Some("meta-llama/L"));
        let (e, s) = launch(
            "docker run --gpus all --shm-size 1g -p 8080:80 -v /data:/data ghcr.io/huggingface/text-generation-inference:3.0.1 --model-id /data/m --num-shard 2",
        );
        assert_eq!((e, s.tp_size, s.port), (Engine::Tgi, Some(2), Some(8080)));
        let (_, s) = launch("python -m sglang.launch_server ** --speculative-algo NEXTN");
        assert!(s.elided);
        let (_, s) = launch("vllm serve m --port 8000 ...");
        assert!(s.elided);
        let (_, s) = launch("vllm serve m --port 8000");
        assert!(!s.elided);
        let (_, s) = launch(
            "docker run -p 3000:80 ghcr.io/huggingface/text-generation-inference:1.4 --model-id m",
        );
        assert_eq!((s.port, s.container_port), (Some(3000), Some(80)));
        // An image wrapping vLLM in its own start script, set by environment.
        let (e, s) = launch(
            "docker run -d --network host --gpus all -e MODEL=openai/gpt-oss-120b -e PORT=8888 avarok/dgx-vllm-nvfp4-kernel:v22 serve",
        );
        assert_eq!((e, s.port), (Engine::Vllm, Some(8888)));
        assert_eq!(s.model.as_deref(), Some("openai/gpt-oss-120b"));
        // A flag wins over the environment.
        let (_, s) = launch("docker run -e PORT=9 vllm/vllm-openai --model m --port 8001");
        assert_eq!(s.port, Some(8001));
        let (e, s) = launch(
            r#"llama serve --model "model-b.gguf" --alias server-B --host 127.0.0.1 --port 8080"#,
        );
        assert_eq!((e, s.port), (Engine::LlamaCpp, Some(8080)));
        let (e, s) = launch(
            "./koboldcpp-linux-x64 --host 127.0.0.1 --port 5000 --model /g/m.gguf --draftmodel /g/d.gguf",
        );
        assert_eq!((e, s.port), (Engine::LlamaCpp, Some(5000)));
        assert_eq!(s.draft_model.as_deref(), Some("/g/d.gguf"));
        let (e, s) = launch(r"python koboldcpp.py --model m.gguf --usecuda");
        assert_eq!(
            (e, s.port, s.default_port),
            (Engine::LlamaCpp, None, Some(5001))
        );
        let (e, _) = launch(r"C:\llama\llama-server.exe -m m.gguf");
        assert_eq!(e, Engine::LlamaCpp);
        let (e, s) = launch("llama-server -m /m/q4.gguf --port 8081 -ngl 99 --host 0.0.0.0");
        assert_eq!((e, s.port), (Engine::LlamaCpp, Some(8081)));
        assert_eq!(s.model.as_deref(), Some("/m/q4.gguf"));
        assert_eq!(s.bind_host.as_deref(), Some("0.0.0.0"));
        let (e, s) = launch_from_command(
            &words("ollama serve"),
            &[("OLLAMA_HOST".into(), "0.0.0.0:11500".into())],
        )
        .expect("a launch");
        assert_eq!((e, s.port), (Engine::Ollama, Some(11500)));
        let (e, s) = launch("trtllm-serve meta-llama/L --tp_size 8 --pp_size 2 --port 8001");
        assert_eq!(
            (e, s.tp_size, s.pp_size),
            (Engine::TensorrtLlm, Some(8), Some(2))
        );
        assert_eq!(s.model.as_deref(), Some("meta-llama/L"));
        assert_eq!(s.ranks_expected(), 16);
        let (e, s) = launch(
            "mpirun -n 4 --allow-run-as-root --oversubscribe trtllm-serve /m --tp_size 4 --kv_cache_free_gpu_memory_fraction 0.9",
        );
        assert_eq!(
            (e, s.tp_size, s.mem_fraction),
            (Engine::TensorrtLlm, Some(4), Some(0.9))
        );
        // A systemd unit named for its engine.
        let (e, s) = launch("systemctl --now restart vllm-kimi.service");
        assert_eq!((e, s.port), (Engine::Vllm, None));
        assert!(launch_from_argv(&words("systemctl status vllm-kimi")).is_none());
        assert!(launch_from_argv(&words("systemctl restart nginx")).is_none());
        // Without a size flag, MPI's process count is the world size.
        let (_, s) = launch("mpirun -np 8 --allow-run-as-root trtllm-serve /m --port 8001");
        assert_eq!(
            (s.tp_size, s.world_size, s.ranks_expected()),
            (None, Some(8), 8)
        );
        let (e, s) = launch(
            "docker run --runtime nvidia -p 8000:8000 --ipc=host vllm/vllm-openai:latest --model Qwen/Q -tp 2",
        );
        assert_eq!((e, s.tp_size, s.port), (Engine::Vllm, Some(2), Some(8000)));
        let (e, s) = launch(
            "docker run --gpus all -p 30001:30000 lmsysorg/sglang:latest python3 -m sglang.launch_server --model-path /m --tp 8 --dp 2 --ep 8",
        );
        assert_eq!(
            (e, s.tp_size, s.dp_size, s.ep_size),
            (Engine::Sglang, Some(8), Some(2), Some(8))
        );
        assert_eq!(s.port, Some(30001));
        // An entrypoint override runs the engine's module with the words
        // after the image; the image (a variable here) tells nothing.
        let (e, s) = launch(
            "docker run -d --gpus all -p 8000:8000 --entrypoint python3 ${IMAGE} -m vllm.entrypoints.openai.api_server --model /m --port 8000 --tensor-parallel-size 8",
        );
        assert_eq!((e, s.tp_size, s.port), (Engine::Vllm, Some(8), Some(8000)));
        // Options behind a conditional expansion are skipped, not taken for
        // the image.
        let (e, s) = launch(
            "docker run -d --gpus all ${HF_TOKEN:+-e HF_TOKEN=\"$HF_TOKEN\"} --ulimit nofile=65535:65535 --entrypoint python3 ${IMAGE} -m vllm.entrypoints.openai.api_server --model /m --port 8000 --tensor-parallel-size 8",
        );
        assert_eq!((e, s.tp_size, s.port), (Engine::Vllm, Some(8), Some(8000)));
        // With host networking the published mapping is discarded: the
        // engine's own port (its default here) is the one reached.
        let (_, s) =
            launch("docker run -d --network host -p 8001:8000 vllm/vllm-openai:latest --model /m");
        assert_eq!(s.port, None);
        let (_, s) = launch("docker run -d -p 8001:8000 vllm/vllm-openai:latest --model /m");
        assert_eq!(s.port, Some(8001));
        // llama.cpp's drafter: a draft model, or a built-in MTP head.
        let (_, s) = launch("llama-server -m /m.gguf -md /d.gguf --port 8080");
        assert_eq!(
            (s.draft_model.as_deref(), s.is_speculative()),
            (Some("/d.gguf"), true)
        );
        let (_, s) = launch("llama-server -hf g/gemma --spec-type draft-mtp --spec-draft-n-max 4");
        assert!(s.is_speculative());
        // TensorRT-LLM's offline runner under MPI: the world size, no port.
        let (e, s) = launch(
            "mpirun -n 8 --allow-run-as-root python3 ../run.py --max_output_len=2048 --engine_dir /e --streaming",
        );
        assert_eq!(
            (e, s.world_size, s.offline),
            (Engine::TensorrtLlm, Some(8), true)
        );
        let (_, s) = launch(
            "python -m sglang.launch_server --model /m --speculative-algo NEXTN --mem-frac 0.7 --pp 2",
        );
        assert_eq!(s.speculative_algorithm.as_deref(), Some("NEXTN"));
        assert_eq!((s.mem_fraction, s.pp_size), (Some(0.7), Some(2)));
    }

    #[test]
    fn nested_wrappers_stay_linear() {
        let many = "mpirun ".repeat(5000) + "trtllm-serve /m";
        let (engine, _) = launch_from_argv(&words(&many)).expect("a launch");
        assert_eq!(engine, Engine::TensorrtLlm);
        let (engine, _) = launch("mpirun -n 2 srun trtllm-serve /m");
        assert_eq!(engine, Engine::TensorrtLlm);
    }

    #[test]
    fn other_programs_are_not_launches() {
        assert!(launch_from_argv(&words("docker run -p 1:2 redis")).is_none());
        assert!(launch_from_argv(&words("mpirun -n 2 python train.py")).is_none());
        assert!(launch_from_argv(&words("python -m pip install sglang")).is_none());
        assert!(launch_from_argv(&words("python train.py --port 1")).is_none());
    }
}

//! Long-running servers that are not inference engines.
//!
//! Agents start and stop web apps, API servers, dev servers, databases and
//! tool servers as often as model servers, and the same question applies:
//! did it come up, and did anyone check? This module recognises such a
//! launch from its argv: a known server program (`uvicorn`, `gunicorn`,
//! `python -m http.server`, `npm run dev`, `next dev`, `flask run`,
//! `streamlit run`, `redis-server`, `docker compose up`, …), or any program
//! started in the background (`&`, `nohup`, `setsid`) with a port flag. It
//! reads the port from the usual flags or the program's default.
//! Inference engines are [`crate::engine`]'s; nothing here needs a GPU.

use crate::shell::SimpleCommand;

/// A server program: how it is recognised and the port it takes when
/// none is given.
struct Program {
    /// The program name (`uvicorn`), or a program and its first argument
    /// (`npm run dev`, `python -m http.server`, `flask run`).
    words: &'static [&'static str],
    default_port: Option<u16>,
}

/// Known server programs, most specific first.
const PROGRAMS: &[Program] = &[
    Program {
        words: &["python", "-m", "http.server"],
        default_port: Some(8000),
    },
    Program {
        words: &["python", "-m", "uvicorn"],
        default_port: Some(8000),
    },
    Program {
        words: &["python", "-m", "flask", "run"],
        default_port: Some(5000),
    },
    Program {
        words: &["python", "-m", "streamlit", "run"],
        default_port: Some(8501),
    },
    Program {
        words: &["python", "manage.py", "runserver"],
        default_port: Some(8000),
    },
    Program {
        words: &["uvicorn"],
        default_port: Some(8000),
    },
    Program {
        words: &["gunicorn"],
        default_port: Some(8000),
    },
    Program {
        words: &["hypercorn"],
        default_port: Some(8000),
    },
    Program {
        words: &["fastapi", "run"],
        default_port: Some(8000),
    },
    Program {
        words: &["fastapi", "dev"],
        default_port: Some(8000),
    },
    Program {
        words: &["flask", "run"],
        default_port: Some(5000),
    },
    Program {
        words: &["streamlit", "run"],
        default_port: Some(8501),
    },
    Program {
        words: &["gradio"],
        default_port: Some(7860),
    },
    Program {
        words: &["jupyter", "notebook"],
        default_port: Some(8888),
    },
    Program {
        words: &["jupyter", "lab"],
        default_port: Some(8888),
    },
    Program {
        words: &["tensorboard"],
        default_port: Some(6006),
    },
    Program {
        words: &["mlflow", "server"],
        default_port: Some(5000),
    },
    Program {
        words: &["mlflow", "ui"],
        default_port: Some(5000),
    },
    Program {
        words: &["tritonserver"],
        default_port: Some(8000),
    },
    Program {
        words: &["lmdeploy", "serve"],
        default_port: Some(23333),
    },
    Program {
        words: &["mlc_llm", "serve"],
        default_port: Some(8000),
    },
    Program {
        words: &["litellm"],
        default_port: Some(4000),
    },
    Program {
        words: &["open-webui", "serve"],
        default_port: Some(8080),
    },
    Program {
        words: &["next", "dev"],
        default_port: Some(3000),
    },
    Program {
        words: &["next", "start"],
        default_port: Some(3000),
    },
    Program {
        words: &["vite"],
        default_port: Some(5173),
    },
    Program {
        words: &["npm", "run", "dev"],
        default_port: None,
    },
    Program {
        words: &["npm", "run", "start"],
        default_port: None,
    },
    Program {
        words: &["npm", "run", "serve"],
        default_port: None,
    },
    Program {
        words: &["npm", "start"],
        default_port: None,
    },
    Program {
        words: &["pnpm", "dev"],
        default_port: None,
    },
    Program {
        words: &["pnpm", "run", "dev"],
        default_port: None,
    },
    Program {
        words: &["pnpm", "start"],
        default_port: None,
    },
    Program {
        words: &["yarn", "dev"],
        default_port: None,
    },
    Program {
        words: &["yarn", "start"],
        default_port: None,
    },
    Program {
        words: &["bun", "run", "dev"],
        default_port: None,
    },
    Program {
        words: &["npx", "next", "dev"],
        default_port: Some(3000),
    },
    Program {
        words: &["npx", "vite"],
        default_port: Some(5173),
    },
    Program {
        words: &["npx", "serve"],
        default_port: Some(3000),
    },
    Program {
        words: &["rails", "server"],
        default_port: Some(3000),
    },
    Program {
        words: &["rails", "s"],
        default_port: Some(3000),
    },
    Program {
        words: &["php", "artisan", "serve"],
        default_port: Some(8000),
    },
    Program {
        words: &["func", "start"],
        default_port: Some(7071),
    },
    Program {
        words: &["hugo", "server"],
        default_port: Some(1313),
    },
    Program {
        words: &["jekyll", "serve"],
        default_port: Some(4000),
    },
    Program {
        words: &["mkdocs", "serve"],
        default_port: Some(8000),
    },
    Program {
        words: &["ng", "serve"],
        default_port: Some(4200),
    },
    Program {
        words: &["http-server"],
        default_port: Some(8080),
    },
    Program {
        words: &["redis-server"],
        default_port: Some(6379),
    },
    // Tunnels that expose a local port: long-running, and the agent's
    // check is a request through the public URL they print. The port they
    // are given is the one they forward to, not theirs; ngrok's own is its
    // local API's (`curl localhost:4040/api/tunnels`).
    Program {
        words: &["ngrok", "http"],
        default_port: Some(4040),
    },
    Program {
        words: &["ngrok", "tcp"],
        default_port: Some(4040),
    },
    Program {
        words: &["cloudflared", "tunnel"],
        default_port: None,
    },
    Program {
        words: &["memcached"],
        default_port: Some(11211),
    },
    Program {
        words: &["mongod"],
        default_port: Some(27017),
    },
    Program {
        words: &["nginx"],
        default_port: Some(80),
    },
    Program {
        words: &["docker", "compose", "up"],
        default_port: None,
    },
    Program {
        words: &["docker-compose", "up"],
        default_port: None,
    },
    Program {
        words: &["ray", "start"],
        default_port: None,
    },
    // MCP servers (stdio or HTTP).
    Program {
        words: &["fastmcp", "run"],
        default_port: None,
    },
    Program {
        words: &["mcp", "run"],
        default_port: None,
    },
    Program {
        words: &["mcp", "dev"],
        default_port: Some(6274),
    },
];

/// Programs whose port flag or positional port is the one they forward to
/// (tunnels), never their own.
const FORWARDERS: &[&str] = &["ngrok", "cloudflared"];

/// A non-engine server launch: its port, given or by default, when known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OtherServer {
    /// The program as named (`uvicorn`, `npm run dev`, `./gateway`).
    pub program: String,
    pub port: Option<u16>,
    /// Whether `port` is the program's default rather than a flag.
    pub default_port: bool,
}

/// The server a simple command starts, if it starts one that is not an
/// inference engine.
pub fn launch(command: &SimpleCommand) -> Option<OtherServer> {
    let argv = &command.argv;
    // `make run-bloom-560m`, `make serve`, `make dev`: a Makefile target
    // named for running a server (TGI's own Makefile has `run-*` targets).
    if argv.first().is_some_and(|p| base(p) == "make")
        && let Some(target) = argv[1..]
            .iter()
            .find(|w| !w.starts_with('-') && !w.contains('='))
    {
        let name = target.to_ascii_lowercase();
        let serving = ["run", "serve", "server", "start", "up", "dev"]
            .iter()
            .any(|w| {
                name == *w
                    || name.starts_with(&format!("{w}-"))
                    || name.starts_with(&format!("{w}_"))
            });
        if serving {
            return Some(OtherServer {
                program: format!("make {target}"),
                port: port_env(&command.env),
                default_port: false,
            });
        }
    }
    if let Some(unit) = crate::engine::started_unit(argv) {
        // A service the agent (re)started, unless it is the machine's own
        // plumbing (the container runtime, the GPU fabric, the network).
        const SYSTEM: &[&str] = &[
            "docker",
            "containerd",
            "nvidia",
            "ssh",
            "systemd",
            "network",
            "NetworkManager",
            "cron",
            "rsyslog",
            "ufw",
            "firewalld",
            "chrony",
            "ntp",
            "dbus",
            "udev",
            "snapd",
            "cups",
            "bluetooth",
            "apparmor",
            "fail2ban",
            "unattended-upgrades",
        ];
        if SYSTEM.iter().any(|s| unit.starts_with(s)) {
            return None;
        }
        return Some(OtherServer {
            program: format!("systemd unit {unit}"),
            port: None,
            default_port: false,
        });
    }
    // `docker run -p 8088:8080 IMAGE`: an image of no known engine that
    // publishes a port serves there (its entrypoint is the server), unless
    // its command is a shell.
    if let Some(run) = crate::engine::docker_run_parts(argv)
        && let Some(&(host_port, _)) = run.published.first()
        && !run.host_network
        && !run.opens_shell()
    {
        let image = run.image.rsplit('/').next().unwrap_or(run.image);
        let image = image.split(':').next().unwrap_or(image);
        return Some(OtherServer {
            program: format!("docker run {image}"),
            port: Some(host_port),
            default_port: false,
        });
    }
    let words: Vec<&str> = argv.iter().map(|w| base(w)).collect();
    let known = PROGRAMS.iter().find(|p| matches_words(&words, p.words));
    let background = command.background
        || command
            .wrappers
            .iter()
            .any(|w| matches!(w.as_str(), "nohup" | "setsid"));
    let port = port_flag(argv).or_else(|| port_env(&command.env));
    if known.is_none()
        && let Some(script) = server_script(argv)
    {
        // `node src/http-server.js`, `python api_server.py`,
        // `./scripts/restart-dev-server.sh`: named as a server, run in the
        // foreground or not.
        return Some(OtherServer {
            program: script,
            port,
            default_port: false,
        });
    }
    match known {
        Some(program) => {
            // `docker compose up` without `-d` blocks; either way it starts
            // servers. A positional port (`http.server 9000`) counts too.
            let port = if FORWARDERS.contains(&program.words[0]) {
                None
            } else {
                port.or_else(|| positional_port(argv, program.words.len()))
            };
            // `docker compose up -d redis`: one service named for a
            // well-known server takes that server's port.
            let default = program
                .default_port
                .or_else(|| compose_service_port(&words, program.words));
            Some(OtherServer {
                program: program_name(&words, program.words),
                port: port.or(default),
                default_port: port.is_none() && default.is_some(),
            })
        }
        // Anything started in the background that takes a port serves, and
        // so does a program whose subcommand says it serves and that is given
        // a port (`blastradius dashboard --port 5321`, `mlflow ui --port
        // 5000`, `mkdocs serve -a`, `hindsight serve --port 8080`).
        None if (background || serving_subcommand(argv)) && port.is_some() => Some(OtherServer {
            program: argv.first().cloned().unwrap_or_default(),
            port,
            default_port: false,
        }),
        // A program told to serve and left running in the background serves
        // on a port its configuration names (`nohup pnpm openclaw gateway
        // --verbose > gw.log &`): a server whose port is not known yet.
        None if background && serving_subcommand(argv) => Some(OtherServer {
            program: argv.first().cloned().unwrap_or_default(),
            port: None,
            default_port: false,
        }),
        None => None,
    }
}

/// The port of the one service `docker compose up` names, when the name
/// is a well-known server's (`redis`, `postgres`, `mysql`, `mongo`…):
/// what that server listens on unless the compose file maps it otherwise.
fn compose_service_port(words: &[&str], program: &[&str]) -> Option<u16> {
    const SERVICES: &[(&str, u16)] = &[
        ("redis", 6379),
        ("valkey", 6379),
        ("postgres", 5432),
        ("postgresql", 5432),
        ("mysql", 3306),
        ("mariadb", 3306),
        ("mongo", 27017),
        ("mongodb", 27017),
        ("rabbitmq", 5672),
        ("elasticsearch", 9200),
        ("memcached", 11211),
        ("ollama", 11434),
    ];
    if !program.ends_with(&["up"]) {
        return None;
    }
    let up = words.iter().position(|w| *w == "up")?;
    let services: Vec<&str> = words[up + 1..]
        .iter()
        .copied()
        .filter(|w| !w.starts_with('-'))
        .collect();
    match services.as_slice() {
        [one] => SERVICES
            .iter()
            .find(|(name, _)| name == one)
            .map(|(_, port)| *port),
        _ => None,
    }
}

/// Whether a package script's name is of a kind: `dev`, `dev:e2e`,
/// `dev-worker` for `dev`.
pub(crate) fn script_of_kind(name: &str, kind: &str) -> bool {
    name.strip_prefix(kind)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with([':', '-']))
}

/// The program as the command names it: the pattern's words, with a
/// package script's own name for the last (`npm run dev:e2e:worker`).
fn program_name(words: &[&str], pattern: &[&str]) -> String {
    let mut name: Vec<&str> = pattern.to_vec();
    let scripted = matches!(pattern.first(), Some(&("npm" | "pnpm" | "yarn" | "bun")));
    if let Some(last) = name.last_mut()
        && scripted
        && matches!(*last, "dev" | "start" | "serve")
        && let Some(actual) = words.iter().find(|w| script_of_kind(w, last))
    {
        *last = actual;
    }
    name.join(" ")
}

/// The port in the script a package manager echoes before running it
/// (npm's `> NODE_ENV=e2e PORT=4000 tsx src/index.ts`, under its `> pkg@1.0.0
/// dev` line): the environment or a port flag of that script.
pub fn script_echo_port(line: &str) -> Option<u16> {
    let script = line.trim_start().strip_prefix("> ")?;
    crate::shell::parse(script)
        .iter()
        .find_map(|c| port_env(&c.env).or_else(|| port_flag(&c.argv)))
}

/// A port given in the environment: `PORT=3000`, `HTTP_PORT=3446`.
fn port_env(env: &[(String, String)]) -> Option<u16> {
    env.iter()
        .filter(|(key, _)| key == "PORT" || key.ends_with("_PORT"))
        .find_map(|(_, value)| value.trim().parse().ok())
        .filter(|port| *port > 0)
}

/// Words in a script's name that say it serves.
const SERVER_WORDS: &[&str] = &[
    "server",
    "serve",
    "api",
    "gateway",
    "backend",
    "dashboard",
    "webapp",
    "webui",
];

/// The script an interpreter runs (or a script run directly) when its name
/// says it is a server: `node src/streamable-http-server.js`, `python3
/// api_server.py`, `deno run main_api.ts`, `./restart-dev-server.sh`. Not a
/// test or a check (`test_server.py`, `check-api.js`).
fn server_script(argv: &[String]) -> Option<String> {
    let program = base(argv.first()?);
    let script = match program {
        "node" | "python" | "deno" | "bun" | "ruby" | "php" | "nodemon" | "tsx" | "ts-node" => argv
            .iter()
            .skip(1)
            .find(|w| {
                !w.starts_with('-')
                    && (w.contains('.') || w.contains('/'))
                    && !matches!(w.as_str(), "run" | "-m")
            })
            .map(String::as_str)
            // `node -e "require('./src/http-server.js')"`.
            .or_else(|| {
                argv.iter()
                    .position(|w| w == "-e")
                    .and_then(|at| argv.get(at + 1))
                    .map(String::as_str)
            })?,
        _ if argv[0].ends_with(".sh") => argv[0].as_str(),
        _ => return None,
    };
    let name = script
        .rsplit('/')
        .next()
        .unwrap_or(script)
        .to_ascii_lowercase();
    let serves = SERVER_WORDS.iter().any(|w| name.contains(w))
        || argv[0].ends_with(".sh") && name.contains("start");
    // A script written to test or check a server (or a spec) is a client
    // of it.
    let checks = names_a_check(&name) || name.contains("spec");
    (serves && !checks).then(|| argv[..argv.len().min(2)].join(" "))
}

/// Whether a script's lowercased file name says it tests or checks
/// something (`e2e_test.py`, `check-api.js`, `smoke.sh`): its run is a
/// check, never a server.
pub(crate) fn names_a_check(name: &str) -> bool {
    ["test", "smoke", "check", "verify", "health"]
        .iter()
        .any(|w| name.contains(w))
}

/// Whether the first word after the program is a subcommand that serves:
/// `dashboard`, `serve`, `server`, `ui`, `web`. Clients that take a port
/// (`psql`, `redis-cli`, `ssh`) have no such subcommand.
fn serving_subcommand(argv: &[String]) -> bool {
    const SUBCOMMANDS: &[&str] = &[
        "serve",
        "server",
        "dashboard",
        "ui",
        "web",
        "webui",
        "gateway",
    ];
    let serving = |word: &String| {
        let word = word.to_ascii_lowercase();
        SUBCOMMANDS.contains(&word.as_str())
            || word.ends_with("-server")
            || word.ends_with("_server")
            || word == "runserver"
    };
    // The program's own subcommand, or the one a runner passes on
    // (`cargo run -- http-server --port 8080`, `go run . serve`).
    let runner = matches!(
        (
            argv.first().map(|p| base(p)),
            argv.get(1).map(String::as_str)
        ),
        (
            Some("cargo" | "go" | "dotnet" | "uv" | "poetry" | "pnpm" | "npx"),
            Some("run" | "exec")
        )
    ) || matches!(
        // A package script named directly, its arguments passed on (`pnpm
        // openclaw gateway --port 18789`, `yarn app serve`).
        argv.first().map(|p| base(p)),
        Some("pnpm" | "yarn" | "bun" | "npx")
    );
    let reach = if runner { 6 } else { 2 };
    argv.iter()
        .take(reach)
        .skip(1)
        .filter(|w| !w.starts_with('-'))
        .any(serving)
}

/// `/usr/bin/python3.11` → `python`; other words as they are.
fn base(word: &str) -> &str {
    let name = word.rsplit('/').next().unwrap_or(word);
    if name.starts_with("python") {
        "python"
    } else {
        name
    }
}

/// Whether the argv starts with `pattern`, skipping options between the
/// program and its subcommand (`npm --prefix web run dev`).
fn matches_words(words: &[&str], pattern: &[&str]) -> bool {
    let Some((first, rest)) = pattern.split_first() else {
        return false;
    };
    if words.first() != Some(first) {
        return false;
    }
    let mut at = 1;
    for want in rest {
        // `-m` is itself a word to match; other options are skipped, with
        // their value when the word after one is not the one wanted.
        while *want != "-m"
            && words
                .get(at)
                .is_some_and(|w| w.starts_with('-') && *w != "-m")
        {
            let takes_value = !words[at].contains('=');
            at += 1;
            if takes_value
                && words
                    .get(at)
                    .is_some_and(|w| w != want && !w.starts_with('-'))
            {
                at += 1;
            }
        }
        // A package script named for its kind (`npm run dev:e2e`,
        // `yarn start:prod`, `pnpm run serve-api`).
        let variant = |word: &str| {
            matches!(*want, "dev" | "start" | "serve")
                && matches!(*first, "npm" | "pnpm" | "yarn" | "bun")
                && script_of_kind(word, want)
        };
        if words.get(at) != Some(want) && !words.get(at).is_some_and(|w| variant(w)) {
            return false;
        }
        at += 1;
    }
    true
}

/// `--port 8080`, `--port=8080`, `-p 8080`, `--bind 0.0.0.0:8080`,
/// `-b :8080`, `--listen 8080`, `--server.port 8501`, `PORT=` is not here
/// (the environment is the caller's).
fn port_flag(argv: &[String]) -> Option<u16> {
    const FLAGS: &[&str] = &[
        "--port",
        "-p",
        "--bind",
        "-b",
        "--listen",
        "--http-port",
        "--server.port",
        "--server-port",
        "-P",
    ];
    for (i, word) in argv.iter().enumerate().skip(1) {
        let (flag, inline) = match word.split_once('=') {
            Some((flag, value)) if word.starts_with('-') => (flag, Some(value)),
            _ => (word.as_str(), None),
        };
        if !FLAGS.contains(&flag) {
            continue;
        }
        let value = inline.or_else(|| argv.get(i + 1).map(String::as_str))?;
        let digits = value.rsplit(':').next().unwrap_or(value);
        if let Ok(port) = digits.parse::<u16>()
            && port > 0
        {
            return Some(port);
        }
    }
    None
}

/// A bare port number right after the program's words (`http.server 9000`).
fn positional_port(argv: &[String], after: usize) -> Option<u16> {
    argv.iter()
        .skip(after)
        .find(|w| !w.starts_with('-'))
        .and_then(|w| w.parse::<u16>().ok())
        .filter(|p| *p >= 80)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shell;

    fn server(command: &str) -> Option<OtherServer> {
        shell::parse(command).iter().find_map(launch)
    }

    #[test]
    fn known_server_programs_and_their_ports() {
        let cases = [
            ("uvicorn api:app --port 8085", Some(8085), false),
            ("uvicorn api:app", Some(8000), true),
            ("python3 -m http.server 9000", Some(9000), false),
            ("python -m http.server", Some(8000), true),
            ("npm run dev -- --port 3001", Some(3001), false),
            ("pnpm dev --port 3001", Some(3001), false),
            ("gunicorn -b 0.0.0.0:7000 app:app", Some(7000), false),
            ("streamlit run app.py --server.port 8601", Some(8601), false),
            ("docker compose up -d", None, false),
            ("func start --port 7071", Some(7071), false),
            ("ng serve", Some(4200), true),
            ("npm --prefix web run dev", None, false),
        ];
        for (command, port, default_port) in cases {
            let found = server(command).unwrap_or_else(|| panic!("{command}"));
            assert_eq!(
                (found.port, found.default_port),
                (port, default_port),
                "{command}"
            );
        }
    }

    #[test]
    fn background_programs_with_a_port_are_servers() {
        let found =
            server("nohup ./openclaw gateway --port 18789 > gw.log 2>&1 &").expect("server");
        assert_eq!(found.port, Some(18789));
        // In the foreground, a program of no known kind with a port serves
        // only when its subcommand says so.
        assert_eq!(
            server("./openclaw doctor --port 18789"),
            None,
            "foreground, unknown"
        );
        assert_eq!(server("nohup python train.py > t.log &"), None, "no port");
        // A package script told to serve, with a port in the foreground or
        // in the background without one (its configuration names it).
        let gateway =
            server("pnpm openclaw gateway --port 18789 --bind lan --verbose").expect("gateway");
        assert_eq!(gateway.port, Some(18789));
        let background = server("nohup pnpm openclaw gateway --verbose > /tmp/gw.log 2>&1 &")
            .expect("background gateway");
        assert_eq!(background.port, None);
        assert_eq!(server("pnpm openclaw status --verbose"), None);
        // An image of no known engine publishing a port serves there; a
        // shell in a container does not.
        let image = server(
            "docker run -p 8088:8080 --gpus all --name local-ai -ti localai/localai:latest-aio-gpu-nvidia-cuda-12",
        )
        .expect("docker run with a published port");
        assert_eq!(
            (image.program.as_str(), image.port),
            ("docker run localai", Some(8088))
        );
        assert_eq!(server("docker run -it -p 8080:80 ubuntu:22.04 bash"), None);
        assert_eq!(server("docker run --rm alpine echo hi"), None);
        // A subcommand that says it serves, with a port: a server in the
        // foreground too.
        let found = server("./target/release/blastradius dashboard --bind 127.0.0.1 --port 5321")
            .expect("dashboard");
        assert_eq!(found.port, Some(5321));
        assert!(server("mlflow ui --port 5001").is_some());
        // The subcommand a runner passes on.
        assert_eq!(
            server("timeout 10 cargo run -- http-server --port 8080").and_then(|s| s.port),
            Some(8080)
        );
        assert!(server("go run . serve --port 9000").is_some());
        assert_eq!(
            server("cargo run -- migrate --port 5432"),
            None,
            "not serving"
        );
        // A service the agent restarted, not the machine's plumbing.
        assert!(
            server("sudo systemctl restart mcp-coordination")
                .is_some_and(|s| s.program == "systemd unit mcp-coordination")
        );
        assert_eq!(server("systemctl restart nvidia-fabricmanager"), None);
        assert_eq!(server("systemctl restart docker.service"), None);
        assert_eq!(server("systemctl status mcp-coordination"), None);
        // A Makefile target named for running a server; a build is not one.
        assert!(server("make run-bloom-560m").is_some_and(|s| s.program == "make run-bloom-560m"));
        assert_eq!(server("make -j8 install"), None);
        assert_eq!(server("make runtime-deps"), None);
        assert_eq!(server("psql --host db --port 5432"), None, "a client");
        assert_eq!(server("./blastradius dashboard --no-open"), None, "no port");
        assert_eq!(server("npm test"), None);
        assert_eq!(server("python -m pytest"), None);
        assert_eq!(server("python test_server.py"), None);
        assert_eq!(server("python train.py --epochs 3"), None);
    }

    #[test]
    fn scripts_named_as_servers() {
        let found = server("HTTP_PORT=3446 node src/streamable-http-server.js").expect("node");
        assert_eq!(found.port, Some(3446));
        assert!(server("python3 api_server.py --port 9000").is_some_and(|s| s.port == Some(9000)));
        assert!(server("node -e \"require('./src/http-server.js')\"").is_some());
        assert!(server("/srv/scripts/restart-dev-server.sh").is_some());
        assert!(server("./start.sh").is_some());
    }
}

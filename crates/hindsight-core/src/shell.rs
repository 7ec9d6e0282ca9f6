//! A POSIX-shell lexer and a small command-structure parser.
//!
//! Agents' commands are one-liners full of quoting, `ssh host '…'`, `nohup … &`,
//! pipes and redirections. Splitting on spaces gets every one of those wrong,
//! and word-splitting crates such as `shlex` do not know operators (`a;b` stays
//! one word), so this module lexes the way a shell does: quotes, escapes,
//! operators, redirections and comments. Wrappers that run another command
//! (`ssh`, `sudo`, `env`, `nohup`, `bash -c`, `timeout`, …) are unwrapped
//! recursively, and the remote host of `ssh` is kept on every inner command.

/// One simple command after unwrapping, with what surrounds it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SimpleCommand {
    /// The words of the command itself (wrappers removed, quotes resolved).
    pub argv: Vec<String>,
    /// `VAR=value` assignments in front of it (including `env VAR=value`).
    pub env: Vec<(String, String)>,
    /// Redirections, in order.
    pub redirects: Vec<Redirect>,
    /// Run with `&` (in the background).
    pub background: bool,
    /// Its input comes from the previous command through a pipe.
    pub piped_from_previous: bool,
    /// The operator that joins it to the previous command (`;`, `&&`, `||`, `|`, `&`, newline).
    pub after: Option<String>,
    /// The `ssh` destination it runs on, as written (`root@10.1.2.3`), or
    /// `pod/NAME` for `kubectl exec`, if any.
    pub host: Option<String>,
    /// The container it runs in (`docker exec NAME …`), if any.
    pub container: Option<String>,
    /// Wrappers that were removed, outermost first (`ssh`, `nohup`, `sudo`, …).
    pub wrappers: Vec<String>,
}

impl SimpleCommand {
    /// The program name without its directory (`/root/env/bin/python` →
    /// `python`, `venv\Scripts\python.exe` → `python.exe`).
    pub fn program(&self) -> &str {
        self.argv
            .first()
            .map(|p| p.rsplit(['/', '\\']).next().unwrap_or(p))
            .unwrap_or("")
    }

    /// The path this command's standard output is redirected to, if any.
    pub fn stdout_path(&self) -> Option<&str> {
        self.redirects
            .iter()
            .find(|r| {
                matches!(r.op.as_str(), ">" | ">>" | "&>" | ">|")
                    && r.fd.is_none_or(|fd| fd == 1)
                    && !r.target.starts_with('&')
            })
            .map(|r| r.target.as_str())
    }

    /// The command's words joined with spaces (for display).
    pub fn display(&self) -> String {
        self.argv.join(" ")
    }
}

/// A redirection such as `> /data/x.log`, `2>&1` or `>> out`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redirect {
    /// The file descriptor written before the operator (`2` in `2>&1`).
    pub fd: Option<u32>,
    /// The operator: `>`, `>>`, `<`, `<<`, `&>`, `>&`, `<&`, `>|`, `<<<`.
    pub op: String,
    /// The target word (for `2>&1` this is `&1`; for a heredoc, its delimiter).
    pub target: String,
    /// A heredoc's body (`<<EOF` … `EOF`).
    pub body: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Word(String),
    Op(String),
    Redirect {
        fd: Option<u32>,
        op: String,
    },
    /// The body of the heredoc whose redirect and delimiter came just before.
    Heredoc(String),
}

/// How deep `ssh host 'bash -c "…"'` nesting may go before we stop unwrapping.
const MAX_DEPTH: usize = 8;

/// Whether a command's first word only prepares the environment of the
/// commands after it (`export HF_ENDPOINT=…`, `cd /srv`, `source venv`,
/// `conda activate x`, `ulimit -n`, `module load cuda`): set-up, no step
/// of its own.
pub fn is_setup(program: &str) -> bool {
    matches!(
        program,
        "export" | "cd" | "source" | "." | "conda" | "set" | "ulimit" | "module"
    )
}

/// Parses a command line (possibly several lines) into simple commands.
/// Never fails: an unclosed quote runs to the end of the input.
pub fn parse(input: &str) -> Vec<SimpleCommand> {
    let mut commands = parse_at_depth(input, 0);
    // Checkpoints keep their commands for the whole analysis: growth slack
    // would add up over a long session's thousands of commands.
    commands.shrink_to_fit();
    for command in &mut commands {
        command.argv.shrink_to_fit();
        command.env.shrink_to_fit();
        command.redirects.shrink_to_fit();
        command.wrappers.shrink_to_fit();
    }
    commands
}

fn parse_at_depth(input: &str, depth: usize) -> Vec<SimpleCommand> {
    let tokens = lex(input);
    let mut commands = Vec::new();
    let mut current = SimpleCommand::default();
    let mut pending_after: Option<String> = None;
    let mut iter = tokens.into_iter().peekable();
    while let Some(token) = iter.next() {
        match token {
            Token::Word(word) => current.argv.push(word),
            Token::Redirect { fd, op } => {
                let target = match iter.peek() {
                    Some(Token::Word(_)) => match iter.next() {
                        Some(Token::Word(w)) => w,
                        _ => String::new(),
                    },
                    _ => String::new(),
                };
                let body = match iter.peek() {
                    Some(Token::Heredoc(_)) => match iter.next() {
                        Some(Token::Heredoc(body)) => Some(body),
                        _ => None,
                    },
                    _ => None,
                };
                current.redirects.push(Redirect {
                    fd,
                    op,
                    target,
                    body,
                });
            }
            Token::Heredoc(_) => {}
            Token::Op(op) => {
                if op == "(" || op == ")" || op == "{" || op == "}" {
                    // Subshells and groups: their commands run like any other.
                    continue;
                }
                if op == "&" {
                    current.background = true;
                }
                finish(&mut commands, &mut current, &mut pending_after, depth);
                pending_after = Some(op);
            }
        }
    }
    finish(&mut commands, &mut current, &mut pending_after, depth);
    commands
}

fn finish(
    commands: &mut Vec<SimpleCommand>,
    current: &mut SimpleCommand,
    pending_after: &mut Option<String>,
    depth: usize,
) {
    let mut command = std::mem::take(current);
    if command.argv.is_empty() && command.redirects.is_empty() {
        if command.background {
            // `cmd &` : the `&` belongs to the command already finished.
            if let Some(last) = commands.last_mut() {
                last.background = true;
            }
        }
        return;
    }
    command.piped_from_previous = pending_after.as_deref() == Some("|");
    command.after = pending_after.take();
    commands.extend(unwrap(command, depth));
}

/// Removes wrapper programs, recursing into the commands they run.
fn unwrap(mut command: SimpleCommand, depth: usize) -> Vec<SimpleCommand> {
    loop {
        // Leading assignments: `CUDA_VISIBLE_DEVICES=0 python …`.
        while let Some(first) = command.argv.first() {
            match assignment(first) {
                Some(pair) => {
                    command.env.push(pair);
                    command.argv.remove(0);
                }
                None => break,
            }
        }
        let program = command.program().to_owned();
        // Reserved words of compound commands: `for p in $(pgrep x); do kill
        // $p; done` runs `kill`, not a program named `do`. A closing word on
        // its own runs nothing.
        if matches!(program.as_str(), "done" | "fi" | "esac") && command.argv.len() == 1 {
            return Vec::new();
        }
        if matches!(
            program.as_str(),
            "do" | "then" | "else" | "elif" | "if" | "while" | "until" | "!"
        ) {
            if command.argv.len() == 1 {
                return Vec::new();
            }
            command.argv.remove(0);
            continue;
        }
        // cmd.exe's loop, run by mistake in a POSIX shell or written out in a
        // transcript: `for /f "tokens=5" %a in ('…') do taskkill /F /PID %a`.
        if program == "for"
            && let Some(at) = command.argv.iter().position(|w| w == "do")
            && at + 1 < command.argv.len()
        {
            command.argv.drain(..=at);
            continue;
        }
        let skip = match program.as_str() {
            "nohup" | "exec" | "time" | "setsid" | "command" | "builtin" => Some(1),
            "sudo" => Some(1 + options_len(&command.argv[1..], "ugCDhpRrTU")),
            "nice" | "ionice" | "stdbuf" | "taskset" | "chrt" | "numactl" => {
                Some(1 + options_len(&command.argv[1..], "nNcpmC"))
            }
            "timeout" => {
                let opts = options_len(&command.argv[1..], "sk");
                // The duration follows the options.
                Some(2 + opts)
            }
            // Environment runners: `uv run uvicorn …`, `poetry run python …`,
            // `conda run -n env vllm serve …`.
            "uv" | "poetry" | "pipenv" | "pdm" | "hatch" | "rye"
                if command.argv.get(1).is_some_and(|w| w == "run") =>
            {
                Some(2 + options_len(&command.argv[2..], "p"))
            }
            "conda" | "mamba" | "micromamba" if command.argv.get(1).is_some_and(|w| w == "run") => {
                Some(2 + options_len(&command.argv[2..], "np"))
            }
            // `… | xargs -r kill -9`: the command xargs runs on its input.
            "xargs" => Some(1 + options_len(&command.argv[1..], "IdEeLlnPsa")),
            // Windows running a command in WSL: `wsl -e bash -c "cd … && npm
            // run dev"`, `wsl -d Ubuntu -- vllm serve m`.
            "wsl" | "wsl.exe" => {
                let mut i = 1;
                while let Some(word) = command.argv.get(i) {
                    match word.as_str() {
                        "-d" | "--distribution" | "-u" | "--user" | "--cd" | "--shell-type" => {
                            i += 2;
                        }
                        "-e" | "--exec" | "--" => {
                            i += 1;
                            break;
                        }
                        w if w.starts_with('-') => i += 1,
                        _ => break,
                    }
                }
                Some(i)
            }
            "env" => {
                let mut i = 1;
                while let Some(word) = command.argv.get(i) {
                    if word == "-u" {
                        i += 2;
                    } else if word.starts_with('-') {
                        i += 1;
                    } else if let Some(pair) = assignment(word) {
                        command.env.push(pair);
                        i += 1;
                    } else {
                        break;
                    }
                }
                Some(i)
            }
            _ => None,
        };
        if let Some(skip) = skip {
            if skip >= command.argv.len() {
                return vec![command];
            }
            command.wrappers.push(program);
            command.argv.drain(..skip);
            continue;
        }
        if depth >= MAX_DEPTH {
            return vec![command];
        }
        if program == "ssh" {
            return unwrap_ssh(command, depth);
        }
        // `su - user -s /bin/bash -c 'ollama serve'`, `runuser -u u -- cmd`:
        // the command run as another user.
        if matches!(program.as_str(), "su" | "runuser") {
            if let Some(at) = command
                .argv
                .iter()
                .position(|a| a == "-c" || a == "--command")
                && let Some(script) = command.argv.get(at + 1).cloned()
            {
                return nest(&command, &script, depth, None, &program);
            }
            if let Some(at) = command.argv.iter().position(|a| a == "--")
                && at + 1 < command.argv.len()
            {
                command.wrappers.push(program);
                command.argv.drain(..=at);
                continue;
            }
        }
        if matches!(program.as_str(), "bash" | "sh" | "zsh" | "dash") {
            if let Some(script_index) = shell_c_argument(&command.argv) {
                let script = command.argv[script_index].clone();
                return nest(&command, &script, depth, None, &program);
            }
            // `bash <<'EOF'` / `bash -s <<EOF`: the heredoc is the script.
            if command.argv[1..].iter().all(|a| a.starts_with('-'))
                && let Some(script) = heredoc_body(&command)
            {
                return nest(&command, &script, depth, None, &program);
            }
        }
        if matches!(program.as_str(), "docker" | "podman")
            && command.argv.get(1).is_some_and(|a| a == "exec")
        {
            return unwrap_exec(command, depth, 2, "-eEuwp", Exec::Docker);
        }
        if matches!(program.as_str(), "kubectl" | "oc")
            && command.argv.get(1).is_some_and(|a| a == "exec")
        {
            return unwrap_exec(command, depth, 2, "-ncf", Exec::Kubectl);
        }
        return vec![command];
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Exec {
    Docker,
    Kubectl,
}

/// Unwraps `docker exec [opts] CONTAINER cmd…` and
/// `kubectl exec [opts] POD [--] cmd…`.
fn unwrap_exec(
    command: SimpleCommand,
    depth: usize,
    first: usize,
    short_with_argument: &str,
    kind: Exec,
) -> Vec<SimpleCommand> {
    const LONG_WITH_ARGUMENT: &[&str] = &[
        "--env",
        "--env-file",
        "--user",
        "--workdir",
        "--detach-keys",
        "--namespace",
        "--container",
        "--filename",
        "--context",
        "--kubeconfig",
        "--pod-running-timeout",
    ];
    let args = &command.argv[first..];
    let mut namespace = None;
    let mut i = 0;
    while let Some(word) = args.get(i) {
        if word == "--" {
            i += 1;
            continue;
        }
        if word.starts_with("--") {
            let takes_next = !word.contains('=') && LONG_WITH_ARGUMENT.contains(&word.as_str());
            if word == "--namespace" {
                namespace = args.get(i + 1).cloned();
            }
            i += if takes_next { 2 } else { 1 };
            continue;
        }
        if let Some(flags) = word.strip_prefix('-') {
            let takes_next = flags.len() == 1 && short_with_argument.contains(flags);
            if flags == "n" {
                namespace = args.get(i + 1).cloned();
            }
            i += if takes_next { 2 } else { 1 };
            continue;
        }
        break;
    }
    let Some(target) = args.get(i).cloned() else {
        return vec![command];
    };
    let mut rest: Vec<String> = args[i + 1..].to_vec();
    // kubectl takes options after the pod too; the command follows `--`.
    if let Some(dashes) = rest.iter().position(|w| w == "--")
        && (kind == Exec::Kubectl || dashes == 0)
    {
        rest.drain(..=dashes);
    }
    if rest.is_empty() {
        return vec![command];
    }
    let mut inner = SimpleCommand {
        argv: rest,
        env: command.env.clone(),
        redirects: command.redirects.clone(),
        background: command.background,
        piped_from_previous: command.piped_from_previous,
        after: command.after.clone(),
        host: command.host.clone(),
        container: command.container.clone(),
        wrappers: command.wrappers.clone(),
    };
    match kind {
        Exec::Docker => {
            inner.container = Some(target);
            inner.wrappers.push("docker exec".to_owned());
        }
        Exec::Kubectl => {
            let pod = target.trim_start_matches("pod/");
            inner.host = Some(match namespace {
                Some(namespace) => format!("pod/{namespace}/{pod}"),
                None => format!("pod/{pod}"),
            });
            inner.wrappers.push("kubectl exec".to_owned());
        }
    }
    unwrap(inner, depth + 1)
}

fn heredoc_body(command: &SimpleCommand) -> Option<String> {
    command
        .redirects
        .iter()
        .find(|r| r.op.starts_with("<<") && r.op != "<<<")
        .and_then(|r| r.body.clone())
}

/// Unwraps `ssh [options] destination [--] command…`.
fn unwrap_ssh(command: SimpleCommand, depth: usize) -> Vec<SimpleCommand> {
    // Options of OpenSSH that take an argument.
    const WITH_ARGUMENT: &str = "BbcDEeFIiJLlmOoPpQRSWw";
    let args = &command.argv[1..];
    let mut i = 0;
    while let Some(word) = args.get(i) {
        if word == "--" {
            i += 1;
            break;
        }
        if let Some(flags) = word.strip_prefix('-') {
            if flags.is_empty() {
                break;
            }
            // `-p 22` takes the next word, `-p22` does not.
            let last = flags.chars().last().unwrap_or(' ');
            let takes_next = flags.len() == 1 && WITH_ARGUMENT.contains(last)
                || flags.len() > 1
                    && flags.chars().all(|c| c.is_ascii_alphabetic())
                    && WITH_ARGUMENT.contains(last)
                    && !flags[..flags.len() - 1]
                        .chars()
                        .any(|c| WITH_ARGUMENT.contains(c));
            i += if takes_next { 2 } else { 1 };
        } else {
            break;
        }
    }
    let Some(host) = args.get(i).cloned() else {
        return vec![command];
    };
    let mut rest = &args[i + 1..];
    if rest.first().is_some_and(|w| w == "--") {
        rest = &rest[1..];
    }
    if rest.is_empty() {
        // `ssh host <<'EOF' … EOF` runs the heredoc remotely; otherwise this is
        // an interactive login and nothing runs remotely that we can see.
        return match heredoc_body(&command) {
            Some(script) => nest(&command, &script, depth, Some(host), "ssh"),
            None => vec![command],
        };
    }
    // ssh joins its remaining arguments with spaces and hands them to the remote shell.
    let script = rest.join(" ");
    nest(&command, &script, depth, Some(host), "ssh")
}

fn nest(
    outer: &SimpleCommand,
    script: &str,
    depth: usize,
    host: Option<String>,
    wrapper: &str,
) -> Vec<SimpleCommand> {
    let mut inner = parse_at_depth(script, depth + 1);
    for (i, command) in inner.iter_mut().enumerate() {
        let mut wrappers = outer.wrappers.clone();
        wrappers.push(wrapper.to_owned());
        wrappers.append(&mut command.wrappers);
        command.wrappers = wrappers;
        if command.host.is_none() {
            command.host = host.clone().or_else(|| outer.host.clone());
        }
        if command.container.is_none() {
            command.container.clone_from(&outer.container);
        }
        let mut env = outer.env.clone();
        env.append(&mut command.env);
        command.env = env;
        if i == 0 {
            command.after = outer.after.clone();
            command.piped_from_previous = outer.piped_from_previous;
        }
    }
    if outer.background
        && let Some(last) = inner.last_mut()
    {
        last.background = true;
    }
    // Local redirections of the wrapper (`ssh h cmd > local.log`) apply to the
    // output of the last inner command as far as the agent is concerned.
    if let Some(last) = inner.last_mut() {
        last.redirects.extend(outer.redirects.iter().cloned());
    }
    inner
}

/// Index of the script argument of `bash -c SCRIPT` / `bash -lc SCRIPT`.
fn shell_c_argument(argv: &[String]) -> Option<usize> {
    let mut i = 1;
    while let Some(word) = argv.get(i) {
        if word.starts_with('-') && !word.starts_with("--") && word.contains('c') {
            return (i + 1 < argv.len()).then_some(i + 1);
        }
        if word.starts_with('-') {
            i += 1;
        } else {
            return None;
        }
    }
    None
}

/// How many words of options (with their arguments) lead `args`.
fn options_len(args: &[String], with_argument: &str) -> usize {
    let mut i = 0;
    while let Some(word) = args.get(i) {
        if word == "--" {
            return i + 1;
        }
        let Some(flags) = word.strip_prefix('-') else {
            break;
        };
        if flags.is_empty() || flags.starts_with('-') {
            i += 1;
            continue;
        }
        let takes_next = flags.len() == 1 && with_argument.contains(flags);
        i += if takes_next { 2 } else { 1 };
    }
    i
}

fn assignment(word: &str) -> Option<(String, String)> {
    let (name, value) = word.split_once('=')?;
    let valid = !name.is_empty()
        && name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    valid.then(|| (name.to_owned(), value.to_owned()))
}

/// Splits shell text into words, operators and redirections.
fn lex(input: &str) -> Vec<Token> {
    let chars: Vec<char> = input.chars().collect();
    let mut tokens = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut i = 0;
    // Heredocs opened on this line: (index of their delimiter word, `<<-`).
    let mut heredocs: Vec<(usize, bool)> = Vec::new();
    let flush = |tokens: &mut Vec<Token>, word: &mut String, in_word: &mut bool| {
        if *in_word {
            tokens.push(Token::Word(std::mem::take(word)));
            *in_word = false;
        }
    };
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\\' => {
                match chars.get(i + 1) {
                    // A line continuation disappears entirely.
                    Some('\n') => {}
                    // A Windows path (`venv\Scripts\python.exe`, `C:\Users`,
                    // run through PowerShell or cmd): a backslash inside a
                    // word, before a letter, is a separator, not an escape
                    // (in bash it would only drop itself, which nobody means).
                    Some(&next)
                        if in_word
                            && next.is_ascii_alphabetic()
                            && word.chars().last().is_some_and(|p| {
                                p.is_ascii_alphanumeric() || matches!(p, ':' | '.' | '_' | '-')
                            }) =>
                    {
                        word.push('\\');
                        word.push(next);
                    }
                    Some(&next) => {
                        word.push(next);
                        in_word = true;
                    }
                    None => {}
                }
                i += 2;
            }
            '\'' => {
                in_word = true;
                i += 1;
                while i < chars.len() && chars[i] != '\'' {
                    word.push(chars[i]);
                    i += 1;
                }
                i += 1;
            }
            '"' => {
                in_word = true;
                i += 1;
                while i < chars.len() && chars[i] != '"' {
                    if chars[i] == '\\'
                        && matches!(chars.get(i + 1), Some('"' | '\\' | '$' | '`' | '\n'))
                    {
                        if chars[i + 1] != '\n' {
                            word.push(chars[i + 1]);
                        }
                        i += 2;
                        continue;
                    }
                    word.push(chars[i]);
                    i += 1;
                }
                i += 1;
            }
            ' ' | '\t' | '\r' => {
                flush(&mut tokens, &mut word, &mut in_word);
                i += 1;
            }
            '#' if !in_word => {
                // A comment runs to the end of the line.
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '\n' if !heredocs.is_empty() => {
                flush(&mut tokens, &mut word, &mut in_word);
                i += 1;
                // Bodies follow the line, in the order the heredocs were opened.
                let mut inserted = 0;
                for (index, strip_tabs) in std::mem::take(&mut heredocs) {
                    let delimiter = match tokens.get(index + inserted) {
                        Some(Token::Word(d)) => d.clone(),
                        _ => continue,
                    };
                    let mut body = String::new();
                    while i < chars.len() {
                        let end = chars[i..]
                            .iter()
                            .position(|&c| c == '\n')
                            .map_or(chars.len(), |p| i + p);
                        let line: String = chars[i..end].iter().collect();
                        i = end + 1;
                        let candidate = if strip_tabs {
                            line.trim_start_matches('\t')
                        } else {
                            line.as_str()
                        };
                        if candidate.trim_end() == delimiter {
                            break;
                        }
                        body.push_str(candidate);
                        body.push('\n');
                    }
                    tokens.insert(index + inserted + 1, Token::Heredoc(body));
                    inserted += 1;
                }
                tokens.push(Token::Op(";".to_owned()));
            }
            '\n' | ';' | '|' | '&' | '(' | ')' => {
                // `2>&1`, `>&2` and `&>` are redirections, handled below.
                if c == '&' && chars.get(i + 1) == Some(&'>') {
                    flush(&mut tokens, &mut word, &mut in_word);
                    let op = if chars.get(i + 2) == Some(&'>') {
                        i += 3;
                        "&>>"
                    } else {
                        i += 2;
                        "&>"
                    };
                    tokens.push(Token::Redirect {
                        fd: None,
                        op: op.to_owned(),
                    });
                    continue;
                }
                flush(&mut tokens, &mut word, &mut in_word);
                let two: String = chars[i..(i + 2).min(chars.len())].iter().collect();
                let op = match two.as_str() {
                    "&&" | "||" | ";;" | "|&" => two,
                    _ => c.to_string(),
                };
                i += op.chars().count();
                let op = if op == "\n" { ";".to_owned() } else { op };
                let op = if op == "|&" { "|".to_owned() } else { op };
                tokens.push(Token::Op(op));
            }
            '>' | '<' => {
                // A word made only of digits right before is a file descriptor.
                let fd = if in_word && !word.is_empty() && word.chars().all(|d| d.is_ascii_digit())
                {
                    let fd = word.parse().ok();
                    word.clear();
                    in_word = false;
                    fd
                } else {
                    flush(&mut tokens, &mut word, &mut in_word);
                    None
                };
                let mut op = c.to_string();
                i += 1;
                while let Some(&next) = chars.get(i) {
                    if (next == c && op.len() < 3) || next == '|' && op == ">" {
                        op.push(next);
                        i += 1;
                    } else {
                        break;
                    }
                }
                if chars.get(i) == Some(&'&') {
                    // `2>&1`: the target is `&1`, lexed as one word.
                    let mut target = String::from("&");
                    i += 1;
                    while let Some(&d) = chars.get(i) {
                        if d.is_ascii_digit() || d == '-' {
                            target.push(d);
                            i += 1;
                        } else {
                            break;
                        }
                    }
                    tokens.push(Token::Redirect { fd, op });
                    tokens.push(Token::Word(target));
                    continue;
                }
                if op == "<<" {
                    // `<<-` strips leading tabs from the body and delimiter.
                    let strip_tabs = chars.get(i) == Some(&'-');
                    if strip_tabs {
                        op.push('-');
                        i += 1;
                    }
                    // The delimiter is the next word; the body comes after the line.
                    heredocs.push((tokens.len() + 1, strip_tabs));
                }
                tokens.push(Token::Redirect { fd, op });
            }
            '{' | '}' if !in_word && is_group_brace(&chars, i) => {
                flush(&mut tokens, &mut word, &mut in_word);
                tokens.push(Token::Op(c.to_string()));
                i += 1;
            }
            _ => {
                in_word = true;
                word.push(c);
                i += 1;
            }
        }
    }
    flush(&mut tokens, &mut word, &mut in_word);
    tokens
}

/// `{ a; b; }` groups need blanks around the braces; `${x}` and `{a,b}` are words.
fn is_group_brace(chars: &[char], i: usize) -> bool {
    let before = i == 0 || chars[i - 1].is_whitespace() || chars[i - 1] == ';';
    let after = chars
        .get(i + 1)
        .is_none_or(|c| c.is_whitespace() || *c == ';');
    before && after
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argvs(input: &str) -> Vec<Vec<String>> {
        parse(input).into_iter().map(|c| c.argv).collect()
    }

    #[test]
    fn operators_split_commands_even_without_spaces() {
        assert_eq!(
            argvs("a;b && c||d | e"),
            vec![vec!["a"], vec!["b"], vec!["c"], vec!["d"], vec!["e"]]
        );
    }

    #[test]
    fn su_and_runuser_run_their_command() {
        let commands = parse("sudo su - ollama -s /bin/bash -c '/usr/local/bin/ollama serve'");
        assert_eq!(
            commands.last().map(|c| c.argv.clone()),
            Some(vec!["/usr/local/bin/ollama".to_owned(), "serve".to_owned()])
        );
        let commands = parse("runuser -u vllm -- vllm serve m --port 8000");
        assert_eq!(commands[0].program(), "vllm");
    }

    #[test]
    fn windows_paths_keep_their_backslashes() {
        let commands =
            parse(r"venv\Scripts\python.exe app.py; C:\Users\me\llama-server.exe -m m.gguf");
        assert_eq!(commands[0].argv[0], r"venv\Scripts\python.exe");
        assert_eq!(commands[0].program(), "python.exe");
        assert_eq!(commands[1].program(), "llama-server.exe");
        // Escapes in a POSIX shell are still escapes.
        assert_eq!(
            argvs(r"echo a\ b \$HOME \*.py"),
            vec![vec!["echo", "a b", "$HOME", "*.py"]]
        );
    }

    #[test]
    fn compound_commands_run_their_bodies() {
        let programs = |input: &str| -> Vec<String> {
            parse(input)
                .iter()
                .map(|c| c.program().to_owned())
                .collect()
        };
        assert_eq!(
            programs("for p in $(pgrep -f vllm); do kill -9 $p; done"),
            ["for", "kill"]
        );
        assert_eq!(
            programs("if pgrep sglang; then pkill -9 sglang; else echo none; fi"),
            ["pgrep", "pkill", "echo"]
        );
        assert_eq!(
            programs("while ! curl -sf localhost:8000/health; do sleep 5; done"),
            ["curl", "sleep"]
        );
        assert_eq!(
            programs(
                r#"for /f "tokens=5" %a in ('netstat -ano | findstr :8000') do taskkill /F /PID %a"#
            )
            .last()
            .map(String::as_str),
            Some("taskkill")
        );
    }

    #[test]
    fn quotes_keep_operators_inside_words() {
        assert_eq!(
            argvs(r#"grep -v "a;b|c" 'x && y' z\ w"#),
            vec![vec!["grep", "-v", "a;b|c", "x && y", "z w"]]
        );
    }

    #[test]
    fn ssh_is_unwrapped_with_its_host() {
        let commands = parse(
            "ssh -p 2222 -o StrictHostKeyChecking=no root@10.1.2.3 'wc -l /x.log; tail -5 /x.log; ps aux | grep sglang | grep -v grep | head -3'",
        );
        let programs: Vec<_> = commands.iter().map(SimpleCommand::program).collect();
        assert_eq!(programs, ["wc", "tail", "ps", "grep", "grep", "head"]);
        assert!(
            commands
                .iter()
                .all(|c| c.host.as_deref() == Some("root@10.1.2.3"))
        );
        assert!(commands[3].piped_from_previous);
        assert_eq!(commands[1].argv, ["tail", "-5", "/x.log"]);
    }

    #[test]
    fn ssh_double_dash_and_bash_c() {
        let commands = parse("ssh gpu1 -- bash -lc \"nvidia-smi && echo ok\"");
        let programs: Vec<_> = commands.iter().map(SimpleCommand::program).collect();
        assert_eq!(programs, ["nvidia-smi", "echo"]);
        assert_eq!(commands[0].host.as_deref(), Some("gpu1"));
        assert_eq!(commands[0].wrappers, ["ssh", "bash"]);
    }

    #[test]
    fn nohup_background_and_redirections() {
        let commands = parse(
            "cd /data && CUDA_VISIBLE_DEVICES=0,1 nohup python -m sglang.launch_server --port 30000 > /data/s.log 2>&1 &",
        );
        assert_eq!(commands.len(), 2);
        let launch = &commands[1];
        assert_eq!(launch.program(), "python");
        assert!(launch.background);
        assert_eq!(launch.stdout_path(), Some("/data/s.log"));
        assert_eq!(launch.env, [("CUDA_VISIBLE_DEVICES".into(), "0,1".into())]);
        assert_eq!(launch.wrappers, ["nohup"]);
        assert_eq!(launch.redirects[1].fd, Some(2));
        assert_eq!(launch.redirects[1].target, "&1");
    }

    #[test]
    fn sudo_env_and_timeout_prefixes() {
        let commands = parse("sudo -u svc env -i A=1 timeout -s KILL 30 curl -s localhost:8000");
        assert_eq!(commands[0].argv, ["curl", "-s", "localhost:8000"]);
        assert_eq!(commands[0].wrappers, ["sudo", "env", "timeout"]);
        let wsl = parse(r#"wsl -e bash -c "cd /mnt/c/app/server && npm run dev""#);
        assert_eq!(
            wsl.last().map(|c| c.argv.join(" ")).as_deref(),
            Some("npm run dev"),
            "{wsl:?}"
        );
        let distro = parse("wsl -d Ubuntu -- vllm serve m --port 8001");
        assert_eq!(distro[0].argv[0], "vllm", "{distro:?}");
        assert_eq!(distro[0].wrappers, ["wsl"]);
    }

    #[test]
    fn environment_runners_run_the_command_after_them() {
        for (line, program) in [
            ("uv run uvicorn app.main:app --port 8081", "uvicorn"),
            (
                "poetry run python -m vllm.entrypoints.openai.api_server",
                "python",
            ),
            (
                "conda run -n serve --no-capture-output vllm serve /m",
                "vllm",
            ),
            ("uv pip install vllm", "uv"),
        ] {
            assert_eq!(parse(line)[0].program(), program, "{line}");
        }
    }

    #[test]
    fn continuation_lines_and_comments() {
        let commands = parse("vllm serve m \\\n  --port 8001 # the API\necho done");
        assert_eq!(commands[0].argv, ["vllm", "serve", "m", "--port", "8001"]);
        assert_eq!(commands[1].argv, ["echo", "done"]);
    }

    #[test]
    fn heredocs_are_bodies_not_commands_unless_a_shell_runs_them() {
        let commands = parse("python - <<'EOF'\nimport torch\nprint(1)\nEOF\necho done");
        let programs: Vec<_> = commands.iter().map(SimpleCommand::program).collect();
        assert_eq!(programs, ["python", "echo"]);
        assert_eq!(
            commands[0].redirects[0].body.as_deref(),
            Some("import torch\nprint(1)\n")
        );
        let commands = parse("ssh root@gpu1 <<'EOF'\n\tss -ltnp | grep 8000\nnvidia-smi\nEOF");
        let programs: Vec<_> = commands.iter().map(SimpleCommand::program).collect();
        assert_eq!(programs, ["ss", "grep", "nvidia-smi"]);
        assert!(
            commands
                .iter()
                .all(|c| c.host.as_deref() == Some("root@gpu1"))
        );
        let commands = parse("bash -s <<-END\n\tcurl -s localhost:8000/health\n\tEND\n");
        assert_eq!(commands[0].program(), "curl");
    }

    #[test]
    fn docker_and_kubectl_exec() {
        let commands =
            parse("docker exec -it -e A=1 vllm-0 bash -lc 'curl -s localhost:8000/health'");
        assert_eq!(commands[0].program(), "curl");
        assert_eq!(commands[0].container.as_deref(), Some("vllm-0"));
        let commands = parse("kubectl exec -n serving sglang-0 -c server -- nvidia-smi");
        assert_eq!(commands[0].program(), "nvidia-smi");
        assert_eq!(commands[0].host.as_deref(), Some("pod/serving/sglang-0"));
    }

    #[test]
    fn unclosed_quotes_and_garbage_never_panic() {
        for input in [
            "'",
            "\"",
            "\\",
            "ssh",
            "ssh -p",
            "2>",
            "&",
            ">&",
            "ssh h 'ssh i \"ssh j",
            "(((",
            "é'ü",
            "cat <<",
            "cat <<EOF",
            "cat <<EOF\n",
            "cat <<-\n\n",
            "docker exec",
            "kubectl exec -n",
        ] {
            let _ = parse(input);
        }
    }
}

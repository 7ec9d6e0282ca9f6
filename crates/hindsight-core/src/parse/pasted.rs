//! Pasted chat and terminal text: `[msg N]` dumps, role-labelled turns
//! (`Human:`, `**Assistant:**`, `## User`, `ChatGPT said:`), Markdown chat
//! exports with commands in fences, terminal captures with shell prompts,
//! and Claude Code's terminal rendering (`⏺ Bash(…)`, `⎿`).
//!
//! Pasted text has no schema, so this parser recognises line shapes and
//! keeps everything else:
//! - a prompt line (`$ cmd`, `user@host:~$ cmd`) starts a command; the
//!   lines after it, up to the next prompt, turn marker or closing fence,
//!   are its output;
//! - a shell fence without prompts (```` ```bash ````) holds a command (the
//!   fence's lines, as one script); its output is the next bare or
//!   `text`/`output` fence, or an indented block after an `Output:` label,
//!   before the next command or assistant turn (a user's turn may paste it);
//! - a Claude Code tool call is `⏺ Bash(cmd)` (hard-wrapped at the terminal
//!   width, maybe with a `timeout: 10m` annotation after it) and its output
//!   the `⎿` block under it;
//! - other lines are prose of the current turn, except runs of server-log
//!   lines outside any output: those are a log pasted into the transcript
//!   ([`EventKind::PastedLog`]), read as a log so its server is known.

use super::claude_code::SHELL_TOOLS;
use super::{Actor, Event, EventKind, Format, Parsed, Role};
use crate::diagnostic::Diagnostic;
use crate::re::regex;
use crate::source::{Span, lines_with_offsets};

regex!(
    PROMPT,
    r"^(?:\[?(?-u:([\w.-]+@[\w.-]+))(?::[^\t\n\x0B\x0C\r $#%]*|(?-u:\s+)[^\]\t\n\x0B\x0C\r ]+\]?)?(?-u:\s?)[$#%]|\$)(?:(?-u:\s)(.*))?$"
);
// Prompts that show a path and no `user@host`: `~ $ cmd`, `~/src $ cmd`,
// a named one (`Ubuntu： ~ $ cmd`, `box: /srv #`) and macOS's
// `MacBook-Pro:~ me$ cmd`. The path must start with `~` or `/`.
regex!(
    PATH_PROMPT,
    r"^(?:[A-Za-z0-9_.-]+(?:[:：] ?| ))?(?:~(?:/[^ \t$#%]*)?|/[^ \t$#%]*) ?(?:[A-Za-z0-9_.-]+)?[$#%] (.*)$"
);
// PowerShell's `PS C:\Users\me> cmd` (also `PS /home/me> cmd`, and `PS> cmd`
// as docs and issues write it).
regex!(PS_PROMPT, r"^PS(?: (?:[A-Za-z]:\\|/)[^>\t\n]*)?> ?(.*)$");
// cmd.exe's `C:\Users\me>cmd` (no space after `>`), also after a conda
// env: `(base) c:\dl>curl http://127.0.0.1:8080/models`.
regex!(CMD_PROMPT, r#"^[A-Za-z]:\\[^<>|\t\n"]*>(.*)$"#);
regex!(
    MSG_MARKER,
    r"(?i-u)^\[msg (\d+)\](?:\s*\[?(user|assistant|human|system|tool|ai)\]?:?)?"
);

/// Where a shell prompt (`user@host:path$ cmd`) starts inside a line that
/// does not start with one, right after output with no newline of its own.
fn glued_prompt(line: &str) -> Option<usize> {
    // Asked of every line of a paste, logs included: most have no `@`,
    // the cheapest thing to look for, and end here.
    if line.len() > 64 * 1024
        || !line.contains('@')
        || !(line.contains("$ ") || line.contains("# "))
    {
        return None;
    }
    let word = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-');
    line.match_indices('@').find_map(|(at, _)| {
        let start = line[..at]
            .char_indices()
            .rev()
            .take_while(|(_, c)| word(*c))
            .last()
            .map(|(i, _)| i)?;
        if start == 0 || line[..start].ends_with(char::is_whitespace) {
            return None;
        }
        let rest = &line[start..];
        // A user, a host, a path after `:`, then `$ ` or `# `: not an email
        // address or a URL's credentials.
        let (_, after_host) = rest.split_once(':')?;
        let path_end = after_host.find(['$', '#'])?;
        let path = &after_host[..path_end];
        let command = after_host[path_end + 1..].strip_prefix(' ')?;
        let plausible = !path.contains(char::is_whitespace)
            && (path.starts_with('~') || path.starts_with('/'))
            && !command.trim().is_empty();
        (plausible && prompt(rest).is_some()).then_some(start)
    })
}

/// Whether a line starts a turn (`[msg 12] assistant`, `Human:`,
/// `**Assistant:**`, `## User`, `ChatGPT said:`).
pub fn is_message_marker(line: &str) -> bool {
    marker(line).is_some()
}

/// A shell prompt line: the host it names (if any) and where the command
/// starts. The command may be empty: a bare prompt ends the previous output.
pub fn prompt(line: &str) -> Option<(Option<String>, usize)> {
    // A virtualenv's or conda's `(name) ` before the prompt, nested too:
    // `((sglang-0.5.9) ) [me@gpu ~]$`.
    let mut rest = line;
    for _ in 0..3 {
        if !rest.starts_with('(') {
            break;
        }
        let mut depth = 0usize;
        let mut end = None;
        for (at, c) in rest.char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        end = Some(at + 1);
                        break;
                    }
                }
                _ if at > 80 => break,
                _ => {}
            }
        }
        let Some(end) = end else {
            break;
        };
        let after = &rest[end..];
        if !after.starts_with(char::is_whitespace) {
            break;
        }
        rest = after.trim_start();
    }
    let skipped = line.len() - rest.len();
    if let Some(captures) = PS_PROMPT
        .as_ref()
        .and_then(|re| re.captures(rest))
        .or_else(|| CMD_PROMPT.as_ref().and_then(|re| re.captures(rest)))
    {
        let start = captures.get(1).map_or(line.len(), |m| skipped + m.start());
        return Some((None, start));
    }
    // zsh's bare `% ` (macOS pastes, docs): only before a known program or
    // a path to one, as prose and comments (TeX, MATLAB) also start with `%`.
    if let Some(command) = rest.strip_prefix("% ")
        && (is_bare_command(command.trim())
            || command
                .split_whitespace()
                .next()
                .is_some_and(|word| word.starts_with(['.', '/', '~']) && word.contains('/')))
    {
        return Some((None, line.len() - command.len()));
    }
    let Some(captures) = PROMPT.as_ref()?.captures(rest) else {
        let captures = PATH_PROMPT.as_ref()?.captures(rest)?;
        let start = captures.get(1).map_or(line.len(), |m| skipped + m.start());
        return Some((None, start));
    };
    let command_start = captures.get(2).map_or(line.len(), |m| skipped + m.start());
    Some((
        captures.get(1).map(|m| m.as_str().to_owned()),
        command_start,
    ))
}

/// The glyph Claude Code puts before tool calls and replies (macOS, Linux).
const TUI_GLYPHS: &[char] = &['⏺', '●'];

/// Glyphs of Claude Code's spinner status line (`✻ Thinking… (12s · …)`).
const SPINNER_GLYPHS: &[char] = &['✢', '✳', '✶', '✻', '✽', '·', '*', '✺', '◐', '◓', '◑', '◒'];

/// `⏺ Bash(cmd…` → (`Bash`, `cmd…`); the tool name must be capitalised.
fn tui_tool(trimmed: &str) -> Option<(&str, &str)> {
    let trimmed = trimmed.trim_start_matches('`');
    let rest = trimmed.trim_start_matches(TUI_GLYPHS).trim_start();
    // An MCP server's tool: `playwright - Navigate to a URL (MCP)(url: …)`.
    if trimmed.starts_with(TUI_GLYPHS)
        && let Some(at) = rest.find(" (MCP)(")
        && at <= 80
    {
        return Some((&rest[..at], &rest[at + " (MCP)(".len()..]));
    }
    let open = rest.find('(')?;
    let name = &rest[..open];
    let valid = !name.is_empty()
        && name.len() <= 40
        && name.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':' || c == ' ');
    (valid && (trimmed.starts_with(TUI_GLYPHS) || SHELL_TOOLS.contains(&name)))
        .then(|| (name, &rest[open + 1..]))
}

/// A notice that a background shell ended: the description the agent gave
/// the call, the status a poll would give (`killed`, `failed`,
/// `completed`) and the exit code, if it says one.
fn background_end(trimmed: &str) -> Option<(&str, &'static str, Option<i32>)> {
    let rest = trimmed
        .strip_prefix(TUI_GLYPHS)?
        .trim_start()
        .strip_prefix("Background command \"")?;
    let (description, outcome) = rest.rsplit_once('"')?;
    let outcome = outcome.trim();
    if outcome.starts_with("was stopped") || outcome.starts_with("was killed") {
        return Some((description, "killed", None));
    }
    if outcome.starts_with("completed") {
        return Some((description, "completed", Some(0)));
    }
    let code = outcome
        .strip_prefix("failed with exit code")
        .or_else(|| outcome.strip_prefix("failed with exitcode"))?;
    let code = code.trim().trim_end_matches('.').parse().ok();
    Some((description, "failed", code))
}

/// The words of a text that can name a program: runs of letters and
/// digits, three long or more, without the filler of descriptions.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 3)
        .filter(|w| {
            ![
                "the",
                "and",
                "for",
                "with",
                "run",
                "start",
                "restart",
                "server",
                "background",
            ]
            .iter()
            .any(|s| s.eq_ignore_ascii_case(w))
        })
}

/// Where a `Bash(` call's argument ends: the byte index of its closing
/// parenthesis (quotes respected), if the text holds it.
fn closing_paren(text: &str) -> Option<usize> {
    let mut depth = 1i32;
    let mut single = false;
    let mut double = false;
    let mut escaped = false;
    for (at, c) in text.char_indices() {
        if escaped {
            escaped = false;
            continue;
        }
        match c {
            '\\' if !single => escaped = true,
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '(' if !single && !double => depth += 1,
            ')' if !single && !double => {
                depth -= 1;
                if depth == 0 {
                    return Some(at);
                }
            }
            _ => {}
        }
    }
    None
}

/// Joins a tool call's hard-wrapped lines. A wrap at a space loses the
/// space (the copy trims it), so the pieces join with one; a wrap inside a
/// word happens only on a full line, as wide as the terminal (`width`: the
/// widest line of the rendering), and joins without one, unless what
/// follows starts a new word anyway (a flag, an operator).
fn join_wrapped(pieces: &[&str], width: usize) -> String {
    let mut joined = String::new();
    for (index, piece) in pieces.iter().enumerate() {
        let text = if index == 0 {
            *piece
        } else {
            piece.trim_start()
        };
        if index > 0 {
            let previous = pieces[index - 1];
            let full = previous.chars().count() >= width;
            let new_word = text.starts_with(['-', '|', '&', '>', '<', ';', '(', '\'', '"'])
                || previous.ends_with([' ', ';', '|', '&']);
            // A comment runs to its line's end: what follows is a new line
            // of a multi-line command, not a wrap of the comment.
            let after_comment = previous
                .trim_start()
                .trim_start_matches(TUI_GLYPHS)
                .trim_start()
                .trim_start_matches("Bash(")
                .trim_start_matches("PowerShell(")
                .starts_with('#');
            if after_comment {
                joined.push('\n');
            } else if !full || new_word {
                joined.push(' ');
            }
        }
        joined.push_str(text);
    }
    joined
}

/// A wrapped call's line without the right-hand column Claude Code puts
/// its annotation in (`…  -f                timeout: ` over `…up -d)      5m`),
/// and whether the annotation goes on to the next line. The column is told
/// by a run of spaces (the terminal's padding) before `timeout:` or, on a
/// following line, before the annotation's rest (`5m`, `10m`, `600000ms`).
fn cut_annotation(piece: &str, annotated: bool) -> (&str, bool) {
    let padded = |at: usize| piece[..at].ends_with("   ");
    if let Some(at) = piece.rfind("timeout:")
        && padded(at)
    {
        let after = piece[at + "timeout:".len()..].trim();
        return (piece[..at].trim_end(), after.is_empty());
    }
    if annotated
        && let Some(at) = piece.rfind(' ')
        && padded(at + 1)
    {
        let tail = &piece[at + 1..];
        let duration = !tail.is_empty()
            && tail.len() <= 10
            && tail.starts_with(|c: char| c.is_ascii_digit())
            && tail.chars().all(|c| c.is_ascii_alphanumeric());
        if duration {
            return (piece[..at].trim_end(), false);
        }
    }
    (piece, false)
}

/// Fence languages that hold shell commands.
const SHELL_LANGUAGES: &[&str] = &[
    "bash",
    "sh",
    "shell",
    "zsh",
    "console",
    "terminal",
    "shellscript",
    "shell-session",
    "shellsession",
    "powershell",
    "pwsh",
    "ps1",
    "cmd",
    "bat",
    "fish",
    "commandline",
];

/// Fence languages that hold what a command printed.
const OUTPUT_LANGUAGES: &[&str] = &[
    "",
    "text",
    "txt",
    "output",
    "log",
    "logs",
    "plaintext",
    "plain",
    "stdout",
    "stderr",
    "none",
    "ansi",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fence {
    /// Commands at prompts, with their output, read as a terminal capture.
    Prompts,
    /// Output of the command waiting for it.
    Output(usize),
    /// Anything else (code, config, a quoted log): kept, not commands.
    Other,
}

struct OpenCommand {
    event: usize,
    output: Option<Span>,
    /// Claude Code's terminal rendering: output lines carry `⎿` and an
    /// indent that are not part of the output, so it is kept decoded.
    tui: Option<TuiOutput>,
}

#[derive(Default)]
struct TuiOutput {
    text: String,
    exit_code: Option<i32>,
    is_error: bool,
}

/// Parses pasted text into message, prose, command and output events.
pub fn parse(text: &str, source: usize) -> Parsed {
    let mut lines: Vec<(usize, &str)> = Vec::new();
    for (offset, line) in lines_with_offsets(text) {
        // Output that ends without a newline (`curl`'s JSON) has the next
        // prompt glued to it: `…}user@host:~$ curl …`. Two lines, at their
        // own offsets.
        match glued_prompt(line) {
            Some(at) => {
                lines.push((offset, &line[..at]));
                lines.push((offset + at, &line[at..]));
            }
            None => lines.push((offset, line)),
        }
    }
    let head = &text[..crate::source::floor_char_boundary(text, 64 * 1024)];
    let tui_mode = head.contains('⎿') || head.contains("⏺ ");
    if !tui_mode {
        unquote_terminals(&mut lines);
    }
    let mut parser = Parser {
        escaped: markdown_escaped(text),
        text,
        source,
        lines: &lines,
        parsed: Parsed::default(),
        role: Role::Unknown,
        open: None,
        fence: None,
        tui_mode,
        ran_fence_end: None,
        skipping_results: false,
        awaiting_output: None,
        prompted_output: None,
        tui_prose: None,
        width: lines
            .iter()
            .map(|(_, line)| line.trim_end().chars().count())
            .max()
            .unwrap_or(0),
        last_background: None,
        bare_terminal: false,
        turnless: false,
        first_line: lines.iter().position(|(_, l)| !l.trim().is_empty()),
    };
    parser.turnless = !parser.tui_mode
        && !lines.iter().any(|(_, line)| {
            marker(line.trim_start()).is_some()
                || prompt(line).is_some_and(|(_, start)| !line[start..].trim().is_empty())
        });
    parser.bare_terminal = parser.turnless
        && !lines
            .iter()
            .any(|(_, line)| fence_language(line.trim_start()).is_some())
        && lines
            .iter()
            .any(|(_, line)| is_bare_command(line.trim_start()));
    parser.run();
    let mut parsed = parser.parsed;
    place_tool_summaries(&lines, &mut parsed);
    mark_pasted_logs(text, &mut parsed);
    parsed
}

/// A terminal quoted as a Markdown block quote (a reply quoting an earlier
/// comment: `> ```` then `> root@pod:/# ollama ps`): a quote block that
/// holds a command at a prompt or a fence is read without its `> `.
fn unquote_terminals(lines: &mut [(usize, &str)]) {
    let quoted = |line: &str| line.starts_with("> ") || line.trim_end() == ">";
    let mut start = 0;
    while start < lines.len() {
        if !quoted(lines[start].1) {
            start += 1;
            continue;
        }
        let end = (start..lines.len())
            .find(|&i| !quoted(lines[i].1))
            .unwrap_or(lines.len());
        let terminal = lines[start..end].iter().any(|(_, line)| {
            let inner = line.get(2..).unwrap_or("");
            inner.trim_start().starts_with("```")
                || prompt(inner).is_some_and(|(_, at)| !inner[at..].trim().is_empty())
        });
        if terminal {
            for (offset, line) in &mut lines[start..end] {
                let cut = line.len().min(2);
                *offset += cut;
                *line = &line[cut..];
            }
        }
        start = end;
    }
}

/// SpecStory's exports of Cursor sessions name each shell call in a
/// collapsed block's summary (`<details><summary>Tool use:
/// **run_terminal_command_v2** • Run command: nvidia-smi</summary>`), then
/// repeat the command in a shell fence below it. The summary is the call a reader sees first (and the only one when the
/// block is collapsed): the command read from the fence is placed there.
fn place_tool_summaries(lines: &[(usize, &str)], parsed: &mut Parsed) {
    const RUN: &str = "Run command: ";
    let Some(first) = lines.iter().position(|(_, l)| l.contains(RUN)) else {
        return;
    };
    let line_at = |offset: usize| lines.partition_point(|(start, _)| *start <= offset) - 1;
    for event in &mut parsed.events {
        let EventKind::Command { text, .. } = &event.kind else {
            continue;
        };
        let at = line_at(event.span.start);
        if at <= first {
            continue;
        }
        // Up from the command: the fence's opening line, blank lines, then
        // the summary's closing line.
        let mut up = at - 1;
        if fence_language(lines[up].1.trim_start()).is_none() {
            continue;
        }
        while up > first && lines[up - 1].1.trim().is_empty() {
            up -= 1;
        }
        let Some(close) = up.checked_sub(1) else {
            continue;
        };
        if !lines[close].1.trim_end().ends_with("</summary>") {
            continue;
        }
        // The summary may run over several lines (a multi-line command).
        let Some(open) = (first..=close).rev().take(64).find(|&i| {
            lines[i]
                .1
                .trim_start()
                .starts_with("<details><summary>Tool use:")
        }) else {
            continue;
        };
        let said = lines[open].1;
        let Some(command_at) = said.find(RUN) else {
            continue;
        };
        let first_line = text.lines().next().unwrap_or("").trim();
        if !said[command_at + RUN.len()..]
            .trim_start()
            .starts_with(first_line)
        {
            continue;
        }
        let (close_start, close_line) = lines[close];
        event.span = Span::new(
            event.span.source,
            lines[open].0,
            close_start + close_line.len(),
        );
    }
}

struct Parser<'t> {
    text: &'t str,
    /// The paste went through a Markdown converter that escaped its
    /// punctuation (`npx tsc \--noEmit 2\>&1`, `… \+3 lines`): commands
    /// and outputs are read unescaped.
    escaped: bool,
    source: usize,
    lines: &'t [(usize, &'t str)],
    parsed: Parsed,
    role: Role,
    open: Option<OpenCommand>,
    /// The fence the current line is in.
    fence: Option<Fence>,
    /// Claude Code's terminal rendering changes what `> ` and indents mean.
    tui_mode: bool,
    /// The closing line of the last fence read as a command the writer
    /// ran: a fence right below it goes on with the run.
    ran_fence_end: Option<usize>,
    /// Inside the result block of a non-shell tool (`Read`, `Update`).
    skipping_results: bool,
    /// A command from a prompt-less shell fence, waiting for its output
    /// (the next bare fence or `Output:` block).
    awaiting_output: Option<usize>,
    /// The last command of a closed fence of prompts that printed nothing
    /// there: the next fence, when a line such as "And the cURL command
    /// prints:" introduces it, is its output.
    prompted_output: Option<usize>,
    /// An assistant reply of the terminal rendering whose wrapped lines
    /// may go on (event index).
    tui_prose: Option<usize>,
    /// The terminal's width, as the widest line of the rendering shows it.
    width: usize,
    /// The latest command run in the background, whose output a poll
    /// (`BashOutput`) shows later.
    last_background: Option<usize>,
    /// A terminal paste with no prompts, turns, fences or tool calls: its
    /// command lines are told by their first word.
    bare_terminal: bool,
    /// A document with no turns and no prompts (an agent's write-up, a
    /// guide): its shell fences are steps it suggests, unless output
    /// follows them.
    turnless: bool,
    /// The paste's first non-blank line: a command there was typed at a
    /// prompt the paste left out.
    first_line: Option<usize>,
}

impl Parser<'_> {
    fn push(&mut self, span: Span, kind: EventKind) -> usize {
        self.parsed.events.push(Event { span, kind });
        self.parsed.events.len() - 1
    }

    fn line_span(&self, index: usize) -> Span {
        let (offset, line) = self.lines[index];
        Span::new(self.source, offset, offset + line.len())
    }

    fn actor(&self) -> Actor {
        if self.role == Role::User {
            Actor::Human
        } else {
            Actor::Agent
        }
    }

    fn run(&mut self) {
        let mut index = 0;
        while index < self.lines.len() {
            index = self.line(index);
        }
        self.close();
    }

    /// Reads the line at `index` (and any it consumes); returns the next.
    fn line(&mut self, index: usize) -> usize {
        let (offset, line) = self.lines[index];
        let span = self.line_span(index);
        let trimmed = line.trim_start();

        // In a terminal rendering a fence indented into a tool's result
        // (`⎿  ### Ran Playwright code` / ```` ```js ```` / `… +39 lines`) is
        // that result's text, often cut before it closes: no fence of the
        // transcript's own, or everything after it would read as code.
        // A fence opened where the rendering did not close it (a user's
        // message ending in "logs ```", whose closing fence then reads as
        // an opening one) ends at the next tool call at the line's start:
        // the rendering indents every message's text, never its calls.
        if self.fence.is_some() && line.starts_with(TUI_GLYPHS) && tui_tool(trimmed).is_some() {
            self.fence = None;
        }
        let in_result = self.tui_mode && self.fence.is_none() && line.starts_with("    ");
        if !in_result && let Some(language) = fence_language(trimmed) {
            return self.fence_line(index, language);
        }
        if self.fence.is_none()
            && let Some((name, rest)) = tui_tool(trimmed)
        {
            return self.tui_call(index, name, rest);
        }
        if self.fence.is_none()
            && let Some(end) = background_end(trimmed)
        {
            return self.background_end(index, end);
        }
        if self.tui_mode
            && self.fence.is_none()
            && let Some(next) = self.tui_line(index)
        {
            return next;
        }
        // A reply's paragraphs are apart by blank lines: it goes on.
        if self.tui_prose.is_some() && line.trim().is_empty() {
            return index + 1;
        }
        self.tui_prose = None;
        if let Some(fence) = self.fence
            && marker(trimmed).is_none()
        {
            return self.fenced_line(index, fence);
        }
        if let Some((number, marker_role, marker_end)) = marker(trimmed) {
            self.close();
            self.fence = None;
            self.role = marker_role;
            self.prompted_output = None;
            // A tool's turn (`### 71. the tool responded`) holds the output
            // of the call before it.
            let tool_turn =
                marker_role == Role::Unknown && trimmed.to_ascii_lowercase().contains("tool");
            if marker_role != Role::User && !tool_turn {
                // An assistant's turn: a command of its own comes next.
                self.awaiting_output = None;
            }
            self.push(
                span,
                EventKind::Message {
                    index: number,
                    role: marker_role,
                },
            );
            // `Assistant: Starting the server.` carries prose on the marker line.
            let rest_start = offset + (line.len() - trimmed.len()) + marker_end;
            let rest = &self.text[rest_start..span.end];
            let leading = rest.len() - rest.trim_start().len();
            if !rest.trim().is_empty() {
                let role = self.role;
                self.push(
                    Span::new(self.source, rest_start + leading, span.end),
                    EventKind::Prose { role, text: None },
                );
            }
            return index + 1;
        }
        if let Some((prompt_host, command_start)) = prompt(line) {
            return self.prompt_command(index, prompt_host, command_start);
        }
        // A terminal paste without prompts: a command line starts a command;
        // so does a paste's first line, typed at a prompt the paste cut off.
        let first = self.first_line == Some(index);
        // An engine's launch written bare in a message (an issue's
        // `**User:**` followed by `CUDA_VISIBLE_DEVICES=4,5 nohup python -m
        // vllm.entrypoints.openai.api_server \`) is a command wherever it
        // stands: no prose starts that way.
        let bare_launch = || {
            !self.tui_mode
                && self.open.is_none()
                && is_bare_command(trimmed)
                && launches_or_asks(trimmed.trim_end().trim_end_matches('\\'))
        };
        if (self.bare_terminal || first && !self.tui_mode && self.open.is_none())
            && is_bare_command(trimmed)
        {
            let start = line.len() - trimmed.len();
            return self.prompt_command(index, None, start);
        }
        // The same in a code span that is the whole line, often a list item
        // (`3. \`python3 -m sglang.launch_server … --port 30000\``, under
        // "I typed these commands"): the span's text is the command. Only in
        // a person's message: an assistant's list of code spans is steps it
        // suggests.
        if !self.tui_mode
            && self.open.is_none()
            && self.role == Role::User
            && let Some(inner) = coded_line(trimmed)
            && launches_or_asks(inner)
        {
            self.close();
            self.tui_prose = None;
            self.awaiting_output = None;
            let (span, actor) = (self.line_span(index), self.actor());
            self.push(
                span,
                EventKind::Command {
                    text: inner.to_owned(),
                    actor,
                    prompt_host: None,
                    time: None,
                    background: false,
                },
            );
            return index + 1;
        }
        if bare_launch() {
            // In a message the command's paragraph is the command: what
            // follows a blank line is the message again, not its output.
            let start = line.len() - trimmed.len();
            let next = self.prompt_command(index, None, start);
            self.close();
            return next;
        }
        if let Some(command) = self.open.as_mut().filter(|o| o.tui.is_none()) {
            // Output runs to the next prompt or marker; blank lines inside it
            // belong to it, but leading ones do not.
            if !line.trim().is_empty() {
                command.output = Some(command.output.map_or(span, |o| o.cover(span)));
            }
            return index + 1;
        }
        if line.trim().is_empty() {
            return index + 1;
        }
        // `Output:` then an indented block or a fence, for a command
        // waiting for it: the label is not prose.
        if let Some(command) = self.awaiting_output
            && is_output_label(trimmed)
        {
            let mut end = index + 1;
            while end < self.lines.len()
                && (self.lines[end].1.starts_with("    ") || self.lines[end].1.starts_with('\t'))
            {
                end += 1;
            }
            if end > index + 1 {
                let first = self.line_span(index + 1);
                let last = self.line_span(end - 1);
                self.push_output(command, first.cover(last), None, None, false);
                self.awaiting_output = None;
                return end;
            }
            return index + 1;
        }
        let role = self.role;
        self.push(span, EventKind::Prose { role, text: None });
        index + 1
    }

    /// A line inside a fence.
    fn fenced_line(&mut self, index: usize, fence: Fence) -> usize {
        let (_, line) = self.lines[index];
        let span = self.line_span(index);
        match fence {
            Fence::Output(command) => self.extend_output(command, span, line),
            Fence::Prompts => {
                if let Some((prompt_host, command_start)) = prompt(line) {
                    return self.prompt_command(index, prompt_host, command_start);
                }
                if let Some(command) = self.open.as_mut() {
                    if !line.trim().is_empty() {
                        command.output = Some(command.output.map_or(span, |o| o.cover(span)));
                    }
                } else if !line.trim().is_empty() {
                    self.push(span, EventKind::Unrecognized);
                }
            }
            Fence::Other => {
                if !line.trim().is_empty() {
                    self.push(span, EventKind::Unrecognized);
                }
            }
        }
        index + 1
    }

    fn fence_line(&mut self, index: usize, language: &str) -> usize {
        let silent = match (&self.fence, &self.open) {
            (
                Some(Fence::Prompts),
                Some(OpenCommand {
                    event,
                    output: None,
                    tui: None,
                }),
            ) => Some(*event),
            _ => None,
        };
        self.close();
        self.tui_prose = None;
        if self.fence.take().is_some() {
            // A closing fence.
            self.prompted_output = silent;
            return index + 1;
        }
        let language = language.to_ascii_lowercase();
        let prompted = self.prompted_output.take();
        let end = self.fence_end(index);
        let inner = index + 1..end;
        let has_prompts = inner.clone().any(|i| {
            prompt(self.lines[i].1).is_some_and(|(_, start)| start < self.lines[i].1.len())
        });
        let shell = SHELL_LANGUAGES.contains(&language.as_str());
        if has_prompts {
            self.fence = Some(Fence::Prompts);
            self.awaiting_output = None;
            return index + 1;
        }
        if let Some(command) = prompted
            && (OUTPUT_LANGUAGES.contains(&language.as_str()) || language == "json")
            && self.introduced(index)
        {
            self.fence = Some(Fence::Output(command));
            return index + 1;
        }
        if let Some(path) = self.shown_script(index, end, shell) {
            // "Reproduction (`sglang_run.sh`):" above the script: the file's
            // text, which a run of it at a prompt (before or after) starts.
            let body: Vec<&str> = inner.clone().map(|i| self.lines[i].1).collect();
            let first = self.line_span(index + 1);
            let last = self.line_span((end - 1).max(index + 1));
            self.push(
                first.cover(last),
                EventKind::FileWrite {
                    path,
                    text: body.join("\n"),
                },
            );
            self.fence = Some(Fence::Other);
            return index + 1;
        }
        // Issue templates put the log in a shell fence ("Relevant log
        // output" ```` ```shell ````): a fence of log lines whose first is
        // no command is that log, not a script.
        let logged = || {
            let lines: Vec<&str> = inner
                .clone()
                .map(|i| self.lines[i].1.trim())
                .filter(|l| !l.is_empty())
                .collect();
            // Lines with a log's time or a lifecycle signal: a command that
            // names an engine (`pip install vllm`) is neither.
            let logs = lines
                .iter()
                .filter(|l| {
                    let line = super::logline::classify(&super::logline::strip_ansi(l));
                    line.time.is_some() || line.signal.is_some()
                })
                .count();
            lines.first().is_some_and(|first| !is_bare_command(first)) && logs * 2 >= lines.len()
        };
        if shell && !logged() {
            // The fence is one command (a script): its lines run in order.
            return self.fenced_command(index, end, false);
        }
        if language == "json"
            && let Some(session) = self.ctrl_c_written(index, end)
        {
            // A Codex export's `#### Tool: write_stdin` of Ctrl-C: the
            // session's process is stopped; the next output block is the
            // answer.
            let span = self
                .line_span(index)
                .cover(self.line_span(end.min(self.lines.len() - 1)));
            let event = self.push(
                span,
                EventKind::tool_command(
                    format!("{} {session}", super::claude_code::KILL_SHELL),
                    Actor::Agent,
                    None,
                ),
            );
            self.awaiting_output = Some(event);
            self.fence = Some(Fence::Other);
            return index + 1;
        }
        if matches!(language.as_str(), "json" | "")
            && let Some((command, background)) = self.tool_input_command(index, end)
        {
            // A tool call's input as JSON, as session exports show it:
            // `{"command": "nvidia-smi"}` (Claude Code's Bash, OpenHands),
            // `{"command": ["bash", "-lc", "…"]}` (Codex); often cut short
            // by the export.
            let first = self.line_span(index + 1);
            let last = self.line_span((end - 1).max(index + 1));
            let actor = self.actor();
            let event = self.push(
                first.cover(last),
                EventKind::Command {
                    text: command,
                    actor,
                    prompt_host: None,
                    time: None,
                    background,
                },
            );
            self.awaiting_output = Some(event);
            self.fence = Some(Fence::Other);
            return index + 1;
        }
        // A bare fence that opens with a request or a launch is the next
        // command, not the last one's output.
        let opens_with_command = language.is_empty()
            && inner
                .clone()
                .map(|i| self.lines[i].1.trim())
                .find(|l| !l.is_empty())
                .is_some_and(|l| is_bare_command(l) && launches_or_asks(l.trim_end_matches('\\')));
        if let Some(command) = self.awaiting_output
            && !opens_with_command
            && (OUTPUT_LANGUAGES.contains(&language.as_str())
                || language == "json" && self.is_request(command) && self.introduced(index))
        {
            self.awaiting_output = None;
            self.fence = Some(Fence::Output(command));
            return index + 1;
        }
        if language.is_empty() && self.turnless {
            // An issue's "## Launch" or "I start it with:" above a bare
            // fence whose first line starts an engine or asks a URL: the
            // command the reporter ran.
            // A bare fence may hold the command and then what it printed
            // (`curl …/v1/models` and its JSON): the command is the lines
            // up to the first that no command starts or continues.
            let command_end = self.command_lines_end(index, end);
            let lines: Vec<&str> = (index + 1..command_end)
                .map(|i| self.lines[i].1)
                .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
                .collect();
            // A command shown with what it printed ran, whatever it is
            // (`ollama ps` and its table), unless a guide shows what to
            // expect.
            let shown_run = command_end < end
                && !lines.is_empty()
                && lines.iter().all(|l| {
                    let t = l.trim();
                    is_bare_command(t) || t.starts_with('-') || t.ends_with('\\')
                })
                && !self.intro_suggests(index);
            if shown_run || self.reports_a_run(index, &lines) {
                let after = self.fenced_command(index, command_end, true);
                if command_end >= end {
                    self.ran_fence_end = Some(end);
                    return after;
                }
                if let Some(command) = self.awaiting_output.take() {
                    let first = self.line_span(command_end);
                    let last = self.line_span((end - 1).max(command_end));
                    self.push_output(command, first.cover(last), None, None, false);
                }
                self.ran_fence_end = Some(end);
                return (end + 1).min(self.lines.len());
            }
        }
        self.fence = Some(Fence::Other);
        index + 1
    }

    /// The shell script a fence shows, when the line above names it
    /// ("Reproduction (`sglang_run.sh`):", "My start.sh:") and the fence
    /// holds a script: a `#!` line first, or, in a fence not marked as
    /// shell (whose lines would read as commands run), any text.
    fn shown_script(&self, open: usize, end: usize, shell: bool) -> Option<String> {
        let intro = self.text_above(open, false)?;
        if intro.len() > 120 || !(intro.ends_with(':') || intro.ends_with('：')) {
            return None;
        }
        // "`run.sh` output:" introduces what the script printed.
        let lower = intro.to_lowercase();
        if [
            "output", "log", "result", "error", "print", "says", "shows", "gives", "returns",
        ]
        .iter()
        .any(|w| lower.contains(w))
        {
            return None;
        }
        let name = intro
            .split_whitespace()
            .map(|w| w.trim_matches(|c: char| "`()*\"',.:：[]".contains(c)))
            .find(|w| w.len() > 3 && w.ends_with(".sh") && !w.contains("://"))?;
        let first = (open + 1..end.min(self.lines.len()))
            .map(|i| self.lines[i].1.trim())
            .find(|l| !l.is_empty())?;
        (first.starts_with("#!") || !shell).then(|| name.to_owned())
    }

    /// Whether the text above the fence opening at `open` tells that its
    /// command was run, as an issue reports it (a `## Launch` or `Steps to
    /// reproduce` heading, "I start vLLM from their container:", "The
    /// reporter starts it in one of two ways:"), not that a reader should
    /// run it ("Use a quantized model:", "I'll start it with:"). Only an
    /// engine launch or a URL request is so read: a guide's other steps
    /// stay suggestions.
    fn reports_a_run(&self, open: usize, lines: &[&str]) -> bool {
        if lines.is_empty() || !launches_or_asks(&join_lost_continuations(lines)) {
            return false;
        }
        // Right under a fence the reporter ran, with nothing between: the
        // run goes on (the launch, then the request that checks it).
        let above = (0..open)
            .rev()
            .find(|&i| !self.lines[i].1.trim().is_empty());
        if above.is_some() && above == self.ran_fence_end {
            return true;
        }
        // A paste that opens with the command: what its writer ran.
        self.intro_reports(open)
            .unwrap_or(self.first_line == Some(open))
    }

    /// Whether the sentence above a fence tells a reader what to do or
    /// expect ("Run this; you should see:", "You can check with:").
    fn intro_suggests(&self, open: usize) -> bool {
        let Some(intro) = self.text_above(open, true) else {
            return false;
        };
        let lower = intro.to_lowercase();
        let words: Vec<&str> = lower
            .split(|c: char| !c.is_alphanumeric() && c != '\'')
            .filter(|w| !w.is_empty())
            .collect();
        [
            "you", "should", "will", "can", "let's", "i'll", "we'll", "run", "try", "use",
        ]
        .iter()
        .any(|w| words.contains(w))
    }

    /// Whether the text above a fence reports what its writer did (a
    /// `## Launch` heading, "I start vLLM from their container:") rather
    /// than what a reader should do ("Use …:", "I'll start it with:");
    /// None when nothing is above it.
    fn intro_reports(&self, open: usize) -> Option<bool> {
        let intro = self.text_above(open, true)?;
        // The sentence that introduces the block, not a question before it
        // ("Could you share the command? I tried it here and it works:").
        let intro = intro
            .trim_end_matches([':', '：', ' '])
            .rsplit(['.', '?', '!'])
            .next()
            .unwrap_or(intro);
        let lower = intro.to_lowercase();
        if let Some(heading) = lower.strip_prefix('#') {
            return Some(
                ["launch", "command", "reproduc", "what i ran", "how i ran"]
                    .iter()
                    .any(|w| heading.contains(w)),
            );
        }
        let words: Vec<&str> = lower
            .split(|c: char| !c.is_alphanumeric() && c != '\'')
            .filter(|w| !w.is_empty())
            .collect();
        let future = [
            "i'll", "we'll", "let's", "you", "should", "will", "can", "could",
        ]
        .iter()
        .any(|w| words.contains(w));
        let reporter = ["i", "we", "my", "our", "reporter", "i'm", "i've", "we're"]
            .iter()
            .any(|w| words.contains(w));
        Some(reporter && !future)
    }

    /// Where a bare fence's command lines end (the first line index past
    /// them): lines a command starts (`vllm serve …`, `export X=1`, `cd d`)
    /// or continues (after a `\\`, an option), up to the first that is
    /// neither, which starts what the command printed.
    fn command_lines_end(&self, open: usize, end: usize) -> usize {
        let mut continued = false;
        for i in open + 1..end.min(self.lines.len()) {
            let t = self.lines[i].1.trim();
            if t.is_empty() {
                continue;
            }
            let command = continued
                || t.starts_with(['-', '#'])
                || is_bare_command(t)
                || t.split_whitespace()
                    .next()
                    .is_some_and(crate::shell::is_setup);
            if !command {
                return i;
            }
            continued = t.ends_with('\\');
        }
        end
    }

    /// The shell command of a fence (between `open` and `end`) holding a
    /// tool call's JSON input whose first key is `command`, read whole or,
    /// where the export cut the record, up to the cut; and whether the call
    /// ran it in the background. A stop of a background task under a
    /// heading naming the tool (`### 160. the agent ran `TaskStop``) is a
    /// kill of that task's shell.
    fn tool_input_command(&self, open: usize, end: usize) -> Option<(String, bool)> {
        let body: Vec<&str> = (open + 1..end.min(self.lines.len()))
            .map(|i| self.lines[i].1)
            .collect();
        let body = body.join("\n");
        let parsed: Option<serde_json::Value> = serde_json::from_str(body.trim())
            .ok()
            .filter(serde_json::Value::is_object);
        if let Some(call) = &parsed {
            let heading = (0..open)
                .rev()
                .map(|i| self.lines[i].1.trim())
                .find(|l| !l.is_empty())
                .unwrap_or("");
            let tool = heading.split('`').nth(1).unwrap_or("");
            if super::claude_code::KILL_TOOLS.contains(&tool) {
                let id = super::claude_code::shell_id(call)?;
                return Some((format!("{} {id}", super::claude_code::KILL_SHELL), false));
            }
        }
        let rest = body.trim_start().strip_prefix('{')?.trim_start();
        let rest = rest
            .strip_prefix("\"command\"")?
            .trim_start()
            .strip_prefix(':')?;
        let rest = rest.trim_start();
        if let Some(call) = parsed {
            let background = call
                .get("run_in_background")
                .and_then(serde_json::Value::as_bool)
                .unwrap_or(false);
            return match call.get("command")? {
                serde_json::Value::String(text) => Some((text.clone(), background)),
                serde_json::Value::Array(argv) => Some((super::codex::from_argv(argv), background)),
                _ => None,
            };
        }
        // Cut short by the export: the string up to the cut, closed and
        // decoded as JSON (an escape the cut split is dropped first).
        let text = rest.strip_prefix('"')?;
        // The string ends at its first unescaped quote (a later key cut
        // short), else at the cut.
        let mut escaped = false;
        let close = text.char_indices().find_map(|(at, c)| {
            let closes = c == '"' && !escaped;
            escaped = c == '\\' && !escaped;
            closes.then_some(at)
        });
        let text = &text[..close.unwrap_or(text.len())];
        let mut cut = text.to_owned();
        let out = loop {
            if let Ok(decoded) = serde_json::from_str::<String>(&format!("\"{cut}\"")) {
                break decoded;
            }
            // At most `\uXXXX` can be split: six bytes.
            if cut.pop().is_none() || cut.len() + 6 < text.len() {
                return None;
            }
        };
        (!out.trim().is_empty()).then_some((out, false))
    }

    /// The session a `write_stdin` call's JSON fence sends Ctrl-C to, when
    /// the fence (between `open` and `end`) is one under a `Tool:
    /// write_stdin` heading (Codex's exported conversations).
    fn ctrl_c_written(&self, open: usize, end: usize) -> Option<String> {
        let heading = (0..open)
            .rev()
            .map(|i| self.lines[i].1.trim())
            .find(|l| !l.is_empty())?;
        if !heading.ends_with("Tool: write_stdin") {
            return None;
        }
        let body: Vec<&str> = (open + 1..end.min(self.lines.len()))
            .map(|i| self.lines[i].1)
            .collect();
        let call: serde_json::Value = serde_json::from_str(&body.join("\n")).ok()?;
        if !call.get("chars")?.as_str()?.contains('\u{3}') {
            return None;
        }
        Some(match call.get("session_id")? {
            serde_json::Value::String(id) => id.clone(),
            other => other.to_string(),
        })
    }

    /// The index of the fence closing the one opened at `open` (or the
    /// end of the text).
    fn fence_end(&self, open: usize) -> usize {
        let marker = &self.lines[open].1.trim_start()[..3];
        (open + 1..self.lines.len())
            .find(|&i| self.lines[i].1.trim_start().starts_with(marker))
            .unwrap_or(self.lines.len())
    }

    /// A shell fence without prompts: its lines are one command; its output
    /// comes after it, if anywhere. `ran`: the caller knows it was run.
    fn fenced_command(&mut self, open: usize, end: usize, ran: bool) -> usize {
        let lines: Vec<&str> = (open + 1..end)
            .map(|i| self.lines[i].1)
            .filter(|l| {
                let t = l.trim();
                !t.is_empty() && !t.starts_with('#')
            })
            .collect();
        let after = (end + 1).min(self.lines.len());
        if lines.is_empty() {
            return after;
        }
        if self.turnless && !ran && !self.output_follows(after) && !self.reports_a_run(open, &lines)
        {
            // A suggested step: its lines stay unrecognized, no action.
            for i in open + 1..end {
                if !self.lines[i].1.trim().is_empty() {
                    let span = self.line_span(i);
                    self.push(span, EventKind::Unrecognized);
                }
            }
            return after;
        }
        let text = join_lost_continuations(&lines);
        let first = self.line_span(open + 1);
        let last = self.line_span((end - 1).max(open + 1));
        // The same script repeated (an export that lists a turn's commands
        // again at its end) is one action.
        let repeated = self.parsed.events.iter().rev().take(8).any(
            |e| matches!(&e.kind, EventKind::Command { text: previous, .. } if *previous == text),
        );
        if repeated {
            return after;
        }
        let actor = self.actor();
        let event = self.push(
            first.cover(last),
            EventKind::Command {
                text,
                actor,
                prompt_host: None,
                time: None,
                background: false,
            },
        );
        self.awaiting_output = Some(event);
        after
    }

    /// Whether event `command` is an HTTP request (`curl`, `wget` of a URL),
    /// whose answer people paste in a ```` ```json ```` fence of its own
    /// ("And the cURL command prints:").
    fn is_request(&self, command: usize) -> bool {
        matches!(
            self.parsed.events.get(command).map(|e| &e.kind),
            Some(EventKind::Command { text, .. }) if asks_url(text)
        )
    }

    /// Whether the last line with text before `line` closes a fence or
    /// introduces what follows (`… prints:`): a block so placed is shown as
    /// the one before's result, where one after a sentence is the writer's
    /// own (a suggestion's expected answer, a config).
    fn introduced(&self, line: usize) -> bool {
        self.text_above(line, false).is_some_and(|l| {
            l.starts_with("```") || l.starts_with("~~~") || l.ends_with(':') || l.ends_with('：')
        })
    }

    /// The last line with text before `line`, trimmed; past fence lines
    /// when `past_fences` (the sentence that introduces a block).
    fn text_above(&self, line: usize, past_fences: bool) -> Option<&str> {
        self.lines[..line.min(self.lines.len())]
            .iter()
            .rev()
            .map(|(_, l)| l.trim())
            .find(|l| {
                !l.is_empty() && !(past_fences && (l.starts_with("```") || l.starts_with("~~~")))
            })
    }

    /// Whether the first line with text at or after `from` opens the output
    /// of a command: an output fence, a bare fence, or an `Output:` label.
    fn output_follows(&self, from: usize) -> bool {
        let Some((_, line)) = self.lines[from.min(self.lines.len())..]
            .iter()
            .find(|(_, l)| !l.trim().is_empty())
        else {
            return false;
        };
        let trimmed = line.trim();
        is_output_label(trimmed)
            || fence_language(trimmed)
                .is_some_and(|l| OUTPUT_LANGUAGES.contains(&l.to_ascii_lowercase().as_str()))
    }

    fn extend_output(&mut self, command: usize, span: Span, line: &str) {
        if line.trim().is_empty() {
            return;
        }
        // The output event for `command` is the last event when it exists.
        if let Some(Event {
            span: output,
            kind: EventKind::Output { command: c, .. },
        }) = self.parsed.events.last_mut()
            && *c == command
        {
            *output = output.cover(span);
            return;
        }
        self.push_output(command, span, None, None, false);
    }

    fn push_output(
        &mut self,
        command: usize,
        span: Span,
        text: Option<String>,
        exit_code: Option<i32>,
        is_error: bool,
    ) {
        self.push(
            span,
            EventKind::Output {
                command,
                text,
                exit_code,
                is_error,
            },
        );
    }

    fn prompt_command(
        &mut self,
        index: usize,
        prompt_host: Option<String>,
        command_start: usize,
    ) -> usize {
        self.close();
        self.tui_prose = None;
        let (offset, line) = self.lines[index];
        if line[command_start..].trim().is_empty() {
            return index + 1;
        }
        self.awaiting_output = None;
        let mut command = line[command_start..].to_owned();
        let mut end = offset + line.len();
        let mut next = index + 1;
        // Join continuation lines (`\`, open quotes, a trailing `&&`).
        while needs_continuation(&command) && next < self.lines.len() && next - index <= 200 {
            let (next_offset, next_line) = self.lines[next];
            // A terminal pads a copied line with spaces after its `\`.
            let kept = command.trim_end_matches([' ', '\t']).len();
            if command[..kept].ends_with('\\') {
                command.truncate(kept);
            }
            command.push('\n');
            command.push_str(next_line.strip_prefix("> ").unwrap_or(next_line));
            end = next_offset + next_line.len();
            next += 1;
        }
        let actor = self.actor();
        let event = self.push(
            Span::new(self.source, offset, end),
            EventKind::Command {
                text: command,
                actor,
                prompt_host,
                time: None,
                background: false,
            },
        );
        self.open = Some(OpenCommand {
            event,
            output: None,
            tui: None,
        });
        next
    }

    /// Claude Code's notice that a background shell ended (`● Background
    /// command "Run the Flask app" was stopped`, `… failed with exit code
    /// 1`): the end of the latest background command, as a poll of it
    /// would have shown (`<status>killed</status>`).
    fn background_end(
        &mut self,
        index: usize,
        (description, status, exit_code): (&str, &str, Option<i32>),
    ) -> usize {
        self.close();
        self.tui_mode = true;
        self.tui_prose = None;
        self.awaiting_output = None;
        self.skipping_results = true;
        if let Some(command) = self.background_described(description) {
            let span = self.line_span(index);
            self.push(
                span,
                EventKind::Output {
                    command,
                    text: Some(format!("<status>{status}</status>")),
                    exit_code,
                    is_error: status != "completed",
                },
            );
        }
        index + 1
    }

    /// The background command a notice's description names: the one whose
    /// words it shares most ("Start ngrok tunnel" → `ngrok http 3000`),
    /// the latest on a tie; with no word shared, the only background
    /// command there is, else none (a guess would end the wrong server).
    fn background_described(&self, description: &str) -> Option<usize> {
        let said: Vec<String> = words(description).map(str::to_ascii_lowercase).collect();
        let mut best: Option<(usize, usize)> = None;
        let mut candidates = 0;
        for event in self
            .parsed
            .events
            .iter()
            .enumerate()
            .filter_map(|(i, e)| match &e.kind {
                EventKind::Command {
                    text,
                    background: true,
                    ..
                } => Some((i, text)),
                _ => None,
            })
        {
            candidates += 1;
            let (id, text) = event;
            let said_word = |w: &str| said.iter().any(|s| s.eq_ignore_ascii_case(w));
            // The program's own name weighs most: `ngrok` in "Start ngrok
            // tunnel" over the `tunnel` of `cloudflared tunnel`.
            let program = crate::shell::parse(text)
                .last()
                .map(|c| c.program().to_owned())
                .unwrap_or_default();
            let shared = words(text).filter(|w| said_word(w)).count()
                + if said_word(&program) { 2 } else { 0 };
            if best.is_none_or(|(_, most)| shared >= most) {
                best = Some((id, shared));
            }
        }
        match best {
            Some((id, shared)) if shared > 0 || candidates == 1 => Some(id),
            _ => None,
        }
    }

    /// `⏺ Bash(cmd…)`, wrapped over lines, maybe with an annotation after.
    fn tui_call(&mut self, index: usize, name: &str, rest: &str) -> usize {
        self.close();
        self.tui_mode = true;
        self.tui_prose = None;
        self.awaiting_output = None;
        let compact: String = name.chars().filter(|c| !c.is_whitespace()).collect();
        if matches!(compact.as_str(), "BashOutput" | "TaskOutput") {
            // A poll of a background shell: its result is that command's
            // output, later. With no background command before it, the
            // shell was started before the paste (or the session): the poll
            // is a look at its output, as the JSONL reader records it.
            if self.last_background.is_none() && compact == "BashOutput" {
                let span = self.line_span(index);
                let event = self.push(
                    span,
                    EventKind::tool_command(
                        super::claude_code::SHELL_OUTPUT.to_owned(),
                        Actor::Agent,
                        None,
                    ),
                );
                self.last_background = Some(event);
            }
            self.skipping_results = self.last_background.is_none();
            if let Some(event) = self.last_background {
                self.open = Some(OpenCommand {
                    event,
                    output: None,
                    tui: Some(TuiOutput::default()),
                });
            }
            return index + 1;
        }
        // A browser tool's page load (`playwright - Navigate to a URL
        // (MCP)(url: "http://localhost:8000/")`): a request to the URL.
        if let Some(url) = navigated_url(name, rest) {
            let span = self.line_span(index);
            let event = self.push(
                span,
                EventKind::tool_command(
                    format!("{} {url}", super::claude_code::BROWSER_OPEN),
                    Actor::Agent,
                    None,
                ),
            );
            self.skipping_results = false;
            self.open = Some(OpenCommand {
                event,
                output: None,
                tui: Some(TuiOutput::default()),
            });
            return index + 1;
        }
        if matches!(compact.as_str(), "KillShell" | "KillBash") {
            // `Kill Shell(Kill shell: 3fa44a)`: the background shell stops.
            let shell = rest
                .trim_end()
                .trim_end_matches(')')
                .rsplit([' ', ':'])
                .next()
                .unwrap_or("")
                .to_owned();
            let span = self.line_span(index);
            self.push(
                span,
                EventKind::tool_command(
                    format!("{} {shell}", super::claude_code::KILL_SHELL),
                    Actor::Agent,
                    None,
                ),
            );
            self.skipping_results = true;
            return index + 1;
        }
        if !SHELL_TOOLS.contains(&name) {
            // Read, Update, Task…: not shell commands; skip their results.
            self.skipping_results = true;
            return index + 1;
        }
        self.skipping_results = false;
        let (offset, line) = self.lines[index];
        // A call wrapped over lines puts its `timeout: 5m` annotation in a
        // right-hand column, split over the lines too: cut it off each.
        let (first, mut annotated) = cut_annotation(line.trim_end(), false);
        let mut pieces = vec![first];
        let mut joined_to = index;
        let mut text = rest.to_owned();
        while closing_paren(&text).is_none()
            && joined_to + 1 < self.lines.len()
            && joined_to - index < 200
        {
            joined_to += 1;
            let next = self.lines[joined_to].1;
            if next.trim_start().starts_with('⎿') || next.trim().is_empty() {
                joined_to -= 1;
                break;
            }
            let (piece, still) = cut_annotation(next.trim_end(), annotated);
            annotated = still;
            pieces.push(piece);
            text = rest.to_owned();
            let joined = join_wrapped(&pieces, self.width);
            if let Some(at) = joined.find('(') {
                text = joined[at + 1..].to_owned();
            }
        }
        let command = match closing_paren(&text) {
            Some(at) => text[..at].to_owned(),
            None => text.trim_end().to_owned(),
        };
        let command = if self.escaped {
            unescape_markdown(&command)
        } else {
            command
        };
        let (end_offset, end_line) = self.lines[joined_to];
        let background = command.trim_end().ends_with('&') && !command.trim_end().ends_with("&&");
        let event = self.push(
            Span::new(self.source, offset, end_offset + end_line.len()),
            EventKind::Command {
                text: command,
                actor: Actor::Agent,
                prompt_host: None,
                time: None,
                background,
            },
        );
        if background {
            self.last_background = Some(event);
        }
        self.open = Some(OpenCommand {
            event,
            output: None,
            tui: Some(TuiOutput::default()),
        });
        joined_to + 1
    }

    /// A line of the terminal rendering outside a tool call's first line:
    /// a result line, a reply, a user prompt, a status line. `None` when
    /// it is none of these.
    fn tui_line(&mut self, index: usize) -> Option<usize> {
        let (offset, line) = self.lines[index];
        let span = self.line_span(index);
        let trimmed = line.trim_start();
        let unescaped = if self.escaped {
            Some(unescape_markdown(trimmed))
        } else {
            None
        };
        let trimmed = unescaped.as_deref().unwrap_or(trimmed);
        let result = trimmed.strip_prefix('⎿').map(str::trim_start);
        if let Some(open) = self.open.as_mut()
            && let Some(tui) = open.tui.as_mut()
        {
            // Results start with `⎿`; their further lines are indented to
            // where its text starts: five columns (`  ⎿  text`), or four in
            // renderings that put one space after the mark (`  ⎿ text`).
            // The agent's own prose continues at two.
            let continues = open.output.is_some() && line.starts_with("    ");
            if let Some(text_line) = result.or(continues.then_some(trimmed)) {
                open.output = Some(open.output.map_or(span, |o| o.cover(span)));
                let event = open.event;
                if let Some(collapsed) = text_line
                    .strip_prefix("… +")
                    .and_then(|r| r.split_whitespace().next())
                {
                    let line_number = line_number(self.text, offset);
                    self.parsed.diagnostics.push(Diagnostic::info(
                        self.source,
                        Some(line_number),
                        format!("{collapsed} output lines were collapsed in the paste; the agent saw them, this analysis cannot"),
                    ));
                } else if text_line.starts_with("Running in the background") {
                    if let Some(Event {
                        kind: EventKind::Command { background, .. },
                        ..
                    }) = self.parsed.events.get_mut(event)
                    {
                        *background = true;
                    }
                    self.last_background = Some(event);
                } else if !is_ui_line(text_line) {
                    if tui.text.is_empty() {
                        let (code, error) = tui_exit_code(text_line);
                        tui.exit_code = code;
                        tui.is_error = error;
                    }
                    if !tui.text.is_empty() {
                        tui.text.push('\n');
                    }
                    tui.text.push_str(text_line);
                }
                return Some(index + 1);
            }
        } else if result.is_some() || self.skipping_results && line.starts_with("    ") {
            // A result block of no shell call (a panel, a non-shell tool).
            self.tui_prose = None;
            self.skipping_results = true;
            return Some(index + 1);
        }
        // The spinner's status line and the panel under it (todos, tips).
        if is_status_line(trimmed) {
            self.close();
            self.tui_prose = None;
            self.skipping_results = true;
            return Some(index + 1);
        }
        if let Some(reply) = trimmed.trim_start_matches('`').strip_prefix(TUI_GLYPHS) {
            self.close();
            self.skipping_results = false;
            let start = offset + (line.len() - reply.trim_start().len());
            self.tui_prose = None;
            if !reply.trim().is_empty() {
                let event = self.push(
                    Span::new(self.source, start, span.end),
                    EventKind::Prose {
                        role: Role::Assistant,
                        text: None,
                    },
                );
                self.tui_prose = Some(event);
            }
            return Some(index + 1);
        }
        // A reply's wrapped lines are indented under it.
        if let Some(event) = self.tui_prose
            && line.starts_with("  ")
            && !line.trim().is_empty()
        {
            if let Some(prose) = self.parsed.events.get_mut(event) {
                prose.span = prose.span.cover(span);
            }
            return Some(index + 1);
        }
        if let Some(prompt_text) = line.strip_prefix("> ").or_else(|| line.strip_prefix("❯ ")) {
            self.close();
            self.skipping_results = false;
            self.tui_prose = None;
            self.role = Role::User;
            self.push(
                span,
                EventKind::Message {
                    index: None,
                    role: Role::User,
                },
            );
            let start = offset + (line.len() - prompt_text.len());
            self.push(
                Span::new(self.source, start, span.end),
                EventKind::Prose {
                    role: Role::User,
                    text: None,
                },
            );
            return Some(index + 1);
        }
        None
    }

    fn close(&mut self) {
        if let Some(OpenCommand {
            event,
            output: Some(span),
            tui,
        }) = self.open.take()
        {
            let (text, exit_code, is_error) = match tui {
                Some(tui) => (Some(tui.text), tui.exit_code, tui.is_error),
                None => (None, None, false),
            };
            // A read of a background task's output file (`cat …/tasks/
            // b1.output`) is a poll of the latest background command: the
            // rendering does not show task ids.
            if let Some(Event {
                kind: EventKind::Command { text: read, .. },
                ..
            }) = self.parsed.events.get(event)
                && super::claude_code::task_output_read(read).is_some()
                && let Some(launch) = self.last_background.filter(|&l| l != event)
            {
                self.push_output(launch, span, text.clone(), None, false);
            }
            self.push_output(event, span, text, exit_code, is_error);
        }
    }
}

/// Programs whose name starts a command line in a paste without prompts.
const BARE_PROGRAMS: &[&str] = &[
    "curl",
    "wget",
    "http",
    "docker",
    "docker-compose",
    "podman",
    "kubectl",
    "helm",
    "make",
    "cmake",
    "python",
    "python3",
    "pip",
    "pip3",
    "uv",
    "conda",
    "vllm",
    "sglang",
    "text-generation-launcher",
    "llama-server",
    "llama-cli",
    "ollama",
    "trtllm-serve",
    "nvidia-smi",
    "ss",
    "netstat",
    "lsof",
    "ps",
    "pgrep",
    "kill",
    "pkill",
    "killall",
    "systemctl",
    "journalctl",
    "tail",
    "cat",
    "grep",
    "ls",
    "export",
    "git",
    "npm",
    "npx",
    "node",
    "pnpm",
    "yarn",
    "sudo",
    "nohup",
    "torchrun",
    "deepspeed",
    "accelerate",
    "huggingface-cli",
    "hf",
    "free",
    "df",
    "nc",
    "ping",
    "mpirun",
    "srun",
    "bash",
    "sh",
];

/// The text of a line that is one inline code span and nothing else, but
/// for a list marker before it (`1. \`cmd\``, `- \`cmd\``).
fn coded_line(trimmed: &str) -> Option<&str> {
    let rest = trimmed
        .strip_prefix(['-', '*'])
        .or_else(|| {
            let digits = trimmed.bytes().take_while(u8::is_ascii_digit).count();
            (digits > 0)
                .then(|| trimmed[digits..].strip_prefix(['.', ')']))
                .flatten()
        })
        .unwrap_or(trimmed)
        .trim();
    let inner = rest.strip_prefix('`')?.strip_suffix('`')?;
    (!inner.is_empty() && !inner.contains('`')).then_some(inner.trim())
}

/// A fence's lines as one script, with the line breaks of a command
/// pasted one option a line without its backslashes (`python -m vllm…`
/// then `--port 8001` alone) made continuations again: no command starts
/// with an option, so such a line goes on the one before. A list item
/// (`- name: x`, a heredoc's YAML) is no option and stays its own line.
fn join_lost_continuations(lines: &[&str]) -> String {
    let is_option = |line: &str| {
        line.trim_start()
            .strip_prefix('-')
            .and_then(|rest| rest.chars().next())
            .is_some_and(|c| c == '-' || c.is_ascii_alphanumeric())
    };
    let mut text = String::new();
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            let previous = lines[i - 1].trim_end();
            if is_option(line) && !previous.ends_with('\\') {
                text.truncate(text.trim_end().len());
                text.push_str(" \\");
            }
            text.push('\n');
        }
        text.push_str(line);
    }
    text
}

/// Whether a command written in a message, not at a prompt, is one
/// wherever it stands (no sentence starts that way): an engine's launch, a
/// container run publishing a port, or `curl`/`wget` of an `http(s)://` URL
/// (`curl http://localhost:5950/v1/models` under "this one comes back with
/// a 404:").
fn launches_or_asks(command: &str) -> bool {
    crate::shell::parse(command).iter().any(|c| {
        is_url_request(&c.argv)
            || crate::engine::launch_from_argv(&c.argv).is_some()
            || crate::engine::docker_run_parts(&c.argv).is_some()
                && crate::other_servers::launch(c).is_some()
    })
}

/// Whether a command line holds `curl`/`wget` of an `http(s)://` URL.
fn asks_url(command: &str) -> bool {
    crate::shell::parse(command)
        .iter()
        .any(|c| is_url_request(&c.argv))
}

fn is_url_request(argv: &[String]) -> bool {
    matches!(
        argv.first().map(|p| p.rsplit('/').next().unwrap_or(p)),
        Some("curl" | "wget")
    ) && argv
        .iter()
        .skip(1)
        .any(|a| a.starts_with("http://") || a.starts_with("https://"))
}

/// Whether a line of a prompt-less terminal paste is a command: a known
/// program (after `VAR=value` words) followed by arguments, not prose.
pub(crate) fn is_bare_command(trimmed: &str) -> bool {
    let mut words = trimmed.split_whitespace().skip_while(|w| {
        w.contains('=')
            && !w.starts_with('-')
            && w.split('=').next().is_some_and(|k| {
                k.chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
            })
    });
    let Some(program) = words.next() else {
        return false;
    };
    let program = program.rsplit('/').next().unwrap_or(program);
    if !BARE_PROGRAMS.contains(&program) {
        return false;
    }
    let rest: Vec<&str> = words.collect();
    let Some(first) = rest.first() else {
        // A lone program name: `nvidia-smi`, `ps`.
        return matches!(program, "nvidia-smi" | "ps" | "free" | "df" | "ls");
    };
    let argumentish = |word: &&str| {
        word.starts_with('-')
            || word.contains(['/', '.', '=', ':', '-', '_', '@', '$', '\''])
            || word.chars().all(|c| c.is_ascii_digit())
    };
    // The first word, or the one after a subcommand (`vllm serve /models/x`,
    // `docker compose -f dev.yml up`).
    let argument = argumentish(first) || rest.get(1).is_some_and(argumentish);
    let sentence =
        trimmed.ends_with(['.', '?', '!']) && !trimmed.ends_with("..") || rest.len() > 40;
    (argument || rest.len() <= 6) && !sentence
}

/// The URL a browser tool's call loads: `playwright - Navigate to a URL
/// (MCP)(url: "http://…")`, `puppeteer_navigate (MCP)(url: "…")`.
fn navigated_url(name: &str, rest: &str) -> Option<String> {
    let name = name.to_ascii_lowercase();
    if !(name.contains("navigate") || name.contains("browser")) {
        return None;
    }
    let at = rest.find("url:")?;
    let value = rest[at + 4..].trim_start().trim_start_matches('"');
    let end = value.find(['"', ')', ' ']).unwrap_or(value.len());
    let url = &value[..end];
    url.starts_with("http").then(|| url.to_owned())
}

/// ```` ```lang ```` or `~~~lang` → the language (empty when none).
fn fence_language(trimmed: &str) -> Option<&str> {
    let rest = trimmed
        .strip_prefix("```")
        .or_else(|| trimmed.strip_prefix("~~~"))?;
    // CommonMark allows spaces before the info string: ```` ``` shell ````.
    let rest = rest.trim_start_matches(['`', '~']).trim_start();
    Some(
        rest.split(|c: char| c.is_whitespace() || c == '{' || c == ',')
            .next()
            .unwrap_or(""),
    )
}

/// `Output:`, `**Result:**`, `输出：`: a label before a command's output.
fn is_output_label(trimmed: &str) -> bool {
    let bare = trimmed
        .trim_matches(|c: char| c == '*' || c == '_' || c == '#' || c.is_whitespace())
        .trim_end_matches([':', '：'])
        .trim_matches(|c: char| c == '*' || c == '_' || c.is_whitespace())
        .to_ascii_lowercase();
    trimmed.len() < 60
        && (trimmed.contains(':') || trimmed.contains('：'))
        && matches!(
            bare.as_str(),
            "output"
                | "result"
                | "results"
                | "response"
                | "stdout"
                | "console output"
                | "terminal output"
                | "command output"
                | "输出"
                | "结果"
        )
}

/// Claude Code's own words inside a result block, not the command's output.
fn is_ui_line(text: &str) -> bool {
    let t = text.trim();
    t == "Waiting…"
        || t == "Running…"
        || t.contains("ctrl+b to run in background")
        || t.starts_with("Tip: ")
        || (t.starts_with('(')
            && t.ends_with(')')
            && t.len() <= 16
            && t[1..t.len() - 1].split(' ').all(|part| {
                part.len() > 1
                    && part.ends_with(['s', 'm', 'h'])
                    && part[..part.len() - 1].chars().all(|c| c.is_ascii_digit())
            }))
}

/// `✻ Thinking… (12s · ↓ 1.2k tokens)`, `* Forging… (esc to interrupt)`.
fn is_status_line(trimmed: &str) -> bool {
    trimmed.starts_with(SPINNER_GLYPHS)
        && trimmed.contains('…')
        && (trimmed.contains("(esc to interrupt")
            || trimmed.contains(" tokens")
            || trimmed.contains("ctrl+")
            || trimmed.ends_with(')'))
}

/// `Error: Exit code 1` / `Exit code 1` on a result's first line.
fn tui_exit_code(first: &str) -> (Option<i32>, bool) {
    let error = first.starts_with("Error");
    let code = first
        .trim_start_matches("Error: ")
        .strip_prefix("Exit code ")
        .and_then(|c| c.trim().parse().ok());
    (code, error || code.is_some_and(|c| c != 0))
}

fn line_number(text: &str, offset: usize) -> u32 {
    let before = &text.as_bytes()[..offset.min(text.len())];
    u32::try_from(before.iter().filter(|&&b| b == b'\n').count() + 1).unwrap_or(u32::MAX)
}

/// A turn marker: `[msg 3] assistant`, `Human:` / `Assistant: text`,
/// `**User:**`, `**Assistant**:`, `## User`, `### Assistant | 12:00`,
/// `_**User**_`, `User:` / `ChatGPT:`, `You said:` / `ChatGPT said:`.
/// Returns the message number, the role and where the marker ends.
fn marker(line: &str) -> Option<(Option<u64>, Role, usize)> {
    if let Some(captures) = MSG_MARKER.as_ref().and_then(|re| re.captures(line)) {
        let end = captures.get(0).map_or(0, |m| m.end());
        let index = captures.get(1).and_then(|m| m.as_str().parse().ok());
        let role = captures.get(2).map_or(Role::Unknown, |m| {
            role_of(&m.as_str().to_ascii_lowercase()).unwrap_or(Role::Unknown)
        });
        return Some((index, role, end));
    }
    // Decorations: a heading's `#`s, bold or italic markers.
    let heading = line.starts_with('#');
    let body = line.trim_start_matches('#');
    if heading && (line.len() - body.len() > 4 || !body.starts_with(' ')) {
        return None;
    }
    let body_start = line.len() - body.trim_start().len();
    let body = body.trim_start();
    // A heading led by the speaker's icon, whatever name follows (Codex's
    // exported conversations: `#### 🤖 gpt-5.4 (medium)`, `#### 👤 User
    // Prompt`).
    if heading {
        for (icon, role) in [
            ('\u{1f916}', Role::Assistant),
            ('\u{1f464}', Role::User),
            ('\u{1f9d1}', Role::User),
        ] {
            if body.starts_with(icon) {
                return Some((None, role, line.len()));
            }
        }
    }
    let decoration = |c: char| c == '*' || c == '_';
    let mut word_start = body_start + (body.len() - body.trim_start_matches(decoration).len());
    let decorated = word_start > body_start;
    // A heading numbered and told in the third person, as session
    // renderers write them: `### 69. the agent said`, `### 70. the agent
    // ran `Bash``, `### 71. the tool responded`.
    let mut told = false;
    if heading {
        let head = &line[word_start..];
        let digits = head.len() - head.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits > 0
            && let Some(after) = head[digits..].strip_prefix(['.', ')'])
        {
            let after = after.trim_start();
            let after = after
                .strip_prefix("the ")
                .or_else(|| after.strip_prefix("The "))
                .unwrap_or(after);
            word_start = line.len() - after.len();
            told = true;
        }
    }
    let rest = &line[word_start..];
    let word_len = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '.'))
        .unwrap_or(rest.len());
    let word = rest[..word_len].to_ascii_lowercase();
    if word.is_empty() {
        return None;
    }
    let mut after = &rest[word_len..];
    // `ChatGPT said:`, `You said:`.
    if let Some(said) = after.strip_prefix(" said") {
        after = said;
    }
    if told {
        // What follows the speaker in a told heading is what it did.
        let verb = after.trim_start();
        let did = [
            "said",
            "asked",
            "wrote",
            "replied",
            "answered",
            "responded",
            "ran",
            "called",
            "used",
        ]
        .iter()
        .any(|v| verb.starts_with(v));
        if !did {
            return None;
        }
        return Some((
            None,
            role_of(&word).or_else(|| heading_role(&word))?,
            line.len(),
        ));
    }
    // Closing decoration and the colon, in either order (`**User:**`,
    // `**User**:`), then what follows on the line.
    let mut colon = false;
    let mut tail = after;
    loop {
        if let Some(t) = tail.strip_prefix(decoration) {
            tail = t;
        } else if let Some(t) = tail.strip_prefix(':') {
            if colon {
                break;
            }
            colon = true;
            tail = t;
        } else {
            break;
        }
    }
    let end = line.len() - tail.len();
    let rest_of_line = tail.trim();
    let role = if heading || decorated {
        role_of(&word).or_else(|| heading_role(&word))?
    } else {
        // A bare `Word:` only for the words chat dumps use, with a colon.
        if !colon {
            return None;
        }
        match word.as_str() {
            "human" | "user" | "you" | "assistant" | "ai" | "chatgpt" | "claude" | "gemini"
            | "copilot" => role_of(&word)?,
            _ => return None,
        }
    };
    // A heading or bold marker stands alone or carries a time
    // (`### Assistant | 2025-01-01T12:00`, `## Claude (12:20 UTC)`);
    // prose after it needs the colon form.
    if (heading || decorated)
        && !colon
        && !rest_of_line.is_empty()
        && !rest_of_line.starts_with(['|', '(', '['])
    {
        return None;
    }
    let end = if !colon && (heading || decorated) {
        line.len()
    } else {
        end
    };
    Some((None, role, end))
}

/// The role of a speaker's name.
fn role_of(word: &str) -> Option<Role> {
    match word {
        "user" | "human" | "you" | "me" | "prompt" => Some(Role::User),
        "assistant" | "ai" | "chatgpt" | "claude" | "gemini" | "copilot" | "cursor" | "codex"
        | "bot" => Some(Role::Assistant),
        "system" | "tool" => Some(Role::Unknown),
        _ => None,
    }
}

/// Further speaker names only a heading or bold marker makes a turn.
fn heading_role(word: &str) -> Option<Role> {
    match word {
        "model" | "agent" | "response" | "answer" => Some(Role::Assistant),
        "question" | "request" => Some(Role::User),
        _ => None,
    }
}

/// Whether a paste went through a Markdown converter that escaped the
/// punctuation of its code (`\-`, `\>`, `\_`, `\[`): several such escapes
/// before an option, a redirection or in a name, which a shell paste or a
/// log does not write.
fn markdown_escaped(text: &str) -> bool {
    let head = &text[..crate::source::floor_char_boundary(text, 64 * 1024)];
    let count = ["\\-", "\\>", "\\_", "\\[", "\\+"]
        .iter()
        .map(|e| head.matches(e).count())
        .sum::<usize>();
    count >= 5
}

/// A Markdown converter's escapes undone: `\` before ASCII punctuation
/// goes.
fn unescape_markdown(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' && chars.peek().is_some_and(char::is_ascii_punctuation) {
            continue;
        }
        out.push(c);
    }
    out
}

/// Whether a command line goes on to the next line.
fn needs_continuation(command: &str) -> bool {
    let trimmed = command.trim_end();
    if trimmed.ends_with("&&") || trimmed.ends_with("||") || trimmed.ends_with('|') {
        return true;
    }
    // A `\` before only the spaces a terminal pads a copied line with.
    let command = command.trim_end_matches([' ', '\t']);
    let mut single = false;
    let mut double = false;
    let mut escaped = false;
    for c in command.chars() {
        if escaped {
            escaped = false;
            continue;
        }
        match c {
            '\\' if !single => escaped = true,
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            _ => {}
        }
    }
    single || double || escaped
}

/// Runs of server-log lines kept as prose or fence lines (outside any
/// output): at least this many log lines make a pasted log.
const PASTED_LOG_LINES: usize = 3;

/// Replaces stretches of prose and unrecognised lines that are server-log
/// lines with one [`EventKind::PastedLog`] each: a log quoted in a chat turn
/// or appended after a session is read as a log, not as what someone said.
/// A stretch runs from one log line to the last before two lines in a row
/// that are not (a traceback's bare lines stay inside it).
fn mark_pasted_logs(text: &str, parsed: &mut Parsed) {
    let events = std::mem::take(&mut parsed.events);
    let is_candidate = |e: &Event| {
        matches!(
            e.kind,
            EventKind::Unrecognized | EventKind::Prose { text: None, .. }
        )
    };
    let log: Vec<bool> = events
        .iter()
        .map(|e| is_candidate(e) && is_log_line(text.get(e.span.start..e.span.end).unwrap_or("")))
        .collect();
    // Stretches (first, last) of candidate events, by index.
    let mut stretches: Vec<(usize, usize)> = Vec::new();
    let mut index = 0;
    while index < events.len() {
        if !log[index] {
            index += 1;
            continue;
        }
        let first = index;
        let mut last = index;
        let mut count = 1;
        let mut next = index + 1;
        while next < events.len() && is_candidate(&events[next]) {
            if log[next] {
                last = next;
                count += 1;
            } else if !(next + 1 < events.len() && log[next + 1]) {
                break;
            }
            next += 1;
        }
        if count >= PASTED_LOG_LINES {
            stretches.push((first, last));
        }
        index = last + 1;
    }
    if stretches.is_empty() {
        parsed.events = events;
        return;
    }
    let mut kept: Vec<Event> = Vec::with_capacity(events.len());
    // Output events refer to commands by index: renumber them.
    let mut new_index: Vec<usize> = Vec::with_capacity(events.len());
    let mut stretches = stretches.into_iter().peekable();
    let mut events = events.into_iter().enumerate().peekable();
    while let Some((index, event)) = events.next() {
        match stretches.peek().copied() {
            Some((first, last)) if index == first => {
                stretches.next();
                let mut span = event.span;
                new_index.push(kept.len());
                while events.peek().is_some_and(|(i, _)| *i <= last) {
                    if let Some((_, inner)) = events.next() {
                        span = span.cover(inner.span);
                        new_index.push(kept.len());
                    }
                }
                let region = text.get(span.start..span.end).unwrap_or("");
                let format = match super::detect(region) {
                    format if format.is_log() => format,
                    _ => Format::ServerLog,
                };
                kept.push(Event {
                    span,
                    kind: EventKind::PastedLog { format },
                });
            }
            _ => {
                new_index.push(kept.len());
                kept.push(event);
            }
        }
    }
    for event in &mut kept {
        if let EventKind::Output { command, .. } = &mut event.kind {
            *command = new_index.get(*command).copied().unwrap_or(*command);
        }
    }
    parsed.events = kept;
}

/// Whether one line reads as a server-log line: an engine's prefix, a
/// lifecycle template, or a timestamp before a level.
fn is_log_line(line: &str) -> bool {
    let stripped = super::logline::strip_ansi(line.trim());
    if stripped.is_empty() {
        return false;
    }
    let classified = super::logline::classify(&stripped);
    classified.signal.is_some()
        || classified.rank.is_some()
        || classified.time.is_some()
        || super::logline::engine_hint(&stripped, &classified).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<String> {
        parse(text, 0)
            .events
            .iter()
            .map(|e| match &e.kind {
                EventKind::Message { index, .. } => format!("msg {index:?}"),
                EventKind::Prose { .. } => format!("prose {}", &text[e.span.start..e.span.end]),
                EventKind::Command {
                    text, prompt_host, ..
                } => {
                    format!("cmd {text} @{prompt_host:?}")
                }
                EventKind::Output {
                    command, text: out, ..
                } => match out {
                    Some(out) => format!("out of {command}: {out}"),
                    None => format!("out of {command}: {}", &text[e.span.start..e.span.end]),
                },
                EventKind::PastedLog { format } => format!("log {}", format.name()),
                EventKind::Log(_) | EventKind::Unrecognized | EventKind::FileWrite { .. } => {
                    "other".to_owned()
                }
            })
            .collect()
    }

    #[test]
    fn patterns_compile() {
        assert!(
            MSG_MARKER.is_some()
                && PROMPT.is_some()
                && PS_PROMPT.is_some()
                && PATH_PROMPT.is_some()
        );
    }

    /// A user's message that ends in "logs ```" leaves the rendering's
    /// closing fence to read as an opening one: the next tool call at the
    /// line's start ends it.
    #[test]
    fn a_fence_left_open_by_a_message_ends_at_the_next_tool_call() {
        let text = "\u{276f} it still says loading. logs ```\n  Report\n  ready=no\n  ```\n\n\u{25cf} Bash(python server.py --port 10097)\n  \u{23bf}  [server] listening on 10097\n";
        let found = kinds(text);
        assert!(
            found
                .iter()
                .any(|k| k.starts_with("cmd python server.py --port 10097")),
            "{found:?}"
        );
    }

    #[test]
    fn prompts_with_a_path_and_no_user() {
        for (line, command) in [
            ("Ubuntu\u{ff1a} ~ $ ollama list", "ollama list"),
            ("~ $ ollama list", "ollama list"),
            ("~/src/app $ npm run dev", "npm run dev"),
            (
                "MacBook-Pro:~ me$ curl -s localhost:8000",
                "curl -s localhost:8000",
            ),
            (
                "box: /srv # systemctl restart ollama",
                "systemctl restart ollama",
            ),
        ] {
            let (_, start) = prompt(line).unwrap_or_else(|| panic!("no prompt in {line:?}"));
            assert_eq!(&line[start..], command, "{line:?}");
        }
        for line in [
            "price: ~5 $ per hour",
            "/usr/lib is where $ lives",
            "total 5 $",
        ] {
            assert!(prompt(line).is_none(), "{line:?}");
        }
    }

    #[test]
    fn messages_commands_and_outputs() {
        let text = "[msg 7] assistant\nChecking.\n$ tail -2 x.log\nline one\n\nline two\n\n[msg 8] user\nok\n";
        assert_eq!(
            kinds(text),
            [
                "msg Some(7)",
                "prose Checking.",
                "cmd tail -2 x.log @None",
                "out of 2: line one\n\nline two",
                "msg Some(8)",
                "prose ok",
            ]
        );
    }

    #[test]
    fn a_prompt_glued_to_output_without_a_newline_starts_a_command() {
        let text = "user1@ai-server:~$ curl -s localhost:5000/v1/models\n{\"object\":\"list\"}user1@ai-server:~$ curl -s localhost:5000/health\nok\n";
        assert_eq!(
            kinds(text),
            [
                "cmd curl -s localhost:5000/v1/models @Some(\"user1@ai-server\")",
                "out of 0: {\"object\":\"list\"}",
                "cmd curl -s localhost:5000/health @Some(\"user1@ai-server\")",
                "out of 2: ok",
            ]
        );
        // The first line, typed at a prompt the paste left out, is a
        // command too.
        let text = "curl -s localhost:5000/v1/models\n{\"object\":\"list\"}user1@ai-server:~$ nvidia-smi\nGPU 0\n";
        assert_eq!(
            kinds(text),
            [
                "cmd curl -s localhost:5000/v1/models @None",
                "out of 0: {\"object\":\"list\"}",
                "cmd nvidia-smi @Some(\"user1@ai-server\")",
                "out of 2: GPU 0",
            ]
        );
        // An address in the output is no prompt.
        assert_eq!(glued_prompt("{\"email\":\"ops@example.com\"} $ 5"), None);
        assert_eq!(glued_prompt("mail ops@example.com: $ 5"), None);
    }

    #[test]
    fn prompts_with_hosts_and_continuations() {
        let text = "root@gpu-1:/data# python -m sglang.launch_server \\\n  --port 30000\n(venv) me@box:~/x$ echo 'a\nb'\na\nb\n";
        let k = kinds(text);
        assert_eq!(
            k[0],
            "cmd python -m sglang.launch_server \\\n  --port 30000 @Some(\"root@gpu-1\")"
        );
        assert_eq!(k[1], "cmd echo 'a\nb' @Some(\"me@box\")");
        assert_eq!(k[2], "out of 1: a\nb");
        // A terminal's copy pads lines with spaces after their `\`.
        let k =
            kinds("$ llama-server -m m.gguf \\      \n    --port 8081 \\   \n    -ngl 99\nok\n");
        assert_eq!(
            k[0],
            "cmd llama-server -m m.gguf \\\n    --port 8081 \\\n    -ngl 99 @None"
        );
    }

    #[test]
    fn claude_code_terminal_rendering() {
        // The first call is wrapped inside a word on a full line.
        let first = "⏺ Bash(ssh gpu1 'nohup python -m sglang.launch_server --model-path /models/a/some-long-directory-nam";
        let text = format!(
            "> start the server\n\n⏺ I'll launch it.\n\n{first}\n      e/app --port 30000 > /x.log 2>&1 &')\n  ⎿  (No content)\n\n⏺ Read(notes.md)\n  ⎿  Read 24 lines\n\n● Bash(curl -s localhost:30000/health)\n  ⎿  Error: Exit code 7\n     curl: (7) Failed to connect\n     … +42 lines (ctrl+r to expand)\n"
        );
        let parsed = parse(&text, 0);
        let k = kinds(&text);
        assert_eq!(k[0], "msg None");
        assert_eq!(k[1], "prose start the server");
        assert_eq!(k[2], "prose I'll launch it.");
        assert_eq!(
            k[3],
            "cmd ssh gpu1 'nohup python -m sglang.launch_server --model-path /models/a/some-long-directory-name/app --port 30000 > /x.log 2>&1 &' @None"
        );
        let outputs: Vec<_> = parsed
            .events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Output {
                    text,
                    exit_code,
                    is_error,
                    ..
                } => Some((text.clone(), *exit_code, *is_error)),
                _ => None,
            })
            .collect();
        assert_eq!(outputs[0], (Some("(No content)".into()), None, false));
        assert_eq!(
            outputs[1],
            (
                Some("Error: Exit code 7\ncurl: (7) Failed to connect".into()),
                Some(7),
                true
            )
        );
        assert_eq!(outputs.len(), 2);
        assert!(
            parsed.diagnostics[0]
                .message
                .starts_with("42 output lines were collapsed")
        );
    }

    #[test]
    fn cmd_exe_prompts_are_prompts() {
        assert_eq!(
            prompt("C:\\Users\\me>curl http://127.0.0.1:8080/models"),
            Some((None, 12))
        );
        let line = "(base) c:\\dl>curl http://127.0.0.1:8088/models";
        let (_, start) = prompt(line).expect("a conda env before a cmd.exe prompt");
        assert_eq!(&line[start..], "curl http://127.0.0.1:8088/models");
        // Not a path in prose or output.
        assert_eq!(prompt("copied to C:\\dl> done"), None);
        assert_eq!(prompt("<C:\\dl>"), None);
    }

    #[test]
    fn a_wrapped_calls_annotation_column_is_cut_from_each_line() {
        let text = "\u{23fa} Bash(docker-compose -f docker-compose.yml -f                timeout: \n    docker-compose.prod.yml up --build -d)                  5m\n\u{23bf}  #1 [internal] load local bake definitions\n";
        let parsed = parse(text, 0);
        let commands: Vec<&str> = parsed
            .events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Command { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(
            commands,
            ["docker-compose -f docker-compose.yml -f docker-compose.prod.yml up --build -d"]
        );
    }

    #[test]
    fn wrapped_calls_keep_the_space_a_wrap_took_and_annotations_stay_out() {
        let text = "● Bash(cd /srv/app && nohup uvicorn api:app --host 0.0.0.0 --workers 4 --log-level\n      info --port 8000 > api.log 2>&1 &) timeout: 10m\n  ⎿  Running in the background (↓ to manage)\n⏺ The backend is starting in the background now; next I will check that its port answers before I\n  go on.\n";
        let parsed = parse(text, 0);
        let command = parsed.events.iter().find_map(|e| match &e.kind {
            EventKind::Command {
                text, background, ..
            } => Some((text.clone(), *background)),
            _ => None,
        });
        assert_eq!(
            command,
            Some((
                "cd /srv/app && nohup uvicorn api:app --host 0.0.0.0 --workers 4 --log-level info --port 8000 > api.log 2>&1 &"
                    .to_owned(),
                true
            ))
        );
    }

    #[test]
    fn a_background_end_notice_ends_the_command_it_describes() {
        let text = "\u{23fa} Bash(npx next dev -p 3000 2>&1)\n  \u{23bf}  Running in the background (\u{2193} to manage)\n\u{23fa} Bash(ngrok http 3000 --log=stdout 2>&1)\n  \u{23bf}  Running in the background (\u{2193} to manage)\n\u{23fa} Bash(cloudflared tunnel --url http://localhost:3000 2>&1)\n  \u{23bf}  Running in the background (\u{2193} to manage)\n\u{23fa} Background command \"Start ngrok tunnel to expose dev server\" failed with exit code 1\n";
        let parsed = parse(text, 0);
        let ended: Vec<(usize, Option<i32>)> = parsed
            .events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Output {
                    command,
                    exit_code,
                    text: Some(t),
                    ..
                } if t.contains("<status>") => Some((*command, *exit_code)),
                _ => None,
            })
            .collect();
        let ngrok = parsed
            .events
            .iter()
            .position(
                |e| matches!(&e.kind, EventKind::Command { text, .. } if text.starts_with("ngrok")),
            )
            .expect("ngrok");
        assert_eq!(ended, [(ngrok, Some(1))]);
        // A description that names none of several commands ends none.
        let vague = text.replace("Start ngrok tunnel to expose dev server", "Expose it");
        assert!(!kinds(&vague).iter().any(|k| k.contains("<status>")));
    }

    #[test]
    fn a_claude_task_output_read_is_a_poll_of_the_background_command() {
        let text = "\u{23fa} Bash(npx next dev 2>&1)\n  \u{23bf}  Running in the background (\u{2193} to manage)\n\u{23fa} Bash(sleep 6 && cat \"C:/Users/u/AppData/Local/Temp/claude/p/tasks/bnxz3hs7p.output\")\n  \u{23bf}  \u{26a0} Port 3000 is in use by process 33400, using available port 3001 instead.\n     - Local:         http://localhost:3001\n";
        let k = kinds(text);
        assert!(
            k.iter()
                .any(|k| k.starts_with("out of 0:") && k.contains("Local:")),
            "{k:?}"
        );
    }

    #[test]
    fn a_browser_tools_page_load_is_a_request() {
        let text = "● playwright - Navigate to a URL (MCP)(url: \"http://localhost:8000/static/index.html\")\n  ⎿  Error: ### Result\n     Error: page.goto: net::ERR_CONNECTION_REFUSED at http://localhost:8000/static/index.html\n";
        let k = kinds(text);
        assert_eq!(
            k[0],
            "cmd browser-open http://localhost:8000/static/index.html @None"
        );
        assert!(k[1].contains("ERR_CONNECTION_REFUSED"), "{k:?}");
    }

    #[test]
    fn status_lines_and_their_panels_are_not_output() {
        let text = "● Bash(taskkill //F //IM node.exe 2>&1 | head -5)\n  ⎿  SUCCESS: killed 4520\n     (3s)\n     ctrl+b to run in background\n\n* Forging… (esc to interrupt · ctrl+t to hide todos)\n  ⎿  ☒ Fix the build\n     ☐ Test it\n";
        let outputs: Vec<String> = parse(text, 0)
            .events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Output { text, .. } => text.clone(),
                _ => None,
            })
            .collect();
        assert_eq!(outputs, ["SUCCESS: killed 4520"]);
    }

    #[test]
    fn a_terminal_paste_without_prompts() {
        let text = "BUILD_EXTENSIONS=False make install\nmake run-bloom-560m\ncurl 127.0.0.1:8080/generate \\\n    -X POST\ncurl: (7) Failed to connect to 127.0.0.1 port 8080: Connection refused\n";
        assert_eq!(
            kinds(text),
            [
                "cmd BUILD_EXTENSIONS=False make install @None",
                "cmd make run-bloom-560m @None",
                "cmd curl 127.0.0.1:8080/generate \\\n    -X POST @None",
                "out of 2: curl: (7) Failed to connect to 127.0.0.1 port 8080: Connection refused",
            ]
        );
        assert!(!is_bare_command("make sure the server is up."));
        assert!(!is_bare_command(
            "python is the language the server is written in, so it is slow"
        ));
    }

    #[test]
    fn prompts_of_other_shells() {
        for (line, host, command) in [
            ("me@box ~ % ollama -v", Some("me@box"), "ollama -v"),
            ("% ollama list", None, "ollama list"),
            (
                "% ./llama-server -m m.gguf",
                None,
                "./llama-server -m m.gguf",
            ),
            (
                "PS C:\\Users\\me> curl http://localhost:11434/api/version",
                None,
                "curl http://localhost:11434/api/version",
            ),
            (
                "((sglang-0.5.9) ) [me@gpu-7 ~]$ python3 -m sglang.launch_server",
                Some("me@gpu-7"),
                "python3 -m sglang.launch_server",
            ),
            (
                "(base) root@gpu:~# nvidia-smi",
                Some("root@gpu"),
                "nvidia-smi",
            ),
            ("$ ls", None, "ls"),
        ] {
            let (found, start) = prompt(line).unwrap_or_else(|| panic!("{line}"));
            assert_eq!(
                (found.as_deref(), &line[start..]),
                (host, command),
                "{line}"
            );
        }
        for line in [
            "100% complete",
            "(note) this is prose",
            "price is 5$",
            "% The Matlab comment",
            "% 50 of them",
            "% this is a comment",
        ] {
            assert!(
                prompt(line).is_none_or(|(_, start)| line[start..].trim().is_empty()),
                "{line}"
            );
        }
    }

    #[test]
    fn told_headings_and_tool_inputs_as_json() {
        // A session rendered with numbered, third-person headings and each
        // tool's input as JSON, cut short by the renderer
        // (WamiqAdnan/greenwash's trajectories).
        let text = "### 68. the human asked\n\n```\nstart ollama\n```\n\n### 70. the agent ran `Bash`\n\n```json\n{\"command\": \"ollama serve > /tmp/o.log 2>&1\", \"description\": \"Run it\", \"run_in_background\": true}\n```\n\n### 71. the tool responded\n\n```\nCommand running in background with ID: bt7x4.\n```\n\n### 72. the agent ran `Bash`\n\n```json\n{\"command\": \"curl -s localhost:11434/api/tags && echo \\\"up\n```\n\n### 73. the tool responded\n\n```\nup\n```\n\n### 80. the agent ran `TaskStop`\n\n```json\n{\"task_id\": \"bt7x4\"}\n```\n";
        let k = kinds(text);
        assert!(
            k.contains(&"cmd ollama serve > /tmp/o.log 2>&1 @None".to_owned()),
            "{k:?}"
        );
        assert!(
            k.contains(&"cmd curl -s localhost:11434/api/tags && echo \"up @None".to_owned()),
            "{k:?}"
        );
        assert!(
            k.iter()
                .any(|e| e.starts_with("out of ") && e.ends_with(": up")),
            "{k:?}"
        );
        assert!(k.contains(&"cmd KillShell bt7x4 @None".to_owned()), "{k:?}");
        let background = parse(text, 0).events.iter().any(|e| {
            matches!(&e.kind, EventKind::Command { background: true, text, .. } if text.starts_with("ollama serve"))
        });
        assert!(background);
        // Cut inside a later key, or inside an escape.
        let k = kinds(
            "## Assistant\n\n```json\n{\"command\": \"ls -la\", \"description\": \"List fi\n```\n",
        );
        assert!(k.contains(&"cmd ls -la @None".to_owned()), "{k:?}");
        let k = kinds("## Assistant\n\n```json\n{\"command\": \"echo caf\\u00e9 \\u00\n```\n");
        assert!(k.contains(&"cmd echo caf\u{e9}  @None".to_owned()), "{k:?}");
        // Codex's argv form.
        let k = kinds(
            "## Assistant\n\n```json\n{\"command\": [\"bash\", \"-lc\", \"nvidia-smi\"]}\n```\n",
        );
        assert!(k.contains(&"cmd nvidia-smi @None".to_owned()), "{k:?}");
        // A numbered heading that tells no speaker's act is no turn.
        assert!(marker("### 3. the agent architecture").is_none());
        assert!(marker("### 3. Setup").is_none());
    }

    #[test]
    fn an_engine_launch_written_bare_in_a_message_is_a_command() {
        let text = "**User:**\nCUDA_VISIBLE_DEVICES=4,5 nohup python -m vllm.entrypoints.openai.api_server \\\n    --tensor-parallel-size 2 \\\n    --port 9000 \\\n    > ./x.log 2>&1 &\n\nThat is how I deployed it.\n";
        let k = kinds(text);
        assert!(
            k.iter()
                .any(|e| e.starts_with("cmd CUDA_VISIBLE_DEVICES=4,5 nohup python -m vllm")),
            "{k:?}"
        );
        assert!(
            k.contains(&"prose That is how I deployed it.".to_owned()),
            "{k:?}"
        );
        // Prose naming a program is not a launch.
        let k = kinds("**User:**\nvllm serve works for me but sglang does not.\n");
        assert!(!k.iter().any(|e| e.starts_with("cmd")), "{k:?}");
        // A request to a URL, written bare under the sentence that tells
        // its answer, is a command too; prose naming curl is not.
        let k = kinds(
            "**User:**\nThis one comes back with a 404:\ncurl http://localhost:5950/v1/models\n\nHas anybody seen this?\n",
        );
        assert!(
            k.iter()
                .any(|e| e.starts_with("cmd curl http://localhost:5950/v1/models")),
            "{k:?}"
        );
        let k = kinds("**User:**\ncurl works but the browser does not.\n");
        assert!(!k.iter().any(|e| e.starts_with("cmd")), "{k:?}");
        // A launch in a code span that is the whole line (a list item) is a
        // command; a code span inside a sentence is not.
        let k = kinds(
            "**User:**\nI typed these, one per prompt:\n\n3. `python3 -m sglang.launch_server --model-path /m --port 30000 --tp 2`\n\nThen it refused.\n",
        );
        assert!(
            k.iter()
                .any(|e| e.starts_with("cmd python3 -m sglang.launch_server --model-path /m")),
            "{k:?}"
        );
        let k = kinds("**User:**\nI ran `vllm serve /m --port 8000` and it hung.\n");
        assert!(!k.iter().any(|e| e.starts_with("cmd")), "{k:?}");
    }

    /// A write-up with no turns and no prompts (a guide, an agent's notes)
    /// suggests its shell fences; one that shows their output ran them.
    #[test]
    fn a_documents_shell_fences_are_suggestions_unless_output_follows() {
        let guide = "# Fixing the OOM\n\nUse a quantized model:\n\n```bash\ndocker run --gpus all -p 8080:80 ghcr.io/huggingface/text-generation-inference:2.4.1 --quantize gptq\n```\n\nThen test the API.\n";
        let k = kinds(guide);
        assert!(!k.iter().any(|e| e.starts_with("cmd")), "{k:?}");
        let ran = "# What I ran\n\n```bash\nnvidia-smi --query-gpu=memory.used --format=csv\n```\n\n```\nmemory.used [MiB]\n3 MiB\n```\n";
        let k = kinds(ran);
        assert!(k.iter().any(|e| e.starts_with("cmd nvidia-smi")), "{k:?}");
    }

    #[test]
    fn a_shell_fence_of_log_lines_is_a_log_not_a_script() {
        let text = "### Relevant log output\n\n```shell\napp.log\ntime=2025-03-24T14:07:07.068+08:00 level=INFO source=logging.go:50 msg=\"ollama app started\"\ntime=2025-03-24T14:07:08.068+08:00 level=INFO source=server.go:50 msg=\"starting\"\n```\n";
        let k = kinds(text);
        assert!(!k.iter().any(|e| e.starts_with("cmd")), "{k:?}");
    }

    #[test]
    fn a_markdown_escaped_rendering_is_read_unescaped() {
        let text = "\u{23fa} Bash(npx tsc \\--noEmit 2\\>&1 | head \\-50)  \n  \u{23bf} \\_\\_tests\\_\\_/x.tsx(34,20): error TS2322\n    \u{2026} \\+3 lines (ctrl+o to expand)\n\n\u{23fa} Bash(npm run dev &)  \n  \u{23bf}  Running in the background (\u{2193} to manage)\n";
        let k = kinds(text);
        assert!(
            k.contains(&"cmd npx tsc --noEmit 2>&1 | head -50 @None".to_owned()),
            "{k:?}"
        );
        assert!(k.iter().any(|e| e.contains("__tests__/x.tsx")), "{k:?}");
        // A shell paste keeps its own escapes.
        assert!(!markdown_escaped("$ find . -name \\*.py -exec rm {} \\;\n"));
    }

    #[test]
    fn powershell_prompt_without_a_path() {
        let k = kinds(
            "PS> Get-NetTCPConnection -LocalPort 8080 -State Listen\nLocalAddress LocalPort State\n127.0.0.1 8080 Listen\n",
        );
        assert_eq!(
            k[0],
            "cmd Get-NetTCPConnection -LocalPort 8080 -State Listen @None"
        );
    }

    #[test]
    fn role_labels_and_fences() {
        let text = "Human: start it\n\nAssistant: Starting.\n```bash\n$ nvidia-smi\nNo running processes found\n```\nDone.\n";
        let k = kinds(text);
        assert_eq!(k[0], "msg None");
        assert_eq!(k[1], "prose start it");
        assert_eq!(k[2], "msg None");
        assert_eq!(k[3], "prose Starting.");
        assert_eq!(k[4], "cmd nvidia-smi @None");
        assert_eq!(k[5], "out of 4: No running processes found");
        assert_eq!(k[6], "prose Done.");
    }

    #[test]
    fn markdown_chat_turns_with_fenced_commands_and_outputs() {
        let text = "**User:** bring up vllm on 8011\n\n**Assistant:** Launching it:\n\n```bash\nnohup vllm serve m \\\n  --port 8011 > v.log 2>&1 &\n```\n\nOutput:\n```\n[1] 4242\n```\n\n## User\n\nnow check it\n\n### Assistant\n\n```sh\ncurl -s localhost:8011/v1/models\n```\n\n**User:** I ran it and got:\n\n```\ncurl: (7) Failed to connect to localhost port 8011\n```\n\nChatGPT said:\nIt is serving now.\n";
        let k = kinds(text);
        assert_eq!(
            k,
            [
                "msg None",
                "prose bring up vllm on 8011",
                "msg None",
                "prose Launching it:",
                "cmd nohup vllm serve m \\\n  --port 8011 > v.log 2>&1 & @None",
                "out of 4: [1] 4242",
                "msg None",
                "prose now check it",
                "msg None",
                "cmd curl -s localhost:8011/v1/models @None",
                "msg None",
                "prose I ran it and got:",
                "out of 9: curl: (7) Failed to connect to localhost port 8011",
                "msg None",
                "prose It is serving now.",
            ]
        );
    }

    #[test]
    fn turn_markers_and_lines_that_are_not() {
        for (line, role) in [
            ("**User:** hi", Role::User),
            ("**Assistant**: ok", Role::Assistant),
            ("## User", Role::User),
            ("### Assistant | 2025-01-01T12:00:00.000Z", Role::Assistant),
            ("_**User**_", Role::User),
            ("You said:", Role::User),
            ("ChatGPT said:", Role::Assistant),
            ("Human: start", Role::User),
            ("## Claude (12:20 UTC)", Role::Assistant),
            ("### ASSISTANT", Role::Assistant),
            ("#### \u{1f916} gpt-5.4 (medium)", Role::Assistant),
            ("#### \u{1f464} User Prompt", Role::User),
        ] {
            assert_eq!(marker(line).map(|m| m.1), Some(role), "{line}");
        }
        for line in [
            "Model: Llama-3.1-70B",
            "## User guide",
            "**Note:** the server",
            "User-Agent: curl/8.0",
            "Assistantship",
            "## Assistant tools overview",
        ] {
            assert_eq!(marker(line), None, "{line}");
        }
    }

    #[test]
    fn a_log_pasted_after_a_session_is_read_as_a_log() {
        let text = "> start sglang\n⏺ Bash(nohup python -m sglang.launch_server --port 30001 > s.log 2>&1 &)\n  ⎿  (No content)\n⏺ It's starting.\n\n[2026-02-11 22:35:07 TP0] Load weight begin. avail mem=78.50 GB\n[2026-02-11 22:35:40 TP0] Load weight end. type=Qwen2ForCausalLM\n[2026-02-11 22:36:10 TP0] Capture cuda graph end. Time elapsed: 20 s\n[2026-02-11 22:36:12] INFO:     Uvicorn running on http://0.0.0.0:30001 (Press CTRL+C to quit)\n";
        let k = kinds(text);
        assert_eq!(
            k.last().map(String::as_str),
            Some("log sglang-log"),
            "{k:?}"
        );
        assert!(k.contains(&"prose It's starting.".to_owned()), "{k:?}");
    }

    /// An issue comment: a fence of prompts runs the request, a line that
    /// introduces its answer (`prints:`), then the answer in its own JSON
    /// fence. The fence's info string may follow a space (```` ``` shell ````).
    #[test]
    fn an_introduced_fence_after_a_silent_prompt_is_its_output() {
        let text = "I start vLLM:\n\n``` shell\n$ vllm serve m --port 8000\n```\n\nThis is the cURL command and what it sends back:\n\n``` shell\n$ curl http://localhost:8000/v1/models\n```\n\nAnd the cURL command prints:\n\n``` json\n{\"object\":\"list\",\"data\":[{\"id\":\"m\"}]}\n```\n";
        let k = kinds(text);
        let cmds: Vec<&String> = k.iter().filter(|e| e.starts_with("cmd ")).collect();
        assert_eq!(cmds.len(), 2, "{k:?}");
        let outputs: Vec<&String> = k.iter().filter(|e| e.starts_with("out of")).collect();
        assert_eq!(outputs.len(), 1, "{k:?}");
        assert!(outputs[0].contains("\"object\":\"list\""), "{k:?}");
        // The launch's fence is followed by a sentence ending in ':' and a
        // fence of prompts: that is a command of its own, not its output.
        let launch = k
            .iter()
            .position(|e| e.starts_with("cmd vllm"))
            .expect("the launch");
        assert!(
            !outputs[0].starts_with(&format!("out of {launch}:")),
            "{k:?}"
        );
    }

    /// A suggested request, then a sentence and a JSON block: the block is
    /// the writer's own (an expected answer), not what a run printed.
    #[test]
    fn a_json_block_after_a_sentence_is_no_output() {
        let text = "**Cursor**\n\nCheck it yourself:\n```bash\ncurl http://localhost:8000/health\n```\n- The UI is at http://localhost:3000.\n\n```json\n{\"status\":\"healthy\"}\n```\n";
        let k = kinds(text);
        assert!(!k.iter().any(|e| e.starts_with("out of")), "{k:?}");
        // Right after the request's fence it is the request's answer.
        let text = "**Cursor**\n\n```bash\ncurl http://localhost:8000/health\n```\n\n```json\n{\"status\":\"healthy\"}\n```\n";
        let k = kinds(text);
        assert!(
            k.iter()
                .any(|e| e.starts_with("out of") && e.contains("healthy")),
            "{k:?}"
        );
    }

    /// An issue reports the launch it ran under a `## Launch` heading or
    /// "I start it with:", in a bare fence as often as a shell one; a guide
    /// or a plan ("Use …:", "I'll start it with:") only suggests it.
    #[test]
    fn an_issue_reports_the_launch_it_ran() {
        let issue = "# Server hangs\n\n## Launch\n\n```\npython3 -m sglang.launch_server \\\n  --model-path m --tp 4 --port 8890\n```\n\n## Repro\n\n1. Serve.\n";
        let k = kinds(issue);
        assert!(
            k.iter()
                .any(|e| e.starts_with("cmd python3 -m sglang.launch_server")),
            "{k:?}"
        );
        let told = "The junk comes from vLLM.\n\nI start vLLM from their container:\n\n```bash\npodman run -p 8000:8000 docker.io/vllm/vllm-openai:v0.20.1 --model m\n```\n";
        let k = kinds(told);
        assert!(k.iter().any(|e| e.starts_with("cmd podman run")), "{k:?}");
        for suggested in [
            "# Fixing it\n\nUse a quantized model:\n\n```\nvllm serve m --quantization awq\n```\n",
            "# Plan\n\nI'll start it with:\n\n```bash\nvllm serve m --port 8001\n```\n",
            // Not a launch: a guide's other steps stay suggestions.
            "# Notes\n\nI cleaned up with:\n\n```bash\nrm -rf ~/.cache/vllm\n```\n",
        ] {
            let k = kinds(suggested);
            assert!(
                !k.iter().any(|e| e.starts_with("cmd")),
                "{suggested}: {k:?}"
            );
        }
    }

    /// A maintainer's reply: a question, then "I tried … and it works:"
    /// over the launch, and right below it a fence with the request and
    /// what it answered. A paste that opens with its launch is what its
    /// writer ran, and the request it then "sends" is run too.
    #[test]
    fn a_reproduction_reports_its_launch_and_the_request_below_it() {
        let reply = "Could the reporter share the exact command? I tried to reproduce it here and it works:\n\n```\nvllm serve Qwen/Qwen2.5-Omni-7B --omni --port 8091\n```\n```\ncurl  \"http://127.0.0.1:8091/v1/models\"\n{\"object\":\"list\",\"data\":[{\"id\":\"Qwen/Qwen2.5-Omni-7B\"}]}\n```\n";
        let k = kinds(reply);
        assert!(k.iter().any(|e| e.starts_with("cmd vllm serve")), "{k:?}");
        let curl = k
            .iter()
            .position(|e| e.starts_with("cmd curl"))
            .expect("the request");
        assert!(
            k.get(curl + 1).is_some_and(|e| e.starts_with("out")),
            "the JSON is its answer: {k:?}"
        );
        let opens = "```\nexport VLLM_USE_V1=1\nvllm serve \\\n    /m/llama \\\n    --port 8000\n```\nAfter that I send a request with curl from a second terminal:\n```\ncurl http://localhost:8000/v1/chat/completions \\\n  -d '{\"model\": \"m\"}'\n```\n";
        let k = kinds(opens);
        assert!(
            k.iter()
                .any(|e| e.starts_with("cmd export VLLM_USE_V1=1\nvllm serve")),
            "{k:?}"
        );
        assert!(k.iter().any(|e| e.starts_with("cmd curl")), "{k:?}");
        // A guide's first fence after its heading is still a suggestion.
        let guide = "# Serving\n\n```\nvllm serve m --port 8001\n```\n";
        assert!(
            !kinds(guide).iter().any(|e| e.starts_with("cmd")),
            "{:?}",
            kinds(guide)
        );
    }

    /// A launch pasted one option a line, its backslashes lost: the
    /// options still belong to it.
    #[test]
    fn options_on_lines_of_their_own_go_on_the_command() {
        let text = "How I start the server:\n\n```bash\npython -m vllm.entrypoints.openai.api_server   \n--model \"m\"   \n--tensor-parallel-size 2  \n--port 8001\n```\n";
        let k = kinds(text);
        let cmd = k
            .iter()
            .find(|e| e.starts_with("cmd "))
            .expect("the launch");
        assert!(cmd.contains("api_server \\\n--model"), "{cmd}");
        let parsed = crate::shell::parse(cmd.trim_start_matches("cmd ").trim_end_matches(" @None"));
        assert_eq!(parsed.len(), 1, "{parsed:?}");
        assert!(parsed[0].argv.iter().any(|a| a == "--port"), "{parsed:?}");
        // A heredoc's YAML list keeps its lines.
        let yaml = ["cat > c.yaml <<EOF", "models:", "- name: m", "EOF"];
        assert_eq!(join_lost_continuations(&yaml), yaml.join("\n"));
    }

    /// A bare fence holding a command and what it printed is a run, even
    /// with no sentence claiming it; a guide's "you should see" is not.
    #[test]
    fn a_command_shown_with_its_output_ran() {
        let text = "GPU is not used after upgrade.\n\n```\nollama ps\nNAME          ID              SIZE     PROCESSOR    UNTIL\nqwen3:32b     030ee887880f    22 GB    100% GPU     4 minutes from now\n```\n";
        let k = kinds(text);
        assert!(k.iter().any(|e| e == "cmd ollama ps @None"), "{k:?}");
        assert!(
            k.iter()
                .any(|e| e.starts_with("out of") && e.contains("100% GPU")),
            "{k:?}"
        );
        let guide = "To check, you should run:\n\n```\nollama ps\nNAME          ID              SIZE     PROCESSOR    UNTIL\n```\n";
        assert!(
            !kinds(guide).iter().any(|e| e.starts_with("cmd")),
            "{:?}",
            kinds(guide)
        );
    }

    /// A reply quoting a terminal (`> ` before every line) still shows
    /// the commands run there; a quoted sentence stays a quote.
    #[test]
    fn a_quoted_terminal_is_read_as_a_terminal() {
        let text = "Same here:\n\n> root@pod:/# ollama ps\n> NAME    ID    SIZE    PROCESSOR    UNTIL\n> m:7b    abc   5 GB    100% GPU     Forever\n\nStill slow.\n";
        let k = kinds(text);
        assert!(k.iter().any(|e| e.starts_with("cmd ollama ps")), "{k:?}");
        let parsed = parse(text, 0);
        for e in &parsed.events {
            if let EventKind::Command { .. } = e.kind {
                assert!(text[e.span.start..e.span.end].starts_with("root@pod"));
            }
        }
        let prose = "> I ran it and the server is fine.\n\nThanks.\n";
        assert!(
            !kinds(prose).iter().any(|e| e.starts_with("cmd")),
            "{:?}",
            kinds(prose)
        );
    }
}

//! `other-model-answered`: a request to the new server's port was answered,
//! but for another model than the one launched there. Something else holds
//! the port (most often the old server, never confirmed dead), and the
//! "passing" check verified the wrong process.

use super::{CheckStatus, Finding, Rule, Severity, describe, observers, on_host};
use crate::re::regex;
use crate::timeline::{Outcome, Server, Timeline};

pub(super) const RULE: Rule = Rule {
    id: "other-model-answered",
    title: "The port answered for a different model than the one launched",
    severity: Severity::Error,
    why: "A request that returns 200 proves that *something* listens on the port, \
not that it is the server just launched. When the old server was killed without \
checking, or the new one failed to bind, the old one keeps answering, and every \
check after that verifies the wrong process. The model id in the answer \
(`/v1/models`, or `model` in a completion) says which server replied.",
    example: "The agent runs `pkill -f vllm`, launches SGLang with Qwen3-32B on \
port 8000, and `curl localhost:8000/v1/models` returns \
`{\"data\":[{\"id\":\"meta-llama/Llama-3.1-8B-Instruct\"}]}`; the agent reports \
SGLang as up.",
    check: "See which process owns the port and what it serves: `ss -ltnp | grep \
:PORT` and `curl -s http://127.0.0.1:PORT/v1/models`, and compare the model id \
with the launch's `--model-path` or `--served-model-name`.",
    run,
};

// `"model": "…"` in a completion; `"id": "…"` only in a model list (a
// completion's own `"id"` is `chatcmpl-…`).
regex!(MODEL_KEY, r#""model"(?-u:\s*:\s*)"([^"]{1,300})""#);
regex!(LISTED_ID, r#""id"(?-u:\s*:\s*)"([^"]{1,300})""#);

/// The model ids an answer names.
fn model_ids(line: &str) -> Vec<&str> {
    let listing = line.contains("\"data\"")
        && (line.contains("\"object\":\"model\"")
            || line.contains("\"object\": \"model\"")
            || line.contains("\"object\":\"list\"")
            || line.contains("\"object\": \"list\""));
    let mut ids = Vec::new();
    for (re, wanted) in [(&MODEL_KEY, true), (&LISTED_ID, listing)] {
        let Some(re) = re.as_ref().filter(|_| wanted) else {
            continue;
        };
        ids.extend(
            re.captures_iter(line)
                .filter_map(|c| c.get(1))
                .map(|m| m.as_str())
                .filter(|id| !id.starts_with("chatcmpl-") && !id.starts_with("cmpl-")),
        );
    }
    ids
}

fn run(timeline: &Timeline) -> Vec<Finding> {
    super::each_launched_server(timeline, check)
}

fn check(timeline: &Timeline, server: &Server) -> Option<Finding> {
    let port = server.port()?;
    let names = names(server);
    if names.is_empty() {
        return None;
    }
    for checkpoint in observers(timeline, server) {
        let answered = checkpoint.port_checks.iter().any(|check| {
            check.request && check.port == Some(port) && check.outcome == Outcome::Passed
        });
        if !answered {
            continue;
        }
        // Every model id in the answer; completions name theirs as `model`.
        let mut ids: Vec<(&str, crate::timeline::SeenLine<'_>)> = Vec::new();
        for line in &checkpoint.seen {
            ids.extend(model_ids(line.text).into_iter().map(|id| (id, line)));
        }
        // Served under one of its names: this is the right server.
        if ids.is_empty() || ids.iter().any(|(id, _)| answers_to(&names, id)) {
            continue;
        }
        let (id, line) = ids[0];
        let launched = names.first().map_or("", String::as_str);
        let mut evidence = vec![line.quote()];
        if let Some(launch) = super::launch_quote(timeline, server) {
            evidence.push(launch);
        }
        return Some(Finding {
            rule: RULE.id,
            severity: RULE.severity,
            status: CheckStatus::Failed,
            message: format!(
                "A request to port {port}{} was answered for the model `{id}`, but the {} was \
                 launched{} with `{launched}`: another process answered, so this check says \
                 nothing about the new server.",
                super::at_message(checkpoint),
                describe(server),
                super::launch_ref(timeline, server),
            ),
            evidence,
            suggestion: on_host(
                server.host.as_deref(),
                &format!("ss -ltnp | grep ':{port} '; curl -s http://127.0.0.1:{port}/v1/models"),
            ),
            server: Some(server.id),
        });
    }
    None
}

/// The names the server answers to: its served names, else its model path.
fn names(server: &Server) -> Vec<String> {
    let mut names: Vec<String> = server
        .settings
        .served_model_name
        .iter()
        .flat_map(|n| n.split([',', ' ']))
        .filter(|n| !n.is_empty())
        .map(str::to_owned)
        .collect();
    names.extend(server.settings.model.clone());
    names
}

/// Same model: equal, or the same last path component (`/models/Qwen3-32B`
/// and `Qwen/Qwen3-32B`), ignoring case.
fn answers_to(names: &[String], id: &str) -> bool {
    let last = |s: &str| {
        s.trim_end_matches('/')
            .rsplit('/')
            .next()
            .unwrap_or(s)
            .to_ascii_lowercase()
    };
    names
        .iter()
        .any(|name| name.eq_ignore_ascii_case(id) || last(name) == last(id))
}

#[cfg(test)]
mod tests {
    use crate::Source;

    fn findings(transcript: &str) -> Vec<String> {
        crate::analyze(&[Source::new("t.txt", transcript)])
            .findings
            .into_iter()
            .filter(|f| f.rule == super::RULE.id)
            .map(|f| f.message)
            .collect()
    }

    const LAUNCH: &str = "$ nohup python3 -m sglang.launch_server --model-path /models/Qwen3-32B --port 8000 > /tmp/s.log 2>&1 &\n";

    #[test]
    fn an_answer_for_another_model_is_flagged() {
        let text = format!(
            "{LAUNCH}$ curl -s http://127.0.0.1:8000/v1/models\n{{\"object\":\"list\",\"data\":[{{\"id\":\"meta-llama/Llama-3.1-8B-Instruct\",\"object\":\"model\"}}]}}\n"
        );
        let found = findings(&text);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].contains("`meta-llama/Llama-3.1-8B-Instruct`"),
            "{found:?}"
        );
    }

    #[test]
    fn a_completion_id_is_not_a_model() {
        let text = format!(
            "{LAUNCH}$ curl -s localhost:8000/v1/chat/completions -d '{{}}'\n{{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"choices\":[]}}\n"
        );
        assert_eq!(findings(&text), Vec::<String>::new());
        let other = format!(
            "{LAUNCH}$ curl -s localhost:8000/v1/chat/completions -d '{{}}'\n{{\"id\":\"chatcmpl-1\",\"model\":\"llama-3-8b\",\"choices\":[]}}\n"
        );
        assert_eq!(findings(&other).len(), 1);
    }

    #[test]
    fn the_launched_model_or_its_served_name_is_fine() {
        let right = format!(
            "{LAUNCH}$ curl -s http://127.0.0.1:8000/v1/models\n{{\"object\":\"list\",\"data\":[{{\"id\":\"Qwen/Qwen3-32B\"}}]}}\n"
        );
        assert_eq!(findings(&right), Vec::<String>::new());
        let served = "$ vllm serve /models/Qwen3-32B --served-model-name qwen --port 8000 &\n$ curl -s localhost:8000/v1/models\n{\"data\":[{\"id\":\"qwen\"}]}\n";
        assert_eq!(findings(served), Vec::<String>::new());
    }
}

//! Text Generation Inference logs (tracing's default format):
//! `2026-11-30T10:00:00.123456Z  INFO shard-manager: text_generation_launcher:
//! Shard ready in 21.3s rank=1`. The rank is a trailing `rank=N` span field;
//! the settings dump is `Args { model_id: "…", num_shard: Some(2), … }`, on
//! one line or (newer, `{:#?}`) over many, which the parser joins.
//! `Shard ready` is the weights; HTTP readiness is the router's `Connected`.

use super::dialect::{Dialect, Prefix};
use crate::engine::Engine;
use crate::re::capture;
use crate::re::regex;
use crate::settings;
use crate::settings::ServerSettings;

regex!(
    TGI_PREFIX,
    r"^(?-u:(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z?)\s+(?:TRACE|DEBUG|INFO|WARN|ERROR)\s+)((?:(?-u:[\w-]+)(?:\{[^}]*\})?(?-u:(?:::[\w-]+)*: ))*)(?-u:(?:[\w/.-]+\.rs:\d+: )?)"
);
regex!(TGI_RANK, r"(?-u)\brank[=:] ?(\d+)");
// The launcher's own words for a shard before `rank=` spans existed:
// `Waiting for shard 0 to be ready...`, `Shard 1 crashed`.
regex!(TGI_SHARD, r"(?-u)\b[Ss]hard (\d+)\b");
regex!(RS_FILE, r"(?-u)^[\w/.-]+\.rs:\d+: ");

/// How Tgi's log lines read.
pub const DIALECT: Dialect = Dialect {
    engine: Engine::Tgi,
    prefix,
    settings,
};

/// Time, level, span and target, then the message.
pub fn prefix(line: &str) -> Option<Prefix> {
    if !line.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let c = capture(&TGI_PREFIX, line)?;
    let spans = c.get(2).map_or("", |m| m.as_str());
    // Span fields can nest braces (`generate{parameters=… { … }}: `), which
    // the pattern cannot skip: then the message follows the target itself.
    let message = match line.find(" text_generation_") {
        Some(at) if at >= c.get(0).map_or(0, |m| m.end()) => {
            let target = &line[at + 1..];
            let end = target.find(": ").map_or(0, |e| e + 2);
            let rest = &target[end..];
            let file = capture(&RS_FILE, rest).map_or(0, |f| f.get(0).map_or(0, |m| m.end()));
            at + 1 + end + file
        }
        _ => c.get(0).map_or(0, |m| m.end()),
    };
    let rank = (spans.contains("shard-manager") || line.contains("rank="))
        .then(|| capture(&TGI_RANK, line))
        .flatten()
        .or_else(|| {
            line[message..]
                .contains("hard ")
                .then(|| capture(&TGI_SHARD, &line[message..]))
                .flatten()
        })
        .and_then(|r| r.get(1))
        .map(|m| format!("rank {}", m.as_str()));
    let engine = (line.contains("text_generation") || spans.contains("shard-manager"))
        .then_some(Engine::Tgi);
    Some(Prefix {
        time: c.get(1).map(|m| m.as_str().to_owned()),
        rank,
        aux_rank: None,
        message,
        engine,
    })
}

/// `Args { model_id: "…", … }` (the parser joins the multi-line form).
pub fn settings(message: &str) -> Option<ServerSettings> {
    let at = message.find("Args {")?;
    Some(settings::from_dump(&message[at + 5..]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::logline::classify;
    use crate::parse::{EventKind, Signal};

    #[test]
    fn patterns_compile() {
        assert!(
            TGI_PREFIX.is_some() && TGI_RANK.is_some() && TGI_SHARD.is_some() && RS_FILE.is_some()
        );
    }

    /// A shard still loading (huggingface/text-generation-inference#3105).
    #[test]
    fn waiting_for_shard_is_loading() {
        let line = classify(
            "2025-03-13T08:37:54.657147Z  INFO shard-manager: text_generation_launcher: Waiting for shard to be ready... rank=1",
        );
        assert_eq!(line.signal, Some(Signal::WeightsBegin));
        assert_eq!(line.rank.as_deref(), Some("rank 1"));
    }

    #[test]
    fn shard_lines() {
        let line = classify(
            "2026-11-30T10:00:21.512310Z  INFO shard-manager: text_generation_launcher: Shard ready in 21.3s rank=1",
        );
        assert_eq!(line.rank.as_deref(), Some("rank 1"));
        assert_eq!(line.time.as_deref(), Some("2026-11-30T10:00:21.512310Z"));
        assert_eq!(
            line.signal,
            Some(Signal::WeightsEnd {
                arch: None,
                draft: false,
                seconds: Some(21.3)
            })
        );
        let ready = classify(
            "2026-11-30T10:00:40.1Z  INFO text_generation_router::server: router/src/server.rs:2302: Connected",
        );
        assert_eq!(ready.signal, Some(Signal::Ready { port: None }));
        let served = classify(
            "2026-11-30T10:01:00.1Z  INFO generate{parameters=GenerateParameters { max_new_tokens: Some(20) } total_time=\"1.2s\"}: text_generation_router::server: router/src/server.rs:622: Success",
        );
        assert_eq!(served.signal, Some(Signal::Request { status: Some(200) }));
        let ansi = crate::parse::logline::strip_ansi(
            "#033[2m2026-11-30T10:00:00.1Z#033[0m #033[32m INFO#033[0m #033[2mtext_generation_launcher#033[0m#033[2m:#033[0m Starting shard rank=0",
        );
        assert_eq!(classify(&ansi).signal, Some(Signal::WeightsBegin));
    }

    #[test]
    fn multi_line_args_are_joined() {
        let text = "2026-11-30T10:00:00.1Z  INFO text_generation_launcher: Args {\n    model_id: \"meta-llama/Llama-3.1-70B-Instruct\",\n    num_shard: Some(\n        4,\n    ),\n    port: 8080,\n}\n2026-11-30T10:00:01.1Z  INFO text_generation_launcher: Starting shard rank=0\n";
        let parsed = crate::parse::logline::parse_log(text, 0);
        assert_eq!(parsed.events.len(), 2);
        let EventKind::Log(line) = &parsed.events[0].kind else {
            panic!("log expected")
        };
        let Some(Signal::Settings(s)) = &line.signal else {
            panic!("settings expected")
        };
        assert_eq!(
            s.model.as_deref(),
            Some("meta-llama/Llama-3.1-70B-Instruct")
        );
        assert_eq!((s.tp_size, s.port), (Some(4), Some(8080)));
    }
}

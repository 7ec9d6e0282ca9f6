//! Ollama server logs: Go `slog` text (`time=… level=INFO source=f.go:N
//! msg="…" key=value`), older `2024/03/25 10:00:00 routes.go:1: ` lines, and
//! gin's access log (`[GIN] 2026/04/10 - 21:14:11 | 200 | … | POST "/api/chat"`).
//! The API binds first (`Listening on H:P (version V)`) and serves at once;
//! models load lazily in a runner (`llama runner started in N seconds`) whose
//! llama.cpp lines are interleaved.

use super::dialect::{Dialect, Prefix};
use crate::engine::Engine;
use crate::re::capture;
use crate::re::regex;
use crate::settings::ServerSettings;

regex!(
    SLOG,
    r#"^time=([^\t\n\x0B\x0C\r ]+) level=(?-u:\w+) source=[^\t\n\x0B\x0C\r ]+ msg=("?)"#
);
regex!(
    OLD,
    r"(?-u)^(\d{4}/\d\d/\d\d \d\d:\d\d:\d\d) (?:[\w.-]+\.go:\d+: )?"
);
regex!(
    GIN_TIME,
    r"(?-u)^\[GIN\] (\d{4}/\d\d/\d\d - \d\d:\d\d:\d\d)"
);
regex!(
    HOST_VALUE,
    r"OLLAMA_HOST:(?:https?://)?([^\t\n\x0B\x0C\r :\]]*)(?-u:(?::(\d+))?)"
);
regex!(RUNNER_MODEL, r"--model ([^\t\n\x0B\x0C\r ]+)");

/// How Ollama's log lines read.
pub const DIALECT: Dialect = Dialect {
    engine: Engine::Ollama,
    prefix,
    settings,
};

pub fn prefix(line: &str) -> Option<Prefix> {
    let c = if line.starts_with("time=") {
        capture(&SLOG, line)?
    } else if line.starts_with("[GIN]") {
        let c = capture(&GIN_TIME, line)?;
        return Some(Prefix {
            time: c.get(1).map(|m| m.as_str().to_owned()),
            engine: Some(Engine::Ollama),
            ..Prefix::default()
        });
    } else if line.starts_with(|c: char| c.is_ascii_digit()) && line.get(4..5) == Some("/") {
        capture(&OLD, line)?
    } else {
        return None;
    };
    Some(Prefix {
        time: c.get(1).map(|m| m.as_str().to_owned()),
        rank: None,
        aux_rank: None,
        message: c.get(0).map_or(0, |m| m.end()),
        engine: Some(Engine::Ollama),
    })
}

/// `msg="server config" env="map[… OLLAMA_HOST:http://0.0.0.0:11434 …]"`,
/// and the runner's command line (`--model PATH`; its `--port` is the
/// runner's own, never the API's).
pub fn settings(message: &str) -> Option<ServerSettings> {
    if message.starts_with("server config") {
        let mut settings = ServerSettings::default();
        if let Some(c) = capture(&HOST_VALUE, message) {
            settings.bind_host = c
                .get(1)
                .map(|m| m.as_str().to_owned())
                .filter(|h| !h.is_empty());
            settings.port = c.get(2).and_then(|m| m.as_str().parse().ok());
        }
        return Some(settings);
    }
    if message.starts_with("starting llama server") || message.starts_with("starting runner") {
        let model = capture(&RUNNER_MODEL, message)?
            .get(1)
            .map(|m| m.as_str().trim_matches('"').to_owned());
        return Some(ServerSettings {
            model,
            ..ServerSettings::default()
        });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::logline::classify;
    use crate::parse::{FailureKind, Signal};

    /// Ollama's scheduler giving up on a runner that never answered, as a
    /// Jetson's journal shows it: an engine death, not a silent stop.
    #[test]
    fn runner_start_timeout_is_an_engine_death() {
        let line = classify(
            r#"Jul 28 14:31:48 jetson ollama[202633]: time=2024-07-28T14:31:48.554-04:00 level=ERROR source=sched.go:443 msg="error loading llama server" error="timed out waiting for llama runner to start - progress 0.00 - ""#,
        );
        assert!(matches!(
            line.signal,
            Some(Signal::Failure {
                kind: FailureKind::EngineDied,
                ..
            })
        ));
    }

    /// Ollama's own engine (ollama/ollama#12027, #11090): the KV cache's
    /// placement and the weights' offload are lifecycle lines.
    #[test]
    fn own_engine_kv_cache_and_offload() {
        assert_eq!(
            classify(r#"time=2025-08-24T08:26:00.310Z level=INFO source=backend.go:321 msg="kv cache" device=CUDA0 size="936.0 MiB""#).signal,
            Some(Signal::KvCacheAllocated)
        );
        assert_eq!(
            classify(r#"time=2025-07-18T14:51:00.217Z level=INFO source=ggml.go:362 msg="offloaded 41/41 layers to GPU""#).signal,
            Some(Signal::WeightsBegin)
        );
        assert_eq!(
            classify("load_tensors: offloaded 62/62 layers to GPU").signal,
            Some(Signal::WeightsBegin)
        );
    }

    #[test]
    fn patterns_compile() {
        for p in [&SLOG, &OLD, &GIN_TIME, &HOST_VALUE, &RUNNER_MODEL] {
            assert!(p.is_some());
        }
    }

    #[test]
    fn slog_lines() {
        let line = classify(
            r#"time=2026-11-30T10:00:00.000Z level=INFO source=routes.go:1118 msg="Listening on 127.0.0.1:11434 (version 0.9.0)""#,
        );
        assert_eq!(line.time.as_deref(), Some("2026-11-30T10:00:00.000Z"));
        assert_eq!(
            line.signal,
            Some(Signal::Bound {
                host: "127.0.0.1".into(),
                port: Some(11434)
            })
        );
        assert!(matches!(
            classify(r#"time=2026-11-30T10:00:05.000Z level=INFO source=server.go:1 msg="llama runner started in 5.65 seconds""#).signal,
            Some(Signal::WeightsEnd { seconds: Some(s), .. }) if (s - 5.65).abs() < 1e-9
        ));
        assert_eq!(
            classify("[GIN] 2026/04/10 - 21:14:11 | 200 |   18.1074617s |       127.0.0.1 | POST     \"/api/chat\"").signal,
            Some(Signal::Request { status: Some(200) })
        );
        assert!(matches!(
            classify("Error: listen tcp 127.0.0.1:11434: bind: address already in use").signal,
            Some(Signal::Failure {
                kind: FailureKind::AddressInUse,
                port: Some(11434)
            })
        ));
    }

    #[test]
    fn server_config() {
        let Some(Signal::Settings(s)) = classify(
            r#"time=2026-11-30T10:00:00.000Z level=INFO source=routes.go:1 msg="server config" env="map[CUDA_VISIBLE_DEVICES: OLLAMA_HOST:http://0.0.0.0:11500 OLLAMA_KEEP_ALIVE:5m0s]""#,
        ).signal else {
            panic!("settings expected")
        };
        assert_eq!(s.port, Some(11500));
        assert_eq!(s.bind_host.as_deref(), Some("0.0.0.0"));
    }
}

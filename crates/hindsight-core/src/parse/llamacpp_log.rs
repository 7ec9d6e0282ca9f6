//! llama.cpp `llama-server` logs: bare `function: message` lines (`main:`,
//! `srv    load_model:`, `load_tensors:`, `llama_model_loader:`,
//! `llama_kv_cache…`), optionally behind `--log-prefix`/`--log-timestamps`
//! (`0.00.035.060 I `, or the level letter alone). It binds before it loads
//! (`main: HTTP server is listening, hostname: H, port: P`) and is ready at
//! `main: server is listening on http://H:P`. Builds from 2026 put the
//! server's module tag before every server function, `main` too: `srv
//! main: loading model`, `srv         start: binding port …`.

use super::dialect::{Dialect, Prefix};
use crate::engine::Engine;
use crate::re::capture;
use crate::re::regex;
use crate::settings::ServerSettings;

regex!(STAMP, r"(?-u)^(?:(\d+\.\d\d\.\d{3}\.\d{3}) )?[IWEDT] ");
regex!(
    MODEL,
    r"(?:loading model '([^']+)'|from ([^\t\n\x0B\x0C\r ]+\.gguf))"
);

/// Function names that only llama.cpp prints at the start of a line.
const WORDS: &[&str] = &[
    "main: ",
    "srv ",
    "slot ",
    "llama_",
    "llm_load_",
    "load_tensors:",
    "ggml_",
    "print_info:",
    "common_init_from_params:",
    "load_model:",
    "system info:",
    "build: ",
];

/// How LlamaCpp's log lines read.
pub const DIALECT: Dialect = Dialect {
    engine: Engine::LlamaCpp,
    prefix,
    settings,
};

pub fn prefix(line: &str) -> Option<Prefix> {
    let mut result = Prefix::default();
    if line.starts_with(|c: char| c.is_ascii_digit() || "IWEDT".contains(c))
        && let Some(c) = capture(&STAMP, line)
    {
        result.time = c.get(1).map(|m| m.as_str().to_owned());
        result.message = c.get(0).map_or(0, |m| m.end());
    }
    let message = &line[result.message..];
    if WORDS.iter().any(|w| message.starts_with(w)) {
        result.engine = Some(Engine::LlamaCpp);
    }
    // A bare level letter is llama.cpp's only before its own words (`I srv
    // main: …`), not before any sentence (`I think`): then nothing matched.
    (result.time.is_some() || result.engine.is_some()).then_some(result)
}

/// A server message without the module tag newer builds put before it
/// (`srv          main: model loaded` → `main: model loaded`), so one
/// template reads both generations.
pub fn without_module(message: &str) -> &str {
    match message.strip_prefix("srv ") {
        Some(rest) => rest.trim_start_matches(' '),
        None => message,
    }
}

/// The model path, from `srv load_model: loading model '…'` or
/// `llama_model_loader: loaded meta data … from /m.gguf`.
pub fn settings(message: &str) -> Option<ServerSettings> {
    if !(message.starts_with("srv") || message.starts_with("llama_model_loader: loaded meta")) {
        return None;
    }
    let c = capture(&MODEL, message)?;
    let model = c.get(1).or_else(|| c.get(2)).map(|m| m.as_str().to_owned());
    Some(ServerSettings {
        model,
        ..ServerSettings::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::logline::classify;
    use crate::parse::{FailureKind, Signal};

    #[test]
    fn patterns_compile() {
        assert!(STAMP.is_some() && MODEL.is_some());
    }

    #[test]
    fn lifecycle_lines() {
        assert_eq!(
            classify(
                "main: HTTP server is listening, hostname: 127.0.0.1, port: 8081, http threads: 11"
            )
            .signal,
            Some(Signal::Bound {
                host: "127.0.0.1".into(),
                port: Some(8081)
            })
        );
        assert_eq!(
            classify("main: loading model").signal,
            Some(Signal::WeightsBegin)
        );
        assert!(matches!(
            classify("srv    load_model: loading model '/models/q.gguf'").signal,
            Some(Signal::Settings(s)) if s.model.as_deref() == Some("/models/q.gguf")
        ));
        assert!(matches!(
            classify("main: model loaded").signal,
            Some(Signal::WeightsEnd { .. })
        ));
        assert_eq!(
            classify("main: server is listening on http://127.0.0.1:8081 - starting the main loop")
                .signal,
            Some(Signal::Ready { port: Some(8081) })
        );
        assert_eq!(
            classify("llama_kv_cache_unified:      CUDA0 KV buffer size =  1024.00 MiB").signal,
            Some(Signal::KvCacheAllocated)
        );
        assert_eq!(
            classify("0.00.035.060 I main: loading model")
                .time
                .as_deref(),
            Some("0.00.035.060")
        );
        // 2026 builds: module tag before `main`, optional level letter,
        // behind a Docker Desktop log view's `date time | `.
        assert_eq!(
            classify("srv          main: loading model").signal,
            Some(Signal::WeightsBegin)
        );
        assert!(matches!(
            classify("2026-05-17 10:44:45.483 | 0.21.162.986 I srv          main: model loaded")
                .signal,
            Some(Signal::WeightsEnd { .. })
        ));
        assert_eq!(
            classify("I srv          main: loading model").signal,
            Some(Signal::WeightsBegin)
        );
        assert_eq!(classify("I think the model loaded").signal, None);
        // The only line of those builds that names the port.
        assert_eq!(
            classify(
                "0.05.583.301 I srv          main: server is listening on http://0.0.0.0:8000"
            )
            .signal,
            Some(Signal::Ready { port: Some(8000) })
        );
        // The loader's own start, also under Ollama's runner (no `main:`).
        assert_eq!(
            classify("load_tensors: loading model tensors, this can take a while... (mmap = true, direct_io = false)").signal,
            Some(Signal::WeightsBegin)
        );
        assert!(matches!(
            classify("ggml_backend_cuda_buffer_type_alloc_buffer: allocating 40000.00 MiB on device 0: cudaMalloc failed: out of memory").signal,
            Some(Signal::Failure { kind: FailureKind::OutOfMemory, .. })
        ));
        assert!(matches!(
            classify("couldn't bind HTTP server socket, hostname: 127.0.0.1, port: 8080").signal,
            Some(Signal::Failure {
                kind: FailureKind::AddressInUse,
                port: Some(8080)
            })
        ));
    }
}

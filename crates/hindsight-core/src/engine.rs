//! Inference engines and their launch settings.
//!
//! Settings come from two places that must agree on one type: the launch
//! command's flags (what the agent asked for) and the engine's own startup dump
//! in its log (what the engine actually used, e.g. SGLang's `server_args=`).

use serde::Serialize;

/// The inference server program.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize,
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

/// What a server was told to do.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ServerSettings {
    pub model: Option<String>,
    /// The address it binds (`--host`).
    pub bind_host: Option<String>,
    /// The port given explicitly; see [`ServerSettings::effective_port`].
    pub port: Option<u16>,
    pub tp_size: Option<u32>,
    pub pp_size: Option<u32>,
    pub dp_size: Option<u32>,
    pub ep_size: Option<u32>,
    pub nnodes: Option<u32>,
    pub enable_dp_attention: bool,
    pub speculative_algorithm: Option<String>,
    pub draft_model: Option<String>,
    pub mem_fraction: Option<f64>,
}

impl ServerSettings {
    /// Fills every field that is unset here from `other`.
    pub fn merge_missing(&mut self, other: &ServerSettings) {
        fn fill<T: Clone>(mine: &mut Option<T>, theirs: &Option<T>) {
            if mine.is_none() {
                mine.clone_from(theirs);
            }
        }
        fill(&mut self.model, &other.model);
        fill(&mut self.bind_host, &other.bind_host);
        fill(&mut self.port, &other.port);
        fill(&mut self.tp_size, &other.tp_size);
        fill(&mut self.pp_size, &other.pp_size);
        fill(&mut self.dp_size, &other.dp_size);
        fill(&mut self.ep_size, &other.ep_size);
        fill(&mut self.nnodes, &other.nnodes);
        fill(
            &mut self.speculative_algorithm,
            &other.speculative_algorithm,
        );
        fill(&mut self.draft_model, &other.draft_model);
        fill(&mut self.mem_fraction, &other.mem_fraction);
        self.enable_dp_attention |= other.enable_dp_attention;
    }

    /// Scheduler ranks one launch must bring up: tensor × pipeline parallel,
    /// times data parallel unless DP attention shares the TP ranks.
    pub fn ranks_expected(&self) -> u32 {
        let tp = self.tp_size.unwrap_or(1).max(1);
        let pp = self.pp_size.unwrap_or(1).max(1);
        let dp = if self.enable_dp_attention {
            1
        } else {
            self.dp_size.unwrap_or(1).max(1)
        };
        tp.saturating_mul(pp).saturating_mul(dp)
    }

    /// Whether a separate draft model (or built-in MTP head) must load.
    pub fn is_speculative(&self) -> bool {
        self.draft_model.is_some()
            || self
                .speculative_algorithm
                .as_deref()
                .is_some_and(|a| !a.eq_ignore_ascii_case("ngram") && !a.is_empty())
    }
}

/// Recognises a launch command and reads its settings.
/// `argv` has wrappers already removed (see [`crate::parse::shell`]).
pub fn launch_from_argv(argv: &[String]) -> Option<(Engine, ServerSettings)> {
    let program = argv.first()?.rsplit('/').next().unwrap_or("");
    let (engine, rest): (Engine, &[String]) = if program.starts_with("python") {
        let module_at = argv.iter().position(|a| a == "-m")?;
        let module = argv.get(module_at + 1)?;
        let engine = match module.as_str() {
            "sglang.launch_server" => Engine::Sglang,
            "vllm.entrypoints.openai.api_server" | "vllm.entrypoints.api_server" => Engine::Vllm,
            "sglang" if argv.get(module_at + 2).is_some_and(|a| a == "serve") => Engine::Sglang,
            _ => return None,
        };
        (engine, &argv[module_at + 2..])
    } else {
        match (program, argv.get(1).map(String::as_str)) {
            ("sglang", Some("serve")) => (Engine::Sglang, &argv[2..]),
            ("vllm", Some("serve")) => (Engine::Vllm, &argv[2..]),
            ("text-generation-launcher", _) => (Engine::Tgi, &argv[1..]),
            ("llama-server", _) => (Engine::LlamaCpp, &argv[1..]),
            ("ollama", Some("serve")) => (Engine::Ollama, &argv[2..]),
            ("trtllm-serve", _) => (Engine::TensorrtLlm, &argv[1..]),
            _ => return None,
        }
    };
    Some((engine, settings_from_flags(engine, rest)))
}

fn settings_from_flags(engine: Engine, args: &[String]) -> ServerSettings {
    let mut settings = ServerSettings::default();
    let mut i = 0;
    // `vllm serve MODEL` and `trtllm-serve MODEL` take the model positionally.
    if matches!(engine, Engine::Vllm | Engine::TensorrtLlm)
        && args.first().is_some_and(|a| !a.starts_with('-'))
    {
        settings.model = args.first().cloned();
        i = 1;
    }
    while i < args.len() {
        let word = &args[i];
        let (flag, inline) = match word.split_once('=') {
            Some((flag, value)) if word.starts_with('-') => (flag, Some(value.to_owned())),
            _ => (word.as_str(), None),
        };
        let flag = flag.replace('_', "-");
        let next_value = || args.get(i + 1).filter(|v| !v.starts_with("--")).cloned();
        let value = inline.clone().or_else(next_value);
        let consumed = if inline.is_some() { 1 } else { 2 };
        let number = || value.as_deref().and_then(|v| v.trim().parse::<u32>().ok());
        let mut used = consumed;
        match flag.as_str() {
            "--model-path" | "--model" | "-m" => settings.model = value,
            "--host" => settings.bind_host = value,
            "--port" => settings.port = value.as_deref().and_then(|v| v.parse().ok()),
            "--tp" | "--tp-size" | "--tensor-parallel-size" | "-tp" => settings.tp_size = number(),
            "--pp" | "--pp-size" | "--pipeline-parallel-size" | "-pp" => {
                settings.pp_size = number();
            }
            "--dp" | "--dp-size" | "--data-parallel-size" | "-dp" => settings.dp_size = number(),
            "--ep" | "--ep-size" | "--expert-parallel-size" | "-ep" => settings.ep_size = number(),
            "--nnodes" => settings.nnodes = number(),
            "--num-shard" => settings.tp_size = number(),
            "--enable-dp-attention" => {
                settings.enable_dp_attention = true;
                used = 1;
            }
            "--speculative-algorithm" | "--speculative-algo" => {
                settings.speculative_algorithm = value;
            }
            "--speculative-draft-model-path" | "--speculative-draft" | "--speculative-model" => {
                settings.draft_model = value;
            }
            "--speculative-config" => {
                if let Some(config) = value.as_deref() {
                    read_speculative_config(config, &mut settings);
                }
            }
            "--mem-fraction-static" | "--mem-fraction" | "--gpu-memory-utilization" => {
                settings.mem_fraction = value.as_deref().and_then(|v| v.parse().ok());
            }
            _ => used = 1,
        }
        i += used;
    }
    settings
}

/// vLLM's `--speculative-config '{"method": "eagle3", "model": "…"}'`.
fn read_speculative_config(config: &str, settings: &mut ServerSettings) {
    let Ok(serde_json::Value::Object(map)) = serde_json::from_str::<serde_json::Value>(config)
    else {
        return;
    };
    if let Some(method) = map.get("method").and_then(|m| m.as_str()) {
        settings.speculative_algorithm = Some(method.to_owned());
    }
    if let Some(model) = map.get("model").and_then(|m| m.as_str()) {
        settings.draft_model = Some(model.to_owned());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn other_programs_are_not_launches() {
        assert!(launch_from_argv(&words("python -m pip install sglang")).is_none());
        assert!(launch_from_argv(&words("python train.py --port 1")).is_none());
    }
}

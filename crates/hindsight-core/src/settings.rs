//! What a server was told to do ([`ServerSettings`]) and the one table of
//! the names engines give each setting.
//!
//! Settings are read in two places that must agree: a launch command's flags
//! (what the agent asked for, [`from_args`]) and an engine's own startup dump
//! in its log (what it actually used: SGLang's `server_args=ServerArgs(…)`,
//! vLLM's `non-default args: {…}`, TGI's `Args { … }`, [`from_dump`]). Both
//! look names up in [`NAMES`], so a spelling added for one is known to the
//! other. A leaf: it knows no engine and no input format.

/// What a server was told to do.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ServerSettings {
    pub model: Option<String>,
    /// The names it answers to instead of the model path
    /// (`--served-model-name`, SGLang and vLLM).
    pub served_model_name: Option<String>,
    /// The address it binds (`--host`).
    pub bind_host: Option<String>,
    /// The port given explicitly; see [`ServerSettings::effective_port`].
    pub port: Option<u16>,
    /// For a container with a published port (`docker run -p 8080:80`),
    /// the port inside it, which its log speaks of; `port` is then the
    /// host's, where requests reach it.
    pub container_port: Option<u16>,
    pub tp_size: Option<u32>,
    pub pp_size: Option<u32>,
    pub dp_size: Option<u32>,
    pub ep_size: Option<u32>,
    pub nnodes: Option<u32>,
    pub enable_dp_attention: bool,
    pub speculative_algorithm: Option<String>,
    pub draft_model: Option<String>,
    pub mem_fraction: Option<f64>,
    /// The world size the engine reported (`MPI size: 16`, NCCL `nranks 16`,
    /// vLLM `in world size 4`): the rank count when no size flag is known.
    pub world_size: Option<u32>,
    /// An offline runner (TensorRT-LLM's `run.py --engine_dir …` under
    /// `mpirun`): the engine's ranks load and generate, but nothing serves
    /// a port, so no default port applies.
    pub offline: bool,
    /// The command as shown leaves arguments out (`launch_server ** --speculative-algo
    /// NEXTN`, `vllm serve m ... --port 8000`, `<other args>`): what it does
    /// not state may be among them, so no default applies to it.
    pub elided: bool,
    /// The launching program's own default port where it is not the
    /// engine's (KoboldCpp serves llama.cpp on 5001, not 8080).
    pub default_port: Option<u16>,
}

impl ServerSettings {
    /// Fills every field that is unset here from `other`.
    pub fn merge_missing(&mut self, other: &ServerSettings) {
        fn fill<T: Clone>(mine: &mut Option<T>, theirs: &Option<T>) {
            if mine.is_none() {
                mine.clone_from(theirs);
            }
        }
        self.offline |= other.offline;
        self.elided |= other.elided;
        fill(&mut self.default_port, &other.default_port);
        fill(&mut self.model, &other.model);
        fill(&mut self.served_model_name, &other.served_model_name);
        fill(&mut self.bind_host, &other.bind_host);
        fill(&mut self.port, &other.port);
        fill(&mut self.container_port, &other.container_port);
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
        fill(&mut self.world_size, &other.world_size);
        self.enable_dp_attention |= other.enable_dp_attention;
    }

    /// The ranks (processes) one server brings up, from the sizes stated:
    /// tensor × pipeline parallel, times data parallel unless DP attention
    /// shares the TP ranks, else the world size the engine reported; across
    /// `--nnodes N`, all nodes' ranks together. `None` when no size is
    /// stated.
    pub fn stated_ranks(&self) -> Option<u32> {
        let total = if self.tp_size.is_some() || self.pp_size.is_some() || self.dp_size.is_some() {
            let tp = self.tp_size.unwrap_or(1).max(1);
            let pp = self.pp_size.unwrap_or(1).max(1);
            let dp = if self.enable_dp_attention {
                1
            } else {
                self.dp_size.unwrap_or(1).max(1)
            };
            tp.saturating_mul(pp).saturating_mul(dp)
        } else {
            self.world_size?.max(1)
        };
        Some(total)
    }

    /// The share of `ranks` one node brings up across `--nnodes N`.
    pub fn per_node(&self, ranks: u32) -> u32 {
        match self.nnodes {
            Some(nodes) if nodes > 1 && ranks.is_multiple_of(nodes) => ranks / nodes,
            _ => ranks,
        }
    }

    /// [`ServerSettings::stated_ranks`], or 1 when no size is stated.
    pub fn ranks_expected(&self) -> u32 {
        self.stated_ranks().unwrap_or(1)
    }

    /// Whether it binds every interface (`--host 0.0.0.0`, `OLLAMA_HOST=
    /// 0.0.0.0:1234`): it answers at each of the machine's addresses.
    pub fn binds_every_interface(&self) -> bool {
        self.bind_host
            .as_deref()
            .is_some_and(|b| matches!(b, "0.0.0.0" | "::" | "[::]" | "*"))
    }

    /// Whether a separate draft model (or built-in MTP head) must load.
    pub fn is_speculative(&self) -> bool {
        loads_drafter(
            self.draft_model.as_deref(),
            self.speculative_algorithm.as_deref(),
        )
    }
}

/// Whether a server told to use `draft_model` or `algorithm` loads a
/// drafter (a draft model or a built-in MTP head): n-gram speculation looks
/// its drafts up in the prompt and loads nothing.
pub fn loads_drafter(draft_model: Option<&str>, algorithm: Option<&str>) -> bool {
    draft_model.is_some()
        || algorithm.is_some_and(|a| !a.eq_ignore_ascii_case("ngram") && !a.is_empty())
}

/// A setting hindsight reads, whatever an engine calls it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Setting {
    Model,
    ServedModelName,
    BindHost,
    Port,
    TpSize,
    PpSize,
    DpSize,
    EpSize,
    Nnodes,
    DpAttention,
    SpeculativeAlgorithm,
    DraftModel,
    /// A whole speculative configuration (`{"method": …, "model": …}`).
    SpeculativeConfig,
    MemFraction,
}

/// Every name of every setting, as a dump writes it (`tensor_parallel_size`);
/// a flag is looked up the same way once its leading dashes are cut and the
/// rest are underscores (`--tensor-parallel-size`, `-tp`).
const NAMES: &[(&str, Setting)] = &[
    // The model: SGLang `--model-path`, vLLM `--model` / `model_tag` (the
    // dump holds both), TGI `--model-id`, llama.cpp `-m` / `--hf-repo`.
    ("model_path", Setting::Model),
    ("model", Setting::Model),
    ("m", Setting::Model),
    ("model_id", Setting::Model),
    ("model_tag", Setting::Model),
    ("hf_repo", Setting::Model),
    ("hf", Setting::Model),
    ("served_model_name", Setting::ServedModelName),
    ("host", Setting::BindHost),
    ("hostname", Setting::BindHost),
    ("port", Setting::Port),
    ("tp", Setting::TpSize),
    ("tp_size", Setting::TpSize),
    ("tensor_parallel_size", Setting::TpSize),
    // TGI: one shard per GPU.
    ("num_shard", Setting::TpSize),
    ("pp", Setting::PpSize),
    ("pp_size", Setting::PpSize),
    ("pipeline_parallel_size", Setting::PpSize),
    ("dp", Setting::DpSize),
    ("dp_size", Setting::DpSize),
    ("data_parallel_size", Setting::DpSize),
    ("ep", Setting::EpSize),
    ("ep_size", Setting::EpSize),
    ("expert_parallel_size", Setting::EpSize),
    ("moe_ep_size", Setting::EpSize),
    ("nnodes", Setting::Nnodes),
    ("enable_dp_attention", Setting::DpAttention),
    ("speculative_algorithm", Setting::SpeculativeAlgorithm),
    ("speculative_algo", Setting::SpeculativeAlgorithm),
    ("speculative_method", Setting::SpeculativeAlgorithm),
    // vLLM's dotted flag: `--speculative-config.method eagle3`.
    ("speculative_config.method", Setting::SpeculativeAlgorithm),
    // llama.cpp's `--spec-type draft-mtp` (a built-in MTP head).
    ("spec_type", Setting::SpeculativeAlgorithm),
    ("speculative_draft_model_path", Setting::DraftModel),
    ("speculative_draft", Setting::DraftModel),
    ("speculative_model", Setting::DraftModel),
    ("speculative_config.model", Setting::DraftModel),
    // llama.cpp: `-md` / `--model-draft`, `-hfd` / `--hf-repo-draft`.
    ("model_draft", Setting::DraftModel),
    ("md", Setting::DraftModel),
    ("hf_repo_draft", Setting::DraftModel),
    ("hfd", Setting::DraftModel),
    // KoboldCpp (a llama.cpp server): `--draftmodel d.gguf`.
    ("draftmodel", Setting::DraftModel),
    ("speculative_config", Setting::SpeculativeConfig),
    ("mem_fraction_static", Setting::MemFraction),
    ("mem_fraction", Setting::MemFraction),
    ("mem_frac", Setting::MemFraction),
    ("gpu_memory_utilization", Setting::MemFraction),
    // TGI, and TensorRT-LLM's KV cache share.
    ("cuda_memory_fraction", Setting::MemFraction),
    ("kv_cache_free_gpu_memory_fraction", Setting::MemFraction),
    ("free_gpu_memory_fraction", Setting::MemFraction),
];

/// The setting a dump field or a flag names (`--tp-size`, `tp_size`, `-tp`).
fn setting_named(name: &str) -> Option<Setting> {
    let name = name.trim_start_matches('-');
    let name = if name.contains('-') {
        std::borrow::Cow::Owned(name.replace('-', "_"))
    } else {
        std::borrow::Cow::Borrowed(name)
    };
    NAMES
        .iter()
        .find(|(known, _)| *known == name.as_ref())
        .map(|&(_, setting)| setting)
}

impl ServerSettings {
    /// Sets `setting` from its text; a switch (DP attention) is on when
    /// given without a value or as `True`. The first model named wins: vLLM
    /// dumps `model_tag` before `model`, and a positional model comes first.
    fn apply(&mut self, setting: Setting, value: Option<&str>) {
        let string = || value.map(str::to_owned);
        let number = || value.and_then(|v| v.trim().parse::<u32>().ok());
        match setting {
            Setting::Model => {
                if self.model.is_none() {
                    self.model = string();
                }
            }
            Setting::ServedModelName => self.served_model_name = value.and_then(first_name),
            Setting::BindHost => self.bind_host = string(),
            Setting::Port => self.port = value.and_then(|v| v.trim().parse().ok()),
            Setting::TpSize => self.tp_size = number(),
            Setting::PpSize => self.pp_size = number(),
            Setting::DpSize => self.dp_size = number(),
            Setting::EpSize => self.ep_size = number(),
            Setting::Nnodes => self.nnodes = number(),
            Setting::DpAttention => {
                self.enable_dp_attention =
                    value.is_none_or(|v| v.eq_ignore_ascii_case("true") || v == "1");
            }
            Setting::SpeculativeAlgorithm => self.speculative_algorithm = string(),
            Setting::DraftModel => self.draft_model = string(),
            Setting::SpeculativeConfig => {
                if let Some(config) = value {
                    self.read_speculative_config(config);
                }
            }
            Setting::MemFraction => self.mem_fraction = value.and_then(crate::decimal::parse),
        }
    }

    /// vLLM's `--speculative-config '{"method": "eagle3", "model": "…"}'`
    /// (JSON), or as its dump prints it: `{'method': 'eagle3', …}` or
    /// `SpeculativeConfig(method='mtp', …)`.
    fn read_speculative_config(&mut self, config: &str) {
        if let Ok(serde_json::Value::Object(map)) = serde_json::from_str(config) {
            if let Some(method) = map.get("method").and_then(|m| m.as_str()) {
                self.speculative_algorithm = Some(method.to_owned());
            }
            if let Some(model) = map.get("model").and_then(|m| m.as_str()) {
                self.draft_model = Some(model.to_owned());
            }
            return;
        }
        let body = config
            .trim()
            .trim_start_matches(|c: char| c.is_alphanumeric() || c == '_');
        for (key, value) in fields(body) {
            match key {
                "method" => self.speculative_algorithm = plain(value).map(str::to_owned),
                "model" => self.draft_model = plain(value).map(str::to_owned),
                _ => {}
            }
        }
    }
}

/// The first of a list of names as a dump prints it (`['qwen', 'q']`), or
/// the one name given.
fn first_name(value: &str) -> Option<String> {
    let inner = value.trim();
    let inner = inner
        .strip_prefix('[')
        .map_or(inner, |rest| rest.trim_end_matches(']'));
    let first = inner.split(',').next().unwrap_or("");
    plain(first).map(str::to_owned)
}

/// Settings from an engine's own arguments (the words after its program).
/// `positional_model`: the engine takes the model as its first word (`vllm
/// serve MODEL`, `trtllm-serve MODEL`).
pub fn from_args(args: &[String], positional_model: bool) -> ServerSettings {
    let mut settings = ServerSettings::default();
    let mut i = 0;
    if positional_model && args.first().is_some_and(|a| !a.starts_with('-')) {
        settings.model = args.first().cloned();
        i = 1;
    }
    while i < args.len() {
        let word = &args[i];
        let (flag, inline) = match word.split_once('=') {
            Some((flag, value)) if word.starts_with('-') => (flag, Some(value)),
            _ => (word.as_str(), None),
        };
        let Some(setting) = is_flag(flag).then(|| setting_named(flag)).flatten() else {
            i += 1;
            continue;
        };
        // A switch takes no value: the next word is not its.
        let next = (setting != Setting::DpAttention)
            .then(|| args.get(i + 1).filter(|v| !is_flag(v)))
            .flatten();
        let value = inline.or(next.map(String::as_str));
        settings.apply(setting, value);
        i += if inline.is_none() && next.is_some() {
            2
        } else {
            1
        };
    }
    settings
}

/// `--x` or `-x`, but not a negative number (`-1`) or a lone `-`.
fn is_flag(word: &str) -> bool {
    word.strip_prefix('-')
        .is_some_and(|rest| !rest.is_empty() && !rest.starts_with(|c: char| c.is_ascii_digit()))
}

/// Reads the settings in a `key=value` (or `'key': value`) dump, under the
/// names in [`NAMES`].
pub fn from_dump(text: &str) -> ServerSettings {
    let mut settings = ServerSettings::default();
    for (key, raw) in fields(text) {
        let Some(setting) = setting_named(key) else {
            continue;
        };
        // A configuration keeps its nesting; every other value is plain.
        let value = if setting == Setting::SpeculativeConfig {
            Some(raw.trim()).filter(|v| plain(v).is_some())
        } else if setting == Setting::ServedModelName {
            Some(raw.trim())
        } else {
            plain(raw)
        };
        if value.is_none() && setting == Setting::DpAttention {
            continue;
        }
        settings.apply(setting, value);
    }
    settings
}

/// Splits `key=value, key: value, 'key': value` lists at depth zero; values
/// keep their nesting (`{…}`, `(…)`, `[…]`) and quotes.
pub fn fields(text: &str) -> Vec<(&str, &str)> {
    let inner = text.trim();
    let inner = match inner.chars().next() {
        Some('(' | '{' | '[') => &inner[1..],
        _ => inner,
    };
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut start = 0;
    let mut escaped = false;
    fn push<'t>(out: &mut Vec<(&'t str, &'t str)>, piece: &'t str) {
        let piece = piece.trim();
        let split = piece.find([':', '=']).filter(|&at| {
            !piece[..at].contains(['(', '{', '[', ' ', '"']) || piece.starts_with(['\'', '"'])
        });
        if let Some(at) = split {
            let key = piece[..at].trim().trim_matches(['\'', '"']);
            let value = piece[at + 1..].trim();
            if !key.is_empty() {
                out.push((key, value));
            }
        }
    }
    for (i, c) in inner.char_indices() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '\'' | '"' => quote = Some(c),
            '(' | '{' | '[' => depth += 1,
            ')' | '}' | ']' => {
                if depth == 0 {
                    push(&mut out, &inner[start..i]);
                    return out;
                }
                depth -= 1;
            }
            ',' if depth == 0 => {
                push(&mut out, &inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    push(&mut out, &inner[start..]);
    out
}

/// A dumped value as plain text: quotes removed, `Some(x)` unwrapped, `None`
/// and empty values absent.
pub fn plain(value: &str) -> Option<&str> {
    let mut v = value.trim();
    if let Some(inner) = v.strip_prefix("Some(").and_then(|s| s.strip_suffix(')')) {
        v = inner.trim();
    }
    let v = v.trim_end_matches(',').trim().trim_matches(['\'', '"']);
    (!v.is_empty() && v != "None" && v != "null").then_some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_keep_nesting() {
        let f = fields("(a='x, y', b=Some(2), c={'m': 'z'}, d=None)");
        assert_eq!(
            f,
            vec![
                ("a", "'x, y'"),
                ("b", "Some(2)"),
                ("c", "{'m': 'z'}"),
                ("d", "None")
            ]
        );
        assert_eq!(plain("Some(2)"), Some("2"));
        assert_eq!(plain("None"), None);
    }

    /// A flag and a dump field name a setting alike: the table is one.
    #[test]
    fn flags_and_dumps_share_names() {
        let words: Vec<String> = "--tensor-parallel-size 4 --speculative-draft-model-path /d --mem-fraction-static 0.8 --enable-dp-attention --dp 2"
            .split(' ')
            .map(str::to_owned)
            .collect();
        let flags = from_args(&words, false);
        let dump = from_dump(
            "(tensor_parallel_size=4, speculative_draft_model_path='/d', mem_fraction_static=0.8, enable_dp_attention=True, dp_size=2)",
        );
        assert_eq!(flags, dump);
        assert_eq!(flags.tp_size, Some(4));
        assert!(flags.enable_dp_attention);
        assert_eq!(flags.dp_size, Some(2));
    }

    #[test]
    fn dumps_name_the_served_model_and_the_drafter() {
        let s = from_dump(
            "{'model_tag': 'org/M', 'model': 'org/M', 'served_model_name': ['m', 'm2'], 'speculative_config': {'method': 'eagle3', 'model': 'org/D'}}",
        );
        assert_eq!(s.model.as_deref(), Some("org/M"));
        assert_eq!(s.served_model_name.as_deref(), Some("m"));
        assert_eq!(s.speculative_algorithm.as_deref(), Some("eagle3"));
        assert_eq!(s.draft_model.as_deref(), Some("org/D"));
        let none = from_dump(
            "(served_model_name=None, speculative_config=None, enable_dp_attention=False)",
        );
        assert_eq!(none, ServerSettings::default());
    }

    #[test]
    fn a_switch_takes_no_value_and_json_configs_read() {
        let words: Vec<String> = [
            "--enable-dp-attention",
            "/m",
            "--speculative-config",
            r#"{"method": "eagle3", "model": "/d"}"#,
            "--tp_size=2",
        ]
        .iter()
        .map(|w| (*w).to_owned())
        .collect();
        let s = from_args(&words, false);
        assert!(s.enable_dp_attention);
        assert_eq!(s.model, None);
        assert_eq!(s.speculative_algorithm.as_deref(), Some("eagle3"));
        assert_eq!(s.draft_model.as_deref(), Some("/d"));
        assert_eq!(s.tp_size, Some(2));
    }
}

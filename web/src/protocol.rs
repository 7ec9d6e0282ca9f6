//! What the page and its analysis worker say to each other, as plain data.
//!
//! The page posts a [`Request`] as a JSON header plus one byte buffer per
//! source (transferred, not copied, so a 100 MB paste costs one memcpy out of
//! the main thread's memory); the worker answers with a [`Reply`], encoded
//! by [`crate::wire`].
//! [`run`] is the whole of the worker's job, and the page calls the same
//! function itself when no worker can be started, so both paths give one
//! result. Nothing here touches the browser, so it is tested natively.

use std::sync::Arc;

use hindsight_core::{Config, Format, Report, Source};
use serde::{Deserialize, Serialize};

/// A source as it was sent to analysis: what [`Source`] holds, with the text
/// shared with its editor instead of copied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    pub name: String,
    pub format: Option<Format>,
    pub invalid_utf8_at: Option<usize>,
    pub text: Arc<String>,
}

impl From<Source> for Snapshot {
    fn from(source: Source) -> Self {
        Self {
            name: source.name,
            format: source.format,
            invalid_utf8_at: source.invalid_utf8_at,
            text: Arc::new(source.text),
        }
    }
}

impl Snapshot {
    /// The core's source for it (the text copied).
    pub fn to_source(&self) -> Source {
        let mut source = Source::new(self.name.clone(), self.text.as_str());
        source.invalid_utf8_at = self.invalid_utf8_at;
        match self.format {
            Some(format) => source.with_format(format),
            None => source,
        }
    }
}

/// One analysis to run: everything but the sources' text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// Echoed in the reply, so a late answer to a cancelled or superseded
    /// request is recognised and dropped.
    pub id: u32,
    pub config: Config,
    pub sources: Vec<SourceHead>,
}

/// A source without its text (the text travels as bytes beside the header).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceHead {
    pub name: String,
    /// A format name, or `None` to detect it.
    pub format: Option<String>,
    pub invalid_utf8_at: Option<usize>,
}

/// A credential the analysis found, and what to show instead.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Secret {
    pub value: String,
    pub redacted: String,
}

/// The worker's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reply {
    pub id: u32,
    pub report: Report,
    /// Every credential in the sources, so the source viewer and the share
    /// link can redact raw text the way the report redacts its quotes.
    pub secrets: Vec<Secret>,
    /// Time spent in the analysis itself, in milliseconds (0 natively).
    #[serde(default)]
    pub millis: f64,
}

impl Request {
    /// The request for these sources.
    pub fn new(id: u32, config: Config, sources: &[Snapshot]) -> Self {
        Self {
            id,
            config,
            sources: sources
                .iter()
                .map(|s| SourceHead {
                    name: s.name.clone(),
                    format: s.format.map(|f| f.name().to_owned()),
                    invalid_utf8_at: s.invalid_utf8_at,
                })
                .collect(),
        }
    }

    /// The sources again, from the header and the texts in the same order.
    /// Missing texts become empty rather than failing: the analysis then
    /// reports an empty source instead of the page losing the whole run.
    pub fn into_sources(self, texts: Vec<String>) -> (u32, Config, Vec<Source>) {
        let mut texts = texts.into_iter();
        let sources = self
            .sources
            .into_iter()
            .map(|head| {
                let mut source = Source::new(head.name, texts.next().unwrap_or_default());
                source.invalid_utf8_at = head.invalid_utf8_at;
                match head.format.as_deref().and_then(Format::from_name) {
                    Some(format) => source.with_format(format),
                    None => source,
                }
            })
            .collect();
        (self.id, self.config, sources)
    }
}

/// Runs one analysis: the report under the configuration, and the secrets.
/// The second scan for secrets (the core does not hand its own out) is
/// skipped when the `secret-exposed` rule ran and found none: on a 100 MB
/// log it is a whole extra pass.
pub fn run(id: u32, config: &Config, sources: &[Source]) -> Reply {
    let report = hindsight_core::analyze_with(sources, config);
    let rule = "secret-exposed";
    let none_found = config.enabled(rule) && report.findings.iter().all(|f| f.rule != rule);
    let secrets = if none_found {
        Vec::new()
    } else {
        secrets_of(sources)
    };
    Reply {
        id,
        report,
        secrets,
        millis: 0.0,
    }
}

/// Every credential in the sources (each value once, however many lines
/// hold it; a private key's further lines too), longest first, so that
/// [`redact`] replaces a value holding a shorter one whole.
pub fn secrets_of(sources: &[Source]) -> Vec<Secret> {
    let mut secrets: Vec<Secret> =
        hindsight_core::secrets::scan(&sources.iter().collect::<Vec<_>>())
            .into_iter()
            .map(|s| Secret {
                value: s.value,
                redacted: s.redacted,
            })
            .collect();
    secrets.sort_by(|a, b| {
        b.value
            .len()
            .cmp(&a.value.len())
            .then_with(|| a.value.cmp(&b.value))
    });
    secrets.dedup_by(|a, b| a.value == b.value);
    secrets
}

/// `text` with every secret replaced by its redacted form.
pub fn redact(text: &str, secrets: &[Secret]) -> String {
    let mut text = text.to_owned();
    for secret in secrets {
        if !secret.value.is_empty() && text.contains(&secret.value) {
            text = text.replace(&secret.value, &secret.redacted);
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_round_trips_through_json_and_gives_the_direct_report() {
        let sources = crate::seed::sources();
        let config = Config {
            ignore: ["ranks-uncounted".into()].into(),
            ..Config::default()
        };
        let snapshots: Vec<Snapshot> = sources.iter().cloned().map(Snapshot::from).collect();
        let request = Request::new(7, config.clone(), &snapshots);
        let json = serde_json::to_string(&request).unwrap_or_default();
        let back: Request = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}"));
        let texts = sources.iter().map(|s| s.text.clone()).collect();
        let (id, config_back, sources_back) = back.into_sources(texts);
        assert_eq!((id, &config_back, &sources_back), (7, &config, &sources));

        let reply = run(id, &config_back, &sources_back);
        assert_eq!(
            reply.report,
            hindsight_core::analyze_with(&sources, &config)
        );
        assert!(
            reply
                .report
                .findings
                .iter()
                .all(|f| f.rule != "ranks-uncounted")
        );
        let bytes = crate::wire::to_vec(&reply).unwrap_or_else(|e| panic!("{e}"));
        let back: Reply = crate::wire::from_slice(&bytes).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(back, reply);
    }

    #[test]
    fn chosen_formats_survive_and_missing_texts_become_empty() {
        let sources = vec![Source::new("a.log", "x").with_format(Format::SglangLog)];
        let snapshots: Vec<Snapshot> = sources.into_iter().map(Snapshot::from).collect();
        let request = Request::new(1, Config::default(), &snapshots);
        let (_, _, back) = request.into_sources(Vec::new());
        assert_eq!(back[0].format, Some(Format::SglangLog));
        assert_eq!(back[0].text, "");
    }

    #[test]
    fn secrets_are_found_and_redacted_even_with_their_rule_off() {
        let token = "hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";
        let sources = vec![Source::new("t.txt", format!("$ export HF_TOKEN={token}\n"))];
        let off = Config {
            ignore: ["secret-exposed".into()].into(),
            ..Config::default()
        };
        for config in [Config::default(), off] {
            let reply = run(1, &config, &sources);
            assert!(!reply.secrets.is_empty());
            let shown = redact(&sources[0].text, &reply.secrets);
            assert!(!shown.contains(token), "{shown}");
            assert!(shown.contains("[redacted]"));
        }
        assert!(
            run(1, &Config::default(), &crate::seed::sources())
                .secrets
                .is_empty()
        );
    }

    #[test]
    fn every_line_of_a_private_key_and_every_copy_is_redacted() {
        let lines = [
            "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQDzYqP3dZOo0u/C",
            "Yq6pInLddeC8tBu96QALlZpICj1kxLOuTPHzmkVlurcOD4AGQwH6O/NIAoKMvmlg",
        ];
        let text = format!(
            "$ cat id_rsa\n-----BEGIN RSA PRIVATE KEY-----\n{}\n-----END RSA PRIVATE KEY-----\n\
             password='Tr0ub4dor'\npassword='Tr0ub4dor&3xK'\npassword='Tr0ub4dor'\n",
            lines.join("\n")
        );
        let secrets = secrets_of(&[Source::new("t.txt", text.as_str())]);
        assert_eq!(secrets.len(), 4, "{secrets:?}");
        let shown = redact(&text, &secrets);
        for hidden in lines.into_iter().chain(["Tr0ub4dor", "&3xK"]) {
            assert!(!shown.contains(hidden), "{shown}");
        }
    }
}

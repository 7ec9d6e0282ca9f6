//! The results: summary and exports, findings grouped by severity with their
//! evidence, suggested check and rule documentation, the servers, the
//! timeline of checkpoints, the sources and any diagnostics. Each component
//! renders one part of a [`Report`]; the words come from [`crate::present`].

// `#[component]` expands to builder items declared `pub`, which this binary
// crate cannot export; the lint has nothing to fix in them.
#![allow(unreachable_pub)]

use hindsight_core::Severity;
use hindsight_core::report::{
    CheckpointReport, DiagnosticReport, Evidence, FindingReport, Report, ServerReport, SourceReport,
};
use hindsight_core::rules::Rule;
use leptos::prelude::*;

use crate::browser;
use crate::present::{self, Inline};

/// Everything below the inputs for one report.
#[component]
pub(crate) fn Results(report: Report, revision: u64) -> impl IntoView {
    let summary = present::summary(&report);
    let groups = present::by_severity(&report);
    let export_error = RwSignal::new(None::<String>);
    let markdown = hindsight_core::report::markdown::render(&report);
    let json = report.to_json();
    let export = move |name: &'static str, mime: &'static str, text: String| {
        move |_| {
            if let Err(e) = browser::download(name, mime, &text) {
                export_error.set(Some(format!("Export failed: {e}")));
            }
        }
    };
    let findings = report.findings.clone();

    view! {
        <section
            class="results"
            data-testid="results"
            data-revision=revision.to_string()
            aria-labelledby="results-title"
        >
            <div class="results-head">
                <div>
                    <h2 id="results-title">"Postmortem"</h2>
                    <p class="summary" data-testid="summary">
                        {summary}
                    </p>
                </div>
                <div class="toolbar">
                    <button
                        type="button"
                        class="button"
                        data-testid="export-markdown"
                        on:click=export(present::MARKDOWN_FILE, "text/markdown", markdown)
                    >
                        "Export Markdown"
                    </button>
                    <button
                        type="button"
                        class="button"
                        data-testid="export-json"
                        on:click=export(present::JSON_FILE, "application/json", json)
                    >
                        "Export JSON"
                    </button>
                </div>
            </div>
            {move || {
                export_error
                    .get()
                    .map(|message| {
                        view! {
                            <p class="notice error" role="alert">
                                {message}
                            </p>
                        }
                    })
            }}
            <Diagnostics diagnostics=report.diagnostics.clone() />
            <div class="results-grid">
                <div class="results-main">
                    <section class="block" aria-labelledby="findings-title">
                        <h3 id="findings-title">"Findings"</h3>
                        {if groups.is_empty() {
                            view! {
                                <p class="notice ok" data-testid="no-findings">
                                    "No unverified assumptions found: every launch this session made was checked."
                                </p>
                            }
                                .into_any()
                        } else {
                            let mut repeats = present::repeated_evidence(
                                    groups.iter().flat_map(|(_, findings)| findings),
                                )
                                .into_iter();
                            groups
                                .into_iter()
                                .map(|(severity, findings)| {
                                    let findings: Vec<(FindingReport, Vec<bool>)> = findings
                                        .into_iter()
                                        .map(|f| (f, repeats.next().unwrap_or_default()))
                                        .collect();
                                    view! { <SeverityGroup severity findings /> }
                                })
                                .collect_view()
                                .into_any()
                        }}
                    </section>
                    <Timeline checkpoints=report.checkpoints.clone() findings />
                </div>
                <aside class="results-side">
                    <Servers servers=report.servers.clone() />
                    <Sources sources=report.sources.clone() />
                </aside>
            </div>
        </section>
    }
}

/// The findings of one severity, each with which of its excerpts an earlier
/// finding already quoted.
#[component]
fn SeverityGroup(severity: Severity, findings: Vec<(FindingReport, Vec<bool>)>) -> impl IntoView {
    let heading = present::severity_heading(severity, findings.len());
    view! {
        <div class=format!("severity-group severity-{}", severity.name())>
            <h4 class="severity-heading">{heading}</h4>
            {findings
                .into_iter()
                .map(|(finding, repeated)| view! { <Finding finding repeated /> })
                .collect_view()}
        </div>
    }
}

/// One finding: what was assumed, the lines that show it, how to check it.
/// Excerpts an earlier finding already quoted are folded.
#[component]
fn Finding(finding: FindingReport, repeated: Vec<bool>) -> impl IntoView {
    let rule = hindsight_core::rules::find(&finding.rule);
    let severity = finding.severity.name();
    let copied = RwSignal::new(false);
    let suggestion = finding.suggestion.clone();
    let copy = move |_| {
        let text = suggestion.clone();
        leptos::task::spawn_local(async move {
            copied.set(browser::copy(&text).await.is_ok());
        });
    };
    view! {
        <article
            class=format!("finding card severity-{severity}")
            data-testid="finding"
            data-rule=finding.rule.clone()
            data-severity=severity
        >
            <header class="finding-head">
                <span class=format!("pill severity-{severity}")>{severity}</span>
                <code class="rule-id">{finding.rule.clone()}</code>
                <span class="status">{present::status_label(finding.status)}</span>
            </header>
            <h4 class="finding-title">{finding.title.clone()}</h4>
            <p class="finding-message">{rich(&finding.message)}</p>
            <div class="evidence-list">
                {finding
                    .evidence
                    .into_iter()
                    .zip(repeated.into_iter().chain(std::iter::repeat(false)))
                    .map(|(evidence, repeat)| {
                        if repeat {
                            view! {
                                <details class="evidence-fold">
                                    <summary>
                                        <code>{present::evidence_label(&evidence)}</code>
                                        " · quoted above"
                                    </summary>
                                    <EvidenceBlock evidence />
                                </details>
                            }
                                .into_any()
                        } else {
                            view! { <EvidenceBlock evidence /> }.into_any()
                        }
                    })
                    .collect_view()}
            </div>
            <div class="suggestion" data-testid="suggestion">
                <div class="suggestion-head">
                    <span class="label">"Check with"</span>
                    <button type="button" class="button small" on:click=copy>
                        {move || if copied.get() { "Copied" } else { "Copy" }}
                    </button>
                </div>
                <pre class="code">
                    <code>{finding.suggestion.clone()}</code>
                </pre>
            </div>
            {rule.map(|rule| view! { <RuleDoc rule /> })}
        </article>
    }
}

/// Quoted lines of a source, with line numbers.
#[component]
fn EvidenceBlock(evidence: Evidence) -> impl IntoView {
    let label = present::evidence_label(&evidence);
    let lines = present::gutter(&evidence)
        .into_iter()
        .zip(
            evidence
                .text
                .split('\n')
                .map(str::to_owned)
                .collect::<Vec<_>>(),
        )
        .map(|(number, text)| {
            view! {
                <span class="line">
                    <span class="ln" aria-hidden="true">
                        {number}
                    </span>
                    <span class="tx">{text}</span>
                </span>
            }
        })
        .collect_view();
    view! {
        <figure class="evidence" data-testid="evidence">
            <figcaption>{label}</figcaption>
            <pre class="code lines">{lines}</pre>
        </figure>
    }
}

/// A rule's documentation, folded.
#[component]
fn RuleDoc(rule: &'static Rule) -> impl IntoView {
    let section = |title: &'static str, text: &'static str| {
        view! {
            <h5>{title}</h5>
            <p>{rich(text)}</p>
        }
    };
    view! {
        <details class="rule-doc" data-testid="rule-doc">
            <summary>"About " <code>{rule.id}</code> ": " {rule.title}</summary>
            {section("Why it matters", rule.why)}
            {section("Example", rule.example)}
            {section("How to check", rule.check)}
        </details>
    }
}

/// Text with `inline code` (rule docs, finding messages) as `<code>`.
fn rich(text: &str) -> impl IntoView + use<> {
    present::inline_code(text)
        .into_iter()
        .map(|piece| match piece {
            Inline::Text(text) => view! { <span>{text}</span> }.into_any(),
            Inline::Code(code) => view! { <code>{code}</code> }.into_any(),
        })
        .collect_view()
}

/// The agent's actions in order.
#[component]
fn Timeline(checkpoints: Vec<CheckpointReport>, findings: Vec<FindingReport>) -> impl IntoView {
    let count = checkpoints.len();
    view! {
        <section class="block" aria-labelledby="timeline-title">
            <h3 id="timeline-title">
                "Timeline " <span class="count">{present::plural(count, "checkpoint", "checkpoints")}</span>
            </h3>
            {if checkpoints.is_empty() {
                view! {
                    <p class="muted">
                        "No commands found. A transcript needs "
                        <code>"$ "</code>
                        " prompts (or "
                        <code>"[msg N]"</code>
                        " markers) for its actions to show here."
                    </p>
                }
                    .into_any()
            } else {
                view! {
                    <ol class="timeline">
                        {checkpoints
                            .into_iter()
                            .map(|checkpoint| {
                                let flags = present::flags(&checkpoint, &findings);
                                view! { <CheckpointRow checkpoint flags /> }
                            })
                            .collect_view()}
                    </ol>
                }
                    .into_any()
            }}
        </section>
    }
}

/// One action: kind, message, host, command and what it printed.
#[component]
fn CheckpointRow(checkpoint: CheckpointReport, flags: Vec<String>) -> impl IntoView {
    let kind = checkpoint.kind_name();
    let output = checkpoint.output.clone();
    view! {
        <li class=format!("checkpoint kind-{kind}") data-testid="checkpoint" data-kind=kind>
            <div class="checkpoint-meta">
                <span class=format!("badge kind-{kind}")>{kind}</span>
                <span class="msg">
                    {checkpoint.message.map_or_else(String::new, |m| format!("msg {m}"))}
                </span>
                <span class="host">{checkpoint.host.clone().unwrap_or_default()}</span>
                {(checkpoint.actor == "human")
                    .then(|| view! { <span class="pill">"human"</span> })}
                {flags
                    .into_iter()
                    .map(|rule| view! { <span class="flag" title="evidence of this finding">{rule}</span> })
                    .collect_view()}
            </div>
            <pre class="code command">
                <code>{checkpoint.command.clone()}</code>
            </pre>
            {output
                .map(|output| {
                    let lines = output.line_end - output.line_start + 1;
                    view! {
                        <details class="output">
                            <summary>
                                "output · "
                                {present::plural(lines as usize, "line", "lines")}
                            </summary>
                            <EvidenceBlock evidence=output />
                        </details>
                    }
                })}
        </li>
    }
}

/// The servers, one card each.
#[component]
fn Servers(servers: Vec<ServerReport>) -> impl IntoView {
    view! {
        <section class="block" aria-labelledby="servers-title">
            <h3 id="servers-title">"Servers"</h3>
            {if servers.is_empty() {
                view! { <p class="muted">"No server launch or server log found."</p> }.into_any()
            } else {
                servers
                    .into_iter()
                    .map(|server| view! { <ServerCard server /> })
                    .collect_view()
                    .into_any()
            }}
        </section>
    }
}

/// What one server was told to do and what its log shows.
#[component]
fn ServerCard(server: ServerReport) -> impl IntoView {
    let tri = |value: &'static str| {
        view! { <span class=format!("tri tri-{}", value.replace('/', ""))>{value}</span> }
    };
    let rows: Vec<(&'static str, &'static str, String)> = vec![
        ("host", "host", present::or_dash(server.host.clone())),
        ("port", "port", present::or_dash(server.port)),
        ("parallelism", "tp", present::parallelism(&server)),
        ("model", "model", present::or_dash(server.model.clone())),
        (
            "drafter",
            "drafter",
            present::or_dash(present::drafter(&server)),
        ),
        ("log", "log", present::or_dash(server.log_source.clone())),
    ];
    let ranks_class = if present::ranks_short(&server) {
        "ranks short"
    } else {
        "ranks"
    };
    let load = server.load_seconds.map(|s| format!("{s} s"));
    view! {
        <article
            class="server card"
            data-testid="server"
            data-engine=server.engine_name()
        >
            <header class="server-head">
                <span class="engine">{server.engine_name()}</span>
                <span class="muted">
                    {match (&server.host, server.port) {
                        (Some(host), Some(port)) => format!("{host}:{port}"),
                        (Some(host), None) => host.clone(),
                        (None, Some(port)) => format!("port {port}"),
                        (None, None) => String::new(),
                    }}
                </span>
            </header>
            <dl class="facts">
                {rows
                    .into_iter()
                    .map(|(label, key, value)| {
                        view! {
                            <div class="fact" data-field=key>
                                <dt>{label}</dt>
                                <dd>{value}</dd>
                            </div>
                        }
                    })
                    .collect_view()}
                <div class="fact" data-field="ready">
                    <dt>"ready"</dt>
                    <dd>{tri(present::tri_state(server.ready))}</dd>
                </div>
                <div class="fact" data-field="drafter-loaded">
                    <dt>"drafter loaded"</dt>
                    <dd>{tri(present::drafter_loaded(&server))}</dd>
                </div>
                <div class="fact" data-field="ranks">
                    <dt>{present::ranks_label(&server)}</dt>
                    <dd class=ranks_class>{present::ranks(&server)}</dd>
                </div>
                {load
                    .map(|load| {
                        view! {
                            <div class="fact" data-field="load">
                                <dt>"weights loaded in"</dt>
                                <dd>{load}</dd>
                            </div>
                        }
                    })}
            </dl>
            {(!server.ledger.is_empty())
                .then(|| {
                    view! {
                        <div class="ledger">
                            <p class="label">"What the agent checked"</p>
                            <ul class="ledger-list" aria-label="Verification ledger">
                                {server
                                    .ledger
                                    .iter()
                                    .map(|entry| {
                                        let status = entry.status.name();
                                        view! {
                                            <li
                                                class="ledger-entry"
                                                data-testid="ledger-entry"
                                                data-check=entry.check.clone()
                                                data-status=status
                                                title=entry.detail.clone()
                                            >
                                                <span class=format!(
                                                    "ledger-status status-{status}",
                                                )>{status}</span>
                                                <span class="ledger-check">{entry.check.clone()}</span>
                                            </li>
                                        }
                                    })
                                    .collect_view()}
                            </ul>
                        </div>
                    }
                })}
            {(!server.phases.is_empty())
                .then(|| {
                    view! {
                        <ol class="phases" aria-label="Phases seen in the log">
                            {server
                                .phases
                                .iter()
                                .map(|phase| {
                                    let at = phase
                                        .time
                                        .clone()
                                        .unwrap_or_else(|| {
                                            format!("line {}", phase.evidence.line_start)
                                        });
                                    view! {
                                        <li class=format!("phase phase-{}", phase.phase_name())>
                                            <span class="phase-name">{phase.phase_name()}</span>
                                            <span class="muted">{at}</span>
                                        </li>
                                    }
                                })
                                .collect_view()}
                        </ol>
                    }
                })}
            {server
                .failure
                .clone()
                .map(|failure| {
                    view! {
                        <div class="failure">
                            <p class="notice error">"Failed: " {failure.kind.clone()}</p>
                            <EvidenceBlock evidence=failure.evidence />
                        </div>
                    }
                })}
            {server
                .last_line
                .clone()
                .map(|last| {
                    view! {
                        <div class="last-line">
                            <p class="label">{present::last_line_label(&server)}</p>
                            <EvidenceBlock evidence=last />
                        </div>
                    }
                })}
        </article>
    }
}

/// The inputs as the analysis read them.
#[component]
fn Sources(sources: Vec<SourceReport>) -> impl IntoView {
    view! {
        <section class="block" aria-labelledby="sources-title">
            <h3 id="sources-title">"Sources"</h3>
            <ul class="sources">
                {sources
                    .into_iter()
                    .map(|source| {
                        let how = if source.format_detected { "detected" } else { "chosen" };
                        view! {
                            <li data-testid="source-report">
                                <span class="source-name">{source.name.clone()}</span>
                                <span class="muted">
                                    {format!(
                                        "{} ({how}) · {}",
                                        source.format.name(),
                                        present::plural(
                                            usize::try_from(source.lines).unwrap_or(usize::MAX),
                                            "line",
                                            "lines",
                                        ),
                                    )}
                                </span>
                            </li>
                        }
                    })
                    .collect_view()}
            </ul>
        </section>
    }
}

/// Problems reading the input, if any.
#[component]
fn Diagnostics(diagnostics: Vec<DiagnosticReport>) -> impl IntoView {
    (!diagnostics.is_empty()).then(|| {
        view! {
            <section class="block diagnostics" data-testid="diagnostics" aria-label="Diagnostics">
                <ul>
                    {diagnostics
                        .into_iter()
                        .map(|d| {
                            let place = match d.line {
                                Some(line) => format!("{}:{line}", d.source),
                                None => d.source.clone(),
                            };
                            view! {
                                <li class=format!("diagnostic level-{}", d.level)>
                                    <span class="pill">{d.level.clone()}</span>
                                    <span class="muted">{place}</span>
                                    <span>{d.message.clone()}</span>
                                </li>
                            }
                        })
                        .collect_view()}
                </ul>
            </section>
        }
    })
}

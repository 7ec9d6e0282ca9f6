//! The results: summary, exports and sharing, the filter bar, findings
//! grouped by severity with their evidence, suggested check and rule
//! documentation, the timeline (lanes per host and server, then every
//! checkpoint), the servers, the source viewer and any diagnostics. Each
//! component renders one part of a [`Report`]; the words come from
//! [`crate::present`].

// `#[component]` expands to builder items declared `pub`, which this binary
// crate cannot export; the lint has nothing to fix in them.
#![allow(unreachable_pub)]

use std::sync::Arc;

use hindsight_core::Severity;
use hindsight_core::report::visible::visible;
use hindsight_core::report::{
    CheckpointReport, DiagnosticReport, Evidence, FindingReport, LedgerReport, Report,
    ServerReport, SourceReport,
};
use hindsight_core::rules::Rule;
use leptos::prelude::*;

use crate::browser;
use crate::model::Analysis;
use crate::present::{self, Filter, Inline};
use crate::share;
use crate::state::State;
use crate::viewer::{Focus, SourceViewer};

/// Checkpoint kinds, in the order the filter bar lists them.
const KINDS: [&str; 6] = ["build", "kill", "launch", "verify", "wait", "other"];

/// Everything below the inputs for one report.
#[component]
pub(crate) fn Results(analysis: Analysis, state: State) -> impl IntoView {
    let Analysis {
        report,
        revision,
        sources,
        secrets,
        millis,
        run,
        ..
    } = analysis;
    let report = Arc::new(report);
    provide_context(state.focus);
    let summary = present::summary(&report);
    let groups = present::by_severity(&report);
    let message = RwSignal::new(None::<(bool, String)>);
    let share_link = RwSignal::new(None::<String>);
    let markdown = hindsight_core::report::markdown::render(&report);
    let json = report.to_json();
    let export = move |name: &'static str, mime: &'static str, text: String| {
        move |_| {
            if let Err(e) = browser::download(name, mime, &text) {
                message.set(Some((true, format!("Export failed: {e}"))));
            }
        }
    };
    let markdown_for_copy = markdown.clone();
    let copy_markdown = move |_| {
        let text = markdown_for_copy.clone();
        leptos::task::spawn_local(async move {
            message.set(Some(match browser::copy(&text).await {
                Ok(()) => (
                    false,
                    "The Markdown postmortem is on the clipboard.".to_owned(),
                ),
                Err(e) => (true, format!("Could not copy: {e}")),
            }));
        });
    };
    let share = move |_| {
        let payload = state
            .inputs
            .with_untracked(|i| state.config.with_untracked(|c| share::payload(i, c)));
        leptos::task::spawn_local(async move {
            let fragment = match payload {
                Ok(json) => match browser::deflate_raw(&json).await {
                    Ok(packed) => share::fragment(&packed).map_err(|e| e.to_string()),
                    Err(e) => Err(format!("Could not compress the link: {e}")),
                },
                Err(e) => Err(e.to_string()),
            };
            match fragment {
                Ok(fragment) => {
                    let link = browser::url_with_fragment(&fragment);
                    share_link.set(Some(link.clone()));
                    let copied = browser::copy(&link).await.is_ok();
                    message.set(Some((
                        false,
                        format!(
                            "Share link ready{} ({} KB). It holds the inputs with credentials redacted, in the part of the link browsers never send to a server.",
                            if copied { " and copied" } else { "" },
                            link.len().div_ceil(1024)
                        ),
                    )));
                }
                Err(e) => {
                    share_link.set(None);
                    message.set(Some((true, e)));
                }
            }
        });
    };
    let print = move |_| {
        let _ = gloo::utils::window().print();
    };

    // The filter bar's state; the search text is kept with the view.
    let view = state.view;
    let hidden_severities = RwSignal::new(Vec::<Severity>::new());
    let hidden_kinds = RwSignal::new(Vec::<&'static str>::new());
    let host = RwSignal::new(None::<String>);
    let server = RwSignal::new(None::<usize>);
    let filter = Memo::new(move |_| Filter {
        search: view.with(|v| crate::present::lower(v.search.trim())),
        hidden_severities: hidden_severities.get(),
        hidden_kinds: hidden_kinds.get(),
        host: host.get(),
        server: server.get(),
    });
    let findings = report.findings.clone();

    view! {
        <section
            class="results"
            data-testid="results"
            data-revision=revision.to_string()
            data-run=run.to_string()
            aria-labelledby="results-title"
        >
            <div class="results-head">
                <div>
                    <h2 id="results-title" tabindex="-1">"Postmortem"</h2>
                    <p class="summary" data-testid="summary">
                        {summary}
                    </p>
                    <p class="muted timing" data-testid="timing">
                        {format!("analyzed in {} ms", crate::present::fixed(millis, 0))}
                    </p>
                </div>
                <div class="toolbar" role="toolbar" aria-label="Export and share">
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
                    <button type="button" class="button" data-testid="copy-markdown" on:click=copy_markdown>
                        "Copy Markdown"
                    </button>
                    <button type="button" class="button" data-testid="share" on:click=share>
                        "Share link"
                    </button>
                    <button type="button" class="button quiet" data-testid="print" on:click=print>
                        "Print"
                    </button>
                </div>
            </div>
            {move || {
                message
                    .get()
                    .map(|(error, text)| {
                        view! {
                            <p
                                class=if error { "notice error" } else { "notice ok" }
                                role=if error { "alert" } else { "status" }
                                data-testid="results-message"
                            >
                                {text}
                            </p>
                        }
                    })
            }}
            {move || {
                share_link
                    .get()
                    .map(|link| {
                        view! {
                            <label class="share-link">
                                <span class="label">"Share link"</span>
                                <input
                                    type="text"
                                    readonly
                                    data-testid="share-link"
                                    prop:value=link
                                    on:focus=move |ev| {
                                        let input: web_sys::HtmlInputElement = event_target(&ev);
                                        input.select();
                                    }
                                />
                            </label>
                        }
                    })
            }}
            <Diagnostics diagnostics=report.diagnostics.clone() />
            <FilterBar report=report.clone() view hidden_severities hidden_kinds host server />
            <div class="results-grid">
                <div class="results-main">
                    <section class="block" aria-labelledby="findings-title">
                        <h3 id="findings-title">"Findings"</h3>
                        {if groups.is_empty() {
                            // Only an all-clear reads as one: a failed server
                            // or an input nothing was recognised in does not.
                            let class = if report.summary.verdict
                                == hindsight_core::report::Verdict::AllClear
                            {
                                "notice ok"
                            } else {
                                "notice warn"
                            };
                            view! {
                                <p
                                    class=class
                                    data-testid="no-findings"
                                    data-verdict=verdict_name(report.summary.verdict)
                                >
                                    {report.summary.headline.clone()}
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
                                    view! {
                                        <SeverityGroup severity findings report=report.clone() filter />
                                    }
                                })
                                .collect_view()
                                .into_any()
                        }}
                    </section>
                    <Timeline report=report.clone() findings filter />
                </div>
                <aside class="results-side">
                    <Servers servers=report.servers.clone() />
                    <Sources sources=report.sources.clone() />
                </aside>
            </div>
            <SourceViewer
                sources
                secrets
                focus=state.focus
                show_secrets=Signal::derive(move || view.with(|v| v.show_secrets))
            />
            <label class="secrets-toggle">
                <input
                    type="checkbox"
                    data-testid="show-secrets"
                    prop:checked=move || view.with(|v| v.show_secrets)
                    on:change=move |ev| {
                        let on = event_target_checked(&ev);
                        view.update(|v| v.show_secrets = on);
                    }
                />
                " Show credentials in the source viewer (they stay redacted in findings, exports and share links)"
            </label>
        </section>
    }
}

/// Search, severity and kind switches, host and server.
#[component]
fn FilterBar(
    report: Arc<Report>,
    view: RwSignal<crate::saved::View>,
    hidden_severities: RwSignal<Vec<Severity>>,
    hidden_kinds: RwSignal<Vec<&'static str>>,
    host: RwSignal<Option<String>>,
    server: RwSignal<Option<usize>>,
) -> impl IntoView {
    fn toggle<T: PartialEq + Clone + Send + Sync + 'static>(list: RwSignal<Vec<T>>, item: T) {
        list.update(|l| {
            if let Some(i) = l.iter().position(|x| *x == item) {
                l.remove(i);
            } else {
                l.push(item);
            }
        });
    }
    let severities = Severity::WORST_FIRST
        .into_iter()
        .map(|s| {
            view! {
                <button
                    type="button"
                    class=format!("chip severity-{}", s.name())
                    data-testid="filter-severity"
                    data-value=s.name()
                    aria-pressed=move || (!hidden_severities.with(|h| h.contains(&s))).to_string()
                    on:click=move |_| toggle(hidden_severities, s)
                >
                    {s.name()}
                </button>
            }
        })
        .collect_view();
    let kinds = KINDS
        .into_iter()
        .filter(|k| report.checkpoints.iter().any(|c| c.kind_name() == *k))
        .map(|k| {
            view! {
                <button
                    type="button"
                    class=format!("chip kind-{k}")
                    data-testid="filter-kind"
                    data-value=k
                    aria-pressed=move || (!hidden_kinds.with(|h| h.contains(&k))).to_string()
                    on:click=move |_| toggle(hidden_kinds, k)
                >
                    {k}
                </button>
            }
        })
        .collect_view();
    let hosts = present::hosts(&report);
    let servers: Vec<(usize, String)> = report
        .servers
        .iter()
        .enumerate()
        .map(|(i, s)| (i, present::server_label(s)))
        .collect();
    view! {
        <div class="filter-bar" role="search" aria-label="Filter the results" data-testid="filters">
            <input
                type="search"
                class="search"
                data-testid="search"
                placeholder="Search findings and commands"
                aria-label="Search findings and commands"
                prop:value=move || view.with(|v| v.search.clone())
                on:input=move |ev| {
                    let text = event_target_value(&ev);
                    view.update(|v| v.search = text);
                }
            />
            <div class="chips" role="group" aria-label="Severities shown">{severities}</div>
            <div class="chips" role="group" aria-label="Checkpoint kinds shown">{kinds}</div>
            <select
                aria-label="Host"
                data-testid="filter-host"
                on:change=move |ev| {
                    let value = event_target_value(&ev);
                    host.set((!value.is_empty()).then_some(value));
                }
            >
                <option value="">"every host"</option>
                {hosts.into_iter().map(|h| view! { <option value=h.clone()>{h.clone()}</option> }).collect_view()}
            </select>
            <select
                aria-label="Server"
                data-testid="filter-server"
                on:change=move |ev| server.set(event_target_value(&ev).parse().ok())
            >
                <option value="">"every server"</option>
                {servers
                    .into_iter()
                    .map(|(i, label)| view! { <option value=i.to_string()>{label}</option> })
                    .collect_view()}
            </select>
        </div>
    }
}

/// The findings of one severity, each with which of its excerpts an earlier
/// finding already quoted.
#[component]
fn SeverityGroup(
    severity: Severity,
    findings: Vec<(FindingReport, Vec<bool>)>,
    report: Arc<Report>,
    filter: Memo<Filter>,
) -> impl IntoView {
    let heading = present::severity_heading(severity, findings.len());
    let all: Vec<FindingReport> = findings.iter().map(|(f, _)| f.clone()).collect();
    let report_for_group = report.clone();
    let empty = move || filter.with(|f| !all.iter().any(|x| f.finding(x, &report_for_group)));
    view! {
        <div
            class=format!("severity-group severity-{}", severity.name())
            prop:hidden=empty
        >
            <h4 class="severity-heading">{heading}</h4>
            {findings
                .into_iter()
                .map(|(finding, repeated)| {
                    let report = report.clone();
                    let shown = finding.clone();
                    let hidden = move || filter.with(|f| !f.finding(&shown, &report));
                    view! { <Finding finding repeated hidden /> }
                })
                .collect_view()}
        </div>
    }
}

/// One finding: what was assumed, the lines that show it, how to check it.
/// Excerpts an earlier finding already quoted are folded.
#[component]
fn Finding(
    finding: FindingReport,
    repeated: Vec<bool>,
    #[prop(into)] hidden: Signal<bool>,
) -> impl IntoView {
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
            prop:hidden=hidden
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
                    <button
                        type="button"
                        class="button small"
                        aria-label="Copy the check command"
                        on:click=copy
                    >
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
                // Bidi controls and zero-width characters shown, not obeyed.
                .map(|line| visible(line, false).into_owned())
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
    let focus = use_context::<RwSignal<Option<Focus>>>();
    let target = Focus {
        source: evidence.source.clone(),
        line_start: evidence.line_start,
        line_end: evidence.line_end,
    };
    let jump = focus.map(|focus| {
        view! {
            <button
                type="button"
                class="link-button"
                data-testid="jump"
                aria-label=format!("Show {label} in the source viewer")
                on:click=move |_| focus.set(Some(target.clone()))
            >
                "show in source"
            </button>
        }
    });
    view! {
        <figure class="evidence" data-testid="evidence">
            <figcaption>
                <span>{label.clone()}</span>
                {jump}
            </figcaption>
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

/// The overview: a lane per host with its checkpoints, a lane per server
/// with its phases.
#[component]
fn Lanes(report: Arc<Report>) -> impl IntoView {
    let lanes = present::lanes(&report);
    let caption = present::lanes_caption(&report);
    (!lanes.is_empty()).then(|| {
        view! {
            <div class="lanes" data-testid="lanes" role="group" aria-label="Timeline overview">
                {lanes
                    .into_iter()
                    .map(|lane| {
                        view! {
                            <div class="lane" data-testid="lane">
                                <span class="lane-label" title=lane.label.clone()>{lane.label.clone()}</span>
                                <div class="lane-track">
                                    {lane
                                        .segments
                                        .into_iter()
                                        .map(|segment| {
                                            let title = segment.label.clone();
                                            view! {
                                                <span
                                                    class=format!("segment phase-{}", segment.phase)
                                                    data-testid="phase-bar"
                                                    title=title
                                                    style:left=format!("{}%", crate::present::fixed(segment.x, 2))
                                                    style:width=format!("{}%", crate::present::fixed(segment.width, 2))
                                                >
                                                    <span class="segment-label">{segment.label}</span>
                                                </span>
                                            }
                                        })
                                        .collect_view()}
                                    {lane
                                        .marks
                                        .into_iter()
                                        .map(|mark| {
                                            let anchor = format!("checkpoint-{}", mark.checkpoint);
                                            view! {
                                                <button
                                                    type="button"
                                                    class=format!("mark kind-{}", mark.kind)
                                                    title=mark.title.clone()
                                                    aria-label=mark.title
                                                    style:left=format!("{}%", crate::present::fixed(mark.x, 2))
                                                    on:click=move |_| {
                                                        if let Some(row) = gloo::utils::document()
                                                            .get_element_by_id(&anchor)
                                                        {
                                                            row.scroll_into_view();
                                                        }
                                                    }
                                                ></button>
                                            }
                                        })
                                        .collect_view()}
                                </div>
                            </div>
                        }
                    })
                    .collect_view()}
                <p class="lanes-caption muted">{caption}</p>
            </div>
        }
    })
}

/// The agent's actions in order, with the gaps between them.
#[component]
fn Timeline(
    report: Arc<Report>,
    findings: Vec<FindingReport>,
    filter: Memo<Filter>,
) -> impl IntoView {
    let checkpoints = report.checkpoints.clone();
    let count = checkpoints.len();
    view! {
        <section class="block" aria-labelledby="timeline-title">
            <h3 id="timeline-title">
                "Timeline " <span class="count">{present::plural(count, "checkpoint", "checkpoints")}</span>
            </h3>
            <Lanes report=report.clone() />
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
                let gaps: Vec<Option<String>> = std::iter::once(None)
                    .chain(checkpoints.windows(2).map(|w| present::gap(&w[0], &w[1])))
                    .collect();
                view! {
                    <ol class="timeline">
                        {checkpoints
                            .into_iter()
                            .zip(gaps)
                            .enumerate()
                            .map(|(index, (checkpoint, gap))| {
                                let flags = present::flags(&checkpoint, &findings);
                                let report = report.clone();
                                let shown = checkpoint.clone();
                                let hidden = move || filter.with(|f| !f.checkpoint(&shown, &report));
                                view! {
                                    {gap.map(|gap| view! { <li class="gap" aria-hidden="true">{gap}</li> })}
                                    <CheckpointRow checkpoint flags index hidden />
                                }
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
fn CheckpointRow(
    checkpoint: CheckpointReport,
    flags: Vec<String>,
    index: usize,
    #[prop(into)] hidden: Signal<bool>,
) -> impl IntoView {
    let kind = checkpoint.kind_name();
    let output = checkpoint.output.clone();
    view! {
        <li
            class=format!("checkpoint kind-{kind}")
            id=format!("checkpoint-{index}")
            data-testid="checkpoint"
            data-kind=kind
            prop:hidden=hidden
        >
            <div class="checkpoint-meta">
                <span class=format!("badge kind-{kind}")>{kind}</span>
                <span class="msg">
                    {checkpoint.message.map_or_else(String::new, |m| format!("msg {m}"))}
                </span>
                <span class="host">{checkpoint.host.clone().unwrap_or_default()}</span>
                {(checkpoint.actor == hindsight_core::report::RanBy::Human)
                    .then(|| view! { <span class="pill">"human"</span> })}
                {flags
                    .into_iter()
                    .map(|rule| view! { <span class="flag" title="evidence of this finding">{rule}</span> })
                    .collect_view()}
            </div>
            <pre class="code command">
                <code>{visible(&checkpoint.command, false).into_owned()}</code>
            </pre>
            // A build's or a kill's own checks (built product, GPUs freed).
            {(!checkpoint.ledger.is_empty())
                .then(|| view! { <LedgerList ledger=checkpoint.ledger.clone() /> })}
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

/// A verification ledger: each check with its status; the detail on hover.
#[component]
fn LedgerList(ledger: Vec<LedgerReport>) -> impl IntoView {
    view! {
        <div class="ledger">
            <p class="label">"What the agent checked"</p>
            <ul class="ledger-list" aria-label="Verification ledger">
                {ledger
                    .into_iter()
                    .map(|entry| {
                        let status = entry.status.name();
                        let check = entry.check.name();
                        let attribute = check;
                        view! {
                            <li
                                class="ledger-entry"
                                data-testid="ledger-entry"
                                data-check=attribute
                                data-status=status
                                title=entry.detail
                            >
                                <span class=format!("ledger-status status-{status}")>{status}</span>
                                <span class="ledger-check">{check}</span>
                            </li>
                        }
                    })
                    .collect_view()}
            </ul>
        </div>
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
        ("port", "port", server.port_text()),
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
    // Shown when known: the load time, restarts in the log.
    let load = server.load_seconds.map(|s| format!("{s} s"));
    let restarts = present::restarts(&server);
    let fact = |label: &'static str, key: &'static str, value: String| {
        view! {
            <div class="fact" data-field=key>
                <dt>{label}</dt>
                <dd>{value}</dd>
            </div>
        }
    };
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
                {rows.into_iter().map(|(label, key, value)| fact(label, key, value)).collect_view()}
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
                {[("weights loaded in", "load", load), ("restarted in its log", "restarts", restarts)]
                    .into_iter()
                    .filter_map(|(label, key, value)| value.map(|value| fact(label, key, value)))
                    .collect_view()}
            </dl>
            {(!server.ledger.is_empty())
                .then(|| view! { <LedgerList ledger=server.ledger.clone() /> })}
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
                            <p class="notice error">"Failed: " {failure.kind.name()}</p>
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
            <h3 id="sources-title">"Inputs read"</h3>
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
                                    <span class="pill">{d.level.name()}</span>
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

/// A verdict's name as the report's JSON writes it.
fn verdict_name(verdict: hindsight_core::report::Verdict) -> &'static str {
    use hindsight_core::report::Verdict;
    match verdict {
        Verdict::Findings => "findings",
        Verdict::ServerFailed => "server-failed",
        Verdict::NotUnderstood => "not-understood",
        Verdict::Unresolved => "unresolved",
        Verdict::AllClear => "all-clear",
    }
}

//! Component tests in real browsers (`wasm-pack test --headless --chrome`
//! and `--firefox` on `web/`): the page's components are mounted into the
//! document, driven through the DOM events a user's actions fire, and judged
//! by the DOM Leptos renders. The plain modules keep their native tests; these
//! prove the wiring between signals and views that only a browser can run.
//!
//! Expectations come from the core's own report for the same inputs rather
//! than from copied numbers, so a rule learning something new does not break
//! them, while a view that drops, misplaces or mislabels a part of the report
//! does. The test runner's page has no `web/boot.js`, so the page can start
//! no worker and analyzes on the main thread ([`crate::protocol::run`]): the
//! same fallback an old browser takes. The real stylesheet is put into the
//! document, so the source viewer scrolls as it does on the page.

use std::sync::Arc;

use hindsight_core::report::Report;
use hindsight_core::{Config, Format, Severity, Source};
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web_sys::{HtmlElement, HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement};

use crate::app::App;
use crate::editor::InputPanel;
use crate::model::{Analysis, Inputs, set_rule_enabled, set_rule_severity};
use crate::present::{self, Filter};
use crate::results::Results;
use crate::saved::{self, View};
use crate::seed;
use crate::state::State;
use crate::viewer::{MAX_SPACER, SourceViewer};

wasm_bindgen_test_configure!(run_in_browser);

/// How long a change may take to show before a test gives up. Leptos
/// updates the DOM in microtasks; only the 300 ms save delay needs more.
const PATIENCE_MS: f64 = 5_000.0;

/// A component mounted into a fresh `<div>` of the document; dropping it
/// unmounts the view, disposes its reactive owner and removes the `<div>`.
/// A failing test aborts (wasm has no unwinding) and leaves its `<div>`
/// behind, so every query looks only inside the test's own.
struct Mounted {
    root: HtmlElement,
    handle: Option<Box<dyn std::any::Any>>,
}

impl Drop for Mounted {
    fn drop(&mut self) {
        self.handle.take();
        self.root.remove();
    }
}

impl Mounted {
    fn all(&self, selector: &str) -> Vec<HtmlElement> {
        all(&self.root, selector)
    }

    fn one(&self, selector: &str) -> HtmlElement {
        one(&self.root, selector)
    }

    fn has(&self, selector: &str) -> bool {
        !self.all(selector).is_empty()
    }

    /// The text of every element matching `selector`, in order.
    fn texts(&self, selector: &str) -> Vec<String> {
        self.all(selector).iter().map(|e| text(e)).collect()
    }

    /// The `data-rule` of every finding not hidden by a filter, in order.
    fn shown_rules(&self) -> Vec<String> {
        self.all("[data-testid=finding]")
            .iter()
            .filter(|f| !f.hidden())
            .map(|f| attr(f, "data-rule"))
            .collect()
    }
}

/// Mounts `view` and lets its effects make their first run, as they have
/// by the time a user can act on a page.
async fn mount<F, N>(view: F) -> Mounted
where
    F: FnOnce() -> N + 'static,
    N: IntoView + 'static,
{
    add_stylesheet();
    let root: HtmlElement = gloo::utils::document()
        .create_element("div")
        .expect("a div")
        .unchecked_into();
    gloo::utils::body()
        .append_child(&root)
        .expect("the div in the body");
    let handle = leptos::mount::mount_to(root.clone(), view);
    let mounted = Mounted {
        root,
        handle: Some(Box::new(handle)),
    };
    tick().await;
    mounted
}

/// The whole page as a first visit sees it: nothing stored, so the seed.
async fn mount_app() -> Mounted {
    crate::browser::forget(saved::KEY);
    mount(App).await
}

/// The page's stylesheet, once: the viewer's scroll box and 20 px lines
/// exist only through it.
fn add_stylesheet() {
    const ID: &str = "hindsight-style";
    let document = gloo::utils::document();
    if document.get_element_by_id(ID).is_none() {
        let style = document.create_element("style").expect("a style element");
        style.set_id(ID);
        style.set_text_content(Some(include_str!("../style.css")));
        gloo::utils::body()
            .append_child(&style)
            .expect("the stylesheet in the body");
    }
}

/// State for mounting one component without the page around it. Its
/// `analyze` callback only counts its calls.
fn state(inputs: Inputs, analysis: Option<Analysis>, analyzed: RwSignal<u32>) -> State {
    State {
        inputs: RwSignal::new(inputs),
        config: RwSignal::new(Config::default()),
        view: RwSignal::new(View::default()),
        analysis: RwSignal::new(analysis),
        running: RwSignal::new(None),
        now: RwSignal::new(0.0),
        focus: RwSignal::new(None),
        notice: RwSignal::new(None),
        analyze: Callback::new(move |()| analyzed.update(|n| *n += 1)),
        cancel: Callback::new(|()| {}),
        clear_all: Callback::new(|()| {}),
    }
}

/// The results of `inputs` under `config`, mounted alone.
async fn mount_results(inputs: Inputs, config: &Config) -> (Mounted, Report) {
    let analysis = Analysis::of(&inputs, config);
    let report = analysis.report.clone();
    let state = state(inputs, None, RwSignal::new(0));
    let mounted = mount(move || view! { <Results analysis state /> }).await;
    (mounted, report)
}

fn all(root: &web_sys::Element, selector: &str) -> Vec<HtmlElement> {
    let list = root
        .query_selector_all(selector)
        .unwrap_or_else(|_| panic!("`{selector}` is not a selector"));
    (0..list.length())
        .filter_map(|i| list.get(i))
        .map(JsCast::unchecked_into)
        .collect()
}

fn one(root: &web_sys::Element, selector: &str) -> HtmlElement {
    root.query_selector(selector)
        .unwrap_or_else(|_| panic!("`{selector}` is not a selector"))
        .unwrap_or_else(|| panic!("nothing matches `{selector}`"))
        .unchecked_into()
}

fn text(element: &web_sys::Element) -> String {
    element.text_content().unwrap_or_default()
}

fn attr(element: &web_sys::Element, name: &str) -> String {
    element.get_attribute(name).unwrap_or_default()
}

/// Lets a browser task run: every microtask (where Leptos updates the
/// DOM) first.
async fn tick() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let _ = gloo::utils::window()
            .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 0);
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

/// Waits until `ready` holds, failing the test with `what` if it never does.
async fn until(what: &str, mut ready: impl FnMut() -> bool) {
    let started = js_sys::Date::now();
    while !ready() {
        assert!(
            js_sys::Date::now() - started < PATIENCE_MS,
            "timed out waiting for {what}"
        );
        tick().await;
    }
}

/// What a user's typing does: the new value, then a bubbling `input`.
fn type_into(element: &HtmlElement, value: &str) {
    if let Some(input) = element.dyn_ref::<HtmlInputElement>() {
        input.set_value(value);
    } else if let Some(area) = element.dyn_ref::<HtmlTextAreaElement>() {
        area.set_value(value);
    } else {
        panic!("cannot type into <{}>", element.tag_name());
    }
    fire(element, "input");
}

/// What picking an option does: the new value, then a bubbling `change`.
fn choose(element: &HtmlElement, value: &str) {
    let select = element.dyn_ref::<HtmlSelectElement>().expect("a <select>");
    select.set_value(value);
    assert_eq!(select.value(), value, "no option `{value}`");
    fire(element, "change");
}

fn fire(element: &HtmlElement, kind: &str) {
    let init = web_sys::EventInit::new();
    init.set_bubbles(true);
    let event = web_sys::Event::new_with_event_init_dict(kind, &init).expect("an event");
    element.dispatch_event(&event).expect("dispatched");
}

fn rules_of(report: &Report) -> Vec<String> {
    report.findings.iter().map(|f| f.rule.clone()).collect()
}

/// The report's rules as the page lists them: by severity, worst first.
fn present_order(report: &Report) -> Vec<String> {
    present::by_severity(report)
        .into_iter()
        .flat_map(|(_, findings)| findings.into_iter().map(|f| f.rule))
        .collect()
}

/// The seed's sources, the log read as `format`.
fn seed_with_log_as(format: Format) -> Vec<Source> {
    seed::sources()
        .into_iter()
        .map(|s| {
            if s.name == seed::LOG.0 {
                s.with_format(format)
            } else {
                s
            }
        })
        .collect()
}

#[wasm_bindgen_test]
async fn without_a_worker_the_page_analyzes_the_seed_on_the_main_thread() {
    let boot = js_sys::Reflect::get(&js_sys::global(), &"hindsightBoot".into())
        .expect("the global object");
    assert!(
        boot.is_undefined(),
        "this test needs a page without boot.js"
    );
    let page = mount_app().await;
    until("the first results", || page.has("[data-testid=results]")).await;

    let report = hindsight_core::analyze(&seed::sources());
    let results = page.one("[data-testid=results]");
    assert_eq!(attr(&results, "data-run"), "1");
    assert_eq!(
        text(&page.one("[data-testid=summary]")),
        present::summary(&report)
    );
    assert_eq!(page.shown_rules(), present_order(&report));
    for rule in seed::RULES {
        assert!(page.has(&format!("[data-testid=finding][data-rule={rule}]")));
    }
    // The run finished on this thread: nothing is left in progress.
    assert!(!page.has("[data-testid=progress]"));
    assert!(!page.has("[data-testid=stale]"));
}

#[wasm_bindgen_test]
async fn findings_are_grouped_by_severity_worst_first() {
    let mut config = Config::default();
    set_rule_severity(&mut config, "port-unchecked", Severity::Error);
    let (page, report) = mount_results(seed::inputs(), &config).await;

    let groups = page.all(".severity-group");
    let headings: Vec<String> = groups
        .iter()
        .map(|g| text(&one(g, ".severity-heading")))
        .collect();
    let (errors, warnings, _) = report.counts();
    assert_eq!(errors, 1);
    assert_eq!(
        headings,
        ["Errors (1)".to_owned(), format!("Warnings ({warnings})")]
    );
    for (group, severity) in groups.iter().zip([Severity::Error, Severity::Warning]) {
        let rules: Vec<String> = all(group, "[data-testid=finding]")
            .iter()
            .inspect(|f| assert_eq!(attr(f, "data-severity"), severity.name()))
            .map(|f| attr(f, "data-rule"))
            .collect();
        let expected: Vec<String> = report
            .findings
            .iter()
            .filter(|f| f.severity == severity)
            .map(|f| f.rule.clone())
            .collect();
        assert_eq!(rules, expected, "{} group", severity.name());
    }
    assert_eq!(page.shown_rules()[0], "port-unchecked");
    // Each finding carries its check and its rule's documentation.
    let finding = page.one("[data-testid=finding][data-rule=port-unchecked]");
    let expected = report
        .findings
        .iter()
        .find(|f| f.rule == "port-unchecked")
        .expect("the finding in the report");
    assert_eq!(
        text(&one(&finding, "[data-testid=suggestion] pre")),
        expected.suggestion
    );
    assert!(text(&one(&finding, "[data-testid=rule-doc]")).contains("port-unchecked"));
}

#[wasm_bindgen_test]
async fn the_server_ledger_and_the_timeline_show_every_check_and_checkpoint() {
    let (page, report) = mount_results(seed::inputs(), &Config::default()).await;

    let servers = page.all("[data-testid=server]");
    assert_eq!(servers.len(), report.servers.len());
    let server = &report.servers[0];
    let card = &servers[0];
    assert_eq!(attr(card, "data-engine"), server.engine_name());
    assert_eq!(text(&one(card, "[data-field=port] dd")), server.port_text());
    let pairs = |entries: Vec<HtmlElement>| -> Vec<(String, String)> {
        entries
            .iter()
            .map(|e| (attr(e, "data-check"), attr(e, "data-status")))
            .collect()
    };
    let ledger = pairs(all(card, "[data-testid=ledger-entry]"));
    let expected: Vec<(String, String)> = server
        .ledger
        .iter()
        .map(|l| (l.check.name().to_owned(), l.status.name().to_owned()))
        .collect();
    assert_eq!(ledger, expected);

    // The timeline: every checkpoint in order, each with its own ledger.
    let rows = page.all("[data-testid=checkpoint]");
    let kinds: Vec<String> = rows.iter().map(|r| attr(r, "data-kind")).collect();
    let expected: Vec<&str> = report.checkpoints.iter().map(|c| c.kind_name()).collect();
    assert_eq!(kinds, expected);
    let mut statuses: Vec<String> = ledger.into_iter().map(|(_, s)| s).collect();
    for (row, checkpoint) in rows.iter().zip(&report.checkpoints) {
        let ledger = pairs(all(row, "[data-testid=ledger-entry]"));
        let expected: Vec<(String, String)> = checkpoint
            .ledger
            .iter()
            .map(|l| (l.check.name().to_owned(), l.status.name().to_owned()))
            .collect();
        assert_eq!(ledger, expected, "{}", checkpoint.command);
        assert!(text(row).contains(&checkpoint.command));
        statuses.extend(ledger.into_iter().map(|(_, s)| s));
    }
    // The seed exercises each way a check can end.
    for status in ["passed", "failed", "not-checked"] {
        assert!(statuses.iter().any(|s| s == status), "no {status} check");
    }

    // The overview: a lane per host and per server, the server's phases.
    let lanes = present::lanes(&report);
    assert!(lanes.len() >= 2, "{lanes:?}");
    assert_eq!(page.all("[data-testid=lane]").len(), lanes.len());
    let bars: usize = lanes.iter().map(|l| l.segments.len()).sum();
    assert!(bars > 0);
    assert_eq!(page.all("[data-testid=phase-bar]").len(), bars);
}

#[wasm_bindgen_test]
async fn filters_and_search_hide_findings_and_checkpoints() {
    let (page, report) = mount_results(seed::inputs(), &Config::default()).await;
    let everything = present_order(&report);
    assert_eq!(page.shown_rules(), everything);

    // Every seed finding is a warning: switching warnings off empties the list.
    let warnings = page.one("[data-testid=filter-severity][data-value=warning]");
    warnings.click();
    until("warnings hidden", || page.shown_rules().is_empty()).await;
    assert_eq!(attr(&warnings, "aria-pressed"), "false");
    assert!(page.all(".severity-group").iter().all(|g| g.hidden()));
    warnings.click();
    until("warnings back", || page.shown_rules() == everything).await;

    // A kind switched off hides exactly its checkpoints.
    let verify = page.one("[data-testid=filter-kind][data-value=verify]");
    verify.click();
    until("verify checkpoints hidden", || {
        page.all("[data-testid=checkpoint][data-kind=verify]")
            .iter()
            .all(|c| c.hidden())
    })
    .await;
    let shown: Vec<String> = page
        .all("[data-testid=checkpoint]")
        .iter()
        .filter(|c| !c.hidden())
        .map(|c| attr(c, "data-kind"))
        .collect();
    let expected: Vec<&str> = report
        .checkpoints
        .iter()
        .map(|c| c.kind_name())
        .filter(|k| *k != "verify")
        .collect();
    assert!(!shown.is_empty() && shown.len() < report.checkpoints.len());
    assert_eq!(shown, expected);

    verify.click();
    until("every checkpoint back", || {
        page.all("[data-testid=checkpoint]")
            .iter()
            .all(|c| !c.hidden())
    })
    .await;

    // The search, in any case, keeps the findings and checkpoints that
    // mention it.
    let search = Filter {
        search: "tensor".to_owned(),
        ..Filter::default()
    };
    let matching: Vec<String> = present::by_severity(&report)
        .into_iter()
        .flat_map(|(_, findings)| findings)
        .filter(|f| search.finding(f, &report))
        .map(|f| f.rule)
        .collect();
    assert!(!matching.is_empty() && matching.len() < everything.len());
    let checkpoints: Vec<bool> = report
        .checkpoints
        .iter()
        .map(|c| search.checkpoint(c, &report))
        .collect();
    assert!(checkpoints.contains(&true) && checkpoints.contains(&false));
    type_into(&page.one("[data-testid=search]"), "Tensor");
    until("the search applied", || page.shown_rules() == matching).await;
    let shown: Vec<bool> = page
        .all("[data-testid=checkpoint]")
        .iter()
        .map(|c| !c.hidden())
        .collect();
    assert_eq!(shown, checkpoints);
}

#[wasm_bindgen_test]
async fn show_in_source_opens_the_evidence_in_the_viewer() {
    let (page, report) = mount_results(seed::inputs(), &Config::default()).await;
    let evidence = report
        .findings
        .iter()
        .flat_map(|f| &f.evidence)
        .find(|e| e.source == seed::LOG.0)
        .expect("a finding quoting the log")
        .clone();
    // The viewer starts on the first source, which is not the log.
    let tabs = page.all("[data-testid=viewer-tab]");
    let log_tab = tabs
        .iter()
        .find(|t| text(t) == seed::LOG.0)
        .expect("a tab for the log");
    assert_eq!(attr(log_tab, "aria-selected"), "false");
    assert!(!page.has(".viewer-line.marked"));

    let label = format!(
        "Show {} in the source viewer",
        present::evidence_label(&evidence)
    );
    let jump = page
        .all("[data-testid=jump]")
        .into_iter()
        .find(|b| attr(b, "aria-label") == label)
        .expect("the evidence's button");
    jump.click();
    until("the evidence marked", || page.has(".viewer-line.marked")).await;

    assert_eq!(attr(log_tab, "aria-selected"), "true");
    let marked = page.all(".viewer-line.marked");
    let numbers: Vec<u32> = marked
        .iter()
        .map(|l| attr(l, "data-line").parse().expect("a line number"))
        .collect();
    let expected: Vec<u32> = (evidence.line_start..=evidence.line_end).collect();
    assert_eq!(numbers, expected);
    let lines: Vec<String> = marked.iter().map(|l| text(&one(l, ".tx"))).collect();
    assert_eq!(lines.join("\n"), evidence.text);
    // Drawn where the scroll box shows it, not just somewhere in the DOM.
    let view = page.one("[data-testid=viewer-scroll]");
    for line in &marked {
        assert_in_view(line, &view);
    }
}

/// Asserts that `line` is drawn inside the scroll box `view` shows.
fn assert_in_view(line: &web_sys::Element, view: &web_sys::Element) {
    let (line, view) = (
        line.get_bounding_client_rect(),
        view.get_bounding_client_rect(),
    );
    assert!(
        line.top() >= view.top() && line.bottom() <= view.bottom() + 1.0,
        "line at {}..{}, view {}..{}",
        line.top(),
        line.bottom(),
        view.top(),
        view.bottom()
    );
}

#[wasm_bindgen_test]
async fn credentials_stay_redacted_in_the_viewer_until_asked() {
    let token = "hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";
    let transcript = format!("$ export HF_TOKEN={token}\n$ echo done\ndone\n");
    let inputs = Inputs::with_sources([("transcript.txt", transcript.as_str())]);
    let (page, report) = mount_results(inputs, &Config::default()).await;
    assert!(rules_of(&report).contains(&"secret-exposed".to_owned()));

    let first_line = || text(&page.one(".viewer-line[data-line='1'] .tx"));
    assert!(first_line().starts_with("$ export HF_TOKEN="));
    assert!(!first_line().contains(token), "{}", first_line());
    let finding = page.one("[data-testid=finding][data-rule=secret-exposed]");
    assert!(!text(&finding).contains(token));

    page.one("[data-testid=show-secrets]").click();
    until("the credential shown", || first_line().contains(token)).await;
    // Only the viewer shows it: the finding's quote stays redacted.
    assert!(!text(&finding).contains(token));

    page.one("[data-testid=show-secrets]").click();
    until("the credential hidden again", || {
        !first_line().contains(token)
    })
    .await;
}

#[wasm_bindgen_test]
async fn hidden_characters_in_a_command_are_shown_not_obeyed() {
    // A right-to-left override makes the command display reversed; a
    // zero-width space hides inside a word.
    let transcript = "$ vllm serve m --port 8000 > /tmp/v\u{202E}gol.txt 2>&1 &\n$ curl -s localhost:8000/v1/mo\u{200B}dels\n{\"data\":[]}\nThe server is up.\n";
    let inputs = Inputs::with_sources([("transcript.txt", transcript)]);
    let (page, report) = mount_results(inputs, &Config::default()).await;
    assert!(
        report
            .diagnostics
            .iter()
            .any(|d| d.message.contains("do not show")),
        "{:?}",
        report.diagnostics
    );
    let commands = page.texts("[data-testid=checkpoint] .command code");
    assert!(
        commands
            .iter()
            .any(|c| c.contains("/tmp/v\u{27e8}U+202E\u{27e9}gol.txt")),
        "{commands:?}"
    );
    let first_line = text(&page.one(".viewer-line[data-line='1'] .tx"));
    assert!(
        first_line.contains("\u{27e8}U+202E\u{27e9}"),
        "{first_line}"
    );
    assert!(!first_line.contains('\u{202E}'));
    let quotes = page.texts("[data-testid=evidence] .tx");
    assert!(
        quotes
            .iter()
            .all(|q| !q.contains('\u{202E}') && !q.contains('\u{200B}'))
    );
}

#[wasm_bindgen_test]
async fn the_viewer_draws_only_the_lines_in_view_of_a_million() {
    const LINES: usize = 1_000_000;
    let mut text_of_all = "a line of the log\n".repeat(LINES - 1);
    text_of_all.push_str("the very last line");
    let sources = Arc::new(vec![crate::protocol::Snapshot::from(Source::new(
        "big.log",
        text_of_all,
    ))]);
    let page = mount(move || {
        view! {
            <SourceViewer
                sources
                secrets=Arc::new(Vec::new())
                focus=RwSignal::new(None)
                show_secrets=Signal::derive(|| false)
            />
        }
    })
    .await;
    let drawn = |page: &Mounted| -> Vec<usize> {
        page.all(".viewer-line")
            .iter()
            .map(|l| attr(l, "data-line").parse().expect("a line number"))
            .collect()
    };

    assert_eq!(
        text(&page.one("[data-testid=viewer-lines]")),
        present::plural(LINES, "line", "lines")
    );
    let top = drawn(&page);
    assert!(!top.is_empty() && top.len() < 100, "{} rows", top.len());
    assert_eq!(top[0], 1);
    assert!(top.windows(2).all(|w| w[1] == w[0] + 1));
    // The scroll range is capped below every browser's element height limit.
    let spacer = page.one(".viewer-spacer");
    assert_eq!(
        f64::from(spacer.offset_height()),
        MAX_SPACER,
        "spacer {}",
        spacer.offset_height()
    );

    // Scrolled to the very end: still a few dozen rows, the last line among them.
    let scroller = page.one("[data-testid=viewer-scroll]");
    assert!(scroller.client_height() > 0, "the scroll box has no height");
    scroller.set_scroll_top(scroller.scroll_height() - scroller.client_height());
    fire(&scroller, "scroll");
    until("the last lines drawn", || {
        drawn(&page).last() == Some(&LINES)
    })
    .await;
    let bottom = drawn(&page);
    assert!(bottom.len() < 100, "{} rows", bottom.len());
    let last = page.one(&format!(".viewer-line[data-line='{LINES}'] .tx"));
    assert_eq!(text(&last), "the very last line");
    // The last line is on screen, not drawn somewhere out of view.
    assert_in_view(&last, &scroller);
}

#[wasm_bindgen_test]
async fn the_editor_adds_renames_retypes_and_removes_sources() {
    let inputs = seed::inputs();
    let analysis = Analysis::of(&inputs, &Config::default());
    let analyzed = RwSignal::new(0u32);
    let state = state(inputs, Some(analysis), analyzed);
    let page = mount(move || view! { <InputPanel state /> }).await;
    let names = || -> Vec<String> {
        page.all("[data-testid=source-name]")
            .iter()
            .map(|n| n.unchecked_ref::<HtmlInputElement>().value())
            .collect()
    };
    let to_analyze = || text(&page.one(".actions .muted"));
    until("the names", || names() == [seed::TRANSCRIPT.0, seed::LOG.0]).await;
    assert_eq!(to_analyze(), "2 sources to analyze");
    assert!(!page.has("[data-testid=stale]"));

    page.one("[data-testid=add-source]").click();
    until("a third editor", || names().len() == 3).await;
    assert_eq!(names()[2], "server.log");
    let editor = page.all("[data-testid=source-editor]").remove(2);
    assert_eq!(
        one(&editor, "[data-testid=source-text]")
            .unchecked_ref::<HtmlTextAreaElement>()
            .value(),
        ""
    );
    // An empty source is not analyzed, but the results are now stale.
    assert_eq!(to_analyze(), "2 sources to analyze");
    until("the stale notice", || page.has("[data-testid=stale]")).await;

    type_into(&one(&editor, "[data-testid=source-name]"), "vllm.log");
    type_into(
        &one(&editor, "[data-testid=source-text]"),
        "INFO 02-11 22:34:41 api_server.py:1 vLLM API server version 0.6.3\n",
    );
    choose(&one(&editor, "[data-testid=source-format]"), "vllm-log");
    until("the third source counted", || {
        to_analyze() == "3 sources to analyze"
    })
    .await;
    let sources = state.inputs.with_untracked(Inputs::to_sources);
    let third = &sources[2];
    assert_eq!(third.name, "vllm.log");
    assert_eq!(third.format, Some(Format::VllmLog));
    assert!(third.text.contains("vLLM API server"));
    assert_eq!(
        text(&one(&editor, ".editor-foot")),
        present::text_stats(&third.text)
    );

    // Removing the first editor leaves the others, keyed, as they were.
    one(
        &page.all("[data-testid=source-editor]")[0],
        "[data-testid=remove-source]",
    )
    .click();
    until("two editors", || names().len() == 2).await;
    assert_eq!(names(), [seed::LOG.0, "vllm.log"]);
    let formats: Vec<String> = page
        .all("[data-testid=source-format]")
        .iter()
        .map(|s| s.unchecked_ref::<HtmlSelectElement>().value())
        .collect();
    assert_eq!(formats, ["auto", "vllm-log"]);

    // The Analyze button and Ctrl+Enter in a text box both ask for a run.
    page.one("[data-testid=analyze]").click();
    let init = web_sys::KeyboardEventInit::new();
    init.set_key("Enter");
    init.set_ctrl_key(true);
    init.set_bubbles(true);
    let ctrl_enter = web_sys::KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init)
        .expect("a key event");
    page.one("[data-testid=source-text]")
        .dispatch_event(&ctrl_enter)
        .expect("dispatched");
    assert_eq!(analyzed.get_untracked(), 2);
}

#[wasm_bindgen_test]
async fn a_chosen_format_reaches_the_analysis() {
    let page = mount_app().await;
    until("the first results", || page.has("[data-testid=results]")).await;
    let editor = page.all("[data-testid=source-editor]").remove(1);
    assert_eq!(
        one(&editor, "[data-testid=source-name]")
            .unchecked_ref::<HtmlInputElement>()
            .value(),
        seed::LOG.0
    );
    choose(
        &one(&editor, "[data-testid=source-format]"),
        "json-document",
    );
    until("the stale notice", || page.has("[data-testid=stale]")).await;
    page.one("[data-testid=analyze]").click();
    until("the second run", || {
        attr(&page.one("[data-testid=results]"), "data-run") == "2"
    })
    .await;

    // Read as a plain JSON document, the log tells nothing about the server.
    let expected = hindsight_core::analyze(&seed_with_log_as(Format::JsonDocument));
    let detected = hindsight_core::analyze(&seed::sources());
    let phases = |report: &Report| -> usize { report.servers.iter().map(|s| s.phases.len()).sum() };
    assert!(
        phases(&detected) > 0 && phases(&expected) != phases(&detected),
        "the format must matter for this test to mean anything"
    );
    assert_eq!(page.all(".phases .phase").len(), phases(&expected));
    assert_eq!(page.shown_rules(), present_order(&expected));
    assert_eq!(
        text(&page.one("[data-testid=summary]")),
        present::summary(&expected)
    );
    let read: Vec<String> = page
        .all("[data-testid=source-report]")
        .iter()
        .map(|s| text(s))
        .collect();
    assert!(
        read.iter()
            .any(|s| s.starts_with(seed::LOG.0) && s.contains("json-document (chosen)")),
        "{read:?}"
    );
    assert!(!page.has("[data-testid=stale]"));
}

#[wasm_bindgen_test]
async fn turning_a_rule_off_or_regrading_it_reruns_the_analysis() {
    let page = mount_app().await;
    until("the first results", || page.has("[data-testid=results]")).await;
    let total = hindsight_core::rules::ALL.len();
    let summary = || text(&page.one("[data-testid=rules-summary]"));
    let run = || attr(&page.one("[data-testid=results]"), "data-run");
    assert_eq!(summary(), format!("{total} of {total} on"));
    assert!(page.has("[data-testid=finding][data-rule=port-unchecked]"));

    let row = page.one("[data-testid=rule-setting][data-rule=port-unchecked]");
    one(&row, "[data-testid=rule-enabled]").click();
    until("the re-run", || run() == "2").await;
    let mut config = Config::default();
    set_rule_enabled(&mut config, "port-unchecked", false);
    let expected = hindsight_core::analyze_with(&seed::sources(), &config);
    assert_eq!(page.shown_rules(), present_order(&expected));
    assert!(!page.has("[data-testid=finding][data-rule=port-unchecked]"));
    assert_eq!(summary(), format!("{} of {total} on", total - 1));
    // An off rule has no severity to choose.
    let severity = one(&row, "[data-testid=rule-severity]");
    assert!(severity.unchecked_ref::<HtmlSelectElement>().disabled());

    let row = page.one("[data-testid=rule-setting][data-rule=drafter-unconfirmed]");
    choose(&one(&row, "[data-testid=rule-severity]"), "error");
    until("the second re-run", || run() == "3").await;
    let finding = page.one("[data-testid=finding][data-rule=drafter-unconfirmed]");
    assert_eq!(attr(&finding, "data-severity"), "error");
    assert_eq!(page.shown_rules()[0], "drafter-unconfirmed");
    assert_eq!(
        text(&page.one(".severity-group.severity-error .severity-heading")),
        "Errors (1)"
    );
    assert_eq!(
        summary(),
        format!("{} of {total} on · 1 severity changed", total - 1)
    );

    page.one("[data-testid=rules-reset]").click();
    until("the defaults' run", || run() == "4").await;
    assert_eq!(summary(), format!("{total} of {total} on"));
    assert_eq!(
        page.shown_rules(),
        present_order(&hindsight_core::analyze(&seed::sources()))
    );
}

#[wasm_bindgen_test]
async fn clear_all_forgets_everything_and_a_pasted_transcript_is_analyzed() {
    let page = mount_app().await;
    until("the first results", || page.has("[data-testid=results]")).await;
    page.one("[data-testid=clear-sources]").click();
    until("the results gone", || !page.has("[data-testid=results]")).await;
    assert!(text(&page.one("[data-testid=notice]")).starts_with("Cleared"));
    assert!(
        crate::browser::load_text(saved::KEY)
            .and_then(|t| saved::Saved::parse(&t))
            .is_none()
    );
    let editors = page.all("[data-testid=source-editor]");
    assert_eq!(editors.len(), 1);
    let name = one(&editors[0], "[data-testid=source-name]")
        .unchecked_ref::<HtmlInputElement>()
        .value();
    let text_box = one(&editors[0], "[data-testid=source-text]");
    assert_eq!(text_box.unchecked_ref::<HtmlTextAreaElement>().value(), "");

    let transcript = "[msg 1] assistant\n$ nohup python -m sglang.launch_server --port 30000 &\n";
    type_into(&text_box, transcript);
    page.one("[data-testid=analyze]").click();
    until("new results", || page.has("[data-testid=results]")).await;
    let expected = hindsight_core::analyze(&[Source::new(name, transcript.to_owned())]);
    assert_eq!(
        text(&page.one("[data-testid=summary]")),
        present::summary(&expected)
    );
    assert_eq!(page.shown_rules(), present_order(&expected));
    assert!(!expected.checkpoints.is_empty());
    assert_eq!(
        page.all("[data-testid=checkpoint]").len(),
        expected.checkpoints.len()
    );
}

#[wasm_bindgen_test]
async fn edits_and_rules_are_kept_and_come_back_on_the_next_visit() {
    let page = mount_app().await;
    until("the first results", || page.has("[data-testid=results]")).await;
    let name = page.all("[data-testid=source-name]").remove(1);
    type_into(&name, "server-1.log");
    let row = page.one("[data-testid=rule-setting][data-rule=ranks-uncounted]");
    one(&row, "[data-testid=rule-enabled]").click();
    until("the save", || {
        crate::browser::load_text(saved::KEY)
            .and_then(|t| saved::Saved::parse(&t))
            .map(saved::Saved::checked)
            .is_some_and(|s| {
                s.sources.iter().any(|x| x.name == "server-1.log")
                    && !s.config.enabled("ranks-uncounted")
            })
    })
    .await;
    drop(page);

    // A second visit: no forgetting first.
    let page = mount(App).await;
    until("the restored results", || page.has("[data-testid=results]")).await;
    let names: Vec<String> = page
        .all("[data-testid=source-name]")
        .iter()
        .map(|n| n.unchecked_ref::<HtmlInputElement>().value())
        .collect();
    assert_eq!(names, [seed::TRANSCRIPT.0, "server-1.log"]);
    let row = page.one("[data-testid=rule-setting][data-rule=ranks-uncounted]");
    assert!(
        !one(&row, "[data-testid=rule-enabled]")
            .unchecked_ref::<HtmlInputElement>()
            .checked()
    );
    assert!(page.has("[data-testid=finding]"));
    assert!(!page.has("[data-testid=finding][data-rule=ranks-uncounted]"));
    drop(page);
    crate::browser::forget(saved::KEY);
}

/// A share link deflated by the browser (`CompressionStream`) opens with
/// the page's inflater: the same inputs and rule settings come back.
#[wasm_bindgen_test]
async fn a_share_link_deflated_by_the_browser_opens_again() {
    let inputs = seed::inputs();
    let mut config = Config::default();
    set_rule_enabled(&mut config, "port-unchecked", false);
    let json = crate::share::payload(&inputs, &config).expect("the seed has sources");
    let packed = crate::browser::deflate_raw(&json)
        .await
        .expect("the browser deflates");
    assert!(
        packed.len() * 3 < json.len(),
        "{} of {}",
        packed.len(),
        json.len()
    );
    let fragment = crate::share::fragment(&packed).expect("the seed fits in a link");
    let shared = crate::share::decode(&fragment)
        .expect("a share link")
        .expect("an intact one");
    assert_eq!(shared.config, config);
    assert_eq!(shared.inputs().to_sources(), inputs.to_sources());
}

/// A server restarted into its log: the card says how often and how the
/// earlier run failed, and shows the last run as ready. The seed's card,
/// one run, has no such row.
#[wasm_bindgen_test]
async fn a_restarted_server_says_so_on_its_card() {
    let log = include_str!("../../examples/log-vllm-restart-after-oom/vllm.log");
    let (page, report) = mount_results(
        Inputs::with_sources([("vllm.log", log)]),
        &Config::default(),
    )
    .await;
    let server = &report.servers[0];
    assert_eq!(server.restarts, 1);
    let card = &page.all("[data-testid=server]")[0];
    let line = server.earlier_failures[0].evidence.line_start;
    assert_eq!(
        text(&one(card, "[data-field=restarts] dd")),
        format!("once; before: cuda-oom (line {line})")
    );
    assert_eq!(text(&one(card, "[data-field=ready] dd")), "yes");
    drop(page);

    let (page, _) = mount_results(seed::inputs(), &Config::default()).await;
    assert!(!page.has("[data-testid=server] [data-field=restarts]"));
}

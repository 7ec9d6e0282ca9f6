//! The page's state and its controller: the [`Inputs`] being edited, the
//! rule [`Config`], the [`View`] settings, the last [`Analysis`] and the run
//! in progress. [`State::start`] restores them on load (from a share link,
//! else from `localStorage`, else the seed example), saves them on every
//! change, and runs analyses in the worker ([`crate::worker`]). Components
//! receive a [`State`] and only display it or call its callbacks.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use gloo::timers::callback::{Interval, Timeout};
use hindsight_core::Config;
use leptos::prelude::*;

use crate::browser;
use crate::model::{Analysis, Inputs};
use crate::protocol::{self, Reply, Snapshot};
use crate::saved::{self, Saved, View};
use crate::seed;
use crate::share;
use crate::viewer::Focus;
use crate::worker::{Analyzer, OnReply};

/// An analysis in progress.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Running {
    pub(crate) id: u32,
    pub(crate) revision: u64,
    pub(crate) config: Config,
    pub(crate) sources: Arc<Vec<crate::protocol::Snapshot>>,
    /// `Date.now()` when it was sent, and the bytes sent.
    pub(crate) started: f64,
    pub(crate) bytes: usize,
}

thread_local! {
    /// The worker, replaced on cancel; `None` until first needed or when the
    /// browser cannot run one.
    static ANALYZER: RefCell<Option<Analyzer>> = const { RefCell::new(None) };
    /// Where replies go (signals' callbacks must be `Send`; this is not).
    static ON_REPLY: RefCell<Option<OnReply>> = const { RefCell::new(None) };
}

/// The page's shared state, handed to the components.
#[derive(Clone, Copy)]
pub(crate) struct State {
    pub(crate) inputs: RwSignal<Inputs>,
    pub(crate) config: RwSignal<Config>,
    pub(crate) view: RwSignal<View>,
    pub(crate) analysis: RwSignal<Option<Analysis>>,
    pub(crate) running: RwSignal<Option<Running>>,
    /// `Date.now()`, refreshed while an analysis runs (for the elapsed time).
    pub(crate) now: RwSignal<f64>,
    pub(crate) focus: RwSignal<Option<Focus>>,
    /// The page's one-line message (restored, cancelled, failed, cleared).
    pub(crate) notice: RwSignal<Option<String>>,
    pub(crate) analyze: Callback<()>,
    pub(crate) cancel: Callback<()>,
    pub(crate) clear_all: Callback<()>,
}

/// Where the first inputs come from: a share link, this browser's storage,
/// or the seed example.
fn initial_state() -> (Inputs, Config, View, Option<String>) {
    let stored = browser::load_text(saved::KEY).and_then(|text| Saved::parse(&text));
    let view = stored.as_ref().map(|s| s.view.clone()).unwrap_or_default();
    if let Some(shared) = share::decode(&browser::fragment()) {
        browser::clear_fragment();
        return match shared {
            Ok(shared) => (
                shared.inputs(),
                shared.config.clone(),
                view,
                Some("Loaded the session from the link. Credentials were redacted before it was shared.".to_owned()),
            ),
            Err(e) => (seed::inputs(), Config::default(), view, Some(format!("Could not open the shared link: {e}."))),
        };
    }
    match stored {
        Some(saved) => {
            let dropped = saved.dropped();
            let notice = (!dropped.is_empty()).then(|| {
                format!(
                    "Too large to keep in the browser, so not restored: {}. Open them again.",
                    dropped.join(", ")
                )
            });
            (
                saved.inputs(),
                saved.config.clone(),
                saved.view.clone(),
                notice,
            )
        }
        None => (seed::inputs(), Config::default(), view, None),
    }
}

impl State {
    /// Creates the page's state, restored from where it was kept, wires its
    /// saving, timers and re-runs, and starts the first analysis.
    pub(crate) fn start() -> State {
        let (first_inputs, first_config, first_view, first_notice) = initial_state();
        let inputs = RwSignal::new(first_inputs);
        let config = RwSignal::new(first_config);
        let view = RwSignal::new(first_view);
        let analysis = RwSignal::new(None::<Analysis>);
        let running = RwSignal::new(None::<Running>);
        let now = RwSignal::new(js_sys::Date::now());
        let notice = RwSignal::new(first_notice);
        let focus = RwSignal::new(None::<Focus>);
        let next_id = StoredValue::new(0u32);

        let on_reply: OnReply = Rc::new(move |result: Result<Reply, String>| {
            let Some(run) = running.get_untracked() else {
                return;
            };
            match result {
                Ok(reply) if reply.id == run.id => {
                    running.set(None);
                    // A jump into the old texts means nothing in the new ones.
                    focus.set(None);
                    analysis.set(Some(Analysis::from_reply(
                        reply,
                        run.revision,
                        run.config,
                        run.sources,
                    )));
                }
                // An answer to a request since replaced.
                Ok(_) => {}
                Err(message) => {
                    running.set(None);
                    notice.set(Some(format!("The analysis failed: {message}")));
                    // A worker that failed once is not trusted with the next run.
                    ANALYZER.with(|a| a.borrow_mut().take());
                }
            }
        });

        ON_REPLY.with(|slot| slot.replace(Some(on_reply)));
        let analyze = {
            Callback::new(move |()| {
                let Some(on_reply) = ON_REPLY.with(|slot| slot.borrow().clone()) else {
                    return;
                };
                // Shares the texts: nothing is copied until the worker gets them.
                let sources = Arc::new(inputs.with_untracked(Inputs::snapshots));
                let config = config.get_untracked();
                let revision = inputs.with_untracked(Inputs::revision);
                let id = next_id.get_value().wrapping_add(1);
                next_id.set_value(id);
                let started = js_sys::Date::now();
                now.set(started);
                let bytes = sources.iter().map(|s| s.text.len()).sum();
                let sent = ANALYZER.with(|slot| {
                    let mut slot = slot.borrow_mut();
                    if slot.is_none() {
                        *slot = Analyzer::spawn(on_reply.clone());
                    }
                    slot.as_ref()
                        .map(|worker| worker.submit(id, &config, sources.clone(), &on_reply))
                });
                running.set(Some(Running {
                    id,
                    revision,
                    config: config.clone(),
                    sources: sources.clone(),
                    started,
                    bytes,
                }));
                if sent.is_none() {
                    // No worker here: analyze on this thread, same function.
                    let sources: Vec<_> = sources.iter().map(Snapshot::to_source).collect();
                    on_reply(Ok(protocol::run(id, &config, &sources)));
                }
            })
        };
        let cancel = Callback::new(move |()| {
            // Terminating the worker is the only way to stop a running analysis;
            // the next one gets a fresh worker (no download: the module is kept).
            ANALYZER.with(|a| a.borrow_mut().take());
            running.set(None);
            notice.set(Some("Analysis cancelled.".to_owned()));
        });
        let clear_all = Callback::new(move |()| {
            // Only a running analysis costs the worker; an idle one is kept.
            if running.with_untracked(Option::is_some) {
                ANALYZER.with(|a| a.borrow_mut().take());
            }
            running.set(None);
            analysis.set(None);
            focus.set(None);
            inputs.update(Inputs::clear);
            config.set(Config::default());
            view.update(|v| v.search.clear());
            browser::forget(saved::KEY);
            notice.set(Some(
                "Cleared: every source and setting this page kept is gone from this browser."
                    .to_owned(),
            ));
        });
        let state = State {
            inputs,
            config,
            view,
            analysis,
            running,
            now,
            focus,
            notice,
            analyze,
            cancel,
            clear_all,
        };

        // The elapsed time of a run ticks; nothing runs while idle. Dropping
        // the previous timer (the effect's last value) stops it.
        Effect::new(move |ticking: Option<Option<Interval>>| {
            drop(ticking);
            running
                .with(Option::is_some)
                .then(|| Interval::new(100, move || now.set(js_sys::Date::now())))
        });

        // Save a moment after the last change, not on every keystroke: each
        // change drops (cancels) the save the previous one scheduled.
        Effect::new(move |pending: Option<Timeout>| {
            let snapshot = inputs.with(|i| config.with(|c| view.with(|v| Saved::of(i, c, v))));
            drop(pending);
            Timeout::new(300, move || {
                if let Err(e) = browser::store(saved::KEY, &snapshot) {
                    notice.set(Some(format!("Could not save in this browser: {e}")));
                }
            })
        });

        // The theme follows the view setting.
        Effect::new(move |_| browser::set_theme(view.with(|v| v.theme.name())));

        // Rule changes re-run the analysis, when there are results to update
        // (not after "clear all", which resets the rules and the results).
        Effect::new(move |previous: Option<Config>| {
            let current = config.get();
            let shown = analysis.with_untracked(Option::is_some);
            if shown && previous.is_some_and(|p| p != current) {
                analyze.run(());
            }
            current
        });

        // The first analysis, unless there is nothing to analyze (after "clear
        // all" a reload shows an empty editor, not an empty postmortem).
        if inputs.with_untracked(|i| i.drafts().iter().any(|d| !d.text.trim().is_empty())) {
            analyze.run(());
        }
        state
    }
}

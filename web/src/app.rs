//! The page's frame: header, notice, input panel, rules, progress and
//! results. It displays the [`State`] that [`State::start`] creates and
//! holds no logic of its own.

// `#[component]` expands to builder items declared `pub`, which this binary
// crate cannot export; the lint has nothing to fix in them.
#![allow(unreachable_pub)]

use leptos::prelude::*;

use crate::editor::InputPanel;
use crate::present;
use crate::results::Results;
use crate::saved::Theme;
use crate::settings::RulesPanel;
use crate::state::State;

#[component]
pub(crate) fn App() -> impl IntoView {
    let state = State::start();
    let State {
        view,
        analysis,
        notice,
        config,
        ..
    } = state;

    let theme_label = move || match view.with(|v| v.theme) {
        Theme::System => "Theme: system",
        Theme::Light => "Theme: light",
        Theme::Dark => "Theme: dark",
    };

    view! {
        <a class="skip-link" href="#results-title">"Skip to the postmortem"</a>
        <header class="site-header">
            <div class="wrap header-row">
                <div class="brand">
                    <h1>"hindsight"</h1>
                    <p class="tagline">
                        "What your coding agent verified, and what it only assumed."
                    </p>
                </div>
                <div class="header-side">
                    <p class="privacy">"Runs entirely in your browser. Nothing is uploaded."</p>
                    <button
                        type="button"
                        class="button small quiet"
                        data-testid="theme"
                        aria-label="Change the colour theme"
                        on:click=move |_| view.update(|v| v.theme = v.theme.next())
                    >
                        {theme_label}
                    </button>
                </div>
            </div>
        </header>
        <main class="wrap">
            {move || {
                notice
                    .get()
                    .map(|message| {
                        view! {
                            <div class="notice info page-notice" role="status" data-testid="notice">
                                <span>{message}</span>
                                <button
                                    type="button"
                                    class="icon-button"
                                    aria-label="Dismiss"
                                    on:click=move |_| notice.set(None)
                                >
                                    "×"
                                </button>
                            </div>
                        }
                    })
            }}
            <InputPanel state />
            <RulesPanel config />
            <Progress state />
            {move || {
                analysis
                    .get()
                    .map(|analysis| view! { <Results analysis state /> })
            }}
        </main>
        <footer class="wrap site-footer muted">
            {format!(
                "hindsight {} · report format v{} · {} rules",
                env!("CARGO_PKG_VERSION"),
                hindsight_core::REPORT_VERSION,
                hindsight_core::rules::ALL.len(),
            )}
        </footer>
    }
}

/// The run in progress: what is being analyzed, for how long, and cancel.
#[component]
fn Progress(state: State) -> impl IntoView {
    let State {
        running,
        now,
        cancel,
        ..
    } = state;
    move || {
        running.get().map(|run| {
            let elapsed = move || {
                let seconds = ((now.get() - run.started) / 1000.0).max(0.0);
                format!("{} s", crate::present::fixed(seconds, 1))
            };
            view! {
                <div class="progress panel" role="status" aria-live="polite" data-testid="progress">
                    <div class="progress-bar" aria-hidden="true">
                        <span></span>
                    </div>
                    <span>
                        "Analyzing " {present::size(run.bytes)} " in the background… "
                        <span class="muted">{elapsed}</span>
                    </span>
                    <button
                        type="button"
                        class="button small"
                        data-testid="cancel"
                        on:click=move |_| cancel.run(())
                    >
                        "Cancel"
                    </button>
                </div>
            }
        })
    }
}

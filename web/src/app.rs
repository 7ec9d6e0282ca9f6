//! The page: header, input panel and results. Owns the two signals (the
//! [`Inputs`](crate::model::Inputs) being edited and the last [`Analysis`]) and analyzes the seed
//! example once on load, so the first paint already shows a postmortem.

// `#[component]` expands to builder items declared `pub`, which this binary
// crate cannot export; the lint has nothing to fix in them.
#![allow(unreachable_pub)]

use leptos::prelude::*;

use crate::editor::InputPanel;
use crate::model::Analysis;
use crate::results::Results;
use crate::seed;

#[component]
pub(crate) fn App() -> impl IntoView {
    let inputs = RwSignal::new(seed::inputs());
    let analysis = RwSignal::new(None::<Analysis>);
    let analyze = Callback::new(move |()| {
        let result = inputs.with_untracked(Analysis::of);
        analysis.set(Some(result));
    });
    analyze.run(());

    view! {
        <header class="site-header">
            <div class="wrap header-row">
                <div class="brand">
                    <h1>"hindsight"</h1>
                    <p class="tagline">
                        "What your coding agent verified, and what it only assumed."
                    </p>
                </div>
                <p class="privacy">"Runs entirely in your browser. Nothing is uploaded."</p>
            </div>
        </header>
        <main class="wrap">
            <InputPanel inputs analysis analyze />
            {move || {
                analysis
                    .get()
                    .map(|Analysis { report, revision }| view! { <Results report revision /> })
            }}
        </main>
        <footer class="wrap site-footer muted">
            {format!(
                "hindsight {} · report format v{} · rules: ",
                env!("CARGO_PKG_VERSION"),
                hindsight_core::REPORT_VERSION,
            )}
            {hindsight_core::rules::ALL
                .iter()
                .map(|rule| rule.id)
                .collect::<Vec<_>>()
                .join(", ")}
        </footer>
    }
}

//! The rules panel: every rule of [`hindsight_core::rules::ALL`] with a
//! switch to turn it off and a severity to override, edited as a
//! [`Config`] (the same configuration the CLI reads from `hindsight.toml`)
//! and applied through [`hindsight_core::analyze_with`]. Changes are saved
//! with the inputs and re-run the analysis.

// `#[component]` expands to builder items declared `pub`, which this binary
// crate cannot export; the lint has nothing to fix in them.
#![allow(unreachable_pub)]

use hindsight_core::{Config, Severity};
use leptos::prelude::*;

use crate::model::{set_rule_enabled, set_rule_severity, severity_from_name};

/// The rules, folded under a summary of how many are on.
#[component]
pub(crate) fn RulesPanel(config: RwSignal<Config>) -> impl IntoView {
    let total = hindsight_core::rules::ALL.len();
    let summary = move || {
        config.with(|c| {
            let on = hindsight_core::rules::ALL
                .iter()
                .filter(|r| c.enabled(r.id))
                .count();
            let changed = c.severity.len();
            let mut text = format!("{on} of {total} on");
            if changed > 0 {
                text.push_str(&format!(" · {changed} severity changed"));
            }
            text
        })
    };
    let rows = hindsight_core::rules::ALL
        .iter()
        .map(|rule| {
            let id = rule.id;
            let enabled = move || config.with(|c| c.enabled(id));
            let severity = move || config.with(|c| c.severity_of(rule).name());
            let options = Severity::WORST_FIRST
                .into_iter()
                .map(|s| {
                    let label = if s == rule.severity {
                        format!("{} (default)", s.name())
                    } else {
                        s.name().to_owned()
                    };
                    view! {
                        <option value=s.name() prop:selected=move || severity() == s.name()>
                            {label}
                        </option>
                    }
                })
                .collect_view();
            view! {
                <li class="rule-row" data-testid="rule-setting" data-rule=id>
                    <label class="rule-toggle">
                        <input
                            type="checkbox"
                            data-testid="rule-enabled"
                            prop:checked=enabled
                            on:change=move |ev| {
                                let on = event_target_checked(&ev);
                                config.update(|c| set_rule_enabled(c, id, on));
                            }
                        />
                        <code>{id}</code>
                        <span class="rule-title">{rule.title}</span>
                    </label>
                    <select
                        class="rule-severity"
                        data-testid="rule-severity"
                        aria-label=format!("Severity of {id}")
                        prop:disabled=move || !enabled()
                        on:change=move |ev| {
                            if let Some(s) = severity_from_name(&event_target_value(&ev)) {
                                config.update(|c| set_rule_severity(c, id, s));
                            }
                        }
                    >
                        {options}
                    </select>
                </li>
            }
        })
        .collect_view();

    view! {
        <details class="panel rules" data-testid="rules">
            <summary>
                <span class="rules-title">"Rules"</span>
                <span class="muted" data-testid="rules-summary">{summary}</span>
            </summary>
            <p class="hint">
                "Turn rules off or change their severity; the analysis re-runs and the choice is kept in this browser (the same settings as the CLI's "
                <code>"hindsight.toml"</code> ")."
            </p>
            <ul class="rule-list">{rows}</ul>
            <div class="actions">
                <button
                    type="button"
                    class="button quiet"
                    data-testid="rules-reset"
                    on:click=move |_| config.set(Config::default())
                >
                    "Reset to defaults"
                </button>
            </div>
        </details>
    }
}

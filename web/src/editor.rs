//! The input panel: one editor per source (name, format, text, remove), the
//! toolbar that adds, loads (pick or drop) and clears everything, and the
//! Analyze button. It only wires the [`Inputs`] signal to views; every change
//! is an [`Inputs`] method.
//!
//! A text over [`LARGE`] is not put in a text box (Chromium takes seconds to
//! lay out 100 MB in a `<textarea>`, and every keystroke would copy it): the
//! editor shows its size instead, and the source viewer shows the text. A
//! paste that large is taken from the clipboard event directly.

// `#[component]` expands to builder items declared `pub`, which this binary
// crate cannot export; the lint has nothing to fix in them.
#![allow(unreachable_pub)]

use leptos::ev::{ClipboardEvent, DragEvent, Event, KeyboardEvent};
use leptos::prelude::*;

use crate::browser;
use crate::model::{Inputs, format_choice_value, format_options};
use crate::present::{plural, size, text_stats};
use crate::state::State;

/// Texts longer than this (bytes) are kept out of the text box.
pub(crate) const LARGE: usize = 2_000_000;

/// The whole input panel.
#[component]
pub(crate) fn InputPanel(state: State) -> impl IntoView {
    let State {
        inputs,
        analysis,
        config,
        analyze,
        clear_all,
        ..
    } = state;
    let error = RwSignal::new(None::<String>);
    let load = move |list: Option<web_sys::FileList>| {
        let files: Vec<web_sys::File> = list
            .map(|list| (0..list.length()).filter_map(|i| list.get(i)).collect())
            .unwrap_or_default();
        leptos::task::spawn_local(async move {
            for file in files {
                match browser::read_bytes(&file).await {
                    Ok(bytes) => inputs.update(|i| {
                        i.add_file(&file.name(), &bytes);
                    }),
                    Err(e) => error.set(Some(format!("Could not read {}: {e}", file.name()))),
                }
            }
        });
    };
    let on_pick = move |ev: Event| {
        let input: web_sys::HtmlInputElement = event_target(&ev);
        load(input.files());
        // Let the same file be picked again later.
        input.set_value("");
    };
    // Files dropped anywhere on the panel are added like picked ones.
    let on_drag_over = move |ev: DragEvent| ev.prevent_default();
    let on_drop = move |ev: DragEvent| {
        ev.prevent_default();
        load(ev.data_transfer().and_then(|data| data.files()));
    };
    let stale = move || {
        analysis.with(|a| {
            a.as_ref()
                .is_some_and(|a| inputs.with(|i| config.with(|c| a.is_stale(i, c))))
        })
    };
    // Counted without `to_sources`, which would copy every text.
    let sources = move || {
        inputs.with(|i| {
            i.drafts()
                .iter()
                .filter(|d| !d.text.trim().is_empty())
                .count()
        })
    };

    view! {
        <section
            class="panel inputs"
            aria-labelledby="inputs-title"
            on:dragover=on_drag_over
            on:drop=on_drop
        >
            <div class="panel-head">
                <div>
                    <h2 id="inputs-title">"Session"</h2>
                    <p class="hint">
                        "Paste the agent's transcript and any server logs, or drop the files here. Name each log as the file the agent wrote, so launches and logs line up."
                    </p>
                </div>
                <div class="toolbar">
                    <label class="button file-button">
                        "Open files…"
                        <input
                            type="file"
                            multiple
                            class="visually-hidden"
                            aria-label="Open files"
                            data-testid="file-input"
                            on:change=on_pick
                        />
                    </label>
                    <button
                        type="button"
                        class="button"
                        data-testid="add-source"
                        on:click=move |_| {
                            inputs.update(|i| {
                                i.add_empty();
                            })
                        }
                    >
                        "Add source"
                    </button>
                    <button
                        type="button"
                        class="button quiet"
                        data-testid="clear-sources"
                        title="Remove every source, the results and everything this page kept in the browser"
                        on:click=move |_| clear_all.run(())
                    >
                        "Clear all"
                    </button>
                </div>
            </div>
            {move || {
                error
                    .get()
                    .map(|message| {
                        view! {
                            <p class="notice error" role="alert">
                                {message}
                            </p>
                        }
                    })
            }}
            <div class="editors">
                <For each=move || inputs.with(Inputs::ids) key=|id| *id let:id>
                    <SourceEditor id inputs analyze />
                </For>
            </div>
            <div class="actions">
                <button
                    type="button"
                    class="button primary"
                    data-testid="analyze"
                    on:click=move |_| analyze.run(())
                >
                    "Analyze"
                </button>
                <span class="muted">{move || plural(sources(), "source", "sources")} " to analyze"</span>
                <span class="muted kbd-hint">"Ctrl+Enter in a text box analyzes too"</span>
                <Show when=stale>
                    <span class="stale" data-testid="stale">
                        "Inputs changed since the results below"
                    </span>
                </Show>
            </div>
        </section>
    }
}

/// One source: name, format, text and a remove button.
#[component]
fn SourceEditor(id: u32, inputs: RwSignal<Inputs>, analyze: Callback<()>) -> impl IntoView {
    let field = move |get: fn(&crate::model::Draft) -> String| {
        move || inputs.with(|i| i.draft(id).map(get).unwrap_or_default())
    };
    let format = move || inputs.with(|i| format_choice_value(i.draft(id).and_then(|d| d.format)));
    let large = move || inputs.with(|i| i.draft(id).is_some_and(|d| d.text.len() > LARGE));
    let stats = move || {
        inputs.with(|i| {
            i.draft(id).map(|d| {
                if d.text.len() > LARGE {
                    // Counting lines of 100 MB on every keystroke elsewhere
                    // would stall typing; the size says enough.
                    size(d.text.len())
                } else {
                    text_stats(&d.text)
                }
            })
        })
    };
    // A huge paste goes straight from the clipboard event into the inputs.
    let on_paste = move |ev: ClipboardEvent| {
        let Some(text) = ev
            .clipboard_data()
            .and_then(|data| data.get_data("text").ok())
        else {
            return;
        };
        if text.len() > LARGE {
            ev.prevent_default();
            inputs.update(|i| i.set_text(id, &text));
        }
    };
    let on_key = move |ev: KeyboardEvent| {
        if ev.key() == "Enter" && (ev.ctrl_key() || ev.meta_key()) {
            ev.prevent_default();
            analyze.run(());
        }
    };
    let options = format_options()
        .into_iter()
        .map(|(value, label)| {
            view! {
                <option value=value prop:selected=move || format() == value>
                    {label}
                </option>
            }
        })
        .collect_view();

    view! {
        <div class="editor" data-testid="source-editor">
            <div class="editor-head">
                <input
                    type="text"
                    class="source-name"
                    data-testid="source-name"
                    aria-label="Source name"
                    placeholder="name, e.g. server.log"
                    spellcheck="false"
                    prop:value=field(|d| d.name.clone())
                    on:input=move |ev| inputs.update(|i| i.set_name(id, &event_target_value(&ev)))
                />
                <select
                    class="source-format"
                    data-testid="source-format"
                    aria-label="Format"
                    on:change=move |ev| inputs.update(|i| i.set_format(id, &event_target_value(&ev)))
                >
                    {options}
                </select>
                <button
                    type="button"
                    class="icon-button"
                    data-testid="remove-source"
                    aria-label="Remove source"
                    title="Remove source"
                    on:click=move |_| inputs.update(|i| i.remove(id))
                >
                    "×"
                </button>
            </div>
            <Show
                when=large
                fallback=move || {
                    view! {
                        <textarea
                            class="source-text"
                            data-testid="source-text"
                            aria-label="Source text"
                            spellcheck="false"
                            placeholder="Paste a transcript ([msg N] markers, $ prompts and output) or a server log"
                            prop:value=field(|d| d.text.to_string())
                            on:input=move |ev| {
                                inputs.update(|i| i.set_text(id, &event_target_value(&ev)))
                            }
                            on:paste=on_paste
                            on:keydown=on_key
                        ></textarea>
                    }
                }
            >
                <div class="source-large" data-testid="source-large" tabindex="0" on:keydown=on_key>
                    "Too large to edit here; the source viewer below shows it after analysis. "
                    <button
                        type="button"
                        class="button small quiet"
                        on:click=move |_| inputs.update(|i| i.set_text(id, ""))
                    >
                        "Empty it"
                    </button>
                </div>
            </Show>
            <div class="editor-foot muted">{stats}</div>
        </div>
    }
}

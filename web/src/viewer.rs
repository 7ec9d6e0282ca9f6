//! The source viewer: the analyzed texts with line numbers, rendering only
//! the lines in view, so a million-line log scrolls as smoothly as a short
//! one. Evidence a finding points at is highlighted, and the viewer scrolls
//! there when a finding's "show in source" is clicked.
//!
//! The arithmetic ([`Lines`], [`window`], [`scroll_for`]) is plain and
//! tested natively; [`SourceViewer`] only wires it to the DOM. Browsers cap
//! an element's height (Firefox at about 17.9 million pixels), so past
//! [`MAX_SPACER`] the scroll range is scaled: the scrollbar maps onto the
//! whole text and the lines drawn are still exactly those in view.

// `#[component]` expands to builder items declared `pub`, which this binary
// crate cannot export; the lint has nothing to fix in them.
#![allow(unreachable_pub)]

use std::sync::Arc;
use wasm_bindgen::JsCast;

use crate::protocol::Snapshot;
use leptos::html::Div;
use leptos::prelude::*;

use crate::present::fixed;
use crate::protocol::{Secret, redact};

/// Height of one line in pixels; `.viewer-line` in style.css must match.
pub(crate) const LINE_PX: f64 = 20.0;
/// Lines drawn beyond each edge of the view, so fast scrolling shows no gap.
const OVERSCAN: usize = 20;
/// The tallest spacer the viewer makes (below every browser's limit).
pub(crate) const MAX_SPACER: f64 = 8_000_000.0;

/// Where each line starts in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Lines {
    starts: Vec<usize>,
    len: usize,
}

impl Lines {
    pub(crate) fn new(text: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        // A final newline ends the last line; it does not start another.
        if starts.len() > 1 && starts.last() == Some(&text.len()) {
            starts.pop();
        }
        Self {
            starts,
            len: text.len(),
        }
    }

    pub(crate) fn count(&self) -> usize {
        self.starts.len()
    }

    /// Line `index` (from 0) without its line break.
    pub(crate) fn line<'t>(&self, text: &'t str, index: usize) -> &'t str {
        let Some(&start) = self.starts.get(index) else {
            return "";
        };
        let end = self.starts.get(index + 1).copied().unwrap_or(self.len);
        let line = text.get(start..end).unwrap_or_default();
        line.strip_suffix('\n')
            .map(|l| l.strip_suffix('\r').unwrap_or(l))
            .unwrap_or(line)
    }
}

/// What to draw for a scroll position.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Window {
    /// First line drawn (from 0) and how many.
    pub(crate) first: usize,
    pub(crate) count: usize,
    /// Where the first drawn line goes, from the spacer's top, in pixels.
    pub(crate) offset: f64,
    /// The spacer's height.
    pub(crate) spacer: f64,
}

/// Pixels of real text per pixel of scrollbar (1 unless the text is taller
/// than [`MAX_SPACER`]).
fn scale(lines: usize, view: f64) -> (f64, f64) {
    let full = lines as f64 * LINE_PX;
    if full <= MAX_SPACER {
        return (full, 1.0);
    }
    let range = (full - view).max(1.0);
    (MAX_SPACER, range / (MAX_SPACER - view).max(1.0))
}

/// The lines in view when scrolled to `scroll_top` in a view `view` pixels
/// high, for a text of `lines` lines.
pub(crate) fn window(scroll_top: f64, view: f64, lines: usize) -> Window {
    let (spacer, ratio) = scale(lines, view);
    let virtual_top = scroll_top.max(0.0) * ratio;
    let top_line = (virtual_top / LINE_PX) as usize;
    let first = top_line.saturating_sub(OVERSCAN).min(lines);
    let visible = (view / LINE_PX).ceil() as usize + 1;
    let count = (visible + 2 * OVERSCAN).min(lines - first);
    // The first line's place in real pixels, moved onto the scaled spacer.
    let offset = scroll_top - (virtual_top - first as f64 * LINE_PX);
    Window {
        first,
        count,
        offset: offset.max(0.0),
        spacer,
    }
}

/// The scroll position that shows line `index` (from 0) a few lines below
/// the top of the view.
pub(crate) fn scroll_for(index: usize, view: f64, lines: usize) -> f64 {
    let (_, ratio) = scale(lines, view);
    (index.saturating_sub(3) as f64 * LINE_PX) / ratio
}

/// The tab a key moves to in the source tabs, as the ARIA tabs pattern has
/// it: arrows to the neighbour (wrapping), Home and End to the ends.
pub(crate) fn tab_for_key(key: &str, current: usize, count: usize) -> Option<usize> {
    let last = count.checked_sub(1)?;
    match key {
        "ArrowRight" | "ArrowDown" => Some(if current >= last { 0 } else { current + 1 }),
        "ArrowLeft" | "ArrowUp" => Some(if current == 0 { last } else { current - 1 }),
        "Home" => Some(0),
        "End" => Some(last),
        _ => None,
    }
}

/// The place a finding or checkpoint points at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Focus {
    pub(crate) source: String,
    /// Lines from 1, inclusive.
    pub(crate) line_start: u32,
    pub(crate) line_end: u32,
}

/// The viewer over the analyzed sources.
#[component]
pub(crate) fn SourceViewer(
    sources: Arc<Vec<Snapshot>>,
    secrets: Arc<Vec<Secret>>,
    focus: RwSignal<Option<Focus>>,
    show_secrets: Signal<bool>,
) -> impl IntoView {
    let selected = RwSignal::new(0usize);
    let scroll_top = RwSignal::new(0.0f64);
    let view_height = RwSignal::new(480.0f64);
    let scroller = NodeRef::<Div>::new();
    let spacer_div = NodeRef::<Div>::new();
    // Line indexes are made when a source is first shown, not all at once
    // when the results arrive (a 100 MB log's index is a noticeable task).
    let cache: StoredValue<Vec<Option<Arc<Lines>>>> = StoredValue::new(vec![None; sources.len()]);
    let sources_for_index = sources.clone();
    let lines_of = move |index: usize| -> Arc<Lines> {
        if let Some(Some(lines)) = cache.with_value(|c| c.get(index).cloned()) {
            return lines;
        }
        let lines = Arc::new(
            sources_for_index
                .get(index)
                .map_or_else(|| Lines::new(""), |s| Lines::new(&s.text)),
        );
        cache.update_value(|c| {
            if let Some(slot) = c.get_mut(index) {
                *slot = Some(lines.clone());
            }
        });
        lines
    };

    // A focus request selects its source and scrolls to it.
    let sources_for_focus = sources.clone();
    let lines_for_focus = lines_of.clone();
    Effect::new(move |_| {
        let Some(target) = focus.get() else { return };
        let Some(index) = sources_for_focus
            .iter()
            .position(|s| s.name == target.source)
        else {
            return;
        };
        selected.set(index);
        let count = lines_for_focus(index).count();
        if let Some(element) = scroller.get_untracked() {
            let height = f64::from(element.client_height()).max(LINE_PX);
            let top = scroll_for(target.line_start.saturating_sub(1) as usize, height, count);
            // The view redraws the spacer for the new source only after this
            // effect, and the browser clamps the scroll to the spacer it has:
            // a jump into another source past the end of the one shown would
            // land short, and its scroll event would draw the wrong lines.
            // So the spacer gets its new height first.
            if let Some(spacer) = spacer_div.get_untracked() {
                // By path: the Leptos prelude's `ElementExt::style` shadows it.
                let _ = web_sys::HtmlElement::style(&spacer).set_property(
                    "height",
                    &format!("{}px", fixed(window(top, height, count).spacer, 2)),
                );
            }
            element.set_scroll_top(top as i32);
            scroll_top.set(top);
            element.scroll_into_view();
        }
    });

    let show = move |index: usize| {
        selected.set(index);
        scroll_top.set(0.0);
        if let Some(element) = scroller.get_untracked() {
            element.set_scroll_top(0);
        }
    };
    let tab_count = sources.len();
    // Arrow keys, Home and End move between the tabs; Tab leaves the list
    // (only the selected tab is in the tab order).
    let on_tab_key = move |ev: web_sys::KeyboardEvent| {
        let Some(next) = tab_for_key(&ev.key(), selected.get_untracked(), tab_count) else {
            return;
        };
        ev.prevent_default();
        show(next);
        if let Some(tab) = gloo::utils::document().get_element_by_id(&format!("viewer-tab-{next}"))
            && let Ok(tab) = tab.dyn_into::<web_sys::HtmlElement>()
        {
            let _ = tab.focus();
        }
    };
    let tabs = sources
        .iter()
        .enumerate()
        .map(|(index, source)| {
            let name = source.name.clone();
            view! {
                <button
                    type="button"
                    role="tab"
                    class="viewer-tab"
                    data-testid="viewer-tab"
                    id=format!("viewer-tab-{index}")
                    aria-controls="viewer-panel"
                    aria-selected=move || (selected.get() == index).to_string()
                    tabindex=move || if selected.get() == index { "0" } else { "-1" }
                    on:click=move |_| show(index)
                >
                    {name}
                </button>
            }
        })
        .collect_view();

    let lines_for_layout = lines_of.clone();
    let lines_for_view = lines_of.clone();
    let sources_for_view = sources.clone();
    let layout = Memo::new(move |_| {
        let count = lines_for_layout(selected.get()).count();
        window(scroll_top.get(), view_height.get(), count)
    });
    let spacer = move || format!("{}px", fixed(layout.get().spacer, 2));
    let offset = move || format!("translateY({}px)", fixed(layout.get().offset, 2));
    let rows = move || {
        let index = selected.get();
        let Window { first, count, .. } = layout.get();
        let Some(source) = sources_for_view.get(index) else {
            return Vec::new();
        };
        let lines = lines_for_view(index);
        let hidden = !show_secrets.get() && !secrets.is_empty();
        let target = focus.get().filter(|f| f.source == source.name);
        (first..first + count)
            .map(|i| {
                let number = i + 1;
                let text = lines.line(&source.text, i);
                let text = if hidden { redact(text, &secrets) } else { text.to_owned() };
                // Bidi controls and zero-width characters shown, not obeyed.
                let text = hindsight_core::report::visible::visible(&text, false).into_owned();
                let marked = target.as_ref().is_some_and(|f| {
                    (f.line_start as usize..=f.line_end as usize).contains(&number)
                });
                view! {
                    <div class=if marked { "viewer-line marked" } else { "viewer-line" } data-line=number>
                        <span class="ln" aria-hidden="true">{number}</span>
                        <span class="tx">{text}</span>
                    </div>
                }
            })
            .collect::<Vec<_>>()
    };
    let total = move || {
        let count = lines_of(selected.get()).count();
        crate::present::plural(count, "line", "lines")
    };

    view! {
        <section class="block viewer" data-testid="viewer" aria-labelledby="viewer-title">
            <div class="viewer-head">
                <h3 id="viewer-title">"Sources"</h3>
                <span class="count" data-testid="viewer-lines">{total}</span>
            </div>
            <div class="viewer-tabs" role="tablist" aria-label="Source to show" on:keydown=on_tab_key>
                {tabs}
            </div>
            <div
                class="viewer-scroll"
                data-testid="viewer-scroll"
                id="viewer-panel"
                tabindex="0"
                role="tabpanel"
                aria-labelledby=move || format!("viewer-tab-{}", selected.get())
                node_ref=scroller
                on:scroll=move |_| {
                    if let Some(element) = scroller.get_untracked() {
                        scroll_top.set(f64::from(element.scroll_top()));
                        view_height.set(f64::from(element.client_height()).max(LINE_PX));
                    }
                }
            >
                <div class="viewer-spacer" node_ref=spacer_div style:height=spacer>
                    <div class="viewer-rows" style:transform=offset>
                        {rows}
                    </div>
                </div>
            </div>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrow_keys_home_and_end_move_between_tabs() {
        assert_eq!(tab_for_key("ArrowRight", 0, 3), Some(1));
        assert_eq!(tab_for_key("ArrowRight", 2, 3), Some(0));
        assert_eq!(tab_for_key("ArrowLeft", 0, 3), Some(2));
        assert_eq!(tab_for_key("ArrowUp", 2, 3), Some(1));
        assert_eq!(tab_for_key("Home", 2, 3), Some(0));
        assert_eq!(tab_for_key("End", 0, 3), Some(2));
        assert_eq!(tab_for_key("Enter", 0, 3), None);
        assert_eq!(tab_for_key("ArrowRight", 0, 0), None);
    }

    #[test]
    fn lines_split_like_an_editor() {
        let text = "a\r\nbb\n\nc";
        let lines = Lines::new(text);
        assert_eq!(lines.count(), 4);
        let all: Vec<&str> = (0..4).map(|i| lines.line(text, i)).collect();
        assert_eq!(all, ["a", "bb", "", "c"]);
        assert_eq!(lines.line(text, 9), "");
        assert_eq!(Lines::new("x\n").count(), 1);
        assert_eq!(Lines::new("").count(), 1);
    }

    #[test]
    fn a_short_text_is_drawn_whole_from_the_top() {
        let w = window(0.0, 400.0, 10);
        assert_eq!((w.first, w.count, w.offset, w.spacer), (0, 10, 0.0, 200.0));
    }

    #[test]
    fn a_million_lines_draw_only_what_is_in_view() {
        let lines = 1_000_000;
        let view = 600.0;
        let top = window(0.0, view, lines);
        assert!(top.count < 100, "{top:?}");
        assert!(top.spacer <= MAX_SPACER);
        // Scrolled to the very bottom, the last line is drawn.
        let bottom = window(top.spacer - view, view, lines);
        assert_eq!(bottom.first + bottom.count, lines);
        // Jumping to a line draws it, inside the view.
        for target in [0, 12_345, 500_000, 999_990] {
            let scroll = scroll_for(target, view, lines);
            let w = window(scroll, view, lines);
            assert!(
                (w.first..w.first + w.count).contains(&target),
                "{target}: {w:?}"
            );
            let y = w.offset + (target - w.first) as f64 * LINE_PX - scroll;
            assert!((0.0..view).contains(&y), "{target} drawn at {y}");
        }
    }
}
